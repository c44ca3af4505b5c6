import { AppError } from '../http/errors.js';
import type { Identity } from './identity.js';

/**
 * Which token scopes a request needs, as one declarative table (GitLab's `allow_access_with_scope`,
 * lib/api/api.rb and lib/api/users.rb). Every route of every API falls in one family; a family names
 * the scopes that allow it, some only for reads (GET/HEAD). `sudo` and `admin_mode` are in no family:
 * this server has no Sudo header and no admin mode (GitLab's default with admin mode off: admin
 * routes need `api`), so on their own they allow nothing.
 */
export type ScopeFamily = 'api' | 'users' | 'repository-files' | 'audio-read' | 'audio-write' | 'git-read' | 'git-write' | 'uploads';

interface ScopeGrant {
  readonly scope: string;
  /** Only for GET and HEAD (GitLab's `if: request.get? || request.head?`). */
  readonly readOnly?: boolean;
}

const family: Readonly<Record<ScopeFamily, readonly ScopeGrant[]>> = {
  // GitLab lists the endpoint class's scopes before API::API's; the order shows in the error's `scope`.
  api: [{ scope: 'api' }, { scope: 'read_api', readOnly: true }],
  users: [{ scope: 'read_user', readOnly: true }, { scope: 'api' }, { scope: 'read_api', readOnly: true }],
  // API::Files: allow_access_with_scope :read_repository for GET and HEAD (lib/api/files.rb).
  'repository-files': [{ scope: 'read_repository', readOnly: true }, { scope: 'api' }, { scope: 'read_api', readOnly: true }],
  // Analysis POSTs change nothing but the shared cache: reads, for read_api too.
  'audio-read': [{ scope: 'api' }, { scope: 'read_api' }],
  'audio-write': [{ scope: 'api' }],
  // lib/gitlab/auth.rb abilities_for_scopes: api and read_api download code, write_repository pushes.
  'git-read': [{ scope: 'api' }, { scope: 'read_api' }, { scope: 'read_repository' }, { scope: 'write_repository' }],
  'git-write': [{ scope: 'api' }, { scope: 'write_repository' }],
  uploads: [{ scope: 'api' }, { scope: 'read_api', readOnly: true }],
};

/** One line of an API's route table: the first rule whose method and path match names the family. */
export interface RouteScopeRule {
  /** Upper-case methods; any method when absent. */
  readonly methods?: readonly string[];
  /** Tested against the path below the API's mount point (`/projects/1`). */
  readonly path: RegExp;
  readonly family: ScopeFamily;
}

/** /api/v4. The catch-all is the strictest family, so a route nobody classified is never more open. */
export const hostingScopeRules: readonly RouteScopeRule[] = [
  // GitLab serves these from API::Projects, not API::Users.
  { path: /^\/users\/[^/]+\/(projects|starred_projects|contributed_projects)\/?$/i, family: 'api' },
  // API::Users (/user, /users, /users/:id, its tokens…) and API::Version allow read_user for reads.
  { path: /^\/(version|user|users)(\/.*)?$/i, family: 'users' },
  // API::Files reads (GET/HEAD …/repository/files/:file_path[/raw|/blame]) also with read_repository (files.rb:
  // allow_access_with_scope :read_repository if get? or head?); writes, trees, blobs and archives: `api`.
  // …/analysis (a Cratehouse extension) reads the same file, so it takes the same scopes.
  {
    methods: ['GET', 'HEAD'],
    path: /^\/projects\/[^/]+\/repository\/files\/[^/]+(\/(raw|blame|analysis))?\/?$/i,
    family: 'repository-files',
  },
  { path: /^/, family: 'api' },
];

/** /audio/v1. Writes (a source job, cancelling a job, and anything unlisted) need `api`. */
export const audioScopeRules: readonly RouteScopeRule[] = [
  { methods: ['GET', 'HEAD'], path: /^/, family: 'audio-read' },
  {
    methods: ['POST'],
    path: /^\/(loudness|waveform|spectrum|onsets|grade|naming|features|separate|analyze(\/samples|\/emotion)?)\/?$/i,
    family: 'audio-read',
  },
  { path: /^/, family: 'audio-write' },
];

/** The family of a request under an API's rules. */
export function familyOf(rules: readonly RouteScopeRule[], method: string, path: string): ScopeFamily {
  const m = method.toUpperCase();
  const rule = rules.find((r) => (!r.methods || r.methods.includes(m)) && r.path.test(path));
  // Every table above ends in a catch-all.
  if (!rule) throw new Error(`no scope rule matches ${m} ${path}`);
  return rule.family;
}

/** Scopes that allow `method` in a family. */
export function allowingScopes(name: ScopeFamily, method: string): readonly string[] {
  const read = method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD';
  return family[name].filter((g) => read || !g.readOnly).map((g) => g.scope);
}

/** Words of RFC 6750's insufficient_scope, as GitLab (rack-oauth2) answers them. */
export const insufficientScopeDescription = 'The request requires higher privileges than provided by the access token.';

/**
 * Refuse a caller whose token carries none of the scopes that allow this request: 403 with code
 * `insufficient_scope` and, like GitLab, every scope the family names (`scopes`). Anonymous callers
 * are the route's business.
 */
export function checkScopes(caller: Identity | null, name: ScopeFamily, method: string): void {
  if (!caller) return;
  const allowed = allowingScopes(name, method);
  if (caller.token.scopes.some((s) => allowed.includes(s))) return;
  throw new AppError('forbidden', insufficientScopeDescription, { code: 'insufficient_scope', scopes: family[name].map((g) => g.scope) });
}
