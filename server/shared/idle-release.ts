/** What startIdleRelease returns: note activity, and stop the check. */
export interface IdleRelease {
  /** Call on every request: an assignment, cheap enough for the hot path. */
  noteActivity(): void;
  stop(): void;
}

/**
 * Run `release` once the server has been idle for `idleMs` after some activity (and not again until
 * there has been more). A check every third of `idleMs` rather than a timer re-armed per request keeps
 * the request path to one assignment. The interval is unref'd: it never keeps a process alive.
 */
export function startIdleRelease(idleMs: number, release: () => Promise<void> | void, now: () => number = Date.now): IdleRelease {
  let lastActivity = now();
  let pending = false;
  let running = false;
  const timer = setInterval(
    () => {
      if (!pending || running || now() - lastActivity < idleMs) return;
      pending = false;
      running = true;
      void Promise.resolve()
        .then(release)
        .catch(() => undefined)
        .finally(() => (running = false));
    },
    Math.max(10, Math.floor(idleMs / 3)),
  );
  timer.unref();
  return {
    noteActivity() {
      lastActivity = now();
      pending = true;
    },
    stop: () => clearInterval(timer),
  };
}
