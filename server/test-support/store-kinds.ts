import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { DurableJsonFile } from '../store/file-adapter.js';
import { openPostgresStore, type PgStoreOptions } from '../store/postgres/pg-store.js';
import type { DbSchema } from '../store/schema.js';
import { openStore, type Store } from '../store/store.js';
import { postgresSkipReason, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

/** A fresh store of one kind, and how to open it again from what it persisted. */
export interface OpenedStore {
  readonly store: Store;
  /** The same store opened again from its files or database (close the first one before). */
  reopen(): Promise<Store>;
}

/** One store implementation, for tests that run against both. */
export interface StoreKind {
  readonly name: 'embedded' | 'postgres';
  /** Null when this kind can run here; otherwise why it is skipped. */
  readonly skip: string | null;
  open(): Promise<OpenedStore>;
}

let cluster: Promise<PrivatePostgres> | null = null;

// Registered when a test file imports this module (a hook registered inside a running test is not
// run: the clusters outlived their files).
afterAll(async () => {
  if (cluster) await (await cluster).stop();
  cluster = null;
}, 60_000);

/** One private PostgreSQL per test file, started on first use and stopped after the file's tests. */
function privateCluster(): Promise<PrivatePostgres> {
  cluster ??= startPrivatePostgres();
  return cluster;
}

/** A new empty database on this file's private PostgreSQL; resolves to its URL. */
export async function createTestDatabase(): Promise<string> {
  return (await privateCluster()).createDatabase();
}

/**
 * A node that hears of the other nodes' commits only when it asks (`Store.sync`; no LISTEN, an hourly
 * poll): its copy is behind, as any node's is for the milliseconds a notification takes.
 */
export const hearsOnlyWhenAsked: PgStoreOptions = { listen: false, pollMs: 3_600_000 };

/** Two PostgreSQL nodes (stores) on one new database, `optionsB` for the second; the caller closes them. */
export async function openTwoPostgresNodes(
  optionsB: PgStoreOptions = {},
): Promise<{ readonly url: string; readonly a: Store; readonly b: Store }> {
  const url = await createTestDatabase();
  const a = await openPostgresStore(url);
  const b = await openPostgresStore(url, optionsB);
  return { url, a, b };
}

/** The embedded store (db.json in a temp dir) and the PostgreSQL store (a new database on a private server). */
export const storeKinds: readonly StoreKind[] = [
  {
    name: 'embedded',
    skip: null,
    async open() {
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'cratehouse-kind-')), 'db.json');
      const store = await openStore(new DurableJsonFile<DbSchema>(file));
      return { store, reopen: () => openStore(new DurableJsonFile<DbSchema>(file)) };
    },
  },
  {
    name: 'postgres',
    skip: postgresSkipReason,
    async open() {
      const url = await createTestDatabase();
      const store = await openPostgresStore(url);
      return { store, reopen: () => openPostgresStore(url) };
    },
  },
];
