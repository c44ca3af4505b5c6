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
