// Project hook deliveries over Redis (BullMQ): what a queued delivery does when nodes share Redis and
// one of them stops or dies. A real redis-server of the test's own; CRATEHOUSE_REQUIRE_REDIS=1 fails
// instead of skipping when it is missing.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitClient, readJson, withToken } from '../../test-support/hosting-client.js';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../../test-support/private-redis.js';
import { startServerChild } from '../../test-support/server-child.js';
import { createTestDatabase } from '../../test-support/store-kinds.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';
import { waitFor } from '../../test-support/wait-for.js';

const redisSkip = redisSkipReason(process.env);
if (redisSkip) console.warn(redisSkip);

/** One request the receiver got: when, which event, and what it answered (null: never answered). */
interface Hit {
  readonly path: string;
  readonly event: string;
  readonly eventUuid: string;
  readonly at: number;
  answered: number | null;
}

let redis: PrivateRedis;
let receiver: http.Server;
let base: string;
const hits: Hit[] = [];
/** Held answers (the first request to each /hold/… path), ended at the end. */
const held: http.ServerResponse[] = [];
const children: ChildProcess[] = [];
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-hook-redis-'));
const git = gitClient(work, { name: 'Hook Tester', email: 'hooks@example.com' }).ok;
const delivery = { maxAttempts: 3, backoffMs: 200, timeoutMs: 20_000 };

const hitsOf = (p: string) => hits.filter((h) => h.path === p);

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  if (redisSkip) return;
  redis = await startPrivateRedis();
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const p = req.url ?? '';
      const hit: Hit = {
        path: p,
        event: String(req.headers['x-gitlab-event']),
        eventUuid: String(req.headers['x-gitlab-event-uuid']),
        at: Date.now(),
        answered: null,
      };
      const first = hitsOf(p).length === 0;
      hits.push(hit);
      if (p.startsWith('/hold/') && first) return void held.push(res);
      hit.answered = p.startsWith('/fail/') ? 500 : 200;
      res.writeHead(hit.answered).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (redisSkip) return;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const res of held) res.destroy();
  await new Promise<void>((r) => receiver.close(() => r()));
  await redis.stop();
  rmSync(work, { recursive: true, force: true });
});

/** An app node over the test's Redis (a short lock, so a dead node's deliveries move on quickly). */
function startNode(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  return startTestApp({ redis: { url: redis.url, lockS: 2, analysisInApp: false }, hookDelivery: delivery, ...options });
}

/** A project of a new user with one hook, on `api` (an app or a server child's URL). */
async function projectWithHook(
  call: (route: string, token: string, body?: unknown) => Promise<Response>,
  token: string,
  name: string,
  hookUrl: string,
): Promise<{ project: Project; hookId: number }> {
  const project = await readJson<Project>(call('/projects', token, { name }));
  const hook = await call(`/projects/${project.id}/hooks`, token, { url: hookUrl });
  expect(hook.status).toBe(201);
  return { project, hookId: ((await hook.json()) as { id: number }).id };
}

/** Push one new commit to main. */
async function pushCommit(project: Project, token: string, file: string): Promise<void> {
  const src = path.join(work, `${project.path}-${file}`);
  await git(['init', '-q', src]);
  writeFileSync(path.join(src, file), `${file}\n`);
  await git(['add', '.'], src);
  await git(['commit', '-q', '-m', `Add ${file}`], src);
  await git(['push', '-q', withToken(project.http_url_to_repo, token), 'main'], src);
}

const postTo = (app: TestApp) => (route: string, token: string, body?: unknown) =>
  app.fetch(`/api/v4${route}`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe.skipIf(redisSkip !== null)('hook deliveries over Redis', () => {
  it('a push and a test delivery each reach the receiver once, and the push is recorded', async () => {
    const app = await startNode();
    try {
      const { token } = await app.addUser('once');
      const { project, hookId } = await projectWithHook(postTo(app), token, 'Once', `${base}/ok/once`);
      await pushCommit(project, token, 'a.txt');
      await waitFor(() => app.hooks.deliveries(hookId)[0]);
      await app.hooks.onIdle();
      await pause(2500); // past a lock period and a stalled-job check: nothing makes it again
      expect(hitsOf('/ok/once').map((h) => [h.event, h.answered])).toEqual([['Push Hook', 200]]);
      expect(app.hooks.deliveries(hookId)).toEqual([
        { hookId, event: 'Push Hook', attempts: 1, status: 200, error: null, delivered: true },
      ]);

      const tested = await postTo(app)(`/projects/${project.id}/hooks/${hookId}/test/tag_push_events`, token);
      expect(tested.status).toBe(201);
      await pause(1000);
      expect(hitsOf('/ok/once').map((h) => [h.event, h.answered])).toEqual([
        ['Push Hook', 200],
        ['Tag Push Hook', 200],
      ]);
      // A test delivery is answered, not recorded (as in process).
      expect(app.hooks.deliveries(hookId)).toHaveLength(1);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('a failing receiver is retried with doubling backoff up to maxAttempts; a test delivery is tried once', async () => {
    const app = await startNode();
    try {
      const { token } = await app.addUser('failing');
      const { project, hookId } = await projectWithHook(postTo(app), token, 'Failing', `${base}/fail/retry`);
      await pushCommit(project, token, 'a.txt');
      const [record] = [await waitFor(() => app.hooks.deliveries(hookId)[0])];
      expect(record).toEqual({
        hookId,
        event: 'Push Hook',
        attempts: 3,
        status: 500,
        error: 'Receiver answered HTTP 500',
        delivered: false,
      });
      const tries = hitsOf('/fail/retry');
      expect(tries).toHaveLength(3);
      expect(new Set(tries.map((t) => t.eventUuid)).size).toBe(1);
      // backoffMs 200: the second try at least 200 ms after the first's answer, the third 400 ms after the second's.
      expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(200);
      expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(400);
      await app.hooks.onIdle();

      const tested = await postTo(app)(`/projects/${project.id}/hooks/${hookId}/test/push_events`, token);
      expect(tested.status).toBe(422);
      expect(await tested.json()).toEqual({ message: 'Receiver answered HTTP 500' });
      await pause(1000);
      expect(hitsOf('/fail/retry')).toHaveLength(4);
      expect(app.hooks.deliveries(hookId)).toHaveLength(1);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('refuses at delivery a hook name that now resolves to a private address', async () => {
    let lookups = 0;
    const resolve = async () => [{ address: lookups++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    const app = await startNode({ hooks: { allowPrivate: false, resolve } });
    try {
      const { token } = await app.addUser('strict');
      const port = new URL(base).port;
      const { project, hookId } = await projectWithHook(postTo(app), token, 'Strict', `http://rebind.test:${port}/private/rebind`);
      await pushCommit(project, token, 'a.txt');
      const record = await waitFor(() => app.hooks.deliveries(hookId)[0]);
      expect(record).toMatchObject({ hookId, attempts: 3, status: null, delivered: false });
      expect(record.error).toContain('Refusing to connect to rebind.test (127.0.0.1)');
      const tested = await postTo(app)(`/projects/${project.id}/hooks/${hookId}/test/push_events`, token);
      expect(tested.status).toBe(422);
      expect(hitsOf('/private/rebind')).toHaveLength(0);
    } finally {
      await app.close();
    }
  }, 120_000);

  it('a delivery running on a node that stops is made by another node, once', async () => {
    const a = await startNode();
    let b: TestApp | null = null;
    try {
      const { token } = await a.addUser('handover');
      const { project, hookId } = await projectWithHook(postTo(a), token, 'Handover', `${base}/hold/handover`);
      await pushCommit(project, token, 'a.txt');
      await waitFor(() => hitsOf('/hold/handover')[0]); // node a's try, held by the receiver
      b = await startNode({ shareStoreOf: a });
      await a.close();
      const record = await waitFor(() => b!.hooks.deliveries(hookId)[0]);
      // Node a's try was cut short by its stop, so it does not count: b's one try delivered it.
      expect(record).toEqual({ hookId, event: 'Push Hook', attempts: 1, status: 200, error: null, delivered: true });
      await b.hooks.onIdle();
      await pause(2500);
      const tries = hitsOf('/hold/handover');
      expect(tries.map((t) => t.answered)).toEqual([null, 200]);
      expect(tries[1]!.eventUuid).toBe(tries[0]!.eventUuid);
    } finally {
      await a.close().catch(() => undefined);
      await b?.close();
    }
  }, 120_000);

  /**
   * A server process SIGKILLed while the receiver holds its try; `second` is started after the kill
   * (embedded store, the same data dir) or, with PostgreSQL, is already serving beside it.
   */
  async function killDuringDelivery(second: 'after the kill' | 'live beside it', hold: string): Promise<void> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cratehouse-hook-crash-'));
    const env: Record<string, string> = {
      CRATEHOUSE_REDIS_URL: redis.url,
      CRATEHOUSE_REDIS_LOCK_S: '2',
      CRATEHOUSE_HOOKS_ALLOW_PRIVATE: 'true',
    };
    if (second === 'live beside it') env.CRATEHOUSE_DATABASE_URL = await createTestDatabase();
    const admin = 'hook-crash-admin';
    const first = await startServerChild(dataDir, admin, env);
    children.push(first.child);
    const call = (route: string, token: string, body?: unknown) =>
      fetch(`${first.url}/api/v4${route}`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    const { project } = await projectWithHook(call, admin, second === 'live beside it' ? 'Crash live' : 'Crash', `${base}${hold}`);
    await pushCommit(project, admin, 'a.txt');
    await waitFor(() => hitsOf(hold)[0]); // the first node's try, held
    const live = second === 'live beside it' ? await startServerChild(dataDir, admin, env) : null;
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL'); // its BullMQ lock is no longer renewed
    await exited;

    const next = live ?? (await startServerChild(dataDir, admin, env));
    children.push(next.child);
    try {
      await waitFor(() => hitsOf(hold)[1], { timeoutMs: 60_000 });
      await pause(3000); // past another lock period: nobody makes it a third time
      const tries = hitsOf(hold);
      expect(tries.map((t) => [t.event, t.answered])).toEqual([
        ['Push Hook', null],
        ['Push Hook', 200],
      ]);
      expect(tries[1]!.eventUuid).toBe(tries[0]!.eventUuid);
    } finally {
      const gone = new Promise((r) => next.child.once('exit', r));
      next.child.kill('SIGTERM');
      await gone;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it(
    'a node SIGKILLed during a delivery: the next node makes it, once',
    () => killDuringDelivery('after the kill', '/hold/crash'),
    180_000,
  );

  it.skipIf(postgresSkipReason !== null)(
    'two live nodes on PostgreSQL, one SIGKILLed during a delivery: the other makes it, once',
    () => killDuringDelivery('live beside it', '/hold/crash-live'),
    180_000,
  );
});
