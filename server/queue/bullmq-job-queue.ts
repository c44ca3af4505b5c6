import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../http/logger.js';
import type { JobQueue } from './job-queue.js';
import { bullWorkerOptions, redisKeyPrefix, redisOptions } from './redis-connection.js';

/** How the BullMQ queue of job ids runs on this node. */
export interface BullJobQueueOptions {
  readonly url: string;
  /** Jobs this node runs at once. */
  readonly concurrency: number;
  /** Lock of a taken job (s): a node that stops renewing it (it died) loses the job to another node after this. */
  readonly lockS: number;
  /** Queue name (tests give each run its own). */
  readonly name?: string;
}

/** BullMQ's priorities run 1 (first) .. 2^21; ours run higher-first around 0. */
const priorityOrigin = 1_000_000;

/** BullMQ's priority for ours: higher first becomes lower first, within BullMQ's range. */
function bullPriority(priority: number): number {
  return Math.min(2 * priorityOrigin, Math.max(1, priorityOrigin - Math.trunc(priority)));
}

/**
 * The JobQueue over BullMQ: ids with their priority wait in Redis (FIFO within a priority), a Worker takes
 * up to `concurrency` of them, and a job whose node dies is moved back to waiting by BullMQ's stalled-job
 * check once its lock expires, so another node (or this one after a restart) runs it again. Cancellation
 * travels by Redis pub/sub to whichever node runs the job.
 */
export function createBullJobQueue(options: BullJobQueueOptions, log: Logger): JobQueue {
  const connection = redisOptions(options.url);
  const name = options.name ?? 'jobs';
  const channel = `${redisKeyPrefix}:${name}:cancel`;
  const queue = new Queue(name, { connection, prefix: redisKeyPrefix });
  const publisher = new Redis(connection);
  const subscriber = new Redis(connection);
  const listeners: ((jobId: string) => void)[] = [];
  const adding = new Set<Promise<unknown>>();
  let worker: Worker | null = null;
  const subscribed = subscriber.subscribe(channel).then(() => undefined);
  subscriber.on('message', (from: string, jobId: string) => {
    if (from === channel) for (const listener of listeners) listener(jobId);
  });
  for (const client of [publisher, subscriber]) client.on('error', (e: unknown) => log.error('redis (job queue)', e));
  queue.on('error', (e: unknown) => log.error('redis (job queue)', e));
  return {
    start(run) {
      if (worker) return;
      // Every job is added with removeOnComplete/removeOnFail (see add), which BullMQ prefers to any Worker-level setting.
      worker = new Worker(name, (job) => run(String(job.id)), bullWorkerOptions(options.url, options.concurrency, options.lockS));
      worker.on('error', (e: unknown) => log.error('redis (job worker)', e));
    },
    add(jobId, priority) {
      // The job id is BullMQ's id: adding an id already waiting or running (resume() after a crash) is a no-op.
      const added = queue
        .add('job', null, { jobId, priority: bullPriority(priority), removeOnComplete: true, removeOnFail: true })
        .catch((e: unknown) => log.error(`job ${jobId} could not be queued in Redis`, e));
      adding.add(added);
      void added.finally(() => adding.delete(added));
    },
    async publishCancel(jobId) {
      await subscribed;
      await publisher.publish(channel, jobId);
    },
    onCancel(listener) {
      listeners.push(listener);
    },
    async onIdle() {
      for (;;) {
        await Promise.all(adding);
        const counts = await queue.getJobCounts('wait', 'active', 'prioritized', 'delayed', 'waiting-children');
        if (Object.values(counts).every((n) => n === 0) && adding.size === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      await Promise.all(adding);
      await worker?.close();
      await queue.close();
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
