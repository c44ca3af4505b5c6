// Two application nodes on one PostgreSQL and one Redis: a job queued by one node and taken from Redis
// by the other before that node's copy of the store has the job (a lost job, seen as one stuck in
// `pending` in a CI run of nginx-nodes.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../test-support/test-app.js';
import { postgresSkipReason } from '../test-support/private-postgres.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../test-support/private-redis.js';
import { hearsOnlyWhenAsked, openTwoPostgresNodes } from '../test-support/store-kinds.js';
import type { Store } from '../store/store.js';
import { createBullDeliveryQueue } from './bullmq-delivery-queue.js';
import { createBullJobQueue } from './bullmq-job-queue.js';
import type { DeliveryQueue } from './delivery-queue.js';
import type { JobQueue } from './job-queue.js';
import { JobRunner, type JobHandler } from './job-runner.js';
import { createJobsRepo } from './jobs-repo.js';
import { createWebhookSender, type WebhookDelivery } from './webhooks.js';

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

  /** Two PostgreSQL stores on one database; B hears of A's commits only when it asks. */
  async function twoStores(): Promise<{ readonly a: Store; readonly b: Store }> {
    const { a, b } = await openTwoPostgresNodes(hearsOnlyWhenAsked);
    closing.push(
      () => a.close(),
      () => b.close(),
    );
    return { a, b };
  }

  it('delivers the webhook of a job another node finished, though its copy of the store did not have the job yet', async () => {
    const redis = await startPrivateRedis();
    closing.push(() => redis.stop());
    const { a, b } = await twoStores();
    const log = memoryLogger();
    const bull = (): DeliveryQueue<WebhookDelivery> => {
      const queue = createBullDeliveryQueue<WebhookDelivery>(
        { url: redis.url, name: 'webhooks-nodes-test', lockS: 5, tryTimeoutMs: 5000 },
        log,
      );
      closing.push(() => queue.stop());
      return queue;
    };
    const sent: { readonly delivery: string; readonly body: { readonly status: string; readonly result: unknown } }[] = [];
    // B makes every try; A only queues: its sender's queue forwards its adds to Redis and takes nothing.
    const queueB = bull();
    createWebhookSender({
      repo: createJobsRepo(b),
      secretFor: () => 's',
      present: (j) => j,
      transport: async (_url, body, headers) => {
        sent.push({ delivery: headers['X-Cratehouse-Delivery']!, body: JSON.parse(body) });
        return 204;
      },
      log,
      queue: queueB,
    });
    const queueA: DeliveryQueue<WebhookDelivery> = { ...queueB, start: () => undefined, stop: () => Promise.resolve() };
    const webhooksA = createWebhookSender({
      repo: createJobsRepo(a),
      secretFor: () => 's',
      present: (j) => j,
      transport: () => Promise.reject(new Error('A makes no try')),
      log,
      queue: queueA,
    });
    const nodeA = new JobRunner(createJobsRepo(a), new Map(), webhooksA, log, 1);
    const repoA = createJobsRepo(a);

    // A cached answer: the job is stored done and its webhook queued in the same moment.
    const job = await nodeA.submitDone(
      { type: 'demo', tenant: 'root', params: {}, webhookUrl: 'http://receiver.test/hook' },
      { result: { ok: true } },
    );
    const until = Date.now() + 20_000;
    while (Date.now() < until && repoA.byId(job.jobId)?.webhook?.delivered !== true) {
      await a.sync();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(sent.map((s) => [s.body.status, s.body.result])).toEqual([['done', { ok: true }]]);
    expect(repoA.byId(job.jobId)?.webhook).toEqual({ attempts: 1, delivered: true, gaveUp: false, lastError: null });
  }, 60_000);

  it('runs a job another node queued, though its copy of the store did not have it yet when Redis handed it out', async () => {
    const redis = await startPrivateRedis();
    closing.push(() => redis.stop());
    // B hears of A's commits only when it asks (no LISTEN, a poll once an hour): its copy is behind
    // when the job reaches it, as a node's is for the few milliseconds a notification takes.
    const { a, b } = await twoStores();
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
