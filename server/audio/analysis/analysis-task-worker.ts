import { Worker } from 'bullmq';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import { bullWorkerOptions } from '../../queue/redis-connection.js';
import type { ContentStore } from '../../shared/content-store.js';
import type { DecoderChoice } from '../decode/pcm-source.js';
import { toFailure } from './analysis-failure.js';
import { analysisQueueName, type QueuedAnalysisResult, type QueuedAnalysisTask } from './analysis-queue.js';
import type { AnalysisPool } from './worker-pool.js';

/** How a node takes analysis tasks from Redis. */
export interface AnalysisTaskWorkerOptions {
  readonly url: string;
  /** Where the app node put the tasks' bytes (the shared data dir's input store). */
  readonly inputs: ContentStore;
  /** This node's threads: every task runs through its pool (priorities, deadlines). */
  readonly pool: AnalysisPool;
  readonly decoder: DecoderChoice;
  /** Tasks taken at once (the pool runs up to four per thread, see worker-pool.ts). */
  readonly concurrency: number;
  /** Lock of a taken task (s): a node that dies loses its tasks to another after this. */
  readonly lockS: number;
  readonly log: Logger;
}

/** A running consumer of analysis tasks; close() lets its running tasks finish. */
export interface AnalysisTaskWorker {
  close(): Promise<void>;
}

/**
 * Take analysis tasks from the Redis queue and run them on this node's pool: `cratehouse worker`, and an
 * app node that analyses too. A task whose node dies mid-run (SIGKILL) is moved back to waiting by
 * BullMQ's stalled-job check when its lock expires and taken by another node; its answer is the one
 * completion BullMQ records, so it is answered once.
 */
export function startAnalysisTaskWorker(options: AnalysisTaskWorkerOptions): AnalysisTaskWorker {
  const { pool, inputs, decoder, log } = options;
  const worker = new Worker<QueuedAnalysisTask, QueuedAnalysisResult>(
    analysisQueueName,
    async (job) => {
      const task = job.data;
      log.info(`analysis task ${String(job.id)} started (${task.engineId}, attempt ${job.attemptsStarted})`);
      try {
        const out = await pool.run(
          {
            engineId: task.engineId,
            params: task.params,
            file: inputs.pathOf(task.sha256),
            decoder,
            ...(task.headSeconds ? { headSeconds: task.headSeconds } : {}),
            ...(task.split ? { split: task.split } : {}),
          },
          undefined,
          task.priority,
        );
        log.info(`analysis task ${String(job.id)} finished`);
        return out;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        log.info(`analysis task ${String(job.id)} failed: ${error.message}`);
        return toFailure(error);
      }
    },
    bullWorkerOptions(options.url, options.concurrency, options.lockS),
  );
  worker.on('error', (e: unknown) => log.error('redis (analysis worker)', e));
  return { close: () => worker.close() };
}
