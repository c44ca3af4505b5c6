/** Options of waitForReady; `fetchImpl` is for tests. */
export interface ReadinessOptions {
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  readonly fetchImpl?: typeof fetch;
}

/** Thrown when the server did not answer its health check in time; says what it last saw. */
export class NotReadyError extends Error {
  override readonly name = 'NotReadyError';
}

/**
 * Poll `<url>/audio/v1/healthz` until it answers 200 with the server's version, or give up after
 * `timeoutMs` with the last failure in the message (what the desktop's error window shows).
 */
export async function waitForReady(
  url: string,
  options: ReadinessOptions,
): Promise<{ readonly version: string; readonly waitedMs: number }> {
  const started = Date.now();
  const fetchImpl = options.fetchImpl ?? fetch;
  const interval = options.intervalMs ?? 100;
  let last = 'no answer yet';
  for (;;) {
    const remaining = options.timeoutMs - (Date.now() - started);
    if (remaining <= 0)
      throw new NotReadyError(`The embedded server at ${url} did not become ready within ${formatDuration(options.timeoutMs)} (${last}).`);
    try {
      const response = await fetchImpl(`${url}/audio/v1/healthz`, { signal: AbortSignal.timeout(Math.max(1, Math.min(remaining, 5000))) });
      if (response.ok) {
        const body = (await response.json()) as { version?: unknown };
        return { version: typeof body.version === 'string' ? body.version : 'unknown', waitedMs: Date.now() - started };
      }
      last = `health check answered ${response.status}`;
    } catch (error) {
      // Our own deadline cutting an attempt short says nothing new: keep what the server last said, if anything.
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      if (!timedOut || last === 'no answer yet') last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, Math.max(0, options.timeoutMs - (Date.now() - started)))));
  }
}

function formatDuration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}
