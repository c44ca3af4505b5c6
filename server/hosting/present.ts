import { statusForKind, type AppError } from '../http/errors.js';
import type { GroupMemberRecord, GroupRecord, TokenRecord, UserRecord } from '../store/schema.js';
import type { Group, GroupMember, Namespace, PersonalAccessToken, UserBasic, UserDetail } from './api-types.js';

/** GitLab's UserBasic. */
export function presentUserBasic(u: Readonly<UserRecord>, base: string): UserBasic {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    locked: false,
    avatar_url: null,
    web_url: `${base}/${u.username}`,
  };
}

/** GitLab's user detail: private fields only for the user themself and for admins. */
export function presentUser(u: Readonly<UserRecord>, base: string, viewer: Readonly<UserRecord> | null): UserDetail {
  const publicPart = { ...presentUserBasic(u, base), created_at: u.createdAt, bio: '', public_email: null };
  if (!viewer || (viewer.id !== u.id && !viewer.admin)) return publicPart;
  return {
    ...publicPart,
    email: u.email,
    is_admin: u.admin,
    can_create_group: true,
    can_create_project: true,
    two_factor_enabled: false,
    external: false,
    private_profile: false,
    namespace_id: u.namespaceId,
    tenant: u.tenant,
  };
}

/** GitLab's Group. */
export function presentGroup(g: Readonly<GroupRecord>, fullPath: string, fullName: string, base: string): Group {
  return {
    id: g.id,
    web_url: `${base}/groups/${fullPath}`,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    full_name: fullName,
    full_path: fullPath,
    parent_id: g.parentId,
    created_at: g.createdAt,
    avatar_url: null,
  };
}

/** GitLab's Namespace. */
export function presentNamespace(
  n: {
    readonly id: number;
    readonly kind: 'user' | 'group';
    readonly name: string;
    readonly path: string;
    readonly fullPath: string;
    readonly parentId: number | null;
  },
  base: string,
): Namespace {
  return {
    id: n.id,
    name: n.name,
    path: n.path,
    kind: n.kind,
    full_path: n.fullPath,
    parent_id: n.parentId,
    avatar_url: null,
    web_url: n.kind === 'group' ? `${base}/groups/${n.fullPath}` : `${base}/${n.path}`,
  };
}

/** GitLab's group Member. */
export function presentMember(m: Readonly<GroupMemberRecord>, u: Readonly<UserRecord>, base: string): GroupMember {
  return { ...presentUserBasic(u, base), access_level: m.accessLevel, expires_at: m.expiresAt, created_at: m.createdAt };
}

/** GitLab's PersonalAccessToken; the token string only when just created. */
export function presentToken(t: Readonly<TokenRecord>, today: string, token?: string): PersonalAccessToken {
  // Expired from 00:00 UTC of the expiry date, as GitLab (expires_at <= now).
  const active = !t.revoked && (!t.expiresAt || t.expiresAt > today);
  return {
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    created_at: t.createdAt,
    scopes: t.scopes,
    user_id: t.userId,
    last_used_at: t.lastUsedAt,
    active,
    expires_at: t.expiresAt,
    ...(token ? { token } : {}),
  };
}

/**
 * GitLab's error bodies: parameter problems `{"error": "name is missing"}`, model validation
 * `{"message": {"field": ["..."]}}`, and `{"message": "404 Group Not Found"}` style otherwise.
 */
export function presentHostingError(error: AppError | null): { status: number; body: unknown; headers?: Record<string, string> } {
  if (!error) return { status: 500, body: { message: '500 Internal Server Error' } };
  const o = error.options;
  switch (error.kind) {
    case 'unprocessable':
      // GitLab's 422s: a parameter's problem is Grape's `error!(msg, 422)` → {"error"}; otherwise
      // `unprocessable_entity!(msg)` → {"message"}.
      return { status: statusForKind.unprocessable, body: o.issues ? { error: error.message } : { message: error.message } };
    case 'invalid':
      // `render_api_error!(msg, 400)`: the bare message (the notification level's enum error, an import's first full message).
      if (o.code === 'render_api_error') return { status: 400, body: { message: error.message } };
      if (o.fields) return { status: 400, body: { message: o.fields } };
      if (o.issues) return { status: 400, body: { error: error.message } };
      return { status: 400, body: { message: `400 Bad request - ${error.message}` } };
    case 'unauthorized':
      if (o.code === 'invalid_token')
        return {
          status: 401,
          body: { error: 'invalid_token', error_description: error.message },
          headers: { 'WWW-Authenticate': `Bearer realm="Cratehouse", error="invalid_token", error_description="${error.message}"` },
        };
      return { status: 401, body: { message: '401 Unauthorized' } };
    case 'forbidden':
      if (o.code === 'insufficient_scope') {
        // rack-oauth2's body; the header is RFC 6750's (GitLab omits it, calling that a bug in a FIXME).
        const scope = (o.scopes ?? []).join(' ');
        return {
          status: 403,
          body: { error: 'insufficient_scope', error_description: error.message, scope },
          headers: {
            'WWW-Authenticate': `Bearer realm="Cratehouse", error="insufficient_scope", error_description="${error.message}", scope="${scope}"`,
          },
        };
      }
      // `render_api_error!(msg, 405)`: a refusal GitLab answers as Method Not Allowed (deleting the default branch).
      if (o.code === 'method_not_allowed') return { status: 405, body: { message: error.message } };
      return { status: 403, body: { message: error.message === 'Forbidden' ? '403 Forbidden' : `403 Forbidden - ${error.message}` } };
    case 'not-found':
      // `render_api_error!(msg, 404)`: the bare message (an export that is not ready yet).
      if (o.code === 'render_api_error') return { status: 404, body: { message: error.message } };
      return { status: 404, body: { message: `404 ${error.message}` } };
    case 'conflict':
      return { status: 409, body: { message: o.fields ?? error.message } };
    case 'too-large':
      return { status: 413, body: { message: '413 Request Entity Too Large' } };
    case 'unsupported-media':
      return { status: 415, body: { message: '415 Unsupported Media Type' } };
    case 'rate-limited':
      // GitLab's application limits (`{"message": {"error": ...}}`), with Retry-After as Rack::Attack sends it.
      return { status: 429, body: { message: { error: error.message } }, headers: { 'Retry-After': String(o.retryAfter ?? 60) } };
    case 'unavailable':
      return {
        status: 503,
        body: { message: error.message },
        headers: o.retryAfter === undefined ? undefined : { 'Retry-After': String(o.retryAfter) },
      };
  }
}
