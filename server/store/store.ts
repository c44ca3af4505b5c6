import { Low, type Adapter } from 'lowdb';
import { AppError } from '../http/errors.js';
import { Revisions, trackChange } from './change-tracker.js';
import { migrate } from './migrations.js';
import { freezeRows, type TableName } from './row-diff.js';
import { RunningNames } from './run-alone.js';
import { emptyDb, type DbSchema } from './schema.js';

export type { TableName } from './row-diff.js';

/** Read access to the document; callers must not mutate what they read. */
export type DbView = Readonly<DbSchema>;

/** The one way to read and change persisted metadata. Only repository modules use it. */
export interface Store {
  /** The current document (in memory; includes mutations whose write is still in flight). */
  readonly data: DbView;
  /**
   * Apply `change` synchronously and resolve once a write containing it has reached disk.
   * A change that throws leaves nothing scheduled and the tables it reached as they were. Rows are
   * frozen: a change replaces a row (`d.t[i] = { ...row, ...patch }`) rather than editing it. Concurrent mutations
   * share one write (group commit). If the write fails, every mutation in it is rolled back (the
   * document is reloaded from disk) and rejected with an `unavailable` AppError.
   */
  mutate<R>(change: (db: DbSchema) => R, tables?: readonly TableName[]): Promise<R>;
  /** Like mutate, but does not wait for the disk: for progress and counters that may be lost in a crash. */
  touch(change: (db: DbSchema) => void, tables?: readonly TableName[]): void;
  /** Resolve when every mutation made so far is on disk. */
  flush(): Promise<void>;
  /**
   * Resolve once the document holds every write other processes committed before the call
   * (PostgreSQL shared by several nodes; the embedded store has no other writer: a flush). For a
   * decision that must not rest on a mirror a few milliseconds behind, e.g. that nobody owns a file.
   */
  sync(): Promise<void>;
  /**
   * Run `work` unless a process sharing this store (another node on the PostgreSQL database, or this
   * process) is running work under the same `name` now; resolves to false when it was skipped. For
   * periodic upkeep one node at a time does (the embedded store has one owner: only this process counts).
   */
  runAlone(name: string, work: () => Promise<void>): Promise<boolean>;
  /** Flush, then let go of what the store holds (the database connections); the store takes no writes after. */
  close(): Promise<void>;
  /** Migration steps applied when the store was opened. */
  readonly migrationsApplied: readonly string[];
  /**
   * Changes whenever the document may have changed (every mutate, touch and rollback), so readers
   * can cache what they derive from it and know when to drop it.
   */
  readonly revision: number;
  /**
   * Like `revision`, but moved only by changes that wrote one of `tables` (counted after the change,
   * from the rows it actually wrote, whether or not it named its tables), by a change that threw
   * after reaching one of them, and by every rollback: frequent bookkeeping (usage counters, token
   * last use, job progress) and writes elsewhere leave readers of other tables their caches. Inside
   * a change it still reads as before the change.
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
  freezeRows(db);
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
  private readonly revisions = new Revisions();
  private readonly alone = new RunningNames();

  constructor(low: Low<DbSchema>, applied: readonly string[]) {
    this.low = low;
    this.migrationsApplied = applied;
  }

  get data(): DbView {
    return this.low.data;
  }

  get revision(): number {
    return this.revisions.revision;
  }

  revisionOf(tables: readonly TableName[]): number {
    return this.revisions.revisionOf(tables);
  }

  /** Run a change on the document (fenced to its tables if it named them): undone if it throws, its written rows frozen if not. */
  private apply<R>(change: (db: DbSchema) => R, tables: readonly TableName[] | undefined): R {
    const { doc, track } = trackChange(this.low.data, tables);
    let result: R;
    try {
      result = change(doc);
    } catch (error) {
      track.undo();
      // It may have edited (and a reader derived from the edit) before it threw.
      this.revisions.count(track.reached());
      throw error;
    }
    this.revisions.count(track.collect().map((c) => c.table));
    return result;
  }

  mutate<R>(change: (db: DbSchema) => R, tables?: readonly TableName[]): Promise<R> {
    let result: R;
    try {
      result = this.apply(change, tables);
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
    this.apply(change, tables);
    this.dirty = true;
    this.startWriter();
  }

  async flush(): Promise<void> {
    while (this.writer) await this.writer;
  }

  close(): Promise<void> {
    return this.flush();
  }

  sync(): Promise<void> {
    return this.flush();
  }

  runAlone(name: string, work: () => Promise<void>): Promise<boolean> {
    return this.alone.run(name, async () => {
      await work();
      return true;
    });
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
      if (raw !== null) {
        const { db } = migrate(raw as unknown as Record<string, unknown>);
        freezeRows(db);
        this.low.data = db;
      }
      this.revisions.count(undefined);
    } catch {
      // Keep the in-memory state if even reading fails; the next write will try again.
    }
  }
}
