import {
  changeFromKeys,
  diffTable,
  freezeWritten,
  noteDelete,
  noteInsert,
  noteReplace,
  rowKeys,
  snapshotTable,
  type KeyState,
  type TableChange,
  type TableName,
  type TableSnapshot,
} from './row-diff.js';
import type { DbSchema } from './schema.js';

/** Array methods that never write the array (safe to run on it directly, unrecorded). */
const readOnlyMethods: ReadonlySet<string> = new Set([
  'at',
  'every',
  'filter',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'flatMap',
  'forEach',
  'includes',
  'indexOf',
  'join',
  'lastIndexOf',
  'map',
  'reduce',
  'slice',
  'some',
]);

/** One step that puts an array back as it was before one recorded write (applied newest first). */
type UndoStep =
  | { readonly kind: 'set'; readonly index: number; readonly old: unknown }
  | { readonly kind: 'length'; readonly length: number; readonly tail: readonly unknown[] };

/**
 * How one change reached one table. Row tables start `recorded`: appends, replacements of a row by a
 * row with the same key and truncations made through the array are logged as they happen (cost: the
 * rows written, not the table). Anything else (a reassigned table, a splice, a sort, a map table)
 * turns the table to `snapshot`: the contents before the change are rebuilt once and the table is
 * diffed whole at the end, as before.
 */
type TableTrack =
  | { kind: 'recorded'; readonly table: TableName; readonly undo: UndoStep[]; readonly keys: Map<string, KeyState> }
  | { kind: 'snapshot'; readonly table: TableName; readonly before: TableSnapshot };

/** The tables one change reached, what it did to each, and how to undo it. */
export class ChangeTrack {
  /** @internal */
  readonly tables = new Map<TableName, TableTrack>();

  constructor(private readonly data: DbSchema) {}

  /** What the change did to each table it wrote (tables it only read are left out); written rows are frozen. */
  collect(): readonly TableChange[] {
    const changes: TableChange[] = [];
    for (const track of this.tables.values()) {
      const change =
        track.kind === 'snapshot' ? diffTable(track.table, track.before, this.data[track.table]) : changeFromKeys(track.table, track.keys);
      if (change.inserts.length === 0 && change.updates.length === 0 && change.deletes.length === 0) continue;
      freezeWritten(change);
      changes.push(change);
    }
    return changes;
  }

  /** Put every table this change reached back as it was before it (later changes must be undone first). */
  undo(): void {
    for (const track of this.tables.values()) {
      if (track.kind === 'snapshot') {
        const before = track.before;
        (this.data as unknown as Record<string, unknown>)[track.table] = Array.isArray(before) ? before.slice() : { ...before };
      } else undoSteps(this.data[track.table] as unknown[], track.undo);
    }
  }

  /** The tables the change reached (read or wrote), for counting a change that threw and was undone. */
  reached(): readonly TableName[] {
    return [...this.tables.keys()];
  }

  /** Whether the change reached `table` and wrote it through the recorded path (for tests of the fast path). */
  recorded(table: TableName): boolean {
    return this.tables.get(table)?.kind === 'recorded';
  }
}

/** The document a change edits, and the record of what it did. */
export interface TrackedDocument {
  readonly doc: DbSchema;
  readonly track: ChangeTrack;
}

/**
 * Wrap the document for one change: each table it reaches is tracked (row tables through a proxy
 * that logs writes, map tables by a copy of their top level), so the change can be collected and
 * undone; a change that named its tables may touch no other (a wrong list cannot leave a reader's
 * cache stale).
 */
export function trackChange(data: DbSchema, tables?: readonly TableName[]): TrackedDocument {
  const track = new ChangeTrack(data);
  const proxies = new Map<TableName, { readonly target: unknown[]; readonly proxy: unknown[] }>();
  const allowed = tables === undefined ? null : new Set<PropertyKey>(tables);
  const reach = (key: PropertyKey): TableName | undefined => {
    if (allowed && !allowed.has(key)) throw new Error(`a change limited to ${tables!.join(', ')} touched ${String(key)}`);
    if (typeof key !== 'string' || key === 'schemaVersion' || !(key in data)) return undefined;
    const table = key as TableName;
    if (!track.tables.has(table)) {
      const value = data[table] as unknown;
      track.tables.set(
        table,
        Array.isArray(value)
          ? { kind: 'recorded', table, undo: [], keys: new Map() }
          : { kind: 'snapshot', table, before: snapshotTable(data, table) },
      );
    }
    return table;
  };
  /** Give up recording `table` for this change: rebuild its contents before the change and diff it whole at the end. */
  const toSnapshot = (table: TableName) => {
    const t = track.tables.get(table);
    if (t?.kind !== 'recorded') return;
    const before = (data[table] as unknown[]).slice();
    undoSteps(before, t.undo);
    track.tables.set(table, { kind: 'snapshot', table, before });
  };
  const arrayProxy = (table: TableName, target: unknown[]): unknown[] => {
    const known = proxies.get(table);
    if (known?.target === target) return known.proxy;
    const proxy = new Proxy(target, {
      // Read-only methods run on the array itself: element reads through a proxy cost 3–5× more.
      get: (arr, key) => {
        const value = Reflect.get(arr, key) as unknown;
        return typeof key === 'string' && readOnlyMethods.has(key) ? (value as (...args: unknown[]) => unknown).bind(arr) : value;
      },
      set: (arr, key, value) => {
        const t = track.tables.get(table);
        if (t?.kind !== 'recorded' || data[table] !== arr || !recordWrite(table, t, arr, key, value)) toSnapshot(table);
        return Reflect.set(arr, key, value);
      },
      deleteProperty: (arr, key) => {
        const t = track.tables.get(table);
        if (t?.kind !== 'recorded' || data[table] !== arr || !recordDelete(table, t, arr, key)) toSnapshot(table);
        return Reflect.deleteProperty(arr, key);
      },
      defineProperty: (arr, key, attributes) => (toSnapshot(table), Reflect.defineProperty(arr, key, attributes)),
    });
    proxies.set(table, { target, proxy });
    return proxy;
  };
  const doc = new Proxy(data, {
    get: (target, key) => {
      const table = reach(key);
      const value = Reflect.get(target, key) as unknown;
      return table !== undefined && Array.isArray(value) && track.tables.get(table)?.kind === 'recorded' ? arrayProxy(table, value) : value;
    },
    set: (target, key, value) => {
      const table = reach(key);
      if (table !== undefined) toSnapshot(table);
      return Reflect.set(target, key, value);
    },
    deleteProperty: (target, key) => (reach(key), Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, attributes) => (reach(key), Reflect.defineProperty(target, key, attributes)),
    has: (target, key) => (reach(key), Reflect.has(target, key)),
    getOwnPropertyDescriptor: (target, key) => (reach(key), Reflect.getOwnPropertyDescriptor(target, key)),
  });
  return { doc, track };
}

/**
 * Log one write to a recorded array before it happens, if it is one the log can express: an append
 * at the end, a replacement of a row by a row with the same key, or a truncation. False otherwise
 * (the caller falls back to a snapshot; nothing was logged).
 */
function recordWrite(
  table: TableName,
  t: Extract<TableTrack, { kind: 'recorded' }>,
  arr: unknown[],
  key: PropertyKey,
  value: unknown,
): boolean {
  const keyOf = rowKeys[table as keyof typeof rowKeys] as (row: unknown) => string;
  if (key === 'length') {
    const length = Number(value);
    if (!Number.isInteger(length) || length > arr.length) return false;
    if (length === arr.length) return true;
    const tail = arr.slice(length);
    t.undo.push({ kind: 'length', length, tail });
    // A slot pop() already emptied (recordDelete noted its row) reads as undefined.
    for (const row of tail) if (row !== undefined) noteDelete(t.keys, keyOf(row), row);
    return true;
  }
  if (typeof key !== 'string' || !/^(0|[1-9]\d*)$/.test(key) || value === null || typeof value !== 'object') return false;
  const index = Number(key);
  if (index === arr.length) {
    const k = keyOf(value);
    // A key the table holds already (not deleted by this change): left to the full diff, which reports it.
    if (t.keys.get(k)?.after !== undefined) return false;
    t.undo.push({ kind: 'length', length: arr.length, tail: [] });
    noteInsert(t.keys, k, value);
    return true;
  }
  if (index > arr.length) return false;
  const old = arr[index];
  if (old === value) return true;
  const k = keyOf(value);
  if (keyOf(old) !== k) return false;
  t.undo.push({ kind: 'set', index, old });
  noteReplace(t.keys, k, old, value);
  return true;
}

/** Log the delete of the last slot (what pop() does before it shortens the array); false for any other delete. */
function recordDelete(table: TableName, t: Extract<TableTrack, { kind: 'recorded' }>, arr: unknown[], key: PropertyKey): boolean {
  if (typeof key !== 'string' || key !== String(arr.length - 1)) return false;
  const old = arr[arr.length - 1];
  if (old === undefined) return true;
  t.undo.push({ kind: 'set', index: arr.length - 1, old });
  noteDelete(t.keys, (rowKeys[table as keyof typeof rowKeys] as (row: unknown) => string)(old), old);
  return true;
}

/** Run undo steps newest first on `arr`. */
function undoSteps(arr: unknown[], steps: readonly UndoStep[]): void {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    if (step.kind === 'set') arr[step.index] = step.old;
    else {
      arr.length = step.length;
      for (const row of step.tail) arr.push(row);
    }
  }
}

/** Undo changes (oldest first in the list): the newest is undone first, so each finds its tables as it left them. */
export function undoChanges(oldestFirst: readonly ChangeTrack[]): void {
  for (let i = oldestFirst.length - 1; i >= 0; i--) oldestFirst[i]!.undo();
}

/**
 * Revision counters shared by both stores: one for everything, one per table. A change is counted
 * after it ran, with the tables it wrote (whether it named them or not); a change that threw, with
 * the tables it reached before it was undone; a rollback of a failed write moves every revision.
 */
export class Revisions {
  /** Rollbacks (the document replaced or undone past several changes): they move every revision. */
  private everything = 0;
  private readonly byTable = new Map<TableName, number>();
  private changes = 0;

  get revision(): number {
    return this.changes;
  }

  revisionOf(tables: readonly TableName[]): number {
    let sum = this.everything;
    for (const t of tables) sum += this.byTable.get(t) ?? 0;
    return sum;
  }

  /** Count a change that wrote `tables`, or a rollback (`undefined`: every table may have changed). */
  count(tables: readonly TableName[] | undefined): void {
    this.changes++;
    if (tables === undefined) {
      this.everything++;
      return;
    }
    for (const t of tables) this.byTable.set(t, (this.byTable.get(t) ?? 0) + 1);
  }
}
