import { useEffect, useState } from 'react';
import type { HealthState } from '../audio/use-health';

type Offline = Extract<HealthState, { status: 'offline' }>;

/** Whole seconds until `at`, at least 0. */
function secondsUntil(at: Date, now: number): number {
  return Math.max(0, Math.ceil((at.getTime() - now) / 1000));
}

/**
 * The one offline state of the window: what is wrong, that the app keeps retrying (and when next),
 * and a button to retry now. Panels do not repeat it: their requests wait for the server to return.
 */
export function OfflineBanner({ state, onRetry }: { readonly state: Offline; readonly onRetry: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = secondsUntil(state.retryAt, now);
  return (
    <div className="shell-banner shell-banner-bad" role="alert" data-testid="offline-banner">
      <span className="shell-banner-icon" aria-hidden="true">
        !
      </span>
      <div className="shell-banner-text">
        <p className="shell-banner-title">The Cratehouse server is not answering.</p>
        <p>
          Your work on this page is kept; requests wait and resume when it is back.{' '}
          <span className="muted">{seconds > 0 ? `Checking again in ${seconds} s.` : 'Checking…'}</span>
        </p>
      </div>
      <button type="button" className="button button-secondary shell-banner-button" onClick={onRetry}>
        Retry now
      </button>
    </div>
  );
}
