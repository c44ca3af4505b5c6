// Account and server calls shared by every screen.
import type { Health, Me } from '../../../server/audio/api-types.js';
import type { UserDetail } from '../../../server/hosting/api-types.js';
import { getJson } from './http';

export { ApiError } from './http';
export type { Health, Me, UserDetail };

/** GET /audio/v1/healthz: version and the external tools the server found. No token needed. */
export function getHealth(signal?: AbortSignal): Promise<Health> {
  return getJson<Health>('/audio/v1/healthz', { signal });
}

/** GET /audio/v1/me: the identity, tenant and usage the audio API resolves the token to. */
export function getMe(token: string, signal?: AbortSignal): Promise<Me> {
  return getJson<Me>('/audio/v1/me', { token, signal });
}

/** GET /api/v4/user: the signed-in user, in GitLab's shape. */
export function getCurrentUser(token: string, signal?: AbortSignal): Promise<UserDetail> {
  return getJson<UserDetail>('/api/v4/user', { token, tokenStyle: 'private-token', signal });
}
