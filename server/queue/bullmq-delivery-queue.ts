import { DelayedError, Queue, QueueEvents, Worker, type Job } from 'bullmq';
import type { Logger } from '../http/logger.js';
import type { AttemptOutcome, DeliveryHandler, DeliveryPolicy, DeliveryQueue } from './delivery-queue.js';
import { bullWorkerOptions, redisKeyPrefix, redisOptions } from './redis-connection.js';

/** How a BullMQ delivery queue runs on this node. */
export interface BullDeliveryQueueOptions {
  readonly url: string;
  /** Queue name (one per kind of delivery; tests may give each run its own). */
  readonly name: string;
  /** Lock of a taken delivery (s): a node that stops renewing it (it died) loses it to another node after this. */
  readonly lockS: number;
  /** How long a test delivery may wait for a free slot on some node, beyond its own timeout (ms). */
  readonly queueingAllowanceMs?: number;
  /** The longest one try can take (ms): a test delivery waits this plus the allowance. */
  readonly tryTimeoutMs: number;
}

/** A queued delivery: the task, and whether it is a single awaited try. */
interface QueuedDelivery<T> {
  readonly task: T;
  readonly once: boolean;
}

/** What a delivery job returns: a settled delivery (heard by every node), a single try's outcome, or nothing to deliver. */
type DeliveryResult<T> =
  | { readonly kind: 'settled'; readonly task: T; readonly attempts: number; readonly outcome: AttemptOutcome }
  | { readonly kind: 'once'; readonly outcome: AttemptOutcome }
  | { readonly kind: 'gone' };

/**
 * The DeliveryQueue over BullMQ. A delivery is a job in Redis: any node's Worker takes it, a failed try is
 * thrown so BullMQ retries it after its exponential backoff (a delayed job, in Redis too) until
 * `maxAttempts`, and the last try returns the outcome, which every node hears through QueueEvents. A node
 * that dies mid-try loses its lock and BullMQ's stalled-job check gives the delivery to another node; a
 * node that stops hands its running deliveries back untried. The node making the last try settles it at
 * once (its own record is current when its queue is idle); the others when they hear of it.
 */
export function createBullDeliveryQueue<T>(options: BullDeliveryQueueOptions, log: Logger): DeliveryQueue<T> {
  const connection = redisOptions(options.url);
  const queue = new Queue<QueuedDelivery<T>, DeliveryResult<T>>(options.name, { connection, prefix: redisKeyPrefix });
  const events = new QueueEvents(options.name, { connection, prefix: redisKeyPrefix });
  const stopper = new AbortController();
  /** Deliveries this node settled itself: their completion event is not settled again. */
  const settledHere = new Set<string>();
  const adding = new Set<Promise<unknown>>();
  let handler: DeliveryHandler<T> | null = null;
  let policy: DeliveryPolicy | null = null;
  let worker: Worker<QueuedDelivery<T>, DeliveryResult<T>> | null = null;
  queue.on('error', (e: unknown) => log.error(`redis (${options.name})`, e));
  events.on('error', (e: unknown) => log.error(`redis (${options.name} events)`, e));
  events.on('completed', ({ jobId, returnvalue }) => {
    if (settledHere.delete(jobId)) return;
    const result = parseResult<T>(returnvalue);
    if (result?.kind === 'settled') handler?.settled(result.task, result.attempts, result.outcome);
  });

  async function process(job: Job<QueuedDelivery<T>, DeliveryResult<T>>, token?: string): Promise<DeliveryResult<T>> {
    const { task, once } = job.data;
    const tries = job.attemptsMade + 1;
    const outcome = stopper.signal.aborted ? undefined : await handler!.attempt(task, stopper.signal);
    if (stopper.signal.aborted) {
      // This node is stopping: the try was cut short (or not made), so it does not count; another node makes it.
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    if (outcome === undefined) return { kind: 'gone' };
    if (once) return { kind: 'once', outcome };
    if (!outcome.ok && !outcome.final && tries < policy!.maxAttempts)
      throw new Error(outcome.error ?? `receiver answered ${outcome.status}`);
    settledHere.add(job.id!);
    handler!.settled(task, tries, outcome);
    return { kind: 'settled', task, attempts: tries, outcome };
  }

  function track<R>(promise: Promise<R>): Promise<R> {
    adding.add(promise);
    void promise.catch(() => undefined).finally(() => adding.delete(promise));
    return promise;
  }

  return {
    start(h, p) {
      if (worker) return;
      handler = h;
      policy = p;
      worker = new Worker(options.name, process, bullWorkerOptions(options.url, p.concurrency, options.lockS));
      worker.on('error', (e: unknown) => log.error(`redis (${options.name} worker)`, e));
    },
    add(task, key) {
      if (!policy || stopper.signal.aborted) return;
      void track(
        queue.add(
          'delivery',
          { task, once: false },
          {
            // BullMQ adds nothing for an id it holds (queued, delayed or running).
            ...(key !== undefined ? { jobId: key } : {}),
            attempts: policy.maxAttempts,
            backoff: { type: 'exponential', delay: policy.backoffMs },
            removeOnComplete: true,
            removeOnFail: true,
          },
        ),
      ).catch((e: unknown) => log.error(`a delivery could not be queued in Redis (${options.name})`, e));
    },
    async tryOnce(task) {
      if (!policy || stopper.signal.aborted) throw new Error('delivery queue not started, or stopped');
      await events.waitUntilReady();
      // Kept a minute after completion, so the wait below finds its outcome even when it came first.
      const job = await track(
        queue.add('delivery', { task, once: true }, { attempts: 1, removeOnComplete: { age: 60 }, removeOnFail: { age: 60 } }),
      );
      const result = parseResult<T>(await job.waitUntilFinished(events, options.tryTimeoutMs + (options.queueingAllowanceMs ?? 30_000)));
      if (result?.kind === 'once') return result.outcome;
      return undefined;
    },
    async onIdle() {
      for (;;) {
        await Promise.allSettled(adding);
        const counts = await queue.getJobCounts('wait', 'active', 'prioritized', 'delayed');
        if (Object.values(counts).every((n) => n === 0) && adding.size === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      // Close first, so the worker takes nothing more (a delivery handed back is not taken again
      // here), then cut the running tries short: each hands its delivery back to the queue.
      const closing = worker?.close();
      stopper.abort();
      await Promise.allSettled(adding);
      await closing;
      await events.close();
      await queue.close();
    },
  };
}

/** A job's return value as QueueEvents or waitUntilFinished hands it (parsed, or still JSON text). */
function parseResult<T>(value: unknown): DeliveryResult<T> | undefined {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return parsed && typeof parsed === 'object' && 'kind' in parsed ? (parsed as DeliveryResult<T>) : undefined;
}
