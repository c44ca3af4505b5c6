import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import {
  readsOf,
  recordReads,
  seedDeployment,
  serveWav,
  type RecordedRead,
  type SeededDeployment,
} from '../../test-support/seed-deployment.js';
import { startServerChild, type ServerChild } from '../../test-support/server-child.js';
import { createTestDatabase } from '../../test-support/store-kinds.js';
import { tableNames } from '../row-diff.js';
import { tableSpecs } from './pg-tables.js';

/**
 * The test's time limit, and no more than the interval at which a token's last use is recorded
 * (identity.ts: ten minutes). Every token's last_used_at is set during the seeding, so within this
 * limit no read before or after the copy can move it, and the answers that show it compare as they
 * are; a run that took longer fails on the limit instead of on a changed last_used_at.
 */
const testTimeoutMs = 10 * 60_000;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const adminToken = 'migrate-admin-token';
// Links in answers name this base, not the port each server happens to get.
const env = {
  CRATEHOUSE_PUBLIC_URL: 'http://cratehouse.test',
  CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true',
  CRATEHOUSE_HOOKS_ALLOW_PRIVATE: 'true',
};

/** Run the real CLI (a child process, as an operator would) and collect its exit code and output. */
function runCliChild(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, CRATEHOUSE_DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

async function stop(server: ServerChild): Promise<void> {
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
}

/** Rows in all of the store's tables (0 when the schema is not even there yet). */
async function rowCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let n = 0;
    for (const table of tableNames) {
      const { rows } = await client
        .query<{ n: number }>(`SELECT count(*)::int AS n FROM ${tableSpecs[table].sql}`)
        .catch(() => ({ rows: [{ n: 0 }] }));
      n += rows[0]!.n;
    }
    return n;
  } finally {
    await client.end();
  }
}

/** /audio/v1/me of each tenant's user: its usage counts the requests the reads themselves made, so it is compared on its own. */
async function usageOf(base: string, d: SeededDeployment): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const caller of ['admin', 'alice', 'bob'] as const) {
    const res = await fetch(`${base}/audio/v1/me`, { headers: { Authorization: `Bearer ${d.tokens[caller]}` } });
    out[caller] = ((await res.json()) as { usage: unknown }).usage;
  }
  return out;
}

/** A read as compared: /audio/v1/me without its usage (checked by usageOf). */
function comparable(key: string, read: RecordedRead): RecordedRead {
  if (!key.endsWith(' GET /audio/v1/me') || read.status !== 200) return read;
  const { usage: _usage, ...rest } = JSON.parse(read.body) as Record<string, unknown>;
  return { ...read, body: JSON.stringify(rest) };
}

describe.skipIf(postgresSkipReason !== null)('cratehouse store migrate --to postgres, end to end', () => {
  it(
    'answers every read the same before (embedded) and after (PostgreSQL), for two users, a read-only token, the admin and anonymous',
    async () => {
      const wav = await serveWav();
      const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-migrate-'));
      const url = await createTestDatabase();
      const migrate = ['store', 'migrate', '--to', 'postgres', '--data-dir', dataDir, '--database-url', url];
      const embedded = await startServerChild(dataDir, adminToken, { ...env, CRATEHOUSE_DATABASE_URL: '' });
      let d: SeededDeployment;
      let before: Map<string, RecordedRead>;
      let usageBefore: Record<string, unknown>;
      try {
        d = await seedDeployment(embedded.url, adminToken, wav.url);
        before = await recordReads(embedded.url, d);
        // While the server holds the data dir, the CLI refuses and writes nothing.
        const refused = await runCliChild(migrate);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain(`the data dir is in use by server pid ${embedded.child.pid}`);
        expect(await rowCount(url)).toBe(0);
        // Last requests before the stop: the usage the next server must start from.
        usageBefore = await usageOf(embedded.url, d);
      } finally {
        await stop(embedded);
        await wav.close();
      }
      expect(before.size).toBe(readsOf(d).length);
      expect(before.size).toBeGreaterThan(800);

      const migrated = await runCliChild(migrate);
      expect(migrated.stderr).toBe('');
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toMatch(/^ {2}projects +8$/m);
      expect(migrated.stdout).toMatch(/^ {2}users +3$/m);
      expect(migrated.stdout).toContain(`stay in ${dataDir}`);

      const postgres = await startServerChild(dataDir, adminToken, { ...env, CRATEHOUSE_DATABASE_URL: url });
      let after: Map<string, RecordedRead>;
      let usageAfter: Record<string, unknown>;
      try {
        usageAfter = await usageOf(postgres.url, d);
        after = await recordReads(postgres.url, d);
      } finally {
        await stop(postgres);
      }

      // Usage continued from what the embedded server had counted: plus the one /me call that read it.
      for (const caller of ['admin', 'alice', 'bob'] as const) {
        const was = usageBefore[caller] as { requests: Record<string, number>; requests_total: number };
        expect(usageAfter[caller]).toEqual({
          ...was,
          requests: { ...was.requests, 'GET /audio/v1/me': (was.requests['GET /audio/v1/me'] ?? 0) + 1 },
          requests_total: was.requests_total + 1,
        });
      }
      // The reads saw real content (not a server answering 404 to everything).
      const statuses = [...before.values()].map((r) => r.status);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(500);
      // Named by read, with both answers' start, so a failure says what changed.
      const show = (r: RecordedRead | undefined) => (r ? `${r.status} ${JSON.stringify(r.paging)} ${r.body.slice(0, 400)}` : 'missing');
      const differences = [...before].flatMap(([key, read]) => {
        const then = comparable(key, read);
        const now = after.get(key) && comparable(key, after.get(key)!);
        return JSON.stringify(now) === JSON.stringify(then) ? [] : [`${key}\n  before: ${show(then)}\n  after:  ${show(now)}`];
      });
      expect(differences).toEqual([]);
      expect(after.size).toBe(before.size);
    },
    testTimeoutMs,
  );
});
