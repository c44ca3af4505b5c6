import { AppError } from '../../http/errors.js';

/** An AppError as plain data: what crosses a thread (piscina) or a process (a BullMQ worker) in its place. */
export interface AnalysisFailure {
  readonly failure: { readonly kind: AppError['kind']; readonly message: string; readonly code?: string; readonly retryAfter?: number };
}

/** An AppError as an AnalysisFailure value. */
export function toFailure(error: AppError): AnalysisFailure {
  const { code, retryAfter } = error.options;
  return {
    failure: { kind: error.kind, message: error.message, ...(code ? { code } : {}), ...(retryAfter !== undefined ? { retryAfter } : {}) },
  };
}

/** Whether a task's answer is a failure rather than a result. */
export function isFailure(out: unknown): out is AnalysisFailure {
  return typeof out === 'object' && out !== null && 'failure' in out;
}

/** The AppError a failure stands for, to throw on the side that waits. */
export function fromFailure({ failure }: AnalysisFailure): AppError {
  return new AppError(failure.kind, failure.message, {
    ...(failure.code ? { code: failure.code } : {}),
    ...(failure.retryAfter !== undefined ? { retryAfter: failure.retryAfter } : {}),
  });
}

/** The error of an analysis its caller stopped waiting for (the client went away). */
export function cancelled(): AppError {
  return new AppError('unavailable', 'The analysis stopped: cancelled', { code: 'cancelled' });
}
