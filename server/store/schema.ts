/** The lowdb document: metadata only (no waveforms, spectra or files). Bump `schemaVersion` with a migration. */
export interface DbSchema {
  schemaVersion: number;
  /** Next id per table; ids are never reused. */
  sequences: Record<string, number>;
  users: UserRecord[];
  tenants: TenantRecord[];
  namespaces: NamespaceRecord[];
  groups: GroupRecord[];
  groupMembers: GroupMemberRecord[];
  tokens: TokenRecord[];
  jobs: JobRecord[];
  /** Source URLs fetched into artifacts (POST /audio/v1/sources), one row per requested URL. */
  sources: SourceRecord[];
  projects: ProjectRecord[];
  stars: StarRecord[];
  projectShares: ProjectShareRecord[];
  uploads: UploadRecord[];
  hooks: ProjectHookRecord[];
  groupBadges: GroupBadgeRecord[];
  /** Badges of one project; ids come from the group badges' sequence (GitLab keeps both kinds in one table). */
  projectBadges: ProjectBadgeRecord[];
  notificationSettings: NotificationSettingRecord[];
  projectExports: ProjectExportRecord[];
  /** Which LFS objects each project references (the objects are shared files, content-addressed). */
  lfsLinks: LfsLinkRecord[];
  lfsLocks: LfsLockRecord[];
  usage: Record<string, TenantUsage>;
}

export interface UserRecord {
  id: number;
  username: string;
  name: string;
  email: string;
  admin: boolean;
  state: 'active' | 'blocked';
  tenant: string;
  namespaceId: number;
  /** scrypt hash `scrypt$N$salt$hash`, or null when the user signs in with tokens only. */
  passwordHash: string | null;
  createdAt: string;
}

export interface TenantRecord {
  id: string;
  /** HMAC secret for webhook signatures (shown to the tenant in /audio/v1/me). */
  webhookSecret: string;
  createdAt: string;
}

export interface NamespaceRecord {
  id: number;
  kind: 'user' | 'group';
  name: string;
  path: string;
  /** For kind user: the user; for kind group: the group (whose id equals this namespace id). */
  ownerId: number;
  parentId: number | null;
  createdAt: string;
}

export interface GroupRecord {
  /** Same number as the group's namespace id, as in GitLab, so clients can pass group.id as namespace_id. */
  id: number;
  name: string;
  path: string;
  description: string;
  visibility: Visibility;
  parentId: number | null;
  createdAt: string;
}

export type Visibility = 'private' | 'internal' | 'public';

export interface GroupMemberRecord {
  groupId: number;
  userId: number;
  accessLevel: number;
  expiresAt: string | null;
  createdAt: string;
}

export interface TokenRecord {
  id: number;
  userId: number;
  name: string;
  /** sha256 of the token; the token itself is shown once and never stored. */
  digest: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  revoked: boolean;
  lastUsedAt: string | null;
}

/** Feature switches and merge settings of a project (GitLab's `P` booleans), stored as sent. */
export interface ProjectSettings {
  issues_enabled: boolean;
  merge_requests_enabled: boolean;
  jobs_enabled: boolean;
  wiki_enabled: boolean;
  snippets_enabled: boolean;
  resolve_outdated_diff_discussions: boolean;
  container_registry_enabled: boolean;
  shared_runners_enabled: boolean;
  public_jobs: boolean;
  only_allow_merge_if_pipeline_succeeds: boolean;
  only_allow_merge_if_all_discussions_are_resolved: boolean;
  lfs_enabled: boolean;
  request_access_enabled: boolean;
  printing_merge_request_link_enabled: boolean;
}

export type ImportStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed';
export type MergeMethod = 'merge' | 'rebase_merge' | 'ff';

export interface ProjectRecord {
  id: number;
  name: string;
  path: string;
  namespaceId: number;
  description: string | null;
  visibility: Visibility;
  defaultBranch: string;
  creatorId: number;
  settings: ProjectSettings;
  mergeMethod: MergeMethod;
  tagList: string[];
  ciConfigPath: string | null;
  archived: boolean;
  /** URL the repository was imported from (credentials kept for the import job only). */
  importUrl: string | null;
  importStatus: ImportStatus;
  importError: string | null;
  forkedFromId: number | null;
  /** No branch in the repository yet (kept current on push, fork and import, so lists need no git call). */
  emptyRepo: boolean;
  /**
   * The default branch's README (GitLab's readme_path), kept current like emptyRepo. Rows of a
   * db.json written before the field lack it until their next update; readers test it for truth only.
   */
  readmePath: string | null;
  runnersToken: string;
  customAttributes: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  lastActivityAt: string;
}

export interface StarRecord {
  projectId: number;
  userId: number;
  createdAt: string;
}

export interface ProjectShareRecord {
  id: number;
  projectId: number;
  groupId: number;
  groupAccess: number;
  expiresAt: string | null;
  createdAt: string;
}

export interface UploadRecord {
  id: number;
  projectId: number;
  /** 32 hex characters: the folder under uploads/<project_id>/ and part of the URL. */
  secret: string;
  filename: string;
  size: number;
  uploaderId: number;
  createdAt: string;
}

/** The event switches of a project hook, by their API names. */
export interface HookEvents {
  push_events: boolean;
  issues_events: boolean;
  confidential_issues_events: boolean;
  merge_requests_events: boolean;
  tag_push_events: boolean;
  note_events: boolean;
  job_events: boolean;
  pipeline_events: boolean;
  wiki_page_events: boolean;
}

export interface ProjectHookRecord {
  id: number;
  projectId: number;
  url: string;
  /** Secret sent as X-Gitlab-Token; write-only in the API. */
  token: string | null;
  events: HookEvents;
  pushEventsBranchFilter: string | null;
  enableSslVerification: boolean;
  createdAt: string;
}

export interface GroupBadgeRecord {
  id: number;
  groupId: number;
  name: string | null;
  linkUrl: string;
  imageUrl: string;
  createdAt: string;
}

/**
 * The id sequence of both kinds of badge. GitLab keeps group and project badges in one table, so an
 * id names one badge of either kind, and a project's list (its own and its groups') is in id order.
 */
export const badgeSequence = 'groupBadges';

export interface ProjectBadgeRecord {
  id: number;
  projectId: number;
  name: string | null;
  linkUrl: string;
  imageUrl: string;
  createdAt: string;
}

export type NotificationLevel = 'disabled' | 'participating' | 'watch' | 'global' | 'mention' | 'custom';

/** One user's notification setting: global (sourceId null), or for a group or a project. */
export interface NotificationSettingRecord {
  userId: number;
  source: 'global' | 'group' | 'project';
  sourceId: number | null;
  level: NotificationLevel;
  /** Global settings only. */
  notificationEmail: string | null;
  /** The 13 event booleans, stored even while the level is not custom. */
  events: Record<string, boolean>;
}

/** A project references an LFS object: it may download it, and its size counts in the project's statistics. */
export interface LfsLinkRecord {
  projectId: number;
  /** sha256 of the content, 64 lowercase hex characters. */
  oid: string;
  size: number;
  createdAt: string;
}

/** A Git LFS file lock (the locking API). */
export interface LfsLockRecord {
  id: number;
  projectId: number;
  /** The locked path, as the client sent it. */
  path: string;
  ownerId: number;
  /** The ref the lock was taken on, when the client named one. */
  refName: string | null;
  lockedAt: string;
}

export type ExportStatus = 'none' | 'started' | 'after_export_action' | 'finished' | 'failed';

/** The latest export of a project (one per project). */
export interface ProjectExportRecord {
  projectId: number;
  status: ExportStatus;
  /** The archive under exports/, once written. */
  file: string | null;
  fileName: string | null;
  /** Where to send the archive (`upload[url]`, `upload[http_method]`), if asked. */
  upload: { url: string; method: 'PUT' | 'POST' } | null;
  description: string | null;
  error: string | null;
  requestedBy: number;
  startedAt: string;
  finishedAt: string | null;
}

export type JobState = 'pending' | 'running' | 'done' | 'error';

export interface JobRecord {
  jobId: string;
  type: string;
  tenant: string;
  status: JobState;
  progress: number;
  priority: number;
  params: unknown;
  result: unknown;
  resultRef: string | null;
  error: string | null;
  /** Epoch seconds (fractional), as JobStatus reports them. */
  created: number;
  started: number | null;
  finished: number | null;
  cancelRequested: boolean;
  webhookUrl: string | null;
  webhook: WebhookState | null;
}

/** A URL fetched into an artifact: lets the same URL be answered without a download. */
export interface SourceRecord {
  /** The URL as requested, without its fragment. */
  url: string;
  contentId: string;
  name: string;
  /** The source descriptor the job returned (JobStatus.result). */
  descriptor: Record<string, unknown>;
  fetchedAt: string;
}

export interface WebhookState {
  attempts: number;
  delivered: boolean;
  gaveUp: boolean;
  lastError: string | null;
}

export interface TenantUsage {
  requests: Record<string, number>;
  bytesUploaded: number;
  audioSeconds: number;
  updatedAt: string;
}

/** The schema version this code reads and writes. */
export const currentSchemaVersion = 6;

/** A brand-new, empty document. */
export function emptyDb(): DbSchema {
  return {
    schemaVersion: currentSchemaVersion,
    sequences: {},
    users: [],
    tenants: [],
    namespaces: [],
    groups: [],
    groupMembers: [],
    tokens: [],
    jobs: [],
    sources: [],
    projects: [],
    stars: [],
    projectShares: [],
    uploads: [],
    hooks: [],
    groupBadges: [],
    projectBadges: [],
    notificationSettings: [],
    projectExports: [],
    lfsLinks: [],
    lfsLocks: [],
    usage: {},
  };
}

/** Take the next id of a table's sequence (call inside a mutation). */
export function nextId(db: DbSchema, table: string): number {
  const id = (db.sequences[table] ?? 0) + 1;
  db.sequences[table] = id;
  return id;
}

/**
 * Replace the first row `match` finds with `{ ...row, ...patch }` (rows are immutable; call inside a
 * mutation); the new row, or undefined when there is none.
 */
export function patchRow<T extends object>(rows: T[], match: (row: T) => boolean, patch: Partial<NoInfer<T>>): T | undefined {
  const i = rows.findIndex(match);
  if (i < 0) return undefined;
  const row = { ...rows[i]!, ...patch };
  rows[i] = row;
  return row;
}
