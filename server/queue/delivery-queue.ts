import PQueue from 'p-queue';
import type { Logger } from '../http/logger.js';

/** One try's outcome: delivered or not, the receiver's status, what went wrong. */
export interface AttemptOutcome {
  readonly ok: boolean;
  readonly status: number | null;
  readonly error: string | null;
  /** Not to be tried again whatever the tries so far (the target's own record says it gave up). */
  readonly final?: boolean;
}

/** How often a delivery is tried, how long between tries, and how many run at once on a node. */
export interface DeliveryPolicy {
  /** Tries in all (the first plus retries). */
  readonly maxAttempts: number;
  /** Wait before the first retry; each later one doubles it. */
  readonly backoffMs: number;
  readonly concurrency: number;
}

/** The wait after `failedTries` failed tries: backoffMs, doubling each time (BullMQ's `exponential` backoff is the same formula). */
export function retryDelay(policy: Pick<DeliveryPolicy, 'backoffMs'>, failedTries: number): number {
  return Math.round(2 ** (failedTries - 1) * policy.backoffMs);
}

/** What a delivery queue calls: one try, and the final outcome of a queued delivery. */
export interface DeliveryHandler<T> {
  /** One try; undefined when there is nothing to deliver any more (its target was removed). */
  attempt(task: T, signal: AbortSignal): Promise<AttemptOutcome | undefined>;
  /** A queued delivery's final outcome after `attempts` tries. With Redis every node hears it, whichever delivered. */
  settled(task: T, attempts: number, outcome: AttemptOutcome): void;
}

/**
 * Where outbound deliveries (project hook events) wait and are retried: the seam between the in-process
 * queue below (the embedded default) and BullMQ over Redis (bullmq-delivery-queue.ts), where a delivery
 * queued on one node survives that node and is made by another. The retry policy is the queue's, so
 * handlers make one try each; tasks must survive a JSON round trip.
 */
export interface DeliveryQueue<T> {
  /** Begin delivering (once): tries run on `handler` under `policy`. */
  start(handler: DeliveryHandler<T>, policy: DeliveryPolicy): void;
  /** Queue a delivery: tried until delivered or `maxAttempts` tries, then settled. A `key` already queued or running is not added again. */
  add(task: T, key?: string): void;
  /** One try, awaited, neither retried nor settled (a test delivery); undefined as from the handler. */
  tryOnce(task: T): Promise<AttemptOutcome | undefined>;
  /** Resolve when no delivery is queued, waiting for a retry or running. */
  onIdle(): Promise<void>;
  /** Take no more deliveries and abort the running tries (in process the queued ones are dropped; in Redis they stay for other nodes). */
  stop(): Promise<void>;
}

/** The in-process queue: p-queue slots for tries, timers for the waits between them; everything is lost at exit. */
export function createInProcessDeliveryQueue<T>(log: Logger): DeliveryQueue<T> {
  let queue = new PQueue({ concurrency: 1 });
  let handler: DeliveryHandler<T> | null = null;
  let policy: DeliveryPolicy | null = null;
  const deliveries = new Set<Promise<void>>();
  const keys = new Set<string>();
  const stopper = new AbortController();

  const tryNow = (task: T) => queue.add(() => handler!.attempt(task, stopper.signal)) as Promise<AttemptOutcome | undefined>;

  async function deliver(task: T): Promise<void> {
    for (let tries = 1; ; tries++) {
      const outcome = await tryNow(task);
      if (outcome === undefined || stopper.signal.aborted) return;
      if (outcome.ok || outcome.final || tries >= policy!.maxAttempts) return handler!.settled(task, tries, outcome);
      // The wait holds no slot: other deliveries run meanwhile.
      await sleep(retryDelay(policy!, tries), stopper.signal);
      if (stopper.signal.aborted) return;
    }
  }

  return {
    start(h, p) {
      handler = h;
      policy = p;
      queue = new PQueue({ concurrency: p.concurrency });
    },
    add(task, key) {
      if (!handler || stopper.signal.aborted || (key !== undefined && keys.has(key))) return;
      if (key !== undefined) keys.add(key);
      const running: Promise<void> = deliver(task)
        .catch((error: unknown) => log.error('delivery crashed', error))
        .finally(() => {
          deliveries.delete(running);
          if (key !== undefined) keys.delete(key);
        });
      deliveries.add(running);
    },
    async tryOnce(task) {
      if (!handler || stopper.signal.aborted) throw new Error('delivery queue not started, or stopped');
      return tryNow(task);
    },
    async onIdle() {
      while (deliveries.size > 0) await Promise.all(deliveries);
    },
    async stop() {
      stopper.abort();
      queue.clear();
      await queue.onIdle();
      // Cleared tries never settle: forget the deliveries waiting on them.
      deliveries.clear();
    },
  };
}

/** Wait `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
