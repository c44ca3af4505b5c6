import { useCallback, useEffect, useRef, useState } from 'react';
import {
  type Analysis,
  type AnalysisRoute,
  type AnalyzeResponse,
  type GradeResponse,
  type LoudnessResponse,
  type NamingResponse,
  type OnsetsResponse,
  type SpectrumResponse,
  type WaveformResponse,
} from '../../api/audio';
import { holdAudio, httpTransport, type HeldAudio, type HeldRequestOptions } from '../../api/held-audio';
import { ApiError, isAbort } from '../../api/http';
import { gradeQuery, requestGrade } from '../grade/grade-request';
import { createLimiter } from './limiter';
import { scheduleRequest } from './schedule-request';

/**
 * Detail asked of the server. 4000 bins (the route's maximum) keep about one bin per pixel when the
 * waveform is zoomed ×4 on a 1000 px wide view; 128 bands × 1000 frames give the spectrogram about
 * one frame per pixel at 1280 px and bands finer than its 220 px height needs, in ~450 kB of JSON.
 */
export const WAVEFORM_BINS = 4000;
export const SPECTRUM_BANDS = 128;
export const SPECTRUM_FRAMES = 1000;
/** The server analyses on two cores: more uploads at once would only queue there. */
export const CONCURRENCY = 2;

/** The answers the screen asks for, by request. */
export interface AnalysisResults {
  readonly waveform: WaveformResponse;
  readonly onsets: OnsetsResponse;
  readonly spectrumMel: SpectrumResponse;
  readonly spectrumLog: SpectrumResponse;
  readonly loudness: LoudnessResponse;
  readonly analyze: AnalyzeResponse;
  readonly grade: GradeResponse;
  readonly naming: NamingResponse;
}

export type RequestKey = keyof AnalysisResults;

/** The order requests start in: what the person sees first goes first. The log spectrum runs only on demand. */
export const startOrder: readonly RequestKey[] = ['waveform', 'onsets', 'spectrumMel', 'loudness', 'analyze', 'grade', 'naming'];

/** What each request is for, as the status list names it. */
export const requestLabels: Readonly<Record<RequestKey, string>> = {
  waveform: 'Waveform',
  onsets: 'Onsets and tempo',
  spectrumMel: 'Spectrum (mel)',
  spectrumLog: 'Spectrum (log)',
  loudness: 'Loudness',
  analyze: 'Role, emotion, features',
  grade: 'Grade',
  naming: 'Name',
};

/** Where one request is. In-flight states keep the previous answer (a re-requested name) to show meanwhile. */
export type RequestState<T> =
  | { readonly status: 'idle' }
  | { readonly status: 'queued'; readonly previous?: T }
  | { readonly status: 'uploading'; readonly fraction: number; readonly previous?: T }
  | { readonly status: 'analysing'; readonly previous?: T }
  | { readonly status: 'done'; readonly result: T; readonly cache: Analysis<T>['cache'] }
  | { readonly status: 'failed'; readonly message: string; readonly httpStatus: number }
  | { readonly status: 'skipped' };

export type RequestStates = { readonly [K in RequestKey]: RequestState<AnalysisResults[K]> };

/** The screen's analysis of one file. */
export interface AnalysisState {
  readonly file: File | null;
  readonly requests: RequestStates;
  /** A problem with the file itself (not audio, too large): every request would fail the same way. */
  readonly fileProblem: string | null;
  readonly namingIndex: number;
}

type Call<K extends RequestKey> = (
  audio: HeldAudio,
  options: HeldRequestOptions,
  namingIndex: number,
) => Promise<Analysis<AnalysisResults[K]>>;

/** Each request's route and query (the naming index is the screen's current one). */
function requestOf(
  key: RequestKey,
  namingIndex: number,
): { readonly route: AnalysisRoute; readonly query: Readonly<Record<string, unknown>> } {
  switch (key) {
    case 'waveform':
      return { route: 'waveform', query: { bins: WAVEFORM_BINS } };
    case 'spectrumMel':
      return { route: 'spectrum', query: { bands: SPECTRUM_BANDS, frames: SPECTRUM_FRAMES, mel: true } };
    case 'spectrumLog':
      return { route: 'spectrum', query: { bands: SPECTRUM_BANDS, frames: SPECTRUM_FRAMES, mel: false } };
    case 'grade':
      return { route: 'grade', query: gradeQuery };
    case 'naming':
      return { route: 'naming', query: { index: namingIndex } };
    default:
      return { route: key, query: {} };
  }
}

// Every request asks by hash: the file goes to the server once (held-audio.ts).
const calls: { readonly [K in RequestKey]: Call<K> } = {
  waveform: (audio, options) => audio.analyse('waveform', { bins: WAVEFORM_BINS }, options),
  onsets: (audio, options) => audio.analyse('onsets', {}, options),
  spectrumMel: (audio, options) => audio.analyse('spectrum', { bands: SPECTRUM_BANDS, frames: SPECTRUM_FRAMES, mel: true }, options),
  spectrumLog: (audio, options) => audio.analyse('spectrum', { bands: SPECTRUM_BANDS, frames: SPECTRUM_FRAMES, mel: false }, options),
  loudness: (audio, options) => audio.analyse('loudness', {}, options),
  analyze: (audio, options) => audio.analyse('analyze', {}, options),
  grade: (audio, options) => requestGrade(audio, options),
  naming: (audio, options, index) => audio.analyse('naming', { index }, options),
};

/** Every request not yet asked (the state before a file is chosen). */
export const idleRequests: RequestStates = {
  waveform: { status: 'idle' },
  onsets: { status: 'idle' },
  spectrumMel: { status: 'idle' },
  spectrumLog: { status: 'idle' },
  loudness: { status: 'idle' },
  analyze: { status: 'idle' },
  grade: { status: 'idle' },
  naming: { status: 'idle' },
};

/** Statuses that say the file itself is the problem, so the other requests need not run. */
const fileStatuses = new Set([413, 415]);

function previousOf<T>(state: RequestState<T>): T | undefined {
  if (state.status === 'done') return state.result;
  if (state.status === 'queued' || state.status === 'uploading' || state.status === 'analysing') return state.previous;
  return undefined;
}

/**
 * Runs the analyses of one file with limited concurrency: `start(file)` cancels everything of the
 * previous file, `requestSpectrumLog()` and `setNamingIndex(n)` add requests to the running file.
 */
export function useAnalysis(token: string) {
  const [state, setState] = useState<AnalysisState>({ file: null, requests: idleRequests, fileProblem: null, namingIndex: 1 });
  const limiter = useRef(createLimiter(CONCURRENCY));
  const run = useRef<{ file: File; audio: HeldAudio; controller: AbortController; id: number } | null>(null);
  const perRequest = useRef(new Map<RequestKey, AbortController>());
  const namingIndex = useRef(1);
  const nextId = useRef(0);

  useEffect(
    () => () => {
      run.current?.controller.abort(new DOMException('The screen was closed.', 'AbortError'));
    },
    [],
  );

  const launch = useCallback((key: RequestKey) => {
    const current = run.current;
    if (!current) return;
    const { audio, id } = current;
    const update = (next: (previous: RequestState<never>) => RequestState<unknown>) =>
      setState((s) =>
        run.current?.id !== id ? s : { ...s, requests: { ...s.requests, [key]: next(s.requests[key] as RequestState<never>) } },
      );

    // A new request for the same key (another naming index) replaces the one in flight.
    perRequest.current.get(key)?.abort(new DOMException('Replaced by a newer request.', 'AbortError'));
    const controller = new AbortController();
    perRequest.current.set(key, controller);
    const onRunAbort = () => controller.abort(current.controller.signal.reason);
    current.controller.signal.addEventListener('abort', onRunAbort, { once: true });

    update((s) => ({ status: 'queued', previous: previousOf(s) }));
    const call = calls[key] as Call<RequestKey>;
    const index = namingIndex.current;
    const options = {
      signal: controller.signal,
      onProgress: ({ loaded, total }: { loaded: number; total: number }) => {
        const fraction = total > 0 ? loaded / total : 0;
        // Once it is all sent, what remains is analysis.
        update((s) =>
          fraction >= 1 ? { status: 'analysing', previous: previousOf(s) } : { status: 'uploading', fraction, previous: previousOf(s) },
        );
      },
    };
    const { route, query } = requestOf(key, index);
    // Analyses the server has under way for the file skip the limiter (schedule-request.ts).
    scheduleRequest(
      audio,
      limiter.current,
      { route, query: query as never, onQueued: () => update((s) => ({ status: 'queued', previous: previousOf(s) })) },
      () => call(audio, options, index),
      options,
    )
      .then(
        (answer) => update(() => ({ status: 'done', result: answer.result, cache: answer.cache })),
        (error: unknown) => {
          if (controller.signal.aborted || isAbort(error)) return;
          const message = error instanceof Error ? error.message : 'The analysis failed.';
          const httpStatus = error instanceof ApiError ? error.status : 0;
          if (fileStatuses.has(httpStatus) && run.current?.id === id) {
            // Every route would refuse this file the same way: stop the rest and say it once, at the file.
            current.controller.abort(new DOMException('The file was refused.', 'AbortError'));
            setState((s) => {
              const requests = Object.fromEntries(
                Object.entries(s.requests).map(([k, r]) => [
                  k,
                  k === key
                    ? { status: 'failed', message, httpStatus }
                    : r.status === 'done' || r.status === 'idle'
                      ? r
                      : { status: 'skipped' },
                ]),
              ) as unknown as RequestStates;
              return { ...s, requests, fileProblem: message };
            });
            return;
          }
          update(() => ({ status: 'failed', message, httpStatus }));
        },
      )
      .finally(() => {
        current.controller.signal.removeEventListener('abort', onRunAbort);
        if (perRequest.current.get(key) === controller) perRequest.current.delete(key);
      });
  }, []);

  const start = useCallback(
    (file: File, sha256?: string) => {
      run.current?.controller.abort(new DOMException('Another file was chosen.', 'AbortError'));
      perRequest.current.clear();
      const id = ++nextId.current;
      const controller = new AbortController();
      const audio = holdAudio(file, file.name, httpTransport(token), { sha256, signal: controller.signal });
      run.current = { file, audio, controller, id };
      setState({ file, requests: idleRequests, fileProblem: null, namingIndex: namingIndex.current });
      for (const key of startOrder) launch(key);
    },
    [launch, token],
  );

  const requestSpectrumLog = useCallback(() => {
    const status = state.requests.spectrumLog.status;
    if (status === 'idle' || status === 'failed') launch('spectrumLog');
  }, [launch, state.requests.spectrumLog.status]);

  const setNamingIndex = useCallback(
    (index: number) => {
      if (index === namingIndex.current) return;
      namingIndex.current = index;
      setState((s) => ({ ...s, namingIndex: index }));
      if (run.current && !run.current.controller.signal.aborted) launch('naming');
    },
    [launch],
  );

  return { state, start, requestSpectrumLog, setNamingIndex };
}
