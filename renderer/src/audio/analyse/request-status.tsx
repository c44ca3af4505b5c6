import type { ReactNode } from 'react';
import { useConnection } from '../../lib/connection-context';
import { formatBytes } from '../../lib/format';
import { ProgressBar } from '../../ui/progress-bar';
import { Busy, Problem } from '../../ui/status';
import { requestLabels, type RequestKey, type RequestState, type RequestStates } from './use-analysis';

/**
 * A request's state in a word or two: "uploading", "analysing", "cached". The upload's share is shown
 * once, in the file strip (UploadProgress): every request waits for the same bytes. The common states
 * are short and the pill gives its state a fixed width (analyse.css), so a pill does not change size
 * while the file fills: the row would wrap and unwrap, and move every panel below it.
 */
export function statusText(state: RequestState<unknown>): string {
  switch (state.status) {
    case 'idle':
      return 'not requested';
    case 'queued':
      return 'waiting';
    case 'uploading':
      return 'uploading';
    case 'analysing':
      return 'analysing';
    case 'done':
      return state.cache === 'hit' ? 'cached' : 'done';
    case 'failed':
      return 'failed';
    case 'skipped':
      return 'not analysed';
  }
}

const tones: Readonly<Record<RequestState<unknown>['status'], string>> = {
  idle: 'idle',
  queued: 'idle',
  // Waiting for the bytes: the file strip's upload bar is the one thing that moves meanwhile.
  uploading: 'idle',
  analysing: 'busy',
  done: 'ok',
  failed: 'bad',
  skipped: 'idle',
};

/** Every request of the file with its state, in the order they were started. */
export function RequestList({ requests }: { readonly requests: RequestStates }) {
  const keys = (Object.keys(requests) as RequestKey[]).filter((key) => requests[key].status !== 'idle');
  return (
    <ul className="an-requests" aria-label="Requests">
      {keys.map((key) => {
        const state = requests[key];
        return (
          <li key={key} className={`an-request an-request-${tones[state.status]}`} data-request={key} data-status={state.status}>
            <span className="an-request-dot" aria-hidden="true" />
            <span className="an-request-name">{requestLabels[key]}</span>
            <span className="an-request-state">{statusText(state)}</span>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * What a panel shows until its answer is there: its place in the queue, the upload's progress, a busy
 * line while the server analyses, or the server's sentence when it failed.
 */
export function Pending({ state, what }: { readonly state: RequestState<unknown>; readonly what: string }): ReactNode {
  const connection = useConnection();
  // The shell already says it once (the offline banner, the sign-in dialog) and retries afterwards.
  if (state.status === 'failed' && state.httpStatus === 0 && !connection.online)
    return <p className="an-waiting muted">Waiting for the server to come back.</p>;
  if (state.status === 'failed' && state.httpStatus === 401)
    return (
      <p className="an-waiting muted">{connection.signInNeeded ? 'Waiting for you to sign in again.' : 'Not measured: signed out.'}</p>
    );
  switch (state.status) {
    case 'idle':
    case 'queued':
      return <p className="an-waiting muted">Waiting: two analyses run at a time.</p>;
    case 'uploading':
      return <p className="an-waiting muted">Waiting for the upload.</p>;
    case 'analysing':
      return <Busy>Analysing the {what}…</Busy>;
    case 'failed':
      return (
        <Problem title={`The ${what} could not be computed.`}>
          <p className="problem-message">{state.message}</p>
        </Problem>
      );
    case 'skipped':
      return <p className="an-waiting muted">Not analysed: the server could not read the file.</p>;
    case 'done':
      return null;
  }
}

/** How far the file's one upload is: the largest share any waiting request has heard of; null once no request waits for it. */
export function uploadFraction(requests: RequestStates): number | null {
  let fraction: number | null = null;
  for (const state of Object.values(requests)) if (state.status === 'uploading') fraction = Math.max(fraction ?? 0, state.fraction);
  return fraction;
}

/** True while an answer may still come (asked, uploading or analysing): a panel keeps its view's place for it. */
export function isPending(state: RequestState<unknown>): boolean {
  return state.status === 'idle' || state.status === 'queued' || state.status === 'uploading' || state.status === 'analysing';
}

/**
 * What the waveform's or the spectrogram's panel shows until its view is there: while an answer may
 * still come, the status inside a frame as tall as the view (analyse.css), so nothing below moves when
 * it arrives; once it failed or was not analysed, the status alone (nothing will take the view's place).
 */
export function PendingView({
  state,
  what,
  view,
}: {
  readonly state: RequestState<unknown>;
  readonly what: string;
  readonly view: 'waveform' | 'spectrum';
}) {
  const status = <Pending state={state} what={what} />;
  return isPending(state) ? <div className={`an-view-pending an-view-pending-${view}`}>{status}</div> : status;
}

/** True once the server holds the file: a request is past the upload (analysing or answered). */
export function serverHolds(requests: RequestStates): boolean {
  return Object.values(requests).some((state) => state.status === 'analysing' || state.status === 'done');
}

/**
 * The file's one upload as a single bar (the requests wait for it in silence), so a progress event
 * redraws one bar rather than one per panel. The row keeps its place for as long as the file is open
 * ("On the server" once the bytes are there): a bar that came and went would move every panel below it.
 */
export function UploadProgress({ requests, size }: { readonly requests: RequestStates; readonly size: number }) {
  const fraction = uploadFraction(requests);
  return (
    <div className="an-upload">
      {fraction !== null ? (
        <ProgressBar
          label="Uploading to the server"
          value={fraction}
          detail={`${formatBytes(size * fraction)} of ${formatBytes(size)} · ${Math.round(fraction * 100)} %`}
        />
      ) : serverHolds(requests) ? (
        <p className="an-upload-held" data-testid="upload-held">
          <span className="an-upload-check" aria-hidden="true" />
          <span>On the server</span>
          <span className="muted mono">{formatBytes(size)}</span>
        </p>
      ) : null}
    </div>
  );
}
