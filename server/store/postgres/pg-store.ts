import pg from 'pg';
import { AppError } from '../../http/errors.js';
import { Revisions, trackChange, undoChanges, type ChangeTrack } from '../change-tracker.js';
import { composeChanges, freezeRows, tableNames, type TableChange, type TableName } from '../row-diff.js';
import { emptyDb, type DbSchema } from '../schema.js';
import type { DbView, Store } from '../store.js';
import { runPgMigrations } from './pg-migrate.js';
import { constraintError } from './pg-errors.js';
import { decodeRow, encodeValue, tableSpecs, type TableSpec } from './pg-tables.js';

interface Pending {
  readonly changes: readonly TableChange[];
  readonly track: ChangeTrack;
  resolve(): void;
  reject(error: unknown): void;
}

/** Parameters per statement stay under PostgreSQL's limit of 65,535. */
const maxParams = 60_000;

/** int8 as a JS number (sizes, sequence values: far below 2^53), not pg's default string: every pool of the store's tables uses it. */
export const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Open the PostgreSQL store at `url`: run the schema migrations, then load every table into the
 * in-memory mirror the repositories read (the same `DbSchema` document as the embedded store).
 */
export async function openPostgresStore(url: string): Promise<Store> {
  const applied = await runPgMigrations(url);
  const pool = new pg.Pool({ connectionString: url, max: 1, types });
  // An idle connection that breaks (server restart) is dropped by the pool; the next write reconnects.
  pool.on('error', () => undefined);
  try {
    const db = await loadDocument(pool);
    return new PgMirrorStore(pool, db, applied);
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** Read every table in document order into a fresh document, rows frozen (a client inside a transaction sees its own writes). */
export async function loadDocument(pool: Pick<pg.Pool, 'query'>): Promise<DbSchema> {
  const db = emptyDb();
  for (const table of tableNames) {
    const spec = tableSpecs[table];
    const cols = spec.columns.map((c) => c.column).join(', ');
    const { rows } = await pool.query<Record<string, unknown>>(`SELECT ${cols} FROM ${spec.sql} ORDER BY ord`);
    const records = rows.map((row) => decodeRow(spec, row));
    if (table === 'sequences') for (const r of records) db.sequences[r.name as string] = r.value as number;
    else if (table === 'usage')
      for (const { tenant, ...usage } of records) db.usage[tenant as string] = usage as unknown as DbSchema['usage'][string];
    else (db as unknown as Record<string, unknown>)[table] = records;
  }
  freezeRows(db);
  return db;
}

/** A store backed by PostgreSQL; `close` ends its connections once every write is committed. */
class PgMirrorStore implements Store {
  private readonly revisions = new Revisions();
  private queue: Pending[] = [];
  private writer: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly db: DbSchema,
    readonly migrationsApplied: readonly string[],
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

  mutate<R>(change: (db: DbSchema) => R, tables?: readonly TableName[]): Promise<R> {
    let result: R;
    let pending: Omit<Pending, 'resolve' | 'reject'>;
    try {
      [result, pending] = this.apply(change, tables);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<R>((resolve, reject) => this.enqueue({ ...pending, resolve: () => resolve(result), reject }));
  }

  touch(change: (db: DbSchema) => void, tables?: readonly TableName[]): void {
    const [, pending] = this.apply(change, tables);
    // Nobody waits for a touch: if its write fails it is undone in the mirror (with the changes queued after it) and dropped.
    this.enqueue({ ...pending, resolve: () => undefined, reject: () => undefined });
  }

  async flush(): Promise<void> {
    while (this.writer) await this.writer;
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** Run a change on the mirror: undone if it throws; otherwise the rows it wrote, found by identity. */
  private apply<R>(change: (db: DbSchema) => R, tables: readonly TableName[] | undefined) {
    if (this.closed) throw new AppError('unavailable', 'The data store is closed.');
    const { doc, track } = trackChange(this.db, tables);
    let result: R;
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
    return [result, { changes, track }] as const;
  }

  private enqueue(pending: Pending): void {
    this.queue.push(pending);
    this.startWriter();
  }

  private startWriter(): void {
    this.writer ??= this.drain().finally(() => {
      this.writer = null;
      // A change queued between the loop's last check and now still gets its write.
      if (this.queue.length > 0) this.startWriter();
    });
  }

  /**
   * Commit queued changes in the order they were applied to the mirror. Everything queued is
   * committed as one transaction (group commit: a burst costs one round of statements and one WAL
   * flush), written as the batch's changes composed by key (composeChanges: no pass over the
   * tables). If that fails, the batch's changes are committed one by one to find the one that
   * fails: those before it stand; it and every change queued after it (applied on top of it) are
   * undone in the mirror, so the mirror equals what is committed.
   */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      if (batch.every((p) => p.changes.length === 0)) {
        for (const p of batch) p.resolve();
        continue;
      }
      try {
        await this.commit(batch.length === 1 ? batch[0]!.changes : composeChanges(batch.map((p) => p.changes)));
        for (const p of batch) p.resolve();
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
        try {
          if (entry.changes.length > 0) await this.commit(entry.changes);
          entry.resolve();
        } catch (error) {
          this.fail(batch.slice(i), error);
          break;
        }
      }
    }
  }

  /** Undo `failed` (oldest first) and everything queued behind it in the mirror; reject them all. */
  private fail(failed: readonly Pending[], error: unknown): void {
    const all = [...failed, ...this.queue];
    this.queue = [];
    undoChanges(all.map((p) => p.track));
    this.revisions.count(undefined);
    const unavailable = new AppError('unavailable', 'The data store could not be written; nothing was changed. Try again.', {
      cause: error,
    });
    all[0]!.reject(constraintError(error) ?? unavailable);
    for (const p of all.slice(1)) p.reject(unavailable);
  }

  /**
   * Write one change's rows in one transaction: deletes first (a moved row is deleted, then
   * inserted), then replaced rows, then new rows. New rows are plain INSERTs: a key another writer
   * took meanwhile fails the write instead of overwriting that writer's row. A write that only adds
   * to some tables and replaces rows in others (a create: its row and its sequence) goes as one
   * statement of data-modifying CTEs: one round trip instead of four (BEGIN, two writes, COMMIT).
   */
  private async commit(changes: readonly TableChange[]): Promise<void> {
    const statements: Statement[] = [];
    for (const change of changes) if (change.deletes.length > 0) statements.push(...deleteStatements(tableSpecs[change.table], change));
    for (const change of changes)
      if (change.updates.length > 0) statements.push(...writeStatements(tableSpecs[change.table], change.updates, true));
    for (const change of changes)
      if (change.inserts.length > 0) statements.push(...writeStatements(tableSpecs[change.table], change.inserts, false));
    // The parts of one statement share a snapshot and run in no set order: only when no table is both
    // replaced and added to (a rename freeing a path another row takes) and nothing is deleted.
    const separate = changes.some((c) => c.deletes.length > 0 || (c.updates.length > 0 && c.inserts.length > 0));
    const single = separate ? null : oneStatement(statements);
    if (single) {
      await this.pool.query(single.text, single.params as unknown[]);
      return;
    }
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      for (const st of statements) await client.query(st.text, st.params as unknown[]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/** A map table's entry as the row its SQL table holds. */
function entryRow(spec: TableSpec, entry: unknown): Readonly<Record<string, unknown>> {
  const [name, value] = entry as [string, unknown];
  if (spec.table === 'sequences') return { name, value };
  return { tenant: name, ...(value as object) };
}

function rowsOf(spec: TableSpec, items: readonly unknown[]): readonly Readonly<Record<string, unknown>>[] {
  const isMap = spec.table === 'sequences' || spec.table === 'usage';
  return isMap ? items.map((e) => entryRow(spec, e)) : (items as readonly Readonly<Record<string, unknown>>[]);
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
