import type { ProjectSettings, Visibility } from '../../store/schema.js';

/** GitLab's project name rule and its message. */
const namePattern = /^[\p{L}\p{N}_\p{Extended_Pictographic}][\p{L}\p{N}\p{Extended_Pictographic}_.+\- ]*$/u;
export const nameMessage =
  "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.";

/** GitLab's (OCI-compatible) project path rule and its message. */
const pathPattern = /^[a-zA-Z0-9]+([._-][a-zA-Z0-9]+)*$/;
export const pathMessage =
  "can only include non-accented letters, digits, '_', '-' and '.'. It must not start with '-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'.";

/** Paths GitLab reserves below a namespace (they are routes of the project pages). */
const reservedPaths = new Set([
  '-',
  'badges',
  'blame',
  'blob',
  'builds',
  'commits',
  'create',
  'create_dir',
  'edit',
  'files',
  'find_file',
  'new',
  'preview',
  'raw',
  'refs',
  'tree',
  'update',
  'wikis',
  'uploads',
  'info',
  'git-upload-pack',
  'git-receive-pack',
]);

/** The levels of `visibility`, least open first. */
export const visibilityOrder: readonly Visibility[] = ['private', 'internal', 'public'];

/** GitLab's visibility_level numbers (archives and hook payloads still use them). */
export const visibilityLevels: Readonly<Record<Visibility, number>> = { private: 0, internal: 10, public: 20 };

/** The least open of the given visibilities. */
export function mostRestrictive(first: Visibility, ...rest: readonly Visibility[]): Visibility {
  return visibilityOrder[Math.min(...[first, ...rest].map((v) => visibilityOrder.indexOf(v)))]!;
}

/** Problems with a name and a path, as GitLab's `{"message": {field: [..]}}`. */
export function checkNameAndPath(name: string, path: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  if (name.length === 0) fields.name = ["can't be blank"];
  else if (name.length > 255) fields.name = ['is too long (maximum is 255 characters)'];
  else if (!namePattern.test(name)) fields.name = [nameMessage];
  if (path.length === 0) fields.path = ["can't be blank"];
  else if (path.length > 255) fields.path = ['is too long (maximum is 255 characters)'];
  else if (!pathPattern.test(path) || /\.(git|atom)$/i.test(path)) fields.path = [pathMessage];
  else if (reservedPaths.has(path.toLowerCase())) fields.path = [`${path} is a reserved name`];
  return fields;
}

/**
 * GitLab's path from a name: the name itself when it is already a valid path (case kept), else
 * Rails' `parameterize`: transliterated to ASCII, lower-cased, runs of other characters as one dash.
 */
export function pathFromName(name: string): string {
  if (pathPattern.test(name) && !/\.(git|atom)$/i.test(name)) return name;
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

/**
 * Why `raw` is not an absolute http(s) URL: 'invalid' when it does not parse or has no host,
 * 'scheme' when its scheme is another; null when it is one. Callers give their own messages.
 */
export function httpUrlProblem(raw: string): 'invalid' | 'scheme' | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'invalid';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'scheme';
  return u.hostname === '' ? 'invalid' : null;
}

/** What a new project starts with (GitLab's defaults). */
export const defaultSettings: Readonly<ProjectSettings> = {
  issues_enabled: true,
  merge_requests_enabled: true,
  jobs_enabled: true,
  wiki_enabled: true,
  snippets_enabled: true,
  resolve_outdated_diff_discussions: false,
  container_registry_enabled: true,
  shared_runners_enabled: true,
  public_jobs: true,
  only_allow_merge_if_pipeline_succeeds: false,
  only_allow_merge_if_all_discussions_are_resolved: false,
  lfs_enabled: true,
  request_access_enabled: true,
  printing_merge_request_link_enabled: true,
};

/** The boolean `P` attributes, by their API names. */
export const settingKeys = Object.keys(defaultSettings) as readonly (keyof ProjectSettings)[];
