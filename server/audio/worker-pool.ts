import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { AppError } from '../http/errors.js';
import type { AnalysisFailure, AnalysisOutput, AnalysisTask } from './analysis-worker.js';

/** The DSP worker pool: analyses never run on the event loop that serves HTTP. */
export interface AnalysisPool {
  run(task: AnalysisTask, signal?: AbortSignal): Promise<AnalysisOutput>;
  destroy(): Promise<void>;
}

/** Start a pool with one thread per core (at least one). */
export function createAnalysisPool(threads = availableParallelism()): AnalysisPool {
  const fromSource = import.meta.url.endsWith('.ts');
  const pool = new Piscina({
    filename: new URL(fromSource ? './analysis-worker-dev.mjs' : './analysis-worker.js', import.meta.url).href,
    minThreads: Math.max(1, threads),
    maxThreads: Math.max(1, threads),
    idleTimeout: Infinity,
  });
  // Warm every thread's JIT in the background (one task per thread); requests queue behind it.
  for (let i = 0; i < Math.max(1, threads); i++) void pool.run(null, { name: 'warmUp' }).catch(() => undefined);
  return {
    async run(task, signal) {
      const out = (await pool.run(task, { name: 'analyse', ...(signal ? { signal } : {}) })) as AnalysisOutput | AnalysisFailure;
      if ('failure' in out) throw new AppError(out.failure.kind, out.failure.message, out.failure.code ? { code: out.failure.code } : {});
      return out;
    },
    destroy: () => pool.destroy(),
  };
}
