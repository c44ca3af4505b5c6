import { useCallback, useEffect, useState } from 'react';
import { ApiError, getHealth, type Health } from '../api/client';

export type HealthState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly health: Health; readonly checkedAt: Date }
  | { readonly status: 'error'; readonly message: string };

/** The server's health from GET /audio/v1/healthz, checked on mount and on `recheck()`. */
export function useHealth(): { readonly state: HealthState; readonly recheck: () => void } {
  const [state, setState] = useState<HealthState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    getHealth(controller.signal).then(
      (health) => setState({ status: 'ready', health, checkedAt: new Date() }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({ status: 'error', message: error instanceof ApiError ? error.message : 'The health check failed unexpectedly.' });
      },
    );
    return () => controller.abort();
  }, [attempt]);

  const recheck = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);

  return { state, recheck };
}
