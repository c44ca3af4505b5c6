import { AppError } from '../../http/errors.js';

/**
 * How long one analysis task may hold a worker: `baseS` plus `perAudioS` for each second of audio it
 * has decoded (a second of stereo 48 kHz; denser audio counts as more seconds, so the budget follows
 * the samples really processed). A lying header cannot widen it: only decoded audio does. Time spent
 * waiting for an upload that is still arriving does not count.
 */
export interface AnalysisBudget {
  readonly baseS: number;
  readonly perAudioS: number;
}

/** The defaults: about 50 times slower than a loaded server analyses, so only a runaway task meets them. */
export const defaultAnalysisBudget: AnalysisBudget = { baseS: 30, perAudioS: 0.5 };

/** Samples per second that count as one second of audio (stereo 48 kHz). */
const samplesPerAudioSecond = 96_000;

/** Bytes of the shared slot where a worker publishes its task's deadline. */
export const DEADLINE_BYTES = 8;

/** The 503 of a task stopped at its deadline. */
export function deadlineExceeded(budget: AnalysisBudget): AppError {
  return new AppError(
    'unavailable',
    `The analysis took longer than its time budget (${budget.baseS} s plus ${budget.perAudioS} s per second of audio; CRATEHOUSE_ANALYSIS_BUDGET_S, CRATEHOUSE_ANALYSIS_BUDGET_PER_AUDIO_S) and was stopped`,
    { code: 'analysis_deadline', retryAfter: 60 },
  );
}

/**
 * The worker's side: counts decoded audio, publishes the deadline it earns (epoch ms, in the shared
 * slot the pool watches) and throws once it has passed. Checked between chunks, so a task ends
 * cooperatively; the pool terminates the thread of one that stops checking (stuck in one step).
 */
export class DeadlineClock {
  private readonly slot: BigInt64Array;
  private start = Date.now();
  private audioSeconds = 0;

  constructor(
    shared: SharedArrayBuffer,
    private readonly budget: AnalysisBudget,
  ) {
    this.slot = new BigInt64Array(shared, 0, 1);
    this.publish();
  }

  /** Start counting again from now: the upload being read has only just arrived in full. */
  restart(): void {
    this.start = Date.now();
    this.publish();
  }

  /** `frames` more frames of `channels` × `sampleRate` audio were decoded; throws past the deadline. */
  advance(frames: number, channels: number, sampleRate: number): void {
    this.audioSeconds += (frames * Math.max(sampleRate * channels, samplesPerAudioSecond)) / sampleRate / samplesPerAudioSecond;
    this.check();
  }

  /** Throw the 503 once the deadline has passed. */
  check(): void {
    if (Date.now() >= this.publish()) throw deadlineExceeded(this.budget);
  }

  private publish(): number {
    const deadline = this.start + 1000 * (this.budget.baseS + this.budget.perAudioS * this.audioSeconds);
    Atomics.store(this.slot, 0, BigInt(Math.floor(deadline)));
    return deadline;
  }
}

/** The deadline a worker last published for its task (epoch ms), or null before the task started. */
export function readPublishedDeadline(shared: SharedArrayBuffer): number | null {
  const value = Number(Atomics.load(new BigInt64Array(shared, 0, 1), 0));
  return value === 0 ? null : value;
}

/**
 * The pool's side: whether a running task is past its deadline by more than `graceMs`. Its deadline
 * is the later of what the worker last published and `baseS` after the upload was complete (a worker
 * asleep waiting for upload bytes publishes nothing, and its clock restarts when they are all there).
 */
export function isOverdue(
  published: number | null,
  completeSince: number | null,
  now: number,
  budget: AnalysisBudget,
  graceMs: number,
): boolean {
  if (published === null || completeSince === null) return false;
  return now > Math.max(published, completeSince + 1000 * budget.baseS) + graceMs;
}
