import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { analysisInputsDir } from './audio/analysis/analysis-queue.js';
import { startAnalysisTaskWorker } from './audio/analysis/analysis-task-worker.js';
import { createAnalysisPool } from './audio/analysis/worker-pool.js';
import { resolveFfmpeg } from './audio/decode/ffmpeg-path.js';
import { ConfigError, type Config } from './config/load-config.js';
import { createLogger, type Logger } from './http/logger.js';
import { checkRedisReachable } from './queue/redis-connection.js';
import { ContentStore } from './shared/content-store.js';

/** A `cratehouse worker` that is taking tasks. */
export interface RunningWorker {
  readonly threads: number;
  /** Take no more tasks, let running ones finish, stop the threads. */
  stop(): Promise<void>;
}

/**
 * The worker's composition root: analysis threads fed from the Redis queue. It reads the tasks' bytes
 * from the shared data dir and writes nothing there (the app node owns the store, the cache and the
 * lock), so any number of workers, on this machine or others mounting the same dir, can run.
 */
export async function startWorker(config: Config, options: { readonly log?: Logger } = {}): Promise<RunningWorker> {
  const log = options.log ?? createLogger(config.logLevel);
  if (!config.redisUrl) throw new ConfigError('cratehouse worker needs CRATEHOUSE_REDIS_URL (the Redis the app nodes queue tasks in)');
  await checkRedisReachable(config.redisUrl);
  const ffmpeg = await resolveFfmpeg(config.ffmpegPath);
  if (!ffmpeg) log.info('ffmpeg not found: set CRATEHOUSE_FFMPEG or install ffmpeg (decoding falls back to the built-in decoders)');
  const threads = config.analysisThreads > 0 ? config.analysisThreads : availableParallelism();
  // The warm-up writes a WAV of its own: in a private folder of this machine's temp dir (removed at stop), not the data dir.
  const warmUpDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-worker-'));
  const pool = createAnalysisPool(threads, {
    warmUp: config.warmUp,
    warmUpDir,
    budget: { baseS: config.analysisBudgetS, perAudioS: config.analysisBudgetPerAudioS },
  });
  const inputs = new ContentStore(path.join(config.dataDir, analysisInputsDir), path.join(config.dataDir, 'tmp'));
  const tasks = startAnalysisTaskWorker({
    url: config.redisUrl,
    inputs,
    pool,
    decoder: ffmpeg ? { kind: 'ffmpeg', path: ffmpeg.path } : { kind: 'js' },
    concurrency: 2 * threads,
    lockS: config.redisLockS,
    log,
  });
  let stopping: Promise<void> | null = null;
  return {
    threads,
    stop: () =>
      (stopping ??= (async () => {
        await tasks.close();
        await pool.destroy();
        await rm(warmUpDir, { recursive: true, force: true });
      })()),
  };
}
