import path from 'node:path';
import { DurableJsonFile } from './file-adapter.js';
import { openPostgresStore } from './postgres/pg-store.js';
import type { DbSchema } from './schema.js';
import { openStore, type Store } from './store.js';

/** Where the metadata lives: PostgreSQL when a database URL is set, else db.json in the data dir. */
export interface DataStoreLocation {
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  /** PostgreSQL: the change log's catch-up poll (ms; CRATEHOUSE_PG_POLL_MS). */
  readonly pgPollMs?: number;
  /** PostgreSQL: change-log entries kept (CRATEHOUSE_PG_CHANGE_LOG_KEEP). */
  readonly pgChangeLogKeep?: number;
}

/** Open the store a deployment is configured for (CRATEHOUSE_DATABASE_URL, else the embedded lowdb file). */
export function openDataStore(location: DataStoreLocation): Promise<Store> {
  if (location.databaseUrl)
    return openPostgresStore(location.databaseUrl, { pollMs: location.pgPollMs, changeLogKeep: location.pgChangeLogKeep });
  return openStore(new DurableJsonFile<DbSchema>(path.join(location.dataDir, 'db.json')));
}
