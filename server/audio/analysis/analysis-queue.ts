import type { EngineId } from '../engines/registry.js';
import type { AnalysisFailure } from './analysis-failure.js';
import type { AnalysisOutput } from './analysis-worker.js';
import type { AnalysisPriority } from './worker-pool.js';

/** The BullMQ queue analysis tasks wait in (under the `cratehouse` key prefix). */
export const analysisQueueName = 'analysis';

/**
 * One analysis task as it crosses Redis: the audio by its sha256 (the bytes are in the shared data
 * dir's input store, never in Redis), and what to run on them. The node that takes it runs
 * analysis-worker.ts `analyse` on its own threads with its own decoder.
 */
export interface QueuedAnalysisTask {
  readonly sha256: string;
  readonly engineId: EngineId;
  readonly params: unknown;
  readonly headSeconds?: number;
  readonly split?: { readonly whole: EngineId; readonly part: number };
  readonly priority: AnalysisPriority;
}

/** What a task's node returns: the engine's output, or its expected failure as data (never retried). */
export type QueuedAnalysisResult = AnalysisOutput | AnalysisFailure;

/** BullMQ priorities (1 runs first): someone is waiting for an interactive answer. */
export const queuePriority: Readonly<Record<AnalysisPriority, number>> = { interactive: 1, background: 10 };

/** The folder of the data dir holding the bytes of queued tasks, by sha256 (a ContentStore). */
export const analysisInputsDir = 'analysis-inputs';
