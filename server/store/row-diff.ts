import type { DbSchema } from './schema.js';

/** A top-level table of the document. */
export type TableName = Exclude<keyof DbSchema, 'schemaVersion'>;

/** Tables that are arrays of rows (the others, `sequences` and `usage`, are maps keyed by name). */
export type RowTableName = Exclude<TableName, 'sequences' | 'usage'>;

/** Every table, in the order a write applies them (parents before children, for readability of logs only). */
export const tableNames: readonly TableName[] = [
  'sequences',
  'tenants',
  'users',
  'namespaces',
  'groups',
  'groupMembers',
  'tokens',
  'jobs',
  'sources',
  'projects',
  'stars',
  'projectShares',
  'uploads',
  'hooks',
  'groupBadges',
  'projectBadges',
  'notificationSettings',
  'projectExports',
  'lfsLinks',
  'lfsLocks',
  'usage',
];

/** Each row table's primary key, as a function of the row (a string, so composite keys compare by value). */
export const rowKeys: { readonly [T in RowTableName]: (row: DbSchema[T][number]) => string } = {
  users: (r) => String(r.id),
  tenants: (r) => r.id,
  namespaces: (r) => String(r.id),
  groups: (r) => String(r.id),
  groupMembers: (r) => `${r.groupId}/${r.userId}`,
  tokens: (r) => String(r.id),
  jobs: (r) => r.jobId,
  sources: (r) => r.url,
  projects: (r) => String(r.id),
  stars: (r) => `${r.projectId}/${r.userId}`,
  projectShares: (r) => String(r.id),
  uploads: (r) => String(r.id),
  hooks: (r) => String(r.id),
  groupBadges: (r) => String(r.id),
  projectBadges: (r) => String(r.id),
  notificationSettings: (r) => `${r.userId}/${r.source}/${r.sourceId ?? ''}`,
  projectExports: (r) => String(r.projectId),
  lfsLinks: (r) => `${r.projectId}/${r.oid}`,
  lfsLocks: (r) => String(r.id),
};

/** What one change did to one table: rows added, rows replaced, rows deleted. */
export interface TableChange {
  readonly table: TableName;
  /** Rows (or, for map tables, `[name, value]` entries) whose key is new, in the table's order. */
  readonly inserts: readonly unknown[];
  /** Rows (or entries) that replaced a row with the same key. */
  readonly updates: readonly unknown[];
  /** The values a row table's or map table's deleted rows had (rows, or `[name, value]` entries). */
  readonly deletes: readonly unknown[];
}

/** A table's contents before a change: a shallow copy of its array or map. */
export type TableSnapshot = readonly unknown[] | Readonly<Record<string, unknown>>;

/** Copy a table's top level (cheap: pointers only) so a change can be diffed against it and undone. */
export function snapshotTable(db: DbSchema, table: TableName): TableSnapshot {
  const value = db[table] as unknown;
  return Array.isArray(value) ? value.slice() : { ...(value as Record<string, unknown>) };
}

/**
 * The rows a change wrote and deleted, found by object identity: rows are immutable, so a row that is
 * the same object as before is unchanged. Rows keep their order across changes (appends, in-place
 * replacements, filters), so one merge walk suffices; anything else (a reorder) degrades to
 * deleting and rewriting the moved rows, which is still exact.
 */
export function diffTable(table: TableName, before: TableSnapshot, after: unknown): TableChange {
  if (table === 'sequences' || table === 'usage')
    return diffMap(table, before as Record<string, unknown>, after as Record<string, unknown>);
  const key = rowKeys[table] as (row: unknown) => string;
  const old = before as readonly unknown[];
  const now = after as readonly unknown[];
  const inserts: unknown[] = [];
  const updates: unknown[] = [];
  const deletes: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < old.length && j < now.length) {
    if (old[i] === now[j]) {
      i++;
      j++;
    } else if (key(old[i]) === key(now[j])) {
      updates.push(now[j]);
      i++;
      j++;
    } else {
      deletes.push(old[i]);
      i++;
    }
  }
  for (; i < old.length; i++) deletes.push(old[i]);
  for (; j < now.length; j++) inserts.push(now[j]);
  // A key both deleted and inserted (a row moved) is deleted first, then inserted: still exact.
  return { table, inserts, updates, deletes };
}

/**
 * The net effect of several changes applied one after another (oldest first), per table, by key: a
 * row added then replaced is one insert of its last value, added then deleted is nothing, replaced
 * then deleted is a delete. A key deleted and added again is written as a delete then an insert, and
 * inserts come in the order the rows were last added, so the committed order matches the mirror's.
 */
export function composeChanges(oldestFirst: readonly (readonly TableChange[])[]): readonly TableChange[] {
  const perTable = new Map<TableName, Map<string, KeyState>>();
  for (const changes of oldestFirst)
    for (const change of changes) {
      const keyOf = entryKey(change.table);
      let keys = perTable.get(change.table);
      if (!keys) perTable.set(change.table, (keys = new Map()));
      for (const row of change.deletes) noteDelete(keys, keyOf(row), row);
      // Changes carry only the new row: it stands in for the one before (a later move deletes by key).
      for (const row of change.updates) noteReplace(keys, keyOf(row), row, row);
      for (const row of change.inserts) noteInsert(keys, keyOf(row), row);
    }
  const out: TableChange[] = [];
  for (const [table, keys] of perTable) {
    const change = changeFromKeys(table, keys);
    if (change.inserts.length + change.updates.length + change.deletes.length > 0) out.push(change);
  }
  return out;
}

/** What a run of writes did to one key of a table. */
export interface KeyState {
  /** The row the key had before the run (undefined: the key is new). */
  before: unknown;
  /** The row it has now (undefined: deleted). */
  after: unknown;
  /** Deleted, then added again at the end during the run (written as a delete and an insert, so its order holds). */
  moved: boolean;
}

/** Note that key `k` was added with `row` (re-added after a delete in the run: moved to the end of the key order). */
export function noteInsert(keys: Map<string, KeyState>, k: string, row: unknown): void {
  const state = keys.get(k);
  // Inserts keep the order the rows were last added in.
  keys.delete(k);
  keys.set(
    k,
    state ? { before: state.before, after: row, moved: state.before !== undefined } : { before: undefined, after: row, moved: false },
  );
}

/** Note that key `k`, holding `row` before the run if first seen here, was deleted. */
export function noteDelete(keys: Map<string, KeyState>, k: string, row: unknown): void {
  const state = keys.get(k);
  if (state) state.after = undefined;
  else keys.set(k, { before: row, after: undefined, moved: false });
}

/** Note that key `k`'s row (`before`, if first seen here) was replaced by `after`. */
export function noteReplace(keys: Map<string, KeyState>, k: string, before: unknown, after: unknown): void {
  const state = keys.get(k);
  if (state) state.after = after;
  else keys.set(k, { before, after, moved: false });
}

/** A table's net change from its keys' states, new rows in the order they were added (a moved row: deleted, then inserted). */
export function changeFromKeys(table: TableName, keys: ReadonlyMap<string, KeyState>): TableChange {
  const inserts: unknown[] = [];
  const updates: unknown[] = [];
  const deletes: unknown[] = [];
  for (const s of keys.values()) {
    if (s.before === undefined) {
      if (s.after !== undefined) inserts.push(s.after);
    } else if (s.after === undefined) deletes.push(s.before);
    else if (s.moved) {
      deletes.push(s.before);
      inserts.push(s.after);
    } else updates.push(s.after);
  }
  return { table, inserts, updates, deletes };
}

/** How to key a table's change entries: rows by their primary key, map entries by name. */
function entryKey(table: TableName): (entry: unknown) => string {
  if (table === 'sequences' || table === 'usage') return (entry) => (entry as [string, unknown])[0];
  return rowKeys[table] as (row: unknown) => string;
}

function diffMap(table: TableName, before: Record<string, unknown>, after: Record<string, unknown>): TableChange {
  const inserts: [string, unknown][] = [];
  const updates: [string, unknown][] = [];
  const deletes: [string, unknown][] = [];
  for (const [name, value] of Object.entries(after))
    if (!(name in before)) inserts.push([name, value]);
    else if (before[name] !== value) updates.push([name, value]);
  for (const [name, value] of Object.entries(before)) if (!(name in after)) deletes.push([name, value]);
  return { table, inserts, updates, deletes };
}

/** Freeze a value and everything it holds, so an in-place edit of a stored row throws instead of bypassing the write path. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value as object)) deepFreeze(inner);
  return value;
}

/** Freeze the rows a change wrote (map tables: their values; sequences hold numbers). */
export function freezeWritten(change: TableChange): void {
  if (change.table === 'sequences') return;
  for (const row of [...change.inserts, ...change.updates]) deepFreeze(change.table === 'usage' ? (row as [string, unknown])[1] : row);
}

/** Freeze every row of a document (at open). */
export function freezeRows(db: DbSchema): void {
  for (const table of tableNames) {
    if (table === 'sequences') continue;
    const value = db[table] as unknown;
    for (const row of Array.isArray(value) ? value : Object.values(value as object)) deepFreeze(row);
  }
}
