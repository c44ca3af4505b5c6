import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { isServerNodeFlag } from '../config/node-flags.js';
import { AppError } from '../http/errors.js';
import { FeedWriter } from './decode/upload-feed.js';
import type { AnalysisFailure, AnalysisOutput, AnalysisTask, CombineTask, WarmUpTask } from './analysis-worker.js';

/** The DSP worker pool: analyses never run on the event loop that serves HTTP. */
export interface AnalysisPool {
  /**
   * Run one analysis. Cancellation is cooperative: the signal (or the task's own `control` feed) sets a
   * flag the worker checks between chunks, so threads are never terminated mid-task.
   */
  run(task: AnalysisTask, signal?: AbortSignal): Promise<AnalysisOutput>;
  /** A split engine's `combine` over its parts' results (see EngineSpec.split). */
  combine(engineId: string, results: readonly unknown[], seconds: number): Promise<unknown>;
  /** True once every thread has finished its start-up warm-up (until then the first requests run slower code). */
  isWarm(): boolean;
  destroy(): Promise<void>;
}

/**
 * Tasks one thread may hold at once. A task that waits for an upload still arriving (analysis started
 * early, see analysis-service.ts) holds its place without using the CPU, so a slow client must not
 * keep other analyses from a thread; tasks on one thread take turns chunk by chunk.
 */
const TASKS_PER_THREAD = 4;

/** How a pool starts. */
export interface PoolOptions {
  /** Where each thread may write a temporary WAV to warm the /analyze path at start (the server's upload directory); without it only the engines are warmed. */
  readonly warmUpDir?: string;
}

/** Start a pool with one thread per core (at least one). */
export function createAnalysisPool(threads = availableParallelism(), options: PoolOptions = {}): AnalysisPool {
  const fromSource = import.meta.url.endsWith('.ts');
  const pool = new Piscina({
    filename: new URL(fromSource ? './analysis-worker-dev.mjs' : './analysis-worker.js', import.meta.url).href,
    minThreads: Math.max(1, threads),
    maxThreads: Math.max(1, threads),
    concurrentTasksPerWorker: TASKS_PER_THREAD,
    idleTimeout: Infinity,
    // piscina loads the worker file with require() first; Node 20's require() of an ES module can
    // abort the whole process ("IsGraphAsync must be used on an instantiated module") when threads
    // load it at once. Without require(esm) the require throws and piscina uses import() instead.
    // V8 flags (config/node-flags.ts) apply to every thread already, and Node refuses them here.
    execArgv: [...process.execArgv.filter((arg) => !isServerNodeFlag(arg)), '--no-experimental-require-module'],
  });
  // Warm every thread's JIT in the background (one task per thread); requests share the threads with it.
  const warmUp: WarmUpTask = options.warmUpDir ? { dir: options.warmUpDir } : {};
  let warm = false;
  const warming = Array.from({ length: Math.max(1, threads) }, () => pool.run(warmUp, { name: 'warmUp' }));
  void Promise.allSettled(warming).then(() => (warm = true));
  return {
    async run(task, signal) {
      let control = task.control;
      if (signal) {
        const writer = new FeedWriter(control);
        control = writer.shared;
        if (signal.aborted) writer.cancel();
        else signal.addEventListener('abort', () => writer.cancel(), { once: true });
      }
      const out = (await pool.run({ ...task, ...(control ? { control } : {}) }, { name: 'analyse' })) as AnalysisOutput | AnalysisFailure;
      if (isFailure(out)) throw new AppError(out.failure.kind, out.failure.message, out.failure.code ? { code: out.failure.code } : {});
      return out;
    },
    async combine(engineId, results, seconds) {
      const out = (await pool.run({ engineId, results, seconds } satisfies CombineTask, { name: 'combineParts' })) as unknown;
      if (isFailure(out)) throw new AppError(out.failure.kind, out.failure.message, out.failure.code ? { code: out.failure.code } : {});
      return out;
    },
    isWarm: () => warm,
    destroy: () => pool.destroy(),
  };
}

function isFailure(out: unknown): out is AnalysisFailure {
  return typeof out === 'object' && out !== null && 'failure' in out;
}
