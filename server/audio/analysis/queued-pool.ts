import { stat } from 'node:fs/promises';
import { Queue, QueueEvents } from 'bullmq';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import { redisKeyPrefix, redisOptions } from '../../queue/redis-connection.js';
import type { ContentStore } from '../../shared/content-store.js';
import { sha256File } from '../../shared/sha256-file.js';
import { analysisQueueName, queuePriority, type QueuedAnalysisResult, type QueuedAnalysisTask } from './analysis-queue.js';
import { cancelled, fromFailure, isFailure } from './analysis-failure.js';
import { deadlineExceeded, defaultAnalysisBudget, type AnalysisBudget } from './task-deadline.js';
import type { AnalysisPool } from './worker-pool.js';

/** How the app node hands analysis tasks to Redis. */
export interface QueuedPoolOptions {
  readonly url: string;
  /** The shared data dir's input store: a task's bytes are linked in while it waits or runs. */
  readonly inputs: ContentStore;
  readonly budget?: AnalysisBudget;
  readonly log: Logger;
}

/**
 * Bytes per second of audio the wait budget assumes: 128 kbit/s, the leanest format commonly uploaded,
 * so a file's size gives at least as many seconds as it holds and the wait outlasts the worker's own
 * deadline (which counts the audio it really decodes).
 */
const leanBytesPerSecond = 16_000;
/** Time past the budget a task may wait in the queue behind others before the app node gives up (503). */
const queueWaitMs = 60_000;
/** How much longer than the app node waits BullMQ keeps listening for a job's end (it then unsubscribes). */
const listenerGraceMs = 5_000;

/**
 * An AnalysisPool whose tasks run wherever a consumer takes them from Redis (a `cratehouse worker`, or
 * this node when it analyses too): the file is linked into the input store under its sha256 (the one
 * the task carries, else hashed here), queued as {sha256, engine, params, priority} and its answer awaited. `local` (this node's threads) runs the
 * split engines' combine step. It never gets a task reading an upload as it arrives (`growing`): with
 * analysesGrowingFiles false, AnalysisService starts no analysis before the upload is complete.
 */
export function createQueuedAnalysisPool(local: AnalysisPool, options: QueuedPoolOptions): AnalysisPool {
  const connection = redisOptions(options.url);
  const queue = new Queue<QueuedAnalysisTask, QueuedAnalysisResult>(analysisQueueName, { connection, prefix: redisKeyPrefix });
  const events = new QueueEvents(analysisQueueName, { connection, prefix: redisKeyPrefix });
  // One listener per waiting task on each.
  events.setMaxListeners(0);
  queue.setMaxListeners(0);
  const ready = events.waitUntilReady();
  queue.on('error', (e: unknown) => options.log.error('redis (analysis queue)', e));
  events.on('error', (e: unknown) => options.log.error('redis (analysis events)', e));
  const budget = options.budget ?? defaultAnalysisBudget;
  // Inputs in use by this node's waiting tasks: one link per sha256, removed with its last task.
  const holding = new Map<string, number>();
  // Inputs being removed (their last task ended): a new task of the same bytes links them again only after.
  const removing = new Map<string, Promise<void>>();
  return {
    async run(task, signal, priority = 'interactive') {
      if (signal?.aborted) throw cancelled();
      // A complete upload's hash is known (AnalysisTask.sha256): the file is read again only without it.
      const sha256 = task.sha256 ?? (await sha256File(task.file));
      const { size: bytes } = await stat(task.file);
      holding.set(sha256, (holding.get(sha256) ?? 0) + 1);
      try {
        await removing.get(sha256)?.catch(() => undefined);
        await options.inputs.putLinked(task.file, sha256);
        await ready;
        const job = await queue.add(
          'analyse',
          {
            sha256,
            engineId: task.engineId,
            params: task.params,
            ...(task.headSeconds ? { headSeconds: task.headSeconds } : {}),
            ...(task.split ? { split: task.split } : {}),
            priority,
          },
          // Kept a while after finishing so a waiter that subscribes late still finds its answer.
          { priority: queuePriority[priority], removeOnComplete: { age: 600 }, removeOnFail: { age: 600 } },
        );
        const waitMs = 1000 * (budget.baseS + (budget.perAudioS * bytes) / leanBytesPerSecond) + queueWaitMs;
        // BullMQ's own timeout (a little later than ours) only unsubscribes the wait of a job that never finishes.
        const answer = job.waitUntilFinished(events, waitMs + listenerGraceMs).catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          throw new AppError('unavailable', `The analysis failed on its worker: ${message}`, { code: 'worker_failed', retryAfter: 1 });
        });
        const waited = await untilStopped(answer, signal, waitMs, () => deadlineExceeded(budget));
        if ('stopped' in waited) {
          // Nobody waits for it any more: a job still waiting is dropped (one already running cannot be, and runs on).
          await job.remove().catch(() => undefined);
          throw waited.stopped;
        }
        if (isFailure(waited.answer)) throw fromFailure(waited.answer);
        return waited.answer;
      } finally {
        const left = (holding.get(sha256) ?? 1) - 1;
        if (left > 0) holding.set(sha256, left);
        else {
          holding.delete(sha256);
          const removed = options.inputs.remove(sha256).finally(() => removing.delete(sha256));
          removing.set(sha256, removed);
          await removed;
        }
      }
    },
    combine: (engineId, results, seconds) => local.combine(engineId, results, seconds),
    isWarm: () => local.isWarm(),
    analysesGrowingFiles: false,
    async destroy() {
      await events.close();
      await queue.close();
      await local.destroy();
    },
  };
}

/**
 * The answer, unless the caller stops waiting first: it aborts `signal` (cancelled) or `ms` pass (the
 * error `onTimeout` gives). The task itself may run on; its answer is then dropped.
 */
function untilStopped<T>(
  answer: Promise<T>,
  signal: AbortSignal | undefined,
  ms: number,
  onTimeout: () => AppError,
): Promise<{ readonly answer: T } | { readonly stopped: AppError }> {
  return new Promise((resolve, reject) => {
    const stop = (stopped: AppError) => {
      clearTimeout(timer);
      resolve({ stopped });
    };
    const onAbort = () => stop(cancelled());
    const timer = setTimeout(() => stop(onTimeout()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    answer
      .then((value) => resolve({ answer: value }), reject)
      .finally(() => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      });
  });
}
