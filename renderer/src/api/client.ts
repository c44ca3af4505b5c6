// The only module of the renderer that calls fetch. Paths are relative to the page's origin: the
// headless server and the desktop app serve the bundle next to both APIs, and Vite's dev server
// proxies them.
import type { Health, Me } from '../../../server/audio/api-types.js';
import type { UserDetail } from '../../../server/hosting/api-types.js';
import { describeApiError } from './error-message';

export type { Health, Me, UserDetail };

/** A request that did not produce the expected body; `message` is a sentence a person can read. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The HTTP status, or 0 when the server could not be reached. */
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }

  /** The server rejected the credentials (as opposed to being unreachable or failing). */
  get unauthorized(): boolean {
    return this.status === 401;
  }
}

interface RequestOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

async function getJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      headers: { Accept: 'application/json', ...options.headers },
      signal: options.signal,
      cache: 'no-store',
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, 'The Cratehouse server could not be reached. Check that it is running.');
  }
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON: described from the status below.
  }
  if (!response.ok) throw new ApiError(response.status, describeApiError(response.status, body));
  if (body === undefined) throw new ApiError(response.status, 'The server sent a response that is not JSON.');
  return body as T;
}

/** GET /audio/v1/healthz: version and the external tools the server found. No token needed. */
export function getHealth(signal?: AbortSignal): Promise<Health> {
  return getJson<Health>('/audio/v1/healthz', { signal });
}

/** GET /audio/v1/me: the identity, tenant and usage the audio API resolves the token to. */
export function getMe(token: string, signal?: AbortSignal): Promise<Me> {
  return getJson<Me>('/audio/v1/me', { headers: { Authorization: `Bearer ${token}` }, signal });
}

/** GET /api/v4/user: the signed-in user, in GitLab's shape. */
export function getCurrentUser(token: string, signal?: AbortSignal): Promise<UserDetail> {
  return getJson<UserDetail>('/api/v4/user', { headers: { 'PRIVATE-TOKEN': token }, signal });
}
