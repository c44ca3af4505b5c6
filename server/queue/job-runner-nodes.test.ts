// Two application nodes on one PostgreSQL and one Redis: a job queued by one node and taken from Redis
// by the other before that node's copy of the store has the job (a lost job, seen as one stuck in
// `pending` in a CI run of nginx-nodes.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../test-support/test-app.js';
import { postgresSkipReason } from '../test-support/private-postgres.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../test-support/private-redis.js';
import { createTestDatabase } from '../test-support/store-kinds.js';
import { openPostgresStore } from '../store/postgres/pg-store.js';
import type { Store } from '../store/store.js';
import { createBullJobQueue } from './bullmq-job-queue.js';
import type { JobQueue } from './job-queue.js';
import { JobRunner, type JobHandler } from './job-runner.js';
import { createJobsRepo } from './jobs-repo.js';
import { createWebhookSender } from './webhooks.js';

const skip = postgresSkipReason ?? redisSkipReason(process.env);

describe.skipIf(skip !== null)('jobs across two nodes (PostgreSQL and Redis)', () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  /** A node's JobRunner over `store` and the shared Redis queue; `takes` false: it only queues (its slots are busy elsewhere). */
  function nodeOn(store: Store, redis: PrivateRedis, handler: JobHandler, takes: boolean): JobRunner {
    const log = memoryLogger();
    const repo = createJobsRepo(store);
    // No job here has a webhook URL: the transport is never called.
    const webhooks = createWebhookSender({ repo, secretFor: () => 's', present: (j) => j, transport: () => Promise.resolve(200), log });
    const bull = createBullJobQueue({ url: redis.url, concurrency: 1, lockS: 5, name: 'nodes-test' }, log);
    const queue: JobQueue = takes ? bull : { ...bull, start: () => undefined };
    closing.push(() => bull.stop());
    return new JobRunner(repo, new Map([['demo', handler]]), webhooks, log, queue);
  }

  it('runs a job another node queued, though its copy of the store did not have it yet when Redis handed it out', async () => {
    const redis = await startPrivateRedis();
    closing.push(() => redis.stop());
    const url = await createTestDatabase();
    const a = await openPostgresStore(url);
    // B hears of A's commits only when it asks (no LISTEN, a poll once an hour): its copy is behind
    // when the job reaches it, as a node's is for the few milliseconds a notification takes.
    const b = await openPostgresStore(url, { listen: false, pollMs: 3_600_000 });
    closing.push(
      () => a.close(),
      () => b.close(),
    );
    const ran: string[] = [];
    const handler: JobHandler = async (ctx) => {
      ran.push(ctx.jobId);
      return { result: { ok: true } };
    };
    const nodeA = nodeOn(a, redis, handler, false);
    const nodeB = nodeOn(b, redis, handler, true);
    await nodeB.resume(); // B takes from Redis from now on

    const job = await nodeA.submit({ type: 'demo', tenant: 'root', params: {} });
    const until = Date.now() + 20_000;
    const repoA = createJobsRepo(a);
    while (Date.now() < until) {
      await a.sync();
      if (repoA.byId(job.jobId)?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(ran).toEqual([job.jobId]);
    expect(repoA.byId(job.jobId)?.status).toBe('done');
    expect(repoA.byId(job.jobId)?.result).toEqual({ ok: true });
  }, 60_000);
});
