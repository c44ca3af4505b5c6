import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryLogger, startTestApp } from '../test-support/test-app.js';
import { MemoryAdapter } from '../store/file-adapter.js';
import type { DbSchema } from '../store/schema.js';
import { openStore } from '../store/store.js';
import { JobRunner, type JobHandler } from './job-runner.js';
import { createJobsRepo } from './jobs-repo.js';
import { createWebhookSender, type WebhookTransport } from './webhooks.js';
import { createBullJobQueue } from './bullmq-job-queue.js';
import type { JobQueue } from './job-queue.js';
import type { Logger } from '../http/logger.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../test-support/private-redis.js';
import { waitFor as poll } from '../test-support/wait-for.js';

/** A handler that walks `steps` checkpoints, waiting `ms` between them. */
function steppedHandler(steps: number, ms: number, log?: string[]): JobHandler {
  return async (ctx) => {
    log?.push(`start ${String((ctx.params as { name?: string }).name)}`);
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, ms));
      ctx.checkpoint(i / steps);
    }
    return { result: { name: (ctx.params as { name?: string }).name, steps } };
  };
}

const waitFor = (check: () => boolean) => poll(check, { timeoutMs: 5000, everyMs: 5 });

const redisSkip = redisSkipReason(process.env);
if (redisSkip) console.warn(redisSkip);

/**
 * The same semantics over both queue backends: in process (p-queue), and BullMQ over a private
 * redis-server each test starts (so no state crosses tests).
 */
const backends = [
  { name: 'in process', redis: false },
  { name: 'BullMQ over Redis', redis: true },
] as const;

describe.each(backends)('job runner ($name)', ({ redis: overRedis }) => {
  let redis: PrivateRedis | null = null;
  beforeEach(async (ctx) => {
    if (overRedis && redisSkip) ctx.skip();
    if (overRedis) redis = await startPrivateRedis();
  });
  afterEach(async () => {
    await redis?.stop();
    redis = null;
  });
  /** startTestApp's option selecting the backend. */
  const backend = () => (redis ? { redis: { url: redis.url, lockS: 5, analysisInApp: true } } : {});
  /** The queue a JobRunner built by hand takes. */
  const queueOf = (log: Logger, concurrency: number): number | JobQueue =>
    redis ? createBullJobQueue({ url: redis.url, concurrency, lockS: 5 }, log) : concurrency;

  it('runs queued jobs by priority (higher first) and records the result', async () => {
    const order: string[] = [];
    const app = await startTestApp({ ...backend(), jobHandlers: new Map([['demo', steppedHandler(1, 50, order)]]), jobConcurrency: 1 });
    try {
      // The first job occupies the single slot; the rest queue and are then taken by priority.
      const first = await app.jobs.submit({ type: 'demo', tenant: 'root', params: { name: 'first' } });
      await waitFor(() => order.length === 1);
      await app.jobs.submit({ type: 'demo', tenant: 'root', params: { name: 'low' }, priority: 0 });
      await app.jobs.submit({ type: 'demo', tenant: 'root', params: { name: 'high' }, priority: 10 });
      await app.jobs.submit({ type: 'demo', tenant: 'root', params: { name: 'mid' }, priority: 5 });
      await app.jobs.onIdle();
      expect(order).toEqual(['start first', 'start high', 'start mid', 'start low']);
      const res = await app.fetch(`/audio/v1/jobs/${first.jobId}`, { headers: { Authorization: 'Bearer admin-token' } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        job_id: first.jobId,
        type: 'demo',
        status: 'done',
        progress: 1,
        result: { name: 'first', steps: 1 },
        error: null,
      });
      expect(Object.keys(body).sort()).toEqual([
        'created',
        'error',
        'finished',
        'job_id',
        'progress',
        'result',
        'result_ref',
        'started',
        'status',
        'type',
      ]);
      expect(body.started as number).toBeGreaterThanOrEqual(body.created as number);
      expect(body.finished as number).toBeGreaterThanOrEqual(body.started as number);
    } finally {
      await app.close();
    }
  });

  it('hides other tenants’ jobs behind a 404, for GET and DELETE alike', async () => {
    const app = await startTestApp({ ...backend(), jobHandlers: new Map([['demo', steppedHandler(1, 1)]]) });
    try {
      const alice = await app.addUser('alice');
      const bob = await app.addUser('bob');
      const teammate = await app.addUser('carol', { tenant: 'alice' });
      const job = await app.jobs.submit({ type: 'demo', tenant: 'alice', params: {} });
      await app.jobs.onIdle();
      const get = (token: string, id = job.jobId, method = 'GET') =>
        app.fetch(`/audio/v1/jobs/${id}`, { method, headers: { Authorization: `Bearer ${token}` } });

      expect((await get(alice.token)).status).toBe(200);
      expect((await get(teammate.token)).status).toBe(200); // same tenant, other user
      const foreign = await get(bob.token);
      expect(foreign.status).toBe(404);
      expect(await foreign.json()).toEqual({ detail: 'Job Not Found' });
      const unknown = await get(bob.token, 'no-such-job');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ detail: 'Job Not Found' });
      expect((await get(bob.token, job.jobId, 'DELETE')).status).toBe(404);
      const anonymous = await app.fetch(`/audio/v1/jobs/${job.jobId}`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ detail: 'Not authenticated' });
    } finally {
      await app.close();
    }
  });

  it('cancels a pending job at once, a running one at its next checkpoint, and leaves a finished one alone', async () => {
    const app = await startTestApp({
      ...backend(),
      jobHandlers: new Map([
        ['slow', steppedHandler(200, 10)],
        ['quick', steppedHandler(1, 1)],
      ]),
      jobConcurrency: 1,
    });
    try {
      const del = async (id: string) => {
        const res = await app.fetch(`/audio/v1/jobs/${id}`, { method: 'DELETE', headers: { Authorization: 'Bearer admin-token' } });
        expect(res.status).toBe(200);
        return (await res.json()) as { status: string; error: string | null; progress: number };
      };
      const running = await app.jobs.submit({ type: 'slow', tenant: 'root', params: {} });
      const pending = await app.jobs.submit({ type: 'quick', tenant: 'root', params: {} });
      await waitFor(() => app.jobs.getForTenant('root', running.jobId).status === 'running');

      expect(await del(pending.jobId)).toMatchObject({ status: 'error', error: 'cancelled' });
      const afterDelete = await del(running.jobId);
      expect(afterDelete.status).toBe('running'); // cooperative: it stops at its next checkpoint
      await app.jobs.onIdle();
      const ended = app.jobs.getForTenant('root', running.jobId);
      expect(ended).toMatchObject({ status: 'error', error: 'cancelled' });
      expect(ended.progress).toBeLessThan(1);
      // The pending job never ran.
      expect(app.jobs.getForTenant('root', pending.jobId).started).toBeNull();

      // DELETE is idempotent and a finished job is unchanged.
      const again = await del(running.jobId);
      expect(again).toMatchObject({ status: 'error', error: 'cancelled' });
      const done = await app.jobs.submit({ type: 'quick', tenant: 'root', params: {} });
      await app.jobs.onIdle();
      const before = app.jobs.getForTenant('root', done.jobId);
      expect(await del(done.jobId)).toMatchObject({ status: 'done', error: null, progress: 1 });
      expect(app.jobs.getForTenant('root', done.jobId)).toEqual(before);
    } finally {
      await app.close();
    }
  });

  it('ends a failing job in error with its message', async () => {
    const failing: JobHandler = async () => {
      throw new Error('the source answered 404');
    };
    const app = await startTestApp({ ...backend(), jobHandlers: new Map([['fail', failing]]) });
    try {
      const job = await app.jobs.submit({ type: 'fail', tenant: 'root', params: {} });
      await app.jobs.onIdle();
      expect(app.jobs.getForTenant('root', job.jobId)).toMatchObject({ status: 'error', error: 'the source answered 404' });
    } finally {
      await app.close();
    }
  });

  /**
   * A first "boot" that stops while job `a` is running and `b` is pending, and a second runner over
   * the same persisted document (not resumed yet) whose handler finishes quickly.
   */
  const bootAfterStopMidRun = async () => {
    const adapter = new MemoryAdapter<DbSchema>();
    const log = memoryLogger();
    const noWebhooks = { deliver: () => undefined, onIdle: async () => undefined, stop: async () => undefined };
    const store1 = await openStore(adapter);
    const runner1 = new JobRunner(createJobsRepo(store1), new Map([['slow', steppedHandler(100, 10)]]), noWebhooks, log, queueOf(log, 1));
    const a = await runner1.submit({ type: 'slow', tenant: 't', params: {} });
    const b = await runner1.submit({ type: 'slow', tenant: 't', params: {} });
    await waitFor(() => store1.data.jobs.find((j) => j.jobId === a.jobId)?.status === 'running');
    await runner1.stop();
    await store1.flush();
    expect(store1.data.jobs.map((j) => j.status)).toEqual(['running', 'pending']);
    const store2 = await openStore(adapter);
    const runner2 = new JobRunner(createJobsRepo(store2), new Map([['slow', steppedHandler(2, 1)]]), noWebhooks, log, queueOf(log, 1));
    return { a, b, runner2 };
  };

  it('resumes jobs left pending or running by a previous run', async () => {
    const { a, b, runner2 } = await bootAfterStopMidRun();
    expect(await runner2.resume()).toBe(2);
    await runner2.onIdle();
    expect(runner2.getForTenant('t', a.jobId)).toMatchObject({ status: 'done', progress: 1 });
    expect(runner2.getForTenant('t', b.jobId)).toMatchObject({ status: 'done', progress: 1 });
    await runner2.stop();
  });

  it('leaves another live node its running jobs when resuming beside it (othersLive)', async () => {
    const { a, b, runner2 } = await bootAfterStopMidRun();
    expect(await runner2.resume({ othersLive: true })).toBe(1);
    await runner2.onIdle();
    expect(runner2.getForTenant('t', a.jobId)).toMatchObject({ status: 'running' });
    expect(runner2.getForTenant('t', b.jobId)).toMatchObject({ status: 'done', progress: 1 });
    await runner2.stop();
  });

  it('posts the final JobStatus once, signed with the tenant secret, retrying after a failure', async () => {
    const calls: { url: string; body: string; headers: Record<string, string> }[] = [];
    let failFirst = true;
    const transport: WebhookTransport = async (url, body, headers) => {
      calls.push({ url, body, headers: { ...headers } });
      if (failFirst) {
        failFirst = false;
        return 500;
      }
      return 204;
    };
    const app = await startTestApp({ ...backend(), jobHandlers: new Map([['demo', steppedHandler(1, 1)]]), webhookTransport: transport });
    try {
      const job = await app.jobs.submit({ type: 'demo', tenant: 'root', params: { name: 'x' }, webhookUrl: 'http://receiver.test/hook' });
      await app.jobs.onIdle();
      await waitFor(() => app.store.data.jobs.find((j) => j.jobId === job.jobId)?.webhook?.delivered === true);
      expect(calls).toHaveLength(2);
      const secret = app.identity.tenantSecret('root')!;
      for (const call of calls) {
        expect(call.url).toBe('http://receiver.test/hook');
        const expected =
          'sha256=' + createHmac('sha256', secret).update(`${call.headers['X-Cratehouse-Timestamp']}.${call.body}`).digest('hex');
        expect(call.headers['X-Cratehouse-Signature']).toBe(expected);
        expect(call.headers['X-Cratehouse-Event']).toBe('job.finished');
        expect(JSON.parse(call.body)).toMatchObject({ job_id: job.jobId, status: 'done', result: { name: 'x', steps: 1 } });
      }
      // Both attempts are the same delivery.
      expect(calls[0]!.headers['X-Cratehouse-Delivery']).toBe(calls[1]!.headers['X-Cratehouse-Delivery']);
      expect(app.store.data.jobs.find((j) => j.jobId === job.jobId)?.webhook).toEqual({
        attempts: 2,
        delivered: true,
        gaveUp: false,
        lastError: null,
      });
    } finally {
      await app.close();
    }
  });
});

describe('webhooks', () => {
  it('gives up after the attempt limit without blocking the job queue', async () => {
    let calls = 0;
    const hanging: WebhookTransport = async (_u, _b, _h, signal) => {
      calls++;
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('timed out')), { once: true }));
      return 200;
    };
    const store = await openStore(new MemoryAdapter<DbSchema>());
    const repo = createJobsRepo(store);
    const log = memoryLogger();
    const sender = createWebhookSender({
      repo,
      secretFor: () => 's',
      present: (j) => j,
      transport: hanging,
      log,
      options: { maxAttempts: 3, backoffMs: 5, timeoutMs: 30 },
    });
    const runner = new JobRunner(repo, new Map([['demo', steppedHandler(1, 1)]]), sender, log, 1);
    const first = await runner.submit({ type: 'demo', tenant: 't', params: {}, webhookUrl: 'http://slow.test/' });
    const second = await runner.submit({ type: 'demo', tenant: 't', params: {} });
    await runner.onIdle();
    // The second job finished while the first one's webhook was still being attempted.
    expect(runner.getForTenant('t', second.jobId).status).toBe('done');
    await sender.onIdle();
    expect(calls).toBe(3);
    expect(store.data.jobs.find((j) => j.jobId === first.jobId)?.webhook).toEqual({
      attempts: 3,
      delivered: false,
      gaveUp: true,
      lastError: 'timed out',
    });
    await runner.stop();
  });
});

describe('webhook transport under the outbound rules', () => {
  it('refuses a private receiver unless private addresses are allowed, and delivers when they are', async () => {
    const { default: http } = await import('node:http');
    let received = 0;
    const receiver = http.createServer((req, res) => {
      req.resume();
      received++;
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const { outboundTransport } = await import('./webhooks.js');
    try {
      await expect(outboundTransport(false)(url, '{}', {}, new AbortController().signal)).rejects.toThrow(/private, loopback/);
      expect(received).toBe(0);
      expect(await outboundTransport(true)(url, '{}', {}, new AbortController().signal)).toBe(204);
      expect(received).toBe(1);
    } finally {
      receiver.close();
    }
  });
});
