import pg from 'pg';
import { deepFreeze, rowKeys, tableNames, freezeRows, type TableChange, type TableName } from '../row-diff.js';
import { emptyDb, type DbSchema } from '../schema.js';
import { decodeRow, rowsOf, tableSpecs, type TableSpec } from './pg-tables.js';

/** The channel commits NOTIFY on; the payload is the change-log number of the commit (a few bytes). */
export const changeChannel = 'cratehouse_changes';

/** Something that runs a query: the pool or one of its clients. */
export interface Queryable {
  query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** The keys one commit wrote, per table: the mirror's key string and the SQL key columns' values. */
export type LoggedKeys = { readonly [T in TableName]?: readonly (readonly [string, readonly unknown[]])[] };

/** What other nodes committed since a number: the rows now at the keys they wrote (undefined: deleted), or the whole document. */
export type RemoteChanges =
  | {
      readonly kind: 'rows';
      readonly upTo: number;
      readonly tables: ReadonlyMap<TableName, ReadonlyMap<string, Record<string, unknown> | undefined>>;
    }
  | { readonly kind: 'reload'; readonly upTo: number; readonly db: DbSchema };

const isMapTable = (table: TableName) => table === 'sequences' || table === 'usage';

/** A row's (a map entry's) key in the mirror. */
function mirrorKey(table: TableName, row: Readonly<Record<string, unknown>>): string {
  if (table === 'sequences') return row.name as string;
  if (table === 'usage') return row.tenant as string;
  return (rowKeys[table] as (r: unknown) => string)(row);
}

/** The keys a commit's changes wrote, for its change-log entry. */
export function logKeys(changes: readonly TableChange[]): LoggedKeys {
  const out: Record<string, [string, unknown[]][]> = {};
  for (const change of changes) {
    const spec = tableSpecs[change.table];
    const rows = rowsOf(spec, [...change.deletes, ...change.updates, ...change.inserts]);
    const seen = new Set<string>();
    const list = (out[change.table] ??= []);
    for (const row of rows) {
      const k = mirrorKey(change.table, row);
      if (seen.has(k)) continue;
      seen.add(k);
      list.push([k, spec.key.map((c) => c.value(row))]);
    }
  }
  return out as LoggedKeys;
}

/** Read every table in document order (`ord`) into a fresh document, rows frozen; inside a transaction, a client sees its own writes. */
export async function readDocument(q: Queryable): Promise<DbSchema> {
  const db = emptyDb();
  for (const table of tableNames) {
    const spec = tableSpecs[table];
    const { rows } = await q.query<Record<string, unknown>>(`SELECT ${columnList(spec)} FROM ${spec.sql} ORDER BY ord`);
    const records = rows.map((row) => decodeRow(spec, row));
    if (table === 'sequences') for (const r of records) db.sequences[r.name as string] = r.value as number;
    else if (table === 'usage') for (const r of records) setUsage(db, r);
    else (db as unknown as Record<string, unknown>)[table] = records;
  }
  freezeRows(db);
  return db;
}

/** Read the tables in one snapshot (REPEATABLE READ) with the change-log number they are current to. */
export async function loadDocument(pool: pg.Pool): Promise<{ readonly db: DbSchema; readonly seq: number }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const head = await client.query<{ seq: number }>('SELECT seq FROM change_log_head');
    const db = await readDocument(client);
    await client.query('COMMIT');
    return { db, seq: head.rows[0]!.seq };
  } finally {
    client.release();
  }
}

/**
 * What was committed after `seen` (up to `upTo`, else the head): the rows now at the keys those
 * commits wrote. A hole in the log (entries pruned before this node read them) returns the whole
 * document instead. Null when nothing was committed since `seen`.
 */
export async function readChanges(pool: pg.Pool, q: Queryable, seen: number, upTo?: number): Promise<RemoteChanges | null> {
  const head = upTo ?? (await q.query<{ seq: number }>('SELECT seq FROM change_log_head')).rows[0]!.seq;
  if (head <= seen) return null;
  const { rows } = await q.query<{ seq: number; keys: LoggedKeys }>(
    'SELECT seq, keys FROM change_log WHERE seq > $1 AND seq <= $2 ORDER BY seq',
    [seen, head],
  );
  if (rows.length !== head - seen) {
    const { db, seq } = await loadDocument(pool);
    return { kind: 'reload', upTo: seq, db };
  }
  const wanted = new Map<TableName, Map<string, readonly unknown[]>>();
  for (const { keys } of rows)
    for (const [table, list] of Object.entries(keys) as [TableName, readonly (readonly [string, readonly unknown[]])[]][]) {
      let m = wanted.get(table);
      if (!m) wanted.set(table, (m = new Map()));
      for (const [k, values] of list) m.set(k, values);
    }
  const tables = new Map<TableName, Map<string, Record<string, unknown> | undefined>>();
  for (const [table, keys] of wanted) {
    const spec = tableSpecs[table];
    const now = new Map<string, Record<string, unknown> | undefined>([...keys.keys()].map((k) => [k, undefined]));
    const all = [...keys.values()];
    // Chunks stay far below the 65,535 parameters of one statement.
    for (let start = 0; start < all.length; start += 5000) {
      const params: unknown[] = [];
      const tuples = all
        .slice(start, start + 5000)
        .map((values) => `(${values.map((v) => `$${params.push(v)}`).join(', ')})`)
        .join(', ');
      const keyCols = spec.key.map((c) => c.column).join(', ');
      const found = await q.query<Record<string, unknown>>(
        `SELECT ${columnList(spec)} FROM ${spec.sql} WHERE (${keyCols}) IN (${tuples}) ORDER BY ord`,
        params,
      );
      for (const raw of found.rows) {
        const row = decodeRow(spec, raw);
        // Rows in `ord` order: new rows are appended in the order a load would give them.
        now.delete(mirrorKey(table, row));
        now.set(mirrorKey(table, row), row);
      }
    }
    tables.set(table, now);
  }
  return { kind: 'rows', upTo: head, tables };
}

/** Put other nodes' changes into the mirror; returns the tables that changed. Rows are frozen; new rows appended. */
export function applyRemote(db: DbSchema, remote: RemoteChanges): readonly TableName[] | undefined {
  const doc = db as unknown as Record<string, unknown>;
  if (remote.kind === 'reload') {
    for (const table of tableNames) doc[table] = (remote.db as unknown as Record<string, unknown>)[table];
    return undefined;
  }
  for (const [table, rows] of remote.tables) {
    if (isMapTable(table)) {
      for (const [k, row] of rows) {
        if (row === undefined) delete (doc[table] as Record<string, unknown>)[k];
        else if (table === 'sequences') db.sequences[k] = row.value as number;
        else setUsage(db, row);
      }
      continue;
    }
    const arr = doc[table] as Record<string, unknown>[];
    const keyOf = rowKeys[table as keyof typeof rowKeys] as (r: unknown) => string;
    const index = new Map<string, number>();
    arr.forEach((row, i) => index.set(keyOf(row), i));
    const gone = new Set<number>();
    for (const [k, row] of rows) {
      const i = index.get(k);
      if (row === undefined) {
        if (i !== undefined) gone.add(i);
      } else if (i !== undefined) arr[i] = deepFreeze(row);
      else arr.push(deepFreeze(row));
    }
    if (gone.size > 0) {
      let w = 0;
      for (let r = 0; r < arr.length; r++) if (!gone.has(r)) arr[w++] = arr[r]!;
      arr.length = w;
    }
  }
  return [...remote.tables.keys()];
}

function setUsage(db: DbSchema, record: Readonly<Record<string, unknown>>): void {
  const { tenant, ...usage } = record;
  db.usage[tenant as string] = deepFreeze(usage) as unknown as DbSchema['usage'][string];
}

function columnList(spec: TableSpec): string {
  return spec.columns.map((c) => c.column).join(', ');
}

/**
 * LISTEN for other nodes' commits on a connection of its own, calling `onChange` with each commit's
 * number and once after every (re)connect (notifications sent while it was away are lost: the
 * caller catches up from the change log). A dropped connection is retried every `retryMs`.
 */
export class ChangeListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly onChange: (seq: number | undefined) => void,
    private readonly retryMs = 500,
  ) {}

  /** Connect and LISTEN; resolves once listening (or once the first attempt failed: retries go on). */
  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'cratehouse-listen' });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.channel === changeChannel) this.onChange(Number(msg.payload));
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${changeChannel}`);
      this.onChange(undefined);
    } catch {
      this.lost(client);
    }
  }

  /** Stop listening and close the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.stopped) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.timer = setTimeout(() => void this.start(), this.retryMs);
    this.timer.unref();
  }
}
