import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { isServerNodeFlag } from '../../config/node-flags.js';
import { AppError } from '../../http/errors.js';
import { FeedReader, FeedWriter } from '../decode/upload-feed.js';
import {
  DEADLINE_BYTES,
  deadlineExceeded,
  defaultAnalysisBudget,
  isOverdue,
  readPublishedDeadline,
  type AnalysisBudget,
} from './task-deadline.js';
import type { EngineId } from '../engines/registry.js';
import { fromFailure, isFailure, type AnalysisFailure } from './analysis-failure.js';
import type { AnalysisOutput, AnalysisTask, AnalysisThreadData, CombineTask, WarmUpTask } from './analysis-worker.js';
import { analysisThreadNice } from './thread-priority.js';

/** The DSP worker pool: analyses never run on the event loop that serves HTTP. */
export interface AnalysisPool {
  /**
   * Run one analysis. Cancellation is cooperative: the signal (or the task's own `control` feed) sets a
   * flag the worker checks between chunks, so threads are never terminated mid-task.
   */
  run(task: AnalysisTask, signal?: AbortSignal, priority?: AnalysisPriority): Promise<AnalysisOutput>;
  /** A split engine's `combine` over its parts' results (see EngineSpec.split). */
  combine(engineId: EngineId, results: readonly unknown[], seconds: number): Promise<unknown>;
  /** True once every thread has finished its start-up warm-up (until then the first requests run slower code). */
  isWarm(): boolean;
  /**
   * False when tasks run on other machines (queued-pool.ts), which cannot follow an upload still
   * arriving on this one: analyses then start once the upload is complete.
   */
  readonly analysesGrowingFiles: boolean;
  destroy(): Promise<void>;
}

/**
 * `interactive`: someone is waiting for the answer (the default). `background`: work queued ahead of
 * need (a push's audio files), which waits while any interactive task runs and runs one at a time.
 */
export type AnalysisPriority = 'interactive' | 'background';

/**
 * Tasks one thread may hold at once. A task that waits for an upload still arriving (analysis started
 * early, see analysis-service.ts) holds its place without using the CPU, so a slow client must not
 * keep other analyses from a thread; tasks on one thread take turns chunk by chunk.
 */
const TASKS_PER_THREAD = 4;

/** How long a thread of a pool without warm-up may idle before it exits. */
const coldThreadIdleMs = 60_000;

/** How a pool starts. */
export interface PoolOptions {
  /**
   * Warm every thread's JIT at start and keep the threads (default true). False saves memory: no
   * warm-up, threads started on demand and stopped after a minute idle; first analyses run slower.
   */
  readonly warmUp?: boolean;
  /** Where each thread may write a temporary WAV to warm the /analyze path at start (the server's upload directory); without it only the engines are warmed. */
  readonly warmUpDir?: string;
  /** Time one analysis task may take (see task-deadline.ts); defaults to defaultAnalysisBudget. */
  readonly budget?: AnalysisBudget;
  /**
   * How far past its deadline a task that stopped checking it (stuck in one step) may run before the
   * pool terminates its thread. The worker stops at its own deadline between chunks well before this.
   */
  readonly overdueGraceMs?: number;
  /** How much lower the threads' CPU priority is than the HTTP thread's (Linux only; default analysisThreadNice, 0 keeps it). */
  readonly nice?: number;
}

/** Start a pool with one thread per core (at least one). */
export function createAnalysisPool(threads = availableParallelism(), options: PoolOptions = {}): AnalysisPool {
  const fromSource = import.meta.url.endsWith('.ts');
  const cold = options.warmUp === false;
  const pool = new Piscina({
    filename: new URL(fromSource ? './analysis-worker-dev.mjs' : './analysis-worker.js', import.meta.url).href,
    // Warmed threads are kept for good; without the warm-up (the low-memory choice) threads start on
    // first use and exit after a minute idle, so an idle server holds no analysis isolate (~19 MB each).
    minThreads: cold ? 0 : Math.max(1, threads),
    maxThreads: Math.max(1, threads),
    concurrentTasksPerWorker: TASKS_PER_THREAD,
    idleTimeout: cold ? coldThreadIdleMs : Infinity,
    workerData: { nice: options.nice ?? analysisThreadNice } satisfies AnalysisThreadData,
    // piscina loads the worker file with require() first; Node 20's require() of an ES module can
    // abort the whole process ("IsGraphAsync must be used on an instantiated module") when threads
    // load it at once. Without require(esm) the require throws and piscina uses import() instead.
    // V8 flags (config/node-flags.ts) apply to every thread already, and Node refuses them here.
    execArgv: [...process.execArgv.filter((arg) => !isServerNodeFlag(arg)), '--no-experimental-require-module'],
  });
  // Warm every thread's JIT in the background (one task per thread); requests share the threads with it.
  const warmUp: WarmUpTask = options.warmUpDir ? { dir: options.warmUpDir } : {};
  // Without the warm-up the pool is ready at once (nothing pending), as /healthz reports it.
  let warm = cold;
  if (!warm) {
    const warming = Array.from({ length: Math.max(1, threads) }, () => pool.run(warmUp, { name: 'warmUp' }));
    void Promise.allSettled(warming).then(() => (warm = true));
  }
  const budget = options.budget ?? defaultAnalysisBudget;
  const graceMs = options.overdueGraceMs ?? 10_000;
  const gate = createPriorityGate();
  return {
    async run(task, signal, priority = 'interactive') {
      const release = await gate.enter(priority);
      try {
        return await runNow(task, signal);
      } finally {
        release();
      }
    },
    async combine(engineId, results, seconds) {
      const out = (await pool.run({ engineId, results, seconds } satisfies CombineTask, { name: 'combineParts' })) as unknown;
      if (isFailure(out)) throw fromFailure(out);
      return out;
    },
    isWarm: () => warm,
    analysesGrowingFiles: true,
    destroy: () => pool.destroy(),
  };

  async function runNow(task: AnalysisTask, signal: AbortSignal | undefined): Promise<AnalysisOutput> {
    let control = task.control;
    if (signal) {
      const writer = new FeedWriter(control);
      control = writer.shared;
      if (signal.aborted) writer.cancel();
      else signal.addEventListener('abort', () => writer.cancel(), { once: true });
    }
    const deadline = new SharedArrayBuffer(DEADLINE_BYTES);
    const overdue = new AbortController();
    const watchdog = watchDeadline(deadline, task.growing && control ? new FeedReader(control) : null, budget, graceMs, overdue);
    let out: AnalysisOutput | AnalysisFailure;
    try {
      out = (await pool.run(
        { ...task, ...(control ? { control } : {}), deadline: { shared: deadline, budget } },
        { name: 'analyse', signal: overdue.signal },
      )) as AnalysisOutput | AnalysisFailure;
    } catch (error) {
      // Aborting a running piscina task terminates its thread (and piscina starts a new one).
      if (overdue.signal.aborted) throw deadlineExceeded(budget);
      // Another task on the same thread overran its deadline: this one was lost with the thread.
      if (error instanceof Error && /Terminating worker thread|worker exited/i.test(error.message)) {
        throw new AppError('unavailable', 'The analysis was interrupted when its worker thread was restarted; try again', {
          code: 'worker_restarted',
          retryAfter: 1,
        });
      }
      throw error;
    } finally {
      clearInterval(watchdog);
    }
    if (isFailure(out)) throw fromFailure(out);
    return out;
  }
}

/** Admits interactive tasks at once; background tasks one at a time, only while no interactive task runs. */
export function createPriorityGate(): { enter(priority: AnalysisPriority): Promise<() => void> } {
  let interactive = 0;
  let background = 0;
  const waiting: (() => void)[] = [];
  const admit = () => {
    while (waiting.length > 0 && interactive === 0 && background === 0) {
      background += 1;
      waiting.shift()!();
    }
  };
  return {
    async enter(priority) {
      if (priority === 'interactive') {
        interactive += 1;
        return () => {
          interactive -= 1;
          admit();
        };
      }
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        admit();
      });
      return () => {
        background -= 1;
        admit();
      };
    },
  };
}

/**
 * Poll a running task's published deadline; abort it (through piscina, which terminates the thread) once
 * it is overdue by `graceMs`. The clock of a task reading a growing upload starts when the upload is complete.
 */
function watchDeadline(
  shared: SharedArrayBuffer,
  upload: FeedReader | null,
  budget: AnalysisBudget,
  graceMs: number,
  overdue: AbortController,
): NodeJS.Timeout {
  let completeSince: number | null = upload ? null : Date.now();
  const timer = setInterval(
    () => {
      const now = Date.now();
      if (completeSince === null && upload?.state().complete) completeSince = now;
      if (isOverdue(readPublishedDeadline(shared), completeSince, now, budget, graceMs)) {
        clearInterval(timer);
        overdue.abort();
      }
    },
    Math.min(1000, Math.max(20, graceMs / 4)),
  );
  timer.unref();
  return timer;
}
