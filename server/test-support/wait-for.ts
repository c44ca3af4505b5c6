/** How long a wait may take and how often it looks. */
export interface WaitOptions {
  /** Give up after this many ms (default 30 s). */
  readonly timeoutMs?: number;
  /** Look again after this many ms (default 20). */
  readonly everyMs?: number;
}

/**
 * Poll `find` until it gives a value (anything but undefined or false) and resolve to that value;
 * reject after `timeoutMs`. For tests that wait on another process, node or queue.
 */
export async function waitFor<T>(
  find: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 30_000, everyMs = 20 }: WaitOptions = {},
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await find();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
