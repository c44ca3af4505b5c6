import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createUsageRepo } from '../../auth/usage-repo.js';
import { AppError } from '../../http/errors.js';
import { createProjectsRepo } from '../../hosting/projects/projects-repo.js';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { projectFixture as project, seedOwner } from '../../test-support/store-fixtures.js';
import { createTestDatabase, openTwoPostgresNodes } from '../../test-support/store-kinds.js';
import { nextId } from '../schema.js';
import type { Store } from '../store.js';
import { openPostgresStore, type PgStoreOptions } from './pg-store.js';
import { waitFor } from '../../test-support/wait-for.js';

const at = '2026-01-01T00:00:00.000Z';
const tenant = (id: string) => ({ id, webhookSecret: '', createdAt: at });

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** Two nodes: two stores on one database, as two `cratehouse serve` processes would open it. */
async function twoNodes(optionsB: PgStoreOptions = {}): Promise<{ url: string; a: Store; b: Store }> {
  const nodes = await openTwoPostgresNodes(optionsB);
  opened.push(nodes.a, nodes.b);
  return nodes;
}

/** Wait until `ok()` holds (checked every 5 ms); resolves to the milliseconds it took, rejects after `limitMs`. */
async function within(limitMs: number, ok: () => boolean): Promise<number> {
  const start = performance.now();
  await waitFor(ok, { timeoutMs: limitMs, everyMs: 5 });
  return performance.now() - start;
}

async function sql(url: string, text: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

describe.skipIf(postgresSkipReason !== null)('PostgreSQL store, several nodes on one database', () => {
  it('shows a write acknowledged on A to B within a second, moving only the written tables’ revisions on B', async () => {
    const { a, b } = await twoNodes({ pollMs: 60_000 });
    const tenantsBefore = b.revisionOf(['tenants']);
    const projectsBefore = b.revisionOf(['projects']);
    await a.mutate((d) => void d.tenants.push(tenant('from-a')));
    // Poll disabled (60 s): NOTIFY alone brings it.
    const ms = await within(1000, () => b.data.tenants.some((t) => t.id === 'from-a'));
    expect(ms).toBeLessThan(1000);
    expect(b.revisionOf(['tenants'])).toBeGreaterThan(tenantsBefore);
    expect(b.revisionOf(['projects'])).toBe(projectsBefore);
    expect(Object.isFrozen(b.data.tenants.find((t) => t.id === 'from-a'))).toBe(true);
    // A delete travels too.
    await a.mutate((d) => void (d.tenants = d.tenants.filter((t) => t.id !== 'from-a')));
    await within(1000, () => !b.data.tenants.some((t) => t.id === 'from-a'));
  });

  it('loses no update when both nodes change one row at once: the stale one runs again on the fresh row', async () => {
    const { url, a, b } = await twoNodes();
    await a.mutate((d) => void d.tenants.push(tenant('shared')));
    await within(1000, () => b.data.tenants.length === 1);
    const append = (store: Store, letter: string) =>
      store.mutate((d) => {
        const i = d.tenants.findIndex((t) => t.id === 'shared');
        d.tenants[i] = { ...d.tenants[i]!, webhookSecret: d.tenants[i]!.webhookSecret + letter };
        return d.tenants[i]!.webhookSecret;
      });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? append(a, 'a') : append(b, 'b'))));
    const { rows } = await sql(url, "SELECT webhook_secret FROM tenants WHERE id = 'shared'");
    const final = (rows[0] as { webhook_secret: string }).webhook_secret;
    // A serial outcome: every one of the 20 appends is in it (10 of each), none overwritten.
    expect(final.length).toBe(20);
    expect([...final].filter((c) => c === 'a').length).toBe(10);
    // Each change resolved with the value it committed: the 20 prefixes of the final value.
    expect(new Set(results)).toEqual(new Set(Array.from({ length: 20 }, (_, i) => final.slice(0, i + 1))));
    await within(1000, () => a.data.tenants[0]!.webhookSecret === final && b.data.tenants[0]!.webhookSecret === final);
  });

  it('gives 50 creates on each node at once unique ids, all in both mirrors afterwards', async () => {
    const { url, a, b } = await twoNodes();
    const create = (store: Store, name: string) =>
      store.mutate((d) => {
        const id = nextId(d, 'tenants');
        d.tenants.push(tenant(`${name}-${id}`));
        return id;
      });
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? create(a, 'a') : create(b, 'b'))));
    expect(new Set(ids).size).toBe(100);
    expect([...ids].sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const inDb = (await sql(url, 'SELECT id FROM tenants')).rows.map((r: { id: string }) => r.id).sort();
    expect(inDb.length).toBe(100);
    const ofMirror = (s: Store) => s.data.tenants.map((t) => t.id).sort();
    await within(2000, () => ofMirror(a).length === 100 && ofMirror(b).length === 100);
    expect(ofMirror(a)).toEqual(inDb);
    expect(ofMirror(b)).toEqual(inDb);
    expect(a.data.sequences.tenants).toBe(100);
    expect(b.data.sequences.tenants).toBe(100);
  });

  it('lets exactly one node create a path both want at once; the other gets the repository’s "has already been taken"', async () => {
    const { a, b } = await twoNodes();
    await seedOwner(a);
    await within(1000, () => b.data.users.length === 1);
    const repoA = createProjectsRepo(a);
    const repoB = createProjectsRepo(b);
    // Both checked before the other's create reached them: each node's index says the path is free.
    expect(repoA.byPath(1, 'song')).toBeUndefined();
    expect(repoB.byPath(1, 'song')).toBeUndefined();
    const outcomes = await Promise.allSettled([repoA.insert(project('song')), repoB.insert(project('Song'))]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won.length).toBe(1);
    expect(lost.length).toBe(1);
    expect(lost[0]!.reason).toBeInstanceOf(AppError);
    expect((lost[0]!.reason as AppError).kind).toBe('invalid');
    expect((lost[0]!.reason as AppError).options.fields).toMatchObject({ path: ['has already been taken'] });
    await within(1000, () => repoA.projects.length === 1 && repoB.projects.length === 1);
    // Each node's projects index (a cache on revisionOf) knows the winner.
    expect(repoA.byPath(1, 'SONG')?.id).toBe(repoB.byPath(1, 'song')?.id);
  });

  it('sums the usage meter over both nodes: each flush adds its deltas to the counters the other node wrote', async () => {
    const { url, a, b } = await twoNodes();
    const usageA = createUsageRepo(a);
    const usageB = createUsageRepo(b);
    const delta = (route: string, bytes: number) =>
      new Map([['t', { requests: new Map([[route, 1]]), bytesUploaded: bytes, audioSeconds: 0.5 }]]);
    // 10 flushes on each node at once, every one computed on a mirror that has not seen the other's.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? usageA.add(delta('GET /a', 100), at) : usageB.add(delta('GET /b', 1), at))),
    );
    const { rows } = await sql(url, "SELECT requests, bytes_uploaded, audio_seconds FROM usage WHERE tenant = 't'");
    expect(rows).toEqual([{ requests: { 'GET /a': 10, 'GET /b': 10 }, bytes_uploaded: '1010', audio_seconds: 10 }]);
    await within(1000, () => usageA.get('t')?.bytesUploaded === 1010 && usageB.get('t')?.bytesUploaded === 1010);
    expect(usageB.get('t')?.requests).toEqual({ 'GET /a': 10, 'GET /b': 10 });
  });

  it('catches up after its notification connection was cut (nothing is lost while it reconnects)', async () => {
    const { url, a, b } = await twoNodes({ pollMs: 60_000 });
    await sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cratehouse-listen'");
    // Written while B's listener is down: its NOTIFY reaches nobody.
    await a.mutate((d) => void d.tenants.push(tenant('while-away')));
    await within(3000, () => b.data.tenants.some((t) => t.id === 'while-away'));
    // And it listens again.
    await a.mutate((d) => void d.tenants.push(tenant('after')));
    await within(1000, () => b.data.tenants.some((t) => t.id === 'after'));
  });

  it('brings a node up to date on sync(), without waiting for a notification or the poll', async () => {
    const url = await createTestDatabase();
    const a = await openPostgresStore(url);
    const b = await openPostgresStore(url, { listen: false, pollMs: 60_000 });
    opened.push(a, b);
    await a.mutate((d) => void d.tenants.push(tenant('committed-on-a')));
    expect(b.data.tenants).toEqual([]);
    await b.sync();
    expect(b.data.tenants.map((t) => t.id)).toEqual(['committed-on-a']);
  });

  it('answers a change that wrote nothing without waiting for the change-log head another node holds', async () => {
    const { url, a } = await twoNodes();
    await a.mutate((d) => void d.tenants.push(tenant('t')));
    // Another node part-way through a commit: it holds the head's row lock until it ends.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('BEGIN; UPDATE change_log_head SET seq = seq + 1');
      const read = a.mutate((d) => d.tenants.map((t) => t.id));
      const outcome = await Promise.race([read, new Promise((r) => setTimeout(() => r('waited for the lock'), 2000))]);
      expect(outcome).toEqual(['t']);
      // A change that writes does wait for it (commits of all nodes are serialized).
      let written = false;
      const write = a.mutate((d) => void d.tenants.push(tenant('u'))).then(() => (written = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(written).toBe(false);
      await other.query('ROLLBACK');
      await write;
    } finally {
      await other.end();
    }
  });

  it('reloads every table when the change log no longer holds what it missed, before its own next write', async () => {
    const url = await createTestDatabase();
    const a = await openPostgresStore(url, { changeLogKeep: 2 });
    // B neither listens nor polls: it learns of A's writes only when it writes itself.
    const b = await openPostgresStore(url, { listen: false, pollMs: 60_000 });
    opened.push(a, b);
    for (let i = 0; i < 10; i++) await a.mutate((d) => void d.tenants.push(tenant(`a${i}`)));
    expect((await sql(url, 'SELECT min(seq)::int AS min FROM change_log')).rows[0]).toEqual({ min: 9 });
    expect(b.data.tenants).toEqual([]);
    const before = b.revisionOf(['lfsLocks']);
    await b.mutate((d) => void d.tenants.push(tenant('b')));
    expect(b.data.tenants.map((t) => t.id)).toEqual([...Array.from({ length: 10 }, (_, i) => `a${i}`), 'b']);
    // A whole reload may have changed any table: every revision moved.
    expect(b.revisionOf(['lfsLocks'])).toBeGreaterThan(before);
  });
});
