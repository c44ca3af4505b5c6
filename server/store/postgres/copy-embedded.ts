import { existsSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { DurableJsonFile } from '../file-adapter.js';
import { migrate } from '../migrations.js';
import { tableNames, type TableName } from '../row-diff.js';
import type { DbSchema } from '../schema.js';
import { runPgMigrations } from './pg-migrate.js';
import { readDocument } from './pg-change-feed.js';
import { openPostgresStore, types, writeStatements } from './pg-store.js';
import { rowsOf, tableSpecs, type TableSpec } from './pg-tables.js';

/** Why a copy did not happen (or did not verify); the message is written for the operator. */
export class StoreCopyError extends Error {}

/** The target database already holds rows: nothing is copied over them. */
export class TargetNotEmptyError extends StoreCopyError {
  constructor(readonly held: readonly TableCount[]) {
    super(
      `the database already holds data (${held.map((c) => `${c.sql}: ${c.rows}`).join(', ')}); nothing was copied. ` +
        'Copy into a new, empty database (dropdb and createdb, or DROP SCHEMA public CASCADE; CREATE SCHEMA public)',
    );
  }
}

/** One table and how many rows it holds. */
export interface TableCount {
  readonly table: TableName;
  readonly sql: string;
  readonly rows: number;
}

/** What a copy did: the rows of every table (equal in db.json and, read back, in PostgreSQL). */
export interface CopyReport {
  readonly tables: readonly TableCount[];
  readonly rows: number;
  /** node-pg-migrate migrations the copy ran to create the schema. */
  readonly schemaApplied: readonly string[];
}

/** An embedded data dir's document, read from db.json and migrated in memory (the file is not written). */
export interface EmbeddedDocument {
  readonly db: DbSchema;
  readonly file: string;
  /** Document migrations run in memory (an older data dir). */
  readonly applied: readonly string[];
}

/** Read a data dir's db.json and bring it to the current schema version, as opening the store would, without writing it. */
export async function readEmbeddedDocument(dataDir: string): Promise<EmbeddedDocument> {
  const file = path.join(dataDir, 'db.json');
  if (!existsSync(file)) throw new StoreCopyError(`there is no ${file}: not an embedded data dir, nothing to copy`);
  const raw = await new DurableJsonFile<Record<string, unknown>>(file).read().catch((error: unknown) => {
    throw new StoreCopyError(`${file} could not be read: ${(error as Error).message}`, { cause: error });
  });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new StoreCopyError(`${file} does not hold a document`);
  const { db, applied } = migrate(raw);
  return { db, file, applied };
}

/** Progress of a copy: called after each table's rows were sent (inside the transaction). */
export type CopyProgress = (table: TableName, rows: number) => void | Promise<void>;

/**
 * Copy a document into the (empty) PostgreSQL database at `url`: create the schema, then in one
 * transaction lock every table, check that none holds a row, insert every table's rows in document
 * order, and read everything back and compare it with the document before COMMIT. Any failure rolls
 * back, so the database stays empty. After COMMIT the store is opened as a server opens it and
 * compared again. Throws StoreCopyError (TargetNotEmptyError when the database holds data).
 */
export async function copyDocumentToPostgres(db: DbSchema, url: string, onTable?: CopyProgress): Promise<CopyReport> {
  checkEveryFieldHasAColumn(db);
  const expected = tableNames.map((table) => ({ table, sql: tableSpecs[table].sql, rows: itemsOf(db, table).length }));
  const schemaApplied = await runPgMigrations(url).catch((error: unknown) => {
    throw new StoreCopyError(`the database's schema could not be created, nothing was copied: ${describePgError(error)}`, { cause: error });
  });
  const pool = new pg.Pool({ connectionString: url, max: 1, types });
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    // A connection lost mid-copy fails the query in flight (handled below); unhandled, the event would end the process.
    const ignore = () => undefined;
    client.on('error', ignore);
    let broken = false;
    let committing = false;
    try {
      await client.query('BEGIN');
      // No reader either: a server starting on this database meanwhile waits, then loads the whole copy.
      await client.query(`LOCK TABLE ${tableNames.map((t) => tableSpecs[t].sql).join(', ')} IN ACCESS EXCLUSIVE MODE`);
      const held = (await countRows(client)).filter((c) => c.rows > 0);
      if (held.length > 0) throw new TargetNotEmptyError(held);
      for (const table of tableNames) {
        for (const st of writeStatements(tableSpecs[table], itemsOf(db, table), false)) await client.query(st.text, st.params as unknown[]);
        await onTable?.(table, itemsOf(db, table).length);
      }
      // Deferred foreign keys are checked here rather than at COMMIT, so a dangling reference is reported before it.
      await client.query('SET CONSTRAINTS ALL IMMEDIATE');
      await verify(client, db, expected);
      // A change-log number with no log entry is a hole: a node already running on this database reloads every table.
      await client.query('UPDATE change_log_head SET seq = seq + 1');
      committing = true;
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (error instanceof StoreCopyError) throw error;
      if (committing)
        throw new StoreCopyError(
          `the connection failed during COMMIT (${describePgError(error)}): the database holds either nothing or the whole copy; check before starting a server`,
          { cause: error },
        );
      throw new StoreCopyError(`PostgreSQL refused the copy, nothing was written: ${describePgError(error)}`, { cause: error });
    } finally {
      client.off('error', ignore);
      client.release(broken);
    }
  } finally {
    await pool.end();
  }
  // What a server opening the database will load: the committed tables, through the store itself.
  const store = await openPostgresStore(url);
  try {
    const difference = firstDifference(db, store.data as DbSchema);
    if (difference)
      throw new StoreCopyError(`the database, opened after COMMIT, differs from db.json: ${difference}. Do not start a server on it`);
  } finally {
    await store.close();
  }
  return { tables: expected, rows: expected.reduce((n, t) => n + t.rows, 0), schemaApplied };
}

/** Row counts per table and the document read back inside the transaction, against the source; throws StoreCopyError on any difference. */
async function verify(client: pg.PoolClient, db: DbSchema, expected: readonly TableCount[]): Promise<void> {
  const counts = await countRows(client);
  for (const [i, c] of counts.entries())
    if (c.rows !== expected[i]!.rows)
      throw new StoreCopyError(`${c.sql} holds ${c.rows} rows inside the transaction, db.json ${expected[i]!.rows}; nothing was written`);
  const difference = firstDifference(db, await readDocument(client));
  if (difference) throw new StoreCopyError(`read back inside the transaction, ${difference}; nothing was written`);
}

async function countRows(client: pg.PoolClient): Promise<TableCount[]> {
  const out: TableCount[] = [];
  for (const table of tableNames) {
    const { sql } = tableSpecs[table];
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`);
    out.push({ table, sql, rows: rows[0]!.n });
  }
  return out;
}

/** A table's rows as writeStatements takes them: map tables as `[name, value]` entries. */
function itemsOf(db: DbSchema, table: TableName): readonly unknown[] {
  const value = db[table] as unknown;
  return table === 'sequences' || table === 'usage' ? Object.entries(value as object) : (value as readonly unknown[]);
}

/** A row as PostgreSQL gives it back: every column's field, an absent optional field as null. */
function canonical(spec: TableSpec, row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(spec.columns.map((c) => [c.field, row[c.field] ?? null]));
}

/** Refuse a document missing a table, or with a table or field the schema has no place for (it would be dropped silently). */
function checkEveryFieldHasAColumn(db: DbSchema): void {
  const known = new Set<string>([...tableNames, 'schemaVersion']);
  for (const key of Object.keys(db))
    if (!known.has(key)) throw new StoreCopyError(`db.json has a table "${key}" the PostgreSQL schema does not know; nothing was copied`);
  for (const table of tableNames) {
    const value = db[table] as unknown;
    const isMap = table === 'sequences' || table === 'usage';
    if (typeof value !== 'object' || value === null || Array.isArray(value) === isMap)
      throw new StoreCopyError(`db.json has no ${isMap ? 'object' : 'array'} "${table}"; nothing was copied`);
    const fields = new Set(tableSpecs[table].columns.map((c) => c.field));
    for (const row of rowsOf(tableSpecs[table], itemsOf(db, table)))
      for (const field of Object.keys(row))
        if (!fields.has(field))
          throw new StoreCopyError(`db.json's ${table} has a field "${field}" with no column in PostgreSQL; nothing was copied`);
  }
}

/** The first place where `loaded` differs from `source` (as rows PostgreSQL holds), or null when equal. */
function firstDifference(source: DbSchema, loaded: DbSchema): string | null {
  for (const table of tableNames) {
    const spec = tableSpecs[table];
    const want = rowsOf(spec, itemsOf(source, table)).map((row) => canonical(spec, row));
    const got = rowsOf(spec, itemsOf(loaded, table)).map((row) => canonical(spec, row));
    if (want.length !== got.length) return `${table} has ${got.length} rows, db.json ${want.length}`;
    for (const [i, row] of want.entries()) {
      if (isDeepStrictEqual(row, got[i])) continue;
      const field = spec.columns.find((c) => !isDeepStrictEqual(row[c.field], got[i]![c.field]))?.field ?? '(order)';
      return `${table} row ${i + 1}, field ${field}: ${JSON.stringify(got[i]![field])} where db.json has ${JSON.stringify(row[field])}`;
    }
  }
  return null;
}

/** A pg error as one line: its message, the detail and the constraint PostgreSQL named. */
function describePgError(error: unknown): string {
  const e = error as { message?: unknown; detail?: unknown; table?: unknown; constraint?: unknown };
  const parts = [String(e.message ?? error)];
  if (typeof e.detail === 'string') parts.push(e.detail);
  if (typeof e.table === 'string') parts.push(`table ${e.table}`);
  if (typeof e.constraint === 'string') parts.push(`constraint ${e.constraint}`);
  return parts.join('; ');
}
