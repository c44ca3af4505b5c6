/**
 * The project archive format, ours and GitLab's (`tree/project.json` + `tree/project/*.ndjson`, or the
 * legacy root `project.json`), read from an untrusted .tar.gz: settings, hooks (never tokens), badges, uploads
 * and `project.bundle`. Only the files named here are written out; everything else is skipped.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { HookEvents, MergeMethod, ProjectSettings, Visibility } from '../../store/schema.js';
import { formatBytes } from '../../shared/format-bytes.js';
import { ArchiveError, extractTarGz, type ArchiveLimits, type ExtractedEntry } from '../../shared/tar-archive.js';
import type { ImportedContent } from './exports-repo.js';
import { isValidBranchName } from '../git/git-names.js';
import { badgeUrlProblem } from '../badges/badges.js';
import { defaultHookEvents, hookEventKeys } from '../hooks/hooks.js';
import { safeFileName } from '../projects/project-actions.js';
import { httpUrlProblem, settingKeys, visibilityLevels, visibilityOrder } from '../projects/project-rules.js';

/** Settings read from an archive (unset: not in it, or not of a usable type). */
export interface ArchiveSettings {
  description?: string | null;
  visibility?: Visibility;
  defaultBranch?: string;
  settings: Partial<ProjectSettings>;
  mergeMethod?: MergeMethod;
  tagList?: string[];
  ciConfigPath?: string | null;
  archived?: boolean;
}

/** Everything an archive brought, read and checked before anything is moved into the project. */
export interface ArchiveContents {
  readonly settings: ArchiveSettings | null;
  readonly hooks: ImportedContent['hooks'];
  /** The project's own badges (GitLab's `project_badges`). */
  readonly badges: NonNullable<ImportedContent['badges']>;
  readonly uploads: readonly { readonly secret: string; readonly filename: string; readonly file: string; readonly size: number }[];
  /** Git LFS objects as extracted (not yet checked against their oid). */
  readonly lfsObjects: readonly { readonly oid: string; readonly file: string; readonly size: number }[];
  readonly bundle: string | null;
}

const MAX_TREE_BYTES = 16 * 1024 ** 2;
/** The legacy single project.json holds every relation; beyond this it is not parsed. */
const MAX_LEGACY_TREE_BYTES = 128 * 1024 ** 2;
/** GitLab's limit of hooks per project. */
const MAX_HOOKS = 100;
/** GitLab sets no limit on badges; this bounds what one hostile archive can add. */
const MAX_BADGES = 1000;
const uploadPattern = /^uploads\/([0-9a-f]{32})\/([^/]+)$/;
/** Git LFS objects, named by their sha256 (GitLab's `lfs-objects/<oid>`); checked against it on import. */
const lfsPattern = /^lfs-objects\/([0-9a-f]{64})$/;
const wanted = new Set([
  'tree/project.json',
  'project.json',
  'tree/project/project_feature.ndjson',
  'tree/project/project_hooks.ndjson',
  'tree/project/project_badges.ndjson',
  'project.bundle',
]);

/** Extract the files of the format from `archive` into `root` (within `limits`) and read them. */
export async function readArchive(archive: string, root: string, limits: ArchiveLimits, now: Date): Promise<ArchiveContents> {
  const entries = await extractTarGz(archive, root, {
    limits,
    select: (p) => wanted.has(p) || uploadPattern.test(p) || lfsPattern.test(p),
  });
  return readContents(root, entries, now);
}

/** Read what the archive brought (only checked files were written) into settings, hooks, uploads and a bundle. */
async function readContents(root: string, entries: readonly ExtractedEntry[], now: Date): Promise<ArchiveContents> {
  const files = new Map(entries.filter((e) => e.written).map((e) => [e.path, e]));
  const file = (name: string) => path.join(root, ...name.split('/'));
  let tree: Record<string, unknown> | null = null;
  let feature: Record<string, unknown> | null = null;
  if (files.has('tree/project.json')) {
    tree = await readJsonObject(file('tree/project.json'), 'tree/project.json', files.get('tree/project.json')!.size, MAX_TREE_BYTES);
    const featureFile = files.get('tree/project/project_feature.ndjson');
    if (featureFile) feature = (await readNdjson(file(featureFile.path), featureFile.path, featureFile.size, 1))[0] ?? null;
  } else if (files.has('project.json')) {
    tree = await readJsonObject(file('project.json'), 'project.json', files.get('project.json')!.size, MAX_LEGACY_TREE_BYTES);
    feature = isObject(tree.project_feature) ? tree.project_feature : null;
  }
  const hooksFile = files.get('tree/project/project_hooks.ndjson');
  const hookRows = hooksFile ? await readNdjson(file(hooksFile.path), hooksFile.path, hooksFile.size, MAX_HOOKS + 1) : [];
  if (hookRows.length > MAX_HOOKS) throw new ArchiveError(`tree/project/project_hooks.ndjson has more than ${MAX_HOOKS} hooks`);
  const hooks = hookRows.map((row, i) => hookFrom(row, i + 1, now));
  const badgesFile = files.get('tree/project/project_badges.ndjson');
  const badgeRows = badgesFile ? await readNdjson(file(badgesFile.path), badgesFile.path, badgesFile.size, MAX_BADGES + 1) : [];
  if (badgeRows.length > MAX_BADGES) throw new ArchiveError(`tree/project/project_badges.ndjson has more than ${MAX_BADGES} badges`);
  const badges = badgeRows.map((row, i) => badgeFrom(row, i + 1, now));

  const uploads: { secret: string; filename: string; file: string; size: number }[] = [];
  const taken = new Set<string>();
  for (const e of files.values()) {
    const m = uploadPattern.exec(e.path);
    if (!m) continue;
    const secret = m[1]!;
    const filename = safeFileName(m[2]!);
    if (taken.has(`${secret}/${filename}`)) continue;
    taken.add(`${secret}/${filename}`);
    uploads.push({ secret, filename, file: file(e.path), size: e.size });
  }
  const lfsObjects = [...files.values()].flatMap((e) => {
    const m = lfsPattern.exec(e.path);
    return m ? [{ oid: m[1]!, file: file(e.path), size: e.size }] : [];
  });
  return {
    settings: tree ? settingsFrom(tree, feature) : null,
    hooks,
    badges,
    uploads,
    lfsObjects,
    bundle: files.has('project.bundle') ? file('project.bundle') : null,
  };
}

async function readJsonObject(file: string, name: string, size: number, max: number): Promise<Record<string, unknown>> {
  if (size > max) throw new ArchiveError(`${name} is larger than ${formatBytes(max)}`);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new ArchiveError(`${name} is not valid JSON`);
  }
  if (!isObject(value)) throw new ArchiveError(`${name} does not hold a JSON object`);
  return value;
}

/** The first `maxRows` lines of an ndjson file, each a JSON object. */
async function readNdjson(file: string, name: string, size: number, maxRows: number): Promise<Record<string, unknown>[]> {
  if (size > MAX_TREE_BYTES) throw new ArchiveError(`${name} is larger than ${formatBytes(MAX_TREE_BYTES)}`);
  const rows: Record<string, unknown>[] = [];
  const lines = (await readFile(file, 'utf8')).split('\n');
  for (let i = 0; i < lines.length && rows.length < maxRows; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ArchiveError(`${name} line ${i + 1} is not valid JSON`);
    }
    if (!isObject(value)) throw new ArchiveError(`${name} line ${i + 1} does not hold a JSON object`);
    rows.push(value);
  }
  return rows;
}

/** A badge row of the archive (GitLab's ProjectBadge attributes) as a new project badge; URLs are checked as the API checks them. */
function badgeFrom(row: Record<string, unknown>, line: number, now: Date): NonNullable<ImportedContent['badges']>[number] {
  const linkUrl = typeof row.link_url === 'string' ? row.link_url : '';
  const imageUrl = typeof row.image_url === 'string' ? row.image_url : '';
  for (const url of [linkUrl, imageUrl])
    if (badgeUrlProblem(url) !== null || url.length > 2048)
      throw new ArchiveError(`tree/project/project_badges.ndjson line ${line} has no valid http(s) link_url and image_url`);
  const created =
    typeof row.created_at === 'string' && !Number.isNaN(Date.parse(row.created_at))
      ? new Date(row.created_at).toISOString()
      : now.toISOString();
  return { name: typeof row.name === 'string' ? row.name.slice(0, 255) : null, linkUrl, imageUrl, createdAt: created };
}

/** A hook row of the archive as a new hook (no token: archives never carry one). */
function hookFrom(row: Record<string, unknown>, line: number, now: Date): ImportedContent['hooks'][number] {
  const url = typeof row.url === 'string' ? row.url : '';
  if (httpUrlProblem(url) !== null || url.length > 2048)
    throw new ArchiveError(`tree/project/project_hooks.ndjson line ${line} has no valid http(s) url`);
  const events = Object.fromEntries(
    hookEventKeys.map((k) => [k, typeof row[k] === 'boolean' ? row[k] : defaultHookEvents[k]]),
  ) as unknown as HookEvents;
  const filter =
    typeof row.push_events_branch_filter === 'string' && row.push_events_branch_filter !== ''
      ? row.push_events_branch_filter.slice(0, 255)
      : null;
  const created =
    typeof row.created_at === 'string' && !Number.isNaN(Date.parse(row.created_at))
      ? new Date(row.created_at).toISOString()
      : now.toISOString();
  return {
    url,
    token: null,
    events,
    pushEventsBranchFilter: filter,
    enableSslVerification: typeof row.enable_ssl_verification === 'boolean' ? row.enable_ssl_verification : true,
    createdAt: created,
  };
}

/** Settings from project.json (ours or GitLab's attribute names) and GitLab's project_feature row. */
function settingsFrom(tree: Record<string, unknown>, feature: Record<string, unknown> | null): ArchiveSettings {
  const out: ArchiveSettings = { settings: {} };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (tree.description === null || typeof tree.description === 'string')
    out.description = tree.description === null ? null : tree.description.slice(0, 2000);
  const visibility = str(tree.visibility);
  if (visibility && (visibilityOrder as readonly string[]).includes(visibility)) out.visibility = visibility as Visibility;
  else if (typeof tree.visibility_level === 'number')
    out.visibility =
      tree.visibility_level >= visibilityLevels.public
        ? 'public'
        : tree.visibility_level >= visibilityLevels.internal
          ? 'internal'
          : 'private';
  const branch = str(tree.default_branch);
  if (branch && isValidBranchName(branch)) out.defaultBranch = branch;
  const fromFeature: Partial<Record<keyof ProjectSettings, string>> = {
    issues_enabled: 'issues_access_level',
    merge_requests_enabled: 'merge_requests_access_level',
    jobs_enabled: 'builds_access_level',
    wiki_enabled: 'wiki_access_level',
    snippets_enabled: 'snippets_access_level',
    container_registry_enabled: 'container_registry_access_level',
  };
  for (const key of settingKeys) {
    const level = fromFeature[key];
    const own = key === 'public_jobs' ? (tree.public_jobs ?? tree.public_builds) : tree[key];
    if (typeof own === 'boolean') out.settings[key] = own;
    else if (level && feature && typeof feature[level] === 'number') out.settings[key] = feature[level] > 0;
  }
  const method = str(tree.merge_method);
  if (method === 'merge' || method === 'rebase_merge' || method === 'ff') out.mergeMethod = method;
  else if (tree.merge_requests_ff_only_enabled === true) out.mergeMethod = 'ff';
  else if (tree.merge_requests_rebase_enabled === true) out.mergeMethod = 'rebase_merge';
  else if (tree.merge_requests_ff_only_enabled === false || tree.merge_requests_rebase_enabled === false) out.mergeMethod = 'merge';
  const tags = tree.tag_list ?? tree.topics;
  const list = Array.isArray(tags) ? tags : typeof tags === 'string' ? tags.split(',') : null;
  if (list)
    out.tagList = [
      ...new Set(
        list
          .filter((t): t is string => typeof t === 'string')
          .map((t) => t.trim().slice(0, 255))
          .filter((t) => t !== ''),
      ),
    ].slice(0, 100);
  if (tree.ci_config_path === null || typeof tree.ci_config_path === 'string')
    out.ciConfigPath = tree.ci_config_path === null || tree.ci_config_path === '' ? null : tree.ci_config_path.slice(0, 255);
  if (typeof tree.archived === 'boolean') out.archived = tree.archived;
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
