// A job's webhook over Redis: queued on the node that finished the job, made by another node when that
// one stops mid-try. A real redis-server of the test's own (CRATEHOUSE_REQUIRE_REDIS=1: fail, not skip).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../test-support/private-redis.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import type { JobHandler } from './job-runner.js';
import type { WebhookTransport } from './webhooks.js';
import { waitFor } from '../test-support/wait-for.js';

const redisSkip = redisSkipReason(process.env);
if (redisSkip) console.warn(redisSkip);

let redis: PrivateRedis;

beforeAll(async () => {
  if (!redisSkip) redis = await startPrivateRedis();
});

afterAll(async () => {
  if (!redisSkip) await redis.stop();
});

const quickJob: JobHandler = async () => ({ result: { done: true } });

it.skipIf(redisSkip !== null)(
  'a webhook under way on a node that stops is made by another node, once, as one delivery',
  async () => {
    const calls: { node: string; delivery: string; outcome: string }[] = [];
    // Node a's receiver never answers (its try ends only when a stops); node b's answers 204.
    const holding: WebhookTransport = async (_url, _body, headers, signal) => {
      const call = { node: 'a', delivery: headers['X-Cratehouse-Delivery']!, outcome: 'pending' };
      calls.push(call);
      return new Promise((_, reject) => {
        const abort = () => {
          call.outcome = 'aborted';
          reject(new Error('aborted'));
        };
        signal.addEventListener('abort', abort, { once: true });
      });
    };
    const answering: WebhookTransport = async (_url, _body, headers) => {
      calls.push({ node: 'b', delivery: headers['X-Cratehouse-Delivery']!, outcome: '204' });
      return 204;
    };
    const redisQueues = { url: redis.url, lockS: 2, analysisInApp: false };
    const webhookOptions = { maxAttempts: 3, backoffMs: 100, timeoutMs: 60_000 };
    const handlers = new Map([['quick', quickJob]]);
    const a: TestApp = await startTestApp({ redis: redisQueues, jobHandlers: handlers, webhookTransport: holding, webhookOptions });
    let b: TestApp | null = null;
    try {
      const job = await a.jobs.submit({ type: 'quick', tenant: 'root', params: {}, webhookUrl: 'http://receiver.test/hook' });
      await waitFor(() => calls.length === 1);
      b = await startTestApp({ redis: redisQueues, jobHandlers: handlers, webhookTransport: answering, webhookOptions, shareStoreOf: a });
      await a.close();
      const record = () => b!.store.data.jobs.find((j) => j.jobId === job.jobId)?.webhook;
      await waitFor(() => record()?.delivered === true);
      await b.jobs.onIdle();
      await new Promise((r) => setTimeout(r, 2500)); // past a lock period: nobody makes it again
      expect(calls.map(({ node, outcome }) => [node, outcome])).toEqual([
        ['a', 'aborted'],
        ['b', '204'],
      ]);
      expect(calls[1]!.delivery).toBe(calls[0]!.delivery);
      // a's cut-short try is not counted.
      expect(record()).toEqual({ attempts: 1, delivered: true, gaveUp: false, lastError: null });
    } finally {
      await a.close().catch(() => undefined);
      await b?.close();
    }
  },
  120_000,
);
