import { onlineManager } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, getHealth, type Health } from '../api/client';
import { onNetworkFailure } from '../api/connection-events';

export type HealthState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly health: Health; readonly checkedAt: Date }
  | {
      readonly status: 'offline';
      readonly message: string;
      /** When the server was first found unreachable. */
      readonly since: Date;
      /** When the next check runs. */
      readonly retryAt: Date;
    };

/** While online, /healthz is asked this often. */
export const ONLINE_INTERVAL_MS = 20_000;

/**
 * The wait before the next check after `failures` failed ones in a row: 1, 2, 4, 8 s, then every 15 s
 * (soon enough to notice a restarted server, gentle on one that is down for long).
 */
export function offlineDelayMs(failures: number): number {
  return Math.min(15_000, 1000 * 2 ** Math.max(0, failures - 1));
}

/**
 * The server's health from GET /audio/v1/healthz, watched for as long as the window is open: every
 * 20 s while it answers, with back-off while it does not, and at once when the window regains focus,
 * the browser comes back online, or any request fails to reach the server. While it is offline,
 * TanStack Query is told so (its queries pause instead of failing, and resume on their own).
 */
export function useHealth(): { readonly state: HealthState; readonly recheck: () => void } {
  const [state, setState] = useState<HealthState>({ status: 'loading' });
  const check = useRef<() => void>(() => {});

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | null = null;
    let failures = 0;
    let since: Date | null = null;
    let disposed = false;

    const schedule = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(run, ms);
    };
    function run() {
      if (controller || disposed) return; // one check at a time
      clearTimeout(timer);
      const mine = new AbortController();
      controller = mine;
      // A server that accepts the connection but never answers counts as offline too.
      const timeout = setTimeout(() => mine.abort(), 8_000);
      getHealth(mine.signal)
        .then(
          (health) => {
            failures = 0;
            since = null;
            onlineManager.setOnline(true);
            setState({ status: 'ready', health, checkedAt: new Date() });
            schedule(ONLINE_INTERVAL_MS);
          },
          (error: unknown) => {
            if (disposed) return;
            failures += 1;
            since ??= new Date();
            const delay = offlineDelayMs(failures);
            onlineManager.setOnline(false);
            const message =
              error instanceof ApiError ? error.message : 'The Cratehouse server did not answer in time. Check that it is running.';
            setState({ status: 'offline', message, since, retryAt: new Date(Date.now() + delay) });
            schedule(delay);
          },
        )
        .finally(() => {
          clearTimeout(timeout);
          if (controller === mine) controller = null;
        });
    }
    check.current = run;

    const now = () => run();
    const onVisible = () => {
      if (document.visibilityState === 'visible') run();
    };
    run();
    window.addEventListener('focus', now);
    window.addEventListener('online', now);
    window.addEventListener('offline', now);
    document.addEventListener('visibilitychange', onVisible);
    const stopListening = onNetworkFailure(now);
    return () => {
      disposed = true;
      clearTimeout(timer);
      controller?.abort();
      window.removeEventListener('focus', now);
      window.removeEventListener('online', now);
      window.removeEventListener('offline', now);
      document.removeEventListener('visibilitychange', onVisible);
      stopListening();
      onlineManager.setOnline(true);
    };
  }, []);

  const recheck = useCallback(() => check.current(), []);
  return { state, recheck };
}
