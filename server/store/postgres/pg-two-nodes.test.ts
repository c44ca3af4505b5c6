import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../../test-support/private-redis.js';
import { startServerChild, type ServerChild } from '../../test-support/server-child.js';
import { createTestDatabase } from '../../test-support/store-kinds.js';

const token = 'two-nodes-admin-token';
const running: ServerChild[] = [];
afterEach(async () => {
  await Promise.all(
    running.splice(0).map(
      (s) =>
        new Promise((resolve) => {
          s.child.once('exit', resolve);
          s.child.kill('SIGTERM');
        }),
    ),
  );
});

/** Call /api/v4 on one node as the administrator. */
async function call(node: ServerChild, route: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${node.url}/api/v4${route}`, {
    method: init.method ?? 'GET',
    headers: { 'PRIVATE-TOKEN': token, ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
}

/** Retry `read` until `ok` holds of its answer, for at most `limitMs`; resolves to the last answer. */
async function eventually<T>(limitMs: number, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() - start > limitMs) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const names = async (node: ServerChild) =>
  ((await (await call(node, '/projects?simple=true&per_page=100')).json()) as { name: string; path: string }[]).map((p) => p.name);

const skip = postgresSkipReason ?? redisSkipReason(process.env);
// Several nodes share their jobs through Redis (a node refuses to start beside others without it).
let redis: PrivateRedis;

describe.skipIf(skip !== null)('two `cratehouse serve` nodes on one PostgreSQL, one Redis and one data dir', () => {
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('serves a project created on node 1 from node 2, and a rename on node 2 from node 1 (lists included)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-nodes-'));
    const env = { CRATEHOUSE_DATABASE_URL: await createTestDatabase(), CRATEHOUSE_REDIS_URL: redis.url };
    // Started together: both find no admin and create one; one of them wins.
    const [one, two] = await Promise.all([startServerChild(dataDir, token, env), startServerChild(dataDir, token, env)]);
    running.push(one, two);
    expect(one.url).not.toBe(two.url);

    // Node 2 lists first: its projects list cache is built before the create.
    expect(await names(two)).toEqual([]);
    const created = await call(one, '/projects', { method: 'POST', body: { name: 'Beat Tape', path: 'beat-tape' } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };

    expect(
      await eventually(
        2000,
        () => names(two),
        (n) => n.length === 1,
      ),
    ).toEqual(['Beat Tape']);
    const got = await call(two, `/projects/${id}`);
    expect(got.status).toBe(200);
    expect(((await got.json()) as { path_with_namespace: string }).path_with_namespace).toBe('root/beat-tape');

    // Node 1 listed it (its cache holds the old name) before node 2 renames it.
    expect(await names(one)).toEqual(['Beat Tape']);
    const renamed = await call(two, `/projects/${id}`, { method: 'PUT', body: { name: 'Beat Tape II' } });
    expect(renamed.status).toBe(200);
    expect(
      await eventually(
        2000,
        () => names(one),
        (n) => n[0] === 'Beat Tape II',
      ),
    ).toEqual(['Beat Tape II']);
    const fromOne = (await (await call(one, `/projects/${id}`)).json()) as { name: string };
    expect(fromOne.name).toBe('Beat Tape II');

    // Ids come from one sequence: a project created on node 2 next gets a new id, seen on node 1.
    const second = await call(two, '/projects', { method: 'POST', body: { name: 'Loops' } });
    expect(second.status).toBe(201);
    const secondId = ((await second.json()) as { id: number }).id;
    expect(secondId).not.toBe(id);
    expect(
      (
        await eventually(
          2000,
          () => call(one, `/projects/${secondId}`),
          (r) => r.status === 200,
        )
      ).status,
    ).toBe(200);
  }, 120_000);

  it('answers the same path created on both nodes at once with one 201 and one 400 "has already been taken", never a 500', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-nodes-'));
    const env = { CRATEHOUSE_DATABASE_URL: await createTestDatabase(), CRATEHOUSE_REDIS_URL: redis.url };
    const one = await startServerChild(dataDir, token, env);
    running.push(one);
    const two = await startServerChild(dataDir, token, env);
    running.push(two);
    const answers = await Promise.all(
      [one, two].map(async (node) => {
        const res = await call(node, '/projects', { method: 'POST', body: { name: 'Same', path: 'same' } });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      }),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400]);
    const refused = answers.find((a) => a.status === 400)!;
    expect(JSON.stringify(refused.body)).toContain('has already been taken');
    // The loser left the winner's repository in place: both nodes serve it over git.
    const auth = { Authorization: `Basic ${Buffer.from(`root:${token}`).toString('base64')}` };
    for (const node of [one, two])
      expect((await fetch(`${node.url}/root/same.git/info/refs?service=git-upload-pack`, { headers: auth })).status).toBe(200);
  }, 120_000);

  it("refuses a second node without CRATEHOUSE_REDIS_URL (each node would run the other's jobs again)", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-nodes-'));
    const database = await createTestDatabase();
    const one = await startServerChild(dataDir, token, { CRATEHOUSE_DATABASE_URL: database, CRATEHOUSE_REDIS_URL: redis.url });
    running.push(one);
    await expect(startServerChild(dataDir, token, { CRATEHOUSE_DATABASE_URL: database })).rejects.toThrow('server exited early with 1');
    expect((await call(one, '/version')).status).toBe(200);
  }, 120_000);
});
