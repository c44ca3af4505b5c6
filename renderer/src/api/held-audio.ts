// "Upload each byte once": a file's bytes go to the server once (into the caller's library), and
// every analysis of it is then asked by content hash with an empty body. Whoever analyses a file
// (Analyse, Batch, Library) goes through here, so no screen can send the same bytes twice.
import { analyse, analyseByHash, analysisPaths, type AnalysisRoute, type AnalysisRoutes, type Analysis } from './audio';
import { isSummaryAnalysis } from './held-audio-summary';
import { ApiError, type UploadProgress } from './http';
import { addLibraryItem, type LibraryItemResponse } from './library';

type Result<R extends AnalysisRoute> = Analysis<AnalysisRoutes[R]['result']>;

/** The three requests this module makes; the screens use the real ones, tests may count them. */
export interface HeldAudioTransport {
  upload(
    file: Blob,
    fileName: string,
    options: { signal?: AbortSignal; onProgress?: (p: UploadProgress) => void },
  ): Promise<LibraryItemResponse>;
  byHash<R extends AnalysisRoute>(route: R, sha256: string, query: AnalysisRoutes[R]['query'], signal?: AbortSignal): Promise<Result<R>>;
  /** A multipart upload to the route itself: only for a server without the library. */
  direct<R extends AnalysisRoute>(
    route: R,
    file: Blob,
    fileName: string,
    query: AnalysisRoutes[R]['query'],
    options: { signal?: AbortSignal; onProgress?: (p: UploadProgress) => void },
  ): Promise<Result<R>>;
}

/** The requests over HTTP with `token`. */
export function httpTransport(token: string): HeldAudioTransport {
  return {
    upload: async (file, fileName, options) => (await addLibraryItem(token, file, fileName, options)).item,
    byHash: (route, sha256, query, signal) => analyseByHash(route, sha256, query, { token, signal }),
    direct: (route, file, fileName, query, options) => analyse(route, file, fileName, query, { token, ...options }),
  };
}

/** Per request: its cancellation and the shared upload's progress while it waits for it. */
export interface HeldRequestOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: UploadProgress) => void;
}

/** One file as the server holds it. */
export interface HeldAudio {
  /** Ask `route` about the file: by hash, after the one upload if the server does not hold it yet. */
  analyse<R extends AnalysisRoute>(route: R, query: AnalysisRoutes[R]['query'], options?: HeldRequestOptions): Promise<Result<R>>;
  /** The library item the upload made or found, once there is one (null for a server without the library). */
  item(): LibraryItemResponse | null;
  /** Resolves once the server holds the file (uploading it if no request has yet); the upload's progress goes to `onProgress`. */
  hold(options?: HeldRequestOptions): Promise<void>;
  /**
   * True when the server is already computing this analysis for the file, or has it: the upload answer
   * listed it among its library summary's analyses (`summary_analyses`), so asking adds no work to the
   * server. False when that is not known (no upload answer yet, a file opened by hash, an older server).
   */
  isUnderWay<R extends AnalysisRoute>(route: R, query: AnalysisRoutes[R]['query']): boolean;
}

const direct = Symbol('direct');
type Held = string | typeof direct;

function whenAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** True for the answer of a server that has no library routes (an older build). */
function isMissingRoute(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 405);
}

function isNotHeld(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/**
 * Hold `file` for analysis. With `known.sha256` (a library item) nothing is uploaded unless the
 * server answers 404 for it; otherwise the first request uploads it (POST /library/items) and every
 * request, the first included, then asks by hash. `signal` cancels the shared upload (the file was
 * closed); a request's own signal only stops that request.
 */
export function holdAudio(
  file: Blob,
  fileName: string,
  transport: HeldAudioTransport,
  known: { readonly sha256?: string; readonly signal?: AbortSignal } = {},
): HeldAudio {
  let held: Promise<Held> | null = known.sha256 ? Promise.resolve(known.sha256) : null;
  let item: LibraryItemResponse | null = null;
  const listeners = new Set<(progress: UploadProgress) => void>();

  const upload = (): Promise<Held> => {
    const attempt = transport
      .upload(file, fileName, {
        signal: known.signal,
        onProgress: (progress) => {
          for (const listener of listeners) listener(progress);
        },
      })
      .then(
        (answer): Held => {
          item = answer;
          return answer.sha256;
        },
        (error: unknown): Held => {
          if (isMissingRoute(error)) return direct;
          // A failed upload is not remembered: the next request tries again.
          if (held === attempt) held = null;
          throw error;
        },
      );
    held = attempt;
    return attempt;
  };

  return {
    async analyse(route, query, options = {}) {
      const onProgress = options.onProgress;
      if (onProgress) listeners.add(onProgress);
      try {
        const waitHeld = (promise: Promise<Held>) => Promise.race([promise, whenAborted(options.signal)]);
        const current = held ?? upload();
        const sha = await waitHeld(current);
        // The bytes are on the server: what remains is its analysis (screens show "analysing").
        onProgress?.({ loaded: file.size, total: file.size });
        if (sha === direct) return await transport.direct(route, file, fileName, query, options);
        try {
          return await transport.byHash(route, sha, query, options.signal);
        } catch (error) {
          if (!isNotHeld(error)) throw error;
          // The server no longer holds it (deleted meanwhile, or never had it): send it once more.
          const again = await waitHeld(held === current ? upload() : (held ?? upload()));
          if (again === direct) return await transport.direct(route, file, fileName, query, options);
          return await transport.byHash(route, again, query, options.signal);
        }
      } finally {
        if (onProgress) listeners.delete(onProgress);
      }
    },
    item: () => item,
    async hold(options = {}) {
      const onProgress = options.onProgress;
      if (onProgress) listeners.add(onProgress);
      try {
        await Promise.race([held ?? upload(), whenAborted(options.signal)]);
      } finally {
        if (onProgress) listeners.delete(onProgress);
      }
    },
    isUnderWay: (route, query) =>
      isSummaryAnalysis(item?.summary_analyses ?? [], analysisPaths[route], query as Readonly<Record<string, unknown>>),
  };
}
