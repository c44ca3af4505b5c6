import { Low, type Adapter } from 'lowdb';
import { AppError } from '../http/errors.js';
import { migrate } from './migrations.js';
import { emptyDb, type DbSchema } from './schema.js';

/** Read access to the document; callers must not mutate what they read. */
export type DbView = Readonly<DbSchema>;

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
  mutate<R>(change: (db: DbSchema) => R): Promise<R>;
  /** Like mutate, but does not wait for the disk: for progress and counters that may be lost in a crash. */
  touch(change: (db: DbSchema) => void): void;
  /** Resolve when every mutation made so far is on disk. */
  flush(): Promise<void>;
  /** Migration steps applied when the store was opened. */
  readonly migrationsApplied: readonly string[];
  /**
   * Changes whenever the document may have changed (every mutate, touch and rollback), so readers
   * can cache what they derive from it and know when to drop it.
   */
  readonly revision: number;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** Open a store over an adapter: read (or create) the document and run migrations. */
export async function openStore(adapter: Adapter<DbSchema>): Promise<Store> {
  const low = new Low<DbSchema>(adapter, emptyDb());
  const raw = await adapter.read();
  const { db, applied } = raw === null ? { db: emptyDb(), applied: ['created a new document'] } : migrate(raw as unknown as Record<string, unknown>);
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
  revision = 0;

  constructor(low: Low<DbSchema>, applied: readonly string[]) {
    this.low = low;
    this.migrationsApplied = applied;
  }

  get data(): DbView {
    return this.low.data;
  }

  mutate<R>(change: (db: DbSchema) => R): Promise<R> {
    let result: R;
    // Bumped even when change throws: it may have edited before it threw.
    this.revision++;
    try {
      result = change(this.low.data);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<R>((resolve, reject) => {
      this.queued.push({ resolve: () => resolve(result), reject });
      this.dirty = true;
      this.startWriter();
    });
  }

  touch(change: (db: DbSchema) => void): void {
    this.revision++;
    change(this.low.data);
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
      this.revision++;
    } catch {
      // Keep the in-memory state if even reading fails; the next write will try again.
    }
  }
}
