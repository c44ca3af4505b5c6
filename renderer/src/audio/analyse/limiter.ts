// A small concurrency limiter: the server has two cores, so the screen keeps at most two analyses
// in flight and queues the rest in order. Cancelled tasks leave the queue without starting.

/** Runs tasks with at most `concurrency` at a time, first come first served. */
export interface Limiter {
  /** Queue `task`; it starts when a slot is free, or rejects with the abort reason if `signal` fires first. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly waiting: number;
}

interface Waiter {
  readonly start: () => void;
  readonly signal: AbortSignal | undefined;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The request was cancelled.', 'AbortError');
}

/** A Limiter with `concurrency` slots (at least one). */
export function createLimiter(concurrency: number): Limiter {
  const slots = Math.max(1, Math.floor(concurrency));
  let active = 0;
  const queue: Waiter[] = [];

  const next = () => {
    while (active < slots && queue.length > 0) {
      const waiter = queue.shift();
      if (!waiter || waiter.signal?.aborted) continue;
      waiter.start();
    }
  };

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index >= 0) {
            queue.splice(index, 1);
            reject(abortReason(signal as AbortSignal));
          }
        };
        const waiter: Waiter = {
          signal,
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            active++;
            let promise: Promise<T>;
            try {
              promise = task();
            } catch (error) {
              promise = Promise.reject(error);
            }
            promise.then(resolve, reject).finally(() => {
              active--;
              next();
            });
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
        next();
      });
    },
  };
}
