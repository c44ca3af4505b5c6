import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { postgresSkipReason } from '../test-support/private-postgres.js';
import { createTestDatabase } from '../test-support/store-kinds.js';
import { openDataStore } from './open-data-store.js';
import type { Store } from './store.js';
import { waitFor } from '../test-support/wait-for.js';

const at = '2026-01-01T00:00:00.000Z';
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** A store opened as `cratehouse serve` opens it, from these CRATEHOUSE_* variables. */
async function openFromEnv(env: Record<string, string>): Promise<Store> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-open-'));
  const store = await openDataStore(loadConfig(env, { dataDir }));
  opened.push(store);
  return store;
}

async function sql<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * What another node's commit looks like in the database, but without its NOTIFY (a notification
 * lost): only the catch-up poll can bring it to a mirror.
 */
function commitWithoutNotify(url: string, tenant: string, secret: string): Promise<unknown> {
  return sql(
    url,
    `BEGIN;
     WITH head AS (UPDATE change_log_head SET seq = seq + 1 RETURNING seq)
       INSERT INTO change_log (seq, keys) SELECT seq, '{"tenants": [["${tenant}", ["${tenant}"]]]}' FROM head;
     UPDATE tenants SET webhook_secret = '${secret}' WHERE id = '${tenant}';
     COMMIT`,
  );
}

describe.skipIf(postgresSkipReason)('the PostgreSQL change feed settings (CRATEHOUSE_PG_POLL_MS, CRATEHOUSE_PG_CHANGE_LOG_KEEP)', () => {
  it('catches up with a commit whose notification was lost within the configured poll, not before the default one', async () => {
    const url = await createTestDatabase();
    const writer = await openFromEnv({ CRATEHOUSE_DATABASE_URL: url });
    const fast = await openFromEnv({ CRATEHOUSE_DATABASE_URL: url, CRATEHOUSE_PG_POLL_MS: '100' });
    const slow = await openFromEnv({ CRATEHOUSE_DATABASE_URL: url, CRATEHOUSE_PG_POLL_MS: '60000' });
    await writer.mutate((d) => void d.tenants.push({ id: 't1', webhookSecret: 'before', createdAt: at }));
    const secret = (s: Store) => s.data.tenants.find((t) => t.id === 't1')?.webhookSecret;
    // Both followers have the notified commit (their listeners are up).
    await waitFor(() => secret(fast) === 'before' && secret(slow) === 'before', { timeoutMs: 5000 });
    await commitWithoutNotify(url, 't1', 'after');
    await waitFor(() => secret(fast) === 'after', { timeoutMs: 2000 });
    // Past the default 1 s poll, the one polling every minute has still not seen it: the
    // configured poll is what brought it to the other.
    await new Promise((r) => setTimeout(r, 1500));
    expect(secret(slow)).toBe('before');
  });

  it('prunes the change log down to the configured number of entries', async () => {
    const url = await createTestDatabase();
    const keeping = await openFromEnv({ CRATEHOUSE_DATABASE_URL: url, CRATEHOUSE_PG_CHANGE_LOG_KEEP: '2' });
    for (let i = 0; i < 10; i++) await keeping.mutate((d) => void d.tenants.push({ id: `k${i}`, webhookSecret: '', createdAt: at }));
    // Commits 1..10; every 2nd prunes what is 2 or more behind: after the 10th, 9 and 10 are left.
    expect(await sql(url, 'SELECT seq::int FROM change_log ORDER BY seq')).toEqual([{ seq: 9 }, { seq: 10 }]);

    const other = await createTestDatabase();
    const byDefault = await openFromEnv({ CRATEHOUSE_DATABASE_URL: other });
    for (let i = 0; i < 10; i++) await byDefault.mutate((d) => void d.tenants.push({ id: `d${i}`, webhookSecret: '', createdAt: at }));
    expect(await sql(other, 'SELECT count(*)::int AS n FROM change_log')).toEqual([{ n: 10 }]);
  });
});
