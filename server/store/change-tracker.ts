import { diffTable, freezeWritten, snapshotTable, type TableChange, type TableName, type TableSnapshot } from './row-diff.js';
import type { DbSchema } from './schema.js';

/** The document a change edits, and the tables it reached (with their contents before it). */
export interface TrackedDocument {
  readonly doc: DbSchema;
  readonly snapshots: Map<TableName, TableSnapshot>;
}

/**
 * Wrap the document for one change: the first access to a table copies its top level (so the change
 * can be diffed and undone), and a change that named its tables may touch no other (a wrong list
 * cannot leave a reader's cache stale).
 */
export function trackChange(data: DbSchema, tables?: readonly TableName[]): TrackedDocument {
  const snapshots = new Map<TableName, TableSnapshot>();
  const allowed = tables === undefined ? null : new Set<PropertyKey>(tables);
  const reach = (key: PropertyKey) => {
    if (allowed && !allowed.has(key)) throw new Error(`a change limited to ${tables!.join(', ')} touched ${String(key)}`);
    if (typeof key === 'string' && key !== 'schemaVersion' && key in data && !snapshots.has(key as TableName))
      snapshots.set(key as TableName, snapshotTable(data, key as TableName));
  };
  const doc = new Proxy(data, {
    get: (target, key, receiver) => (reach(key), Reflect.get(target, key, receiver)),
    set: (target, key, value, receiver) => (reach(key), Reflect.set(target, key, value, receiver)),
    deleteProperty: (target, key) => (reach(key), Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, attributes) => (reach(key), Reflect.defineProperty(target, key, attributes)),
    has: (target, key) => (reach(key), Reflect.has(target, key)),
    getOwnPropertyDescriptor: (target, key) => (reach(key), Reflect.getOwnPropertyDescriptor(target, key)),
  });
  return { doc, snapshots };
}

/** What the change did to each table it reached (tables it only read come out empty and are dropped); written rows are frozen. */
export function collectChanges(data: DbSchema, snapshots: ReadonlyMap<TableName, TableSnapshot>): readonly TableChange[] {
  const changes: TableChange[] = [];
  for (const [table, before] of snapshots) {
    const change = diffTable(table, before, data[table]);
    if (change.inserts.length === 0 && change.updates.length === 0 && change.deletes.length === 0) continue;
    freezeWritten(change);
    changes.push(change);
  }
  return changes;
}

/** Put tables back as they were before a change (the first snapshot of each table wins: pass the oldest change first). */
export function restoreTables(data: DbSchema, snapshotsOldestFirst: readonly ReadonlyMap<TableName, TableSnapshot>[]): void {
  const restored = new Set<TableName>();
  for (const snapshots of snapshotsOldestFirst)
    for (const [table, before] of snapshots) {
      if (restored.has(table)) continue;
      restored.add(table);
      (data as unknown as Record<string, unknown>)[table] = Array.isArray(before) ? before.slice() : { ...before };
    }
}

/** Revision counters shared by both stores: one for everything, one per named table. */
export class Revisions {
  /** Changes that named no tables (and rollbacks): they move every revision. */
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

  /** Count a change (even one that will throw: it may have edited before it threw). */
  count(tables: readonly TableName[] | undefined): void {
    this.changes++;
    if (tables === undefined) {
      this.everything++;
      return;
    }
    for (const t of tables) this.byTable.set(t, (this.byTable.get(t) ?? 0) + 1);
  }
}
