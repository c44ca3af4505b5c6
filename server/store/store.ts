import { Low, type Adapter } from 'lowdb';
import { AppError } from '../http/errors.js';
import { migrate } from './migrations.js';
import { emptyDb, type DbSchema } from './schema.js';

/** Read access to the document; callers must not mutate what they read. */
export type DbView = Readonly<DbSchema>;

/** A top-level table of the document. */
export type TableName = Exclude<keyof DbSchema, 'schemaVersion'>;

/** The one way to read and change persisted metadata. Only repository modules use it. */
export interface Store {
  /** The current document (in memory; includes mutations whose write is still in flight). */
  readonly data: DbView;
  /**
   * Apply `change` synchronously and resolve once a write containing it has reached disk.
   * `change` must validate before it edits: a throw leaves nothing scheduled. Concurrent mutations
   * share one write (group commit). If the write fails, every mutation in it is rolled back (the
   * document is reloaded from disk) and rejected with an `unavailable` AppError.
   */
  mutate<R>(change: (db: DbSchema) => R, tables?: readonly TableName[]): Promise<R>;
  /** Like mutate, but does not wait for the disk: for progress and counters that may be lost in a crash. */
  touch(change: (db: DbSchema) => void, tables?: readonly TableName[]): void;
  /** Resolve when every mutation made so far is on disk. */
  flush(): Promise<void>;
  /** Migration steps applied when the store was opened. */
  readonly migrationsApplied: readonly string[];
  /**
   * Changes whenever the document may have changed (every mutate, touch and rollback), so readers
   * can cache what they derive from it and know when to drop it.
   */
  readonly revision: number;
  /**
   * Like `revision`, but unmoved by changes that named their tables (the `tables` argument of
   * mutate and touch) when none of those is in `tables`: frequent bookkeeping (usage counters,
   * token last use, job progress) then leaves readers of other tables their caches. A change that
   * names no tables moves every revision.
   */
  revisionOf(tables: readonly TableName[]): number;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** Open a store over an adapter: read (or create) the document and run migrations. */
export async function openStore(adapter: Adapter<DbSchema>): Promise<Store> {
  const low = new Low<DbSchema>(adapter, emptyDb());
  const raw = await adapter.read();
  const { db, applied } =
    raw === null ? { db: emptyDb(), applied: ['created a new document'] } : migrate(raw as unknown as Record<string, unknown>);
  low.data = db;
  const store = new GroupCommitStore(low, applied);
  if (applied.length > 0) await store.mutate(() => undefined);
  return store;
}

class GroupCommitStore implements Store {
  private readonly low: Low<DbSchema>;
  private queued: Waiter[] = [];
  private dirty = false;
  private writer: Promise<void> | null = null;
  readonly migrationsApplied: readonly string[];
  /** Changes that named no tables (and rollbacks): they move every revision. */
  private everything = 0;
  /** Changes per named table. */
  private readonly byTable = new Map<TableName, number>();
  private changes = 0;

  constructor(low: Low<DbSchema>, applied: readonly string[]) {
    this.low = low;
    this.migrationsApplied = applied;
  }

  get data(): DbView {
    return this.low.data;
  }

  get revision(): number {
    return this.changes;
  }

  revisionOf(tables: readonly TableName[]): number {
    let sum = this.everything;
    for (const t of tables) sum += this.byTable.get(t) ?? 0;
    return sum;
  }

  /** Count a change (even one that will throw: it may have edited before it threw) and give it the document, fenced to its tables if it named them. */
  private document(tables: readonly TableName[] | undefined): DbSchema {
    this.changes++;
    if (tables === undefined) {
      this.everything++;
      return this.low.data;
    }
    for (const t of tables) this.byTable.set(t, (this.byTable.get(t) ?? 0) + 1);
    return fenced(this.low.data, tables);
  }

  mutate<R>(change: (db: DbSchema) => R, tables?: readonly TableName[]): Promise<R> {
    let result: R;
    try {
      result = change(this.document(tables));
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<R>((resolve, reject) => {
      this.queued.push({ resolve: () => resolve(result), reject });
      this.dirty = true;
      this.startWriter();
    });
  }

  touch(change: (db: DbSchema) => void, tables?: readonly TableName[]): void {
    change(this.document(tables));
    this.dirty = true;
    this.startWriter();
  }

  async flush(): Promise<void> {
    while (this.writer) await this.writer;
  }

  private startWriter(): void {
    if (this.writer) return;
    this.writer = this.drain().finally(() => {
      this.writer = null;
      // A touch() that raced the end of the loop still gets its write.
      if (this.dirty) this.startWriter();
    });
  }

  /** Write until nothing is pending; everything that arrived during a write joins the next one. */
  private async drain(): Promise<void> {
    // Let mutations from the same turn of the event loop join the first write.
    await new Promise<void>((r) => setImmediate(r));
    while (this.dirty) {
      const batch = this.queued;
      this.queued = [];
      this.dirty = false;
      try {
        await this.low.write();
        for (const w of batch) w.resolve();
      } catch (error) {
        const failed = [...batch, ...this.queued];
        this.queued = [];
        this.dirty = false;
        await this.rollback();
        const err = new AppError('unavailable', 'The data store could not be written; nothing was changed. Try again.', { cause: error });
        for (const w of failed) w.reject(err);
      }
    }
  }

  /** Return to the last document that reached disk. */
  private async rollback(): Promise<void> {
    try {
      const raw = await this.low.adapter.read();
      if (raw !== null) this.low.data = migrate(raw as unknown as Record<string, unknown>).db;
      this.changes++;
      this.everything++;
    } catch {
      // Keep the in-memory state if even reading fails; the next write will try again.
    }
  }
}

/** The document as a change that named its tables sees it: touching any other table throws, so a wrong list cannot leave a reader's cache stale. */
function fenced(db: DbSchema, tables: readonly TableName[]): DbSchema {
  const allowed = new Set<PropertyKey>(tables);
  const check = (key: PropertyKey) => {
    if (!allowed.has(key)) throw new Error(`a change limited to ${tables.join(', ')} touched ${String(key)}`);
  };
  return new Proxy(db, {
    get: (target, key, receiver) => (check(key), Reflect.get(target, key, receiver)),
    set: (target, key, value, receiver) => (check(key), Reflect.set(target, key, value, receiver)),
    deleteProperty: (target, key) => (check(key), Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, attributes) => (check(key), Reflect.defineProperty(target, key, attributes)),
    has: (target, key) => (check(key), Reflect.has(target, key)),
    getOwnPropertyDescriptor: (target, key) => (check(key), Reflect.getOwnPropertyDescriptor(target, key)),
  });
}
