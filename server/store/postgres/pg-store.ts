import pg from 'pg';
import { AppError } from '../../http/errors.js';
import { Revisions, trackChange, undoChanges, type ChangeTrack } from '../change-tracker.js';
import { composeChanges, type TableChange, type TableName } from '../row-diff.js';
import type { DbSchema } from '../schema.js';
import type { DbView, Store } from '../store.js';
import { RunningNames } from '../run-alone.js';
import { runHoldingAdvisoryLock } from './pg-advisory-lock.js';
import { runPgMigrations } from './pg-migrate.js';
import { constraintError } from './pg-errors.js';
import { applyRemote, ChangeListener, changeChannel, loadDocument, logKeys, readChanges, type RemoteChanges } from './pg-change-feed.js';
import { encodeValue, rowsOf, tableSpecs, type TableSpec } from './pg-tables.js';

/** A change waiting for its commit; kept whole so it can run again on rows another node wrote meanwhile. */
interface Pending {
  readonly change: (db: DbSchema) => unknown;
  readonly tables: readonly TableName[] | undefined;
  changes: readonly TableChange[];
  track: ChangeTrack;
  result: unknown;
  /** Resolved, or rejected (a re-run threw): its mirror changes are no longer pending. */
  settled: boolean;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/** How a node follows the others (see docs/deploy/postgres.md, "Several application nodes"). */
export interface PgStoreOptions {
  /** How often the change log is read when no notification came (ms): the staleness bound when NOTIFY is lost. */
  readonly pollMs?: number;
  /** Change-log entries kept; a node further behind than that reloads every table. */
  readonly changeLogKeep?: number;
  /** False: follow by polling only (behind a pooler in transaction mode, where LISTEN cannot work). Default true. */
  readonly listen?: boolean;
}

/** Parameters per statement stay under PostgreSQL's limit of 65,535. */
const maxParams = 60_000;

/** int8 as a JS number (sizes, sequence values: far below 2^53), not pg's default string: every pool of the store's tables uses it. */
export const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Open the PostgreSQL store at `url`: run the schema migrations, load every table into the
 * in-memory mirror the repositories read (the same `DbSchema` document as the embedded store), and
 * follow other nodes' commits through the change log.
 */
export async function openPostgresStore(url: string, options: PgStoreOptions = {}): Promise<Store> {
  const applied = await runPgMigrations(url);
  // Two connections: the writer's transaction, and a whole reload a catch-up inside it may need.
  const pool = new pg.Pool({ connectionString: url, max: 2, types });
  // An idle connection that breaks (server restart) is dropped by the pool; the next write reconnects.
  pool.on('error', () => undefined);
  try {
    const { db, seq } = await loadDocument(pool);
    const store = new PgMirrorStore(url, pool, db, seq, applied, options);
    await store.follow(url);
    return store;
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** A store backed by PostgreSQL; `close` ends its connections once every write is committed. */
class PgMirrorStore implements Store {
  private readonly revisions = new Revisions();
  private queue: Pending[] = [];
  private writer: Promise<void> | null = null;
  private closed = false;
  private syncWanted = false;
  private listener: ChangeListener | null = null;
  private poll: NodeJS.Timeout | null = null;
  private readonly alone = new RunningNames();

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly db: DbSchema,
    /** The change-log number the mirror is current to (every commit up to it is in the mirror). */
    private seen: number,
    readonly migrationsApplied: readonly string[],
    private readonly options: PgStoreOptions,
  ) {}

  get data(): DbView {
    return this.db;
  }

  get revision(): number {
    return this.revisions.revision;
  }

  revisionOf(tables: readonly TableName[]): number {
    return this.revisions.revisionOf(tables);
  }

  /** LISTEN for other nodes' commits, and read the change log every pollMs in case a notification was lost. */
  async follow(url: string): Promise<void> {
    this.listener = new ChangeListener(url, (seq) => {
      if (seq === undefined || seq > this.seen) this.requestSync();
    });
    if (this.options.listen !== false) await this.listener.start();
    this.poll = setInterval(() => this.requestSync(), this.options.pollMs ?? 1000);
    this.poll.unref();
  }

  mutate<R>(change: (db: DbSchema) => R, tables?: readonly TableName[]): Promise<R> {
    // The executor runs now: the change is applied before mutate returns; a throw rejects.
    return new Promise<R>((resolve, reject) => this.enqueue(this.run(change, tables, resolve as (r: unknown) => void, reject)));
  }

  touch(change: (db: DbSchema) => void, tables?: readonly TableName[]): void {
    // Nobody waits for a touch: if its write fails it is undone in the mirror (with the changes queued after it) and dropped.
    this.enqueue(
      this.run(
        change,
        tables,
        () => undefined,
        () => undefined,
      ),
    );
  }

  async flush(): Promise<void> {
    while (this.writer) await this.writer;
  }

  async sync(): Promise<void> {
    // The writer catches up when its queue is empty, or under the head lock at its next commit.
    this.requestSync();
    await this.flush();
  }

  runAlone(name: string, work: () => Promise<void>): Promise<boolean> {
    return this.alone.run(name, () => runHoldingAdvisoryLock(this.url, name, work));
  }

  async close(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    await this.listener?.stop();
    await this.flush();
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private run(
    change: (db: DbSchema) => unknown,
    tables: readonly TableName[] | undefined,
    resolve: Pending['resolve'],
    reject: Pending['reject'],
  ) {
    const [result, changes, track] = this.apply(change, tables);
    return { change, tables, result, changes, track, settled: false, resolve, reject } satisfies Pending;
  }

  /** Run a change on the mirror: undone if it throws; otherwise the rows it wrote, found by identity. */
  private apply(change: (db: DbSchema) => unknown, tables: readonly TableName[] | undefined) {
    if (this.closed) throw new AppError('unavailable', 'The data store is closed.');
    const { doc, track } = trackChange(this.db, tables);
    let result: unknown;
    try {
      result = change(doc);
    } catch (error) {
      track.undo();
      // It may have edited (and a reader derived from the edit) before it threw.
      this.revisions.count(track.reached());
      throw error;
    }
    const changes = track.collect();
    this.revisions.count(changes.map((c) => c.table));
    return [result, changes, track] as const;
  }

  private enqueue(pending: Pending): void {
    this.queue.push(pending);
    this.startWriter();
  }

  /** Catch up with the change log soon (a notification came, the poll ticked, the listener reconnected). */
  private requestSync(): void {
    if (this.closed) return;
    this.syncWanted = true;
    this.startWriter();
  }

  private startWriter(): void {
    this.writer ??= this.drain().finally(() => {
      this.writer = null;
      // A change queued between the loop's last check and now still gets its write.
      if (this.queue.length > 0 || this.syncWanted) this.startWriter();
    });
  }

  /**
   * Commit queued changes in the order they were applied to the mirror, and catch up with other
   * nodes between commits. Everything queued is committed as one transaction (group commit),
   * written as the batch's changes composed by key. If that fails, the batch's changes are committed
   * one by one to find the one that fails: those before it stand; it and every change queued after it
   * are undone in the mirror, so the mirror equals what is committed.
   */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.syncWanted) {
      if (this.queue.length === 0) {
        this.syncWanted = false;
        try {
          const remote = await readChanges(this.pool, this.pool, this.seen);
          if (remote) this.catchUp(remote, this.queue);
        } catch {
          // The database is unreachable: the next notification, poll or write tries again.
        }
        continue;
      }
      const batch = this.queue;
      this.queue = [];
      // Nothing written (reads through mutate, touches that changed nothing): no commit, so no head lock
      // (which would hold up every node's commits) and no round trips. The mirror catches up as usual.
      if (batch.every((p) => p.settled || p.changes.length === 0)) {
        for (const p of batch) if (!p.settled) settle(p);
        continue;
      }
      try {
        await this.commit(batch, []);
        continue;
      } catch (error) {
        if (batch.length === 1) {
          this.fail(batch, error);
          continue;
        }
      }
      // Mirror changes made since the batch was taken are behind it in the queue; they stay there.
      for (let i = 0; i < batch.length; i++) {
        const entry = batch[i]!;
        if (entry.settled) continue;
        try {
          await this.commit([entry], batch.slice(i + 1));
        } catch (error) {
          this.fail(batch.slice(i), error);
          break;
        }
      }
    }
  }

  /**
   * Put other nodes' commits into the mirror under the changes still pending here: those are undone,
   * the rows applied, and the changes run again on the fresh rows (a change that now throws, e.g.
   * because another node took the path it wanted, is rejected with its error).
   */
  private catchUp(remote: RemoteChanges, pending: readonly Pending[]): void {
    const live = pending.filter((p) => !p.settled);
    undoChanges(live.map((p) => p.track));
    const changed = applyRemote(this.db, remote);
    this.seen = remote.upTo;
    // The undone changes' tables moved too (a cache may hold rows they added, e.g. the projects index).
    this.revisions.count(changed && [...new Set([...changed, ...live.flatMap((p) => p.track.reached())])]);
    for (const p of live) {
      try {
        [p.result, p.changes, p.track] = this.apply(p.change, p.tables);
      } catch (error) {
        p.settled = true;
        p.reject(error);
      }
    }
  }

  /** Undo `failed` (oldest first) and everything queued behind it in the mirror; reject them all. */
  private fail(failed: readonly Pending[], error: unknown): void {
    const all = [...failed, ...this.queue].filter((p) => !p.settled);
    this.queue = [];
    if (all.length === 0) return;
    undoChanges(all.map((p) => p.track));
    this.revisions.count(undefined);
    const unavailable = new AppError('unavailable', 'The data store could not be written; nothing was changed. Try again.', {
      cause: error,
    });
    for (const p of all) p.settled = true;
    all[0]!.reject(constraintError(error) ?? unavailable);
    for (const p of all.slice(1)) p.reject(unavailable);
  }

  /**
   * Commit `entries` as one transaction. It first takes the change-log head (UPDATE … RETURNING
   * locks its one row to COMMIT): commits of every node are serialized and numbered. If another
   * node committed since this mirror was current, its rows are read under that lock and the pending
   * changes (`entries`, then `behind` and the queue) run again on them before anything is written, so
   * no change computed on stale rows (or a stale id sequence) is committed. Then deletes (a moved
   * row is deleted, then inserted), replaced rows, new rows (plain INSERTs: a key taken fails the
   * write), the change-log entry, and NOTIFY with COMMIT.
   */
  private async commit(entries: readonly Pending[], behind: readonly Pending[]): Promise<void> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      const [, head] = (await client.query('BEGIN; UPDATE change_log_head SET seq = seq + 1 RETURNING seq')) as unknown as pg.QueryResult<{
        seq: number;
      }>[];
      const seq = head!.rows[0]!.seq;
      if (seq - 1 > this.seen) {
        const remote = await readChanges(this.pool, client, this.seen, seq - 1);
        if (remote) this.catchUp(remote, [...entries, ...behind, ...this.queue]);
      }
      const live = entries.filter((p) => !p.settled);
      const changes = live.length === 1 ? live[0]!.changes : composeChanges(live.map((p) => p.changes));
      if (changes.length === 0) await client.query('ROLLBACK');
      else {
        await this.write(client, changes, seq);
        const keep = this.options.changeLogKeep ?? 10_000;
        // Every 100th commit prunes the log, in the COMMIT's round trip (seq is a number read back: safe inline).
        const prune = seq % Math.min(keep, 100) === 0 ? `DELETE FROM change_log WHERE seq <= ${seq - keep}; ` : '';
        await client.query(`${prune}SELECT pg_notify('${changeChannel}', '${seq}'); COMMIT`);
        this.seen = seq;
      }
      for (const p of live) settle(p);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** A change's rows and its change-log entry; as one statement of data-modifying CTEs when that is safe. */
  private async write(client: pg.PoolClient, changes: readonly TableChange[], seq: number): Promise<void> {
    const statements: Statement[] = [];
    for (const change of changes) if (change.deletes.length > 0) statements.push(...deleteStatements(tableSpecs[change.table], change));
    for (const change of changes)
      if (change.updates.length > 0) statements.push(...writeStatements(tableSpecs[change.table], change.updates, true));
    for (const change of changes)
      if (change.inserts.length > 0) statements.push(...writeStatements(tableSpecs[change.table], change.inserts, false));
    statements.push({ text: 'INSERT INTO change_log (seq, keys) VALUES ($1, $2)', params: [seq, JSON.stringify(logKeys(changes))] });
    // The parts of one statement share a snapshot and run in no set order: only when no table is both
    // replaced and added to (a rename freeing a path another row takes) and nothing is deleted.
    const separate = changes.some((c) => c.deletes.length > 0 || (c.updates.length > 0 && c.inserts.length > 0));
    const single = separate ? null : oneStatement(statements);
    if (single) await client.query(single.text, single.params as unknown[]);
    else for (const st of statements) await client.query(st.text, st.params as unknown[]);
  }
}

/** Resolve a pending change with its result: it is no longer undone or run again. */
function settle(p: Pending): void {
  p.settled = true;
  p.resolve(p.result);
}

/** One SQL statement and its parameters ($1… numbered from 1). */
export interface Statement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/**
 * Statements as one: each a data-modifying CTE of one SELECT (PostgreSQL runs it as one implicit
 * transaction; deferred foreign keys are checked at its end). Null when there are several and their
 * parameters would pass the limit.
 */
function oneStatement(statements: readonly Statement[]): Statement | null {
  if (statements.length === 1) return statements[0]!;
  if (statements.reduce((n, st) => n + st.params.length, 0) > maxParams) return null;
  const params: unknown[] = [];
  const parts = statements.map((st, i) => {
    const offset = params.length;
    params.push(...st.params);
    return `w${i} AS (${st.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  return { text: `WITH ${parts.join(', ')} SELECT 1`, params };
}

function deleteStatements(spec: TableSpec, change: TableChange): Statement[] {
  const rows = rowsOf(spec, change.deletes);
  const per = Math.floor(maxParams / spec.key.length);
  const out: Statement[] = [];
  for (let start = 0; start < rows.length; start += per) {
    const chunk = rows.slice(start, start + per);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => `(${spec.key.map((k) => `$${params.push(k.value(row))}`).join(', ')})`);
    out.push({ text: `DELETE FROM ${spec.sql} WHERE (${spec.key.map((k) => k.column).join(', ')}) IN (${tuples.join(', ')})`, params });
  }
  return out;
}

/** INSERT rows (map tables: `[name, value]` entries) in their order (replacing rows with the same key when `replace`). */
export function writeStatements(spec: TableSpec, items: readonly unknown[], replace: boolean): Statement[] {
  const rows = rowsOf(spec, items);
  const cols = spec.columns;
  const keyColumns = new Set(spec.key.map((k) => k.column));
  const updates = cols.filter((c) => !keyColumns.has(c.column)).map((c) => `${c.column} = EXCLUDED.${c.column}`);
  const conflict = !replace
    ? ''
    : ` ON CONFLICT (${spec.key.map((k) => k.column).join(', ')}) ${updates.length > 0 ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING'}`;
  const per = Math.floor(maxParams / cols.length);
  const out: Statement[] = [];
  for (let start = 0; start < rows.length; start += per) {
    const chunk = rows.slice(start, start + per);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => `(${cols.map((c) => `$${params.push(encodeValue(c.type, row[c.field]))}`).join(', ')})`);
    // VALUES keeps the rows' order, so new rows get `ord` in the order the document holds them.
    out.push({ text: `INSERT INTO ${spec.sql} (${cols.map((c) => c.column).join(', ')}) VALUES ${tuples.join(', ')}${conflict}`, params });
  }
  return out;
}
