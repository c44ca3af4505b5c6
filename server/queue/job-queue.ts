import PQueue from 'p-queue';
import type { Logger } from '../http/logger.js';

/**
 * Where JobRunner's job ids wait for a slot: the seam between the in-process p-queue (the embedded
 * default) and BullMQ over Redis (bullmq-job-queue.ts). Records stay in the store either way; a queue
 * carries only ids and their priority.
 */
export interface JobQueue {
  /** Begin handing ids to `run` (once). */
  start(run: (jobId: string) => Promise<void>): void;
  /** Queue an id; higher `priority` runs first (the spec's -100..100, any integer accepted). */
  add(jobId: string, priority: number): void;
  /** Tell the node running `jobId` (this one or another) that it was cancelled. */
  publishCancel(jobId: string): Promise<void>;
  /** Hear cancellations published by any node. */
  onCancel(listener: (jobId: string) => void): void;
  /** Resolve when nothing queued is waiting or running. */
  onIdle(): Promise<void>;
  /** Take no more ids; wait for the running ones (already told to stop) to return. */
  stop(): Promise<void>;
}

/** The in-process queue: p-queue with `concurrency` slots; everything queued is lost at exit, and resume() re-queues it from the store. */
export function createInProcessQueue(concurrency: number, log: Logger): JobQueue {
  const queue = new PQueue({ concurrency });
  const listeners: ((jobId: string) => void)[] = [];
  let run: ((jobId: string) => Promise<void>) | null = null;
  return {
    start(runner) {
      run = runner;
    },
    add(jobId, priority) {
      void queue.add(async () => run?.(jobId), { priority }).catch((e: unknown) => log.error(`job ${jobId} crashed the runner`, e));
    },
    async publishCancel(jobId) {
      for (const listener of listeners) listener(jobId);
    },
    onCancel(listener) {
      listeners.push(listener);
    },
    onIdle: () => queue.onIdle(),
    async stop() {
      queue.clear();
      await queue.onIdle();
    },
  };
}
