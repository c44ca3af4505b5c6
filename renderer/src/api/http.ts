// The request core of the renderer: the api/ modules build on it, and nothing outside api/ calls
// fetch or XMLHttpRequest. Paths are relative to the page's origin: the headless server and the
// desktop app serve the bundle next to both APIs, and Vite's dev server proxies them.
import { reportNetworkFailure, reportUnauthorized } from './connection-events';
import { describeApiError } from './error-message';

/** A request that did not produce the expected answer; `message` is a sentence a person can read. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The HTTP status, or 0 when the server could not be reached. */
  readonly status: number;
  /** The parsed JSON error body, when there was one. */
  readonly body: unknown;

  constructor(status: number, message: string, body?: unknown) {
    super(message);
    this.status = status;
    this.body = body;
  }

  /** The server rejected the credentials (as opposed to being unreachable or failing). */
  get unauthorized(): boolean {
    return this.status === 401;
  }
}

const unreachable = 'The Cratehouse server could not be reached. Check that it is running.';

/** How the token is sent: the audio API takes a bearer token, the hosting API GitLab's PRIVATE-TOKEN. */
export type TokenStyle = 'bearer' | 'private-token';

/** Query values; undefined and empty strings are left out. */
export type Query = Readonly<Record<string, string | number | boolean | undefined | null>>;

export interface RequestOptions {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly token?: string | null;
  readonly tokenStyle?: TokenStyle;
  readonly query?: Query;
  /** Sent as application/json. */
  readonly json?: unknown;
  /** Sent as is (FormData, Blob); the browser sets the content type of a FormData. */
  readonly body?: BodyInit;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** A JSON answer with the response headers a caller may need (pagination, X-Cache). */
export interface JsonResponse<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** `path?query` with empty values left out. */
export function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${text}`;
}

function authHeaders(token: string | null | undefined, style: TokenStyle): Record<string, string> {
  if (!token) return {};
  return style === 'bearer' ? { Authorization: `Bearer ${token}` } : { 'PRIVATE-TOKEN': token };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Send a request and return the raw Response; network failures become ApiError(0). */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...authHeaders(options.token, options.tokenStyle ?? 'bearer'), ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body,
      signal: options.signal,
      cache: 'no-store',
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    reportNetworkFailure();
    throw new ApiError(0, unreachable);
  }
  if (response.status === 401 && options.token) reportUnauthorized(options.token);
  return response;
}

/** Throw the server's own sentence for a failed response. */
export async function failureOf(response: Response): Promise<ApiError> {
  const body = parseJson(await response.text().catch(() => ''));
  return new ApiError(response.status, describeApiError(response.status, body), body);
}

/** A JSON request; non-2xx answers throw ApiError with the server's sentence. 204 and 304 give `undefined`. */
export async function requestJson<T>(path: string, options: RequestOptions = {}): Promise<JsonResponse<T>> {
  const response = await send(path, { ...options, headers: { Accept: 'application/json', ...options.headers } });
  if (!response.ok && response.status !== 304) throw await failureOf(response);
  const text = response.status === 204 || response.status === 304 ? '' : await response.text();
  const body = parseJson(text);
  if (body === undefined && text !== '') throw new ApiError(response.status, 'The server sent a response that is not JSON.');
  return { status: response.status, body: body as T, headers: response.headers };
}

/** Just the body of requestJson. */
export async function getJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await requestJson<T>(path, options)).body;
}

/** A file download as a Blob (artifacts, export archives), with the token. */
export async function getBlob(path: string, options: RequestOptions = {}): Promise<Blob> {
  const response = await send(path, options);
  if (!response.ok) throw await failureOf(response);
  return response.blob();
}

/** Progress of an upload: bytes sent of the total. */
export interface UploadProgress {
  readonly loaded: number;
  readonly total: number;
}

export interface UploadOptions extends Omit<RequestOptions, 'json' | 'body' | 'method'> {
  readonly method?: 'POST' | 'PUT';
  /** The multipart field name (`file` for both APIs' uploads). */
  readonly field?: string;
  /** Other multipart fields sent before the file. */
  readonly fields?: Readonly<Record<string, string>>;
  readonly onProgress?: (progress: UploadProgress) => void;
}

/**
 * A multipart upload of one file that reports progress as it is sent (fetch cannot report upload
 * progress, so this one request uses XMLHttpRequest) and answers JSON like requestJson.
 */
export function uploadFile<T>(path: string, file: Blob, fileName: string, options: UploadOptions = {}): Promise<JsonResponse<T>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  form.append(options.field ?? 'file', file, fileName);
  return sendWithProgress<T>(path, form, file.size, options);
}

/** A JSON body sent with upload progress (a commit carrying base64 files), answered like requestJson. */
export function postJsonWithProgress<T>(
  path: string,
  json: unknown,
  options: Omit<UploadOptions, 'field' | 'fields'> = {},
): Promise<JsonResponse<T>> {
  const body = new Blob([JSON.stringify(json)], { type: 'application/json' });
  return sendWithProgress<T>(path, body, body.size, { ...options, headers: { 'Content-Type': 'application/json', ...options.headers } });
}

/** A Blob sent as the whole body (a Git LFS object to its transfer URL) with progress; any 2xx answer resolves. */
export async function putBlobWithProgress(url: string, blob: Blob, options: Omit<UploadOptions, 'field' | 'fields'> = {}): Promise<void> {
  await sendWithProgress<unknown>(url, blob, blob.size, { ...options, method: 'PUT' }, true);
}

function sendWithProgress<T>(
  path: string,
  body: FormData | Blob,
  size: number,
  options: UploadOptions,
  emptyAnswerIsFine = false,
): Promise<JsonResponse<T>> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(options.method ?? 'POST', withQuery(path, options.query));
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries({ ...authHeaders(options.token, options.tokenStyle ?? 'bearer'), ...options.headers }))
      xhr.setRequestHeader(name, value);
    const onProgress = options.onProgress;
    if (onProgress)
      xhr.upload.onprogress = (event) => onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : size });

    const abort = () => xhr.abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    const settle = () => options.signal?.removeEventListener('abort', abort);
    xhr.onabort = () => {
      settle();
      reject(options.signal?.reason ?? new DOMException('The upload was cancelled.', 'AbortError'));
    };
    xhr.onerror = () => {
      settle();
      reportNetworkFailure();
      reject(new ApiError(0, unreachable));
    };
    xhr.onload = () => {
      settle();
      const body = parseJson(xhr.responseText);
      const headers = new Headers();
      for (const line of xhr
        .getAllResponseHeaders()
        .trim()
        .split(/[\r\n]+/)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      if (xhr.status < 200 || xhr.status >= 300) {
        if (xhr.status === 401 && options.token) reportUnauthorized(options.token);
        reject(new ApiError(xhr.status, describeApiError(xhr.status, body), body));
        return;
      }
      if (body === undefined && !emptyAnswerIsFine) {
        reject(new ApiError(xhr.status, 'The server sent a response that is not JSON.'));
        return;
      }
      resolve({ status: xhr.status, body: body as T, headers });
    };
    if (options.signal?.aborted) {
      reject(options.signal.reason ?? new DOMException('The upload was cancelled.', 'AbortError'));
      return;
    }
    xhr.send(body);
  });
}

/** True for the rejection of a request that was cancelled on purpose. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
