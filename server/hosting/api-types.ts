/** Response bodies of the hosting API (GitLab shapes), for clients; the renderer imports these as types only. */

export interface UserBasic {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: 'active' | 'blocked';
  readonly locked: boolean;
  readonly avatar_url: string | null;
  readonly web_url: string;
}

export interface UserDetail extends UserBasic {
  readonly created_at: string;
  readonly bio: string;
  readonly public_email: string | null;
  readonly email?: string;
  readonly is_admin?: boolean;
  readonly can_create_group?: boolean;
  readonly can_create_project?: boolean;
  readonly two_factor_enabled?: boolean;
  readonly external?: boolean;
  readonly private_profile?: boolean;
  readonly namespace_id?: number;
  readonly tenant?: string;
}

export interface Group {
  readonly id: number;
  readonly web_url: string;
  readonly name: string;
  readonly path: string;
  readonly description: string;
  readonly visibility: 'private' | 'internal' | 'public';
  readonly full_name: string;
  readonly full_path: string;
  readonly parent_id: number | null;
  readonly created_at: string;
  readonly avatar_url: string | null;
}

export interface Namespace {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  readonly kind: 'user' | 'group';
  readonly full_path: string;
  readonly parent_id: number | null;
  readonly avatar_url: string | null;
  readonly web_url: string;
  /** GitLab's `root_repository_size`: for the namespace's owner and admins only (GET /namespaces/:id). */
  readonly root_repository_size?: number;
  /** What the namespace's projects store, GitLab's Namespace::RootStorageStatistics fields (same audience). */
  readonly root_storage_statistics?: RootStorageStatistics;
}

/** GitLab's namespace storage statistics, in bytes (wiki, LFS, CI and packages do not exist here: 0). */
export interface RootStorageStatistics {
  readonly storage_size: number;
  readonly repository_size: number;
  readonly uploads_size: number;
  readonly wiki_size: number;
  readonly lfs_objects_size: number;
  readonly build_artifacts_size: number;
  readonly pipeline_artifacts_size: number;
  readonly packages_size: number;
  readonly snippets_size: number;
}

export interface GroupMember extends UserBasic {
  readonly access_level: number;
  readonly expires_at: string | null;
  readonly created_at: string;
}

export interface PersonalAccessToken {
  readonly id: number;
  readonly name: string;
  readonly revoked: boolean;
  readonly created_at: string;
  readonly scopes: readonly string[];
  readonly user_id: number;
  readonly last_used_at: string | null;
  readonly active: boolean;
  readonly expires_at: string | null;
  /** Only in the response that created it. */
  readonly token?: string;
}

export interface Version {
  readonly version: string;
  readonly revision: string;
}

/** The `namespace` block of a project: GitLab's Namespace. */
export type ProjectNamespace = Namespace;

/** `simple=true` list items (and GitLab's BasicProjectDetails). */
export interface ProjectSimple {
  readonly id: number;
  readonly description: string | null;
  readonly name: string;
  readonly name_with_namespace: string;
  readonly path: string;
  readonly path_with_namespace: string;
  readonly created_at: string;
  readonly default_branch: string;
  readonly tag_list: readonly string[];
  readonly topics: readonly string[];
  readonly ssh_url_to_repo: string;
  readonly http_url_to_repo: string;
  readonly web_url: string;
  readonly readme_url: string | null;
  readonly avatar_url: string | null;
  readonly forks_count: number;
  readonly star_count: number;
  readonly last_activity_at: string;
  readonly namespace: ProjectNamespace;
}

export type ProjectBasic = ProjectSimple;

export interface ProjectStatistics {
  readonly commit_count: number;
  readonly storage_size: number;
  readonly repository_size: number;
  readonly wiki_size: number;
  readonly lfs_objects_size: number;
  readonly job_artifacts_size: number;
  readonly packages_size: number;
  readonly snippets_size: number;
  readonly uploads_size: number;
}

interface AccessEntry {
  readonly access_level: number;
  readonly notification_level: number;
}

/** GitLab's Project entity (ProjectWithAccess when `permissions` is present). */
export interface Project extends ProjectSimple {
  readonly _links: Readonly<Record<'self' | 'issues' | 'merge_requests' | 'repo_branches' | 'labels' | 'events' | 'members', string>>;
  readonly empty_repo: boolean;
  readonly archived: boolean;
  readonly visibility: 'private' | 'internal' | 'public';
  readonly owner?: UserBasic & { readonly created_at: string };
  readonly resolve_outdated_diff_discussions: boolean;
  readonly container_registry_enabled: boolean;
  readonly issues_enabled: boolean;
  readonly merge_requests_enabled: boolean;
  readonly wiki_enabled: boolean;
  readonly jobs_enabled: boolean;
  readonly snippets_enabled: boolean;
  readonly shared_runners_enabled: boolean;
  readonly lfs_enabled: boolean;
  readonly creator_id: number;
  readonly forked_from_project?: ProjectBasic;
  readonly import_url: string | null;
  readonly import_type: string | null;
  readonly import_status: 'none' | 'scheduled' | 'started' | 'finished' | 'failed';
  readonly import_error: string | null;
  readonly open_issues_count: number;
  readonly ci_config_path: string | null;
  readonly public_jobs: boolean;
  readonly shared_with_groups: readonly {
    readonly group_id: number;
    readonly group_name: string;
    readonly group_full_path: string;
    readonly group_access_level: number;
    readonly expires_at: string | null;
  }[];
  readonly only_allow_merge_if_pipeline_succeeds: boolean;
  readonly only_allow_merge_if_all_discussions_are_resolved: boolean;
  readonly request_access_enabled: boolean;
  readonly printing_merge_request_link_enabled: boolean;
  readonly printing_merge_requests_link_enabled: boolean;
  readonly merge_method: 'merge' | 'rebase_merge' | 'ff';
  readonly updated_at: string;
  readonly runners_token?: string;
  readonly permissions?: { readonly project_access: AccessEntry | null; readonly group_access: AccessEntry | null };
  readonly statistics?: ProjectStatistics;
  readonly custom_attributes?: readonly { readonly key: string; readonly value: string }[];
}

export interface ProjectUser {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: 'active' | 'blocked';
  readonly avatar_url: string | null;
  readonly web_url: string;
}

/** GitLab's Badge entity: a project's own badge (kind "project") or one of its groups' (kind "group"). */
export interface Badge {
  readonly id: number;
  readonly name: string | null;
  readonly link_url: string;
  readonly image_url: string;
  readonly rendered_link_url: string;
  readonly rendered_image_url: string;
  readonly kind: 'project' | 'group';
}

/** GitLab's Badge entity for a group badge. */
export interface GroupBadge extends Badge {
  readonly kind: 'group';
}

/** GitLab's BasicBadgeDetails: what GET /groups/:id/badges/render answers. */
export interface BadgeRender {
  readonly name: string | null;
  readonly link_url: string;
  readonly image_url: string;
  readonly rendered_link_url: string;
  readonly rendered_image_url: string;
}

/** The notification levels, by name. */
export type NotificationLevelName = 'disabled' | 'participating' | 'watch' | 'global' | 'mention' | 'custom';

/** GitLab's NotificationSetting (group and project): `events` only while the level is custom. */
export interface NotificationSetting {
  readonly level: NotificationLevelName;
  readonly events?: Readonly<Record<string, boolean>>;
}

/** GitLab's GlobalNotificationSetting. */
export interface GlobalNotificationSetting {
  readonly level: NotificationLevelName;
  readonly notification_email: string;
}

/** GitLab's ProjectIdentity: what export and import statuses say about the project. */
export interface ProjectIdentity {
  readonly id: number;
  readonly description: string | null;
  readonly name: string;
  readonly name_with_namespace: string;
  readonly path: string;
  readonly path_with_namespace: string;
  readonly created_at: string;
}

/** GitLab's ProjectExportStatus; `_links` once finished, `export_error` (ours) once failed. */
export interface ProjectExportStatus extends ProjectIdentity {
  readonly export_status: 'none' | 'started' | 'after_export_action' | 'finished' | 'failed';
  readonly export_error?: string;
  readonly _links?: { readonly api_url: string; readonly web_url: string };
}

/** GitLab's ProjectImportStatus (the import result); `import_error` only when failed. */
export interface ProjectImportStatus extends ProjectIdentity {
  readonly import_status: 'none' | 'scheduled' | 'started' | 'finished' | 'failed';
  readonly import_error?: string;
}

/** GitLab's Commit (lib/api/entities/commit.rb). */
export interface Commit {
  readonly id: string;
  readonly short_id: string;
  readonly created_at: string;
  readonly parent_ids: readonly string[];
  readonly title: string;
  readonly message: string;
  readonly author_name: string;
  readonly author_email: string;
  readonly authored_date: string;
  readonly committer_name: string;
  readonly committer_email: string;
  readonly committed_date: string;
  readonly trailers: Readonly<Record<string, string>>;
  readonly extended_trailers: Readonly<Record<string, readonly string[]>>;
  readonly web_url: string;
}

/** GitLab's CommitDetail: a Commit with its line stats and (always empty here) pipeline. */
export interface CommitDetail extends Commit {
  readonly stats?: { readonly additions: number; readonly deletions: number; readonly total: number };
  readonly status: null;
  readonly project_id: number;
  readonly last_pipeline: null;
}

/** GitLab's Diff (one file of a commit or a comparison). */
export interface Diff {
  readonly diff: string;
  readonly collapsed: boolean;
  readonly too_large: boolean;
  readonly new_path: string;
  readonly old_path: string;
  readonly a_mode: string;
  readonly b_mode: string;
  readonly new_file: boolean;
  readonly renamed_file: boolean;
  readonly deleted_file: boolean;
  readonly generated_file: boolean;
}

/** GitLab's Branch. */
export interface Branch {
  readonly name: string;
  readonly commit: Commit;
  readonly merged: boolean;
  readonly protected: boolean;
  readonly developers_can_push: boolean;
  readonly developers_can_merge: boolean;
  readonly can_push: boolean;
  readonly default: boolean;
  readonly web_url: string;
}

/** GitLab's Tag. */
export interface Tag {
  readonly name: string;
  readonly message: string;
  readonly target: string;
  readonly commit: Commit;
  readonly release: null;
  readonly protected: boolean;
  readonly created_at: string | null;
}

/** GitLab's Compare. */
export interface Compare {
  readonly commit: Commit | null;
  readonly commits: readonly Commit[];
  readonly diffs: readonly Diff[];
  readonly compare_timeout: boolean;
  readonly compare_same_ref: boolean;
  readonly web_url: string;
}

/** GitLab's Contributor. */
export interface Contributor {
  readonly name: string;
  readonly email: string;
  readonly commits: number;
  readonly additions: number;
  readonly deletions: number;
}

/** One entry of GET /projects/:id/repository/tree (GitLab's TreeObject). */
export interface RepositoryTreeEntry {
  readonly id: string;
  readonly name: string;
  readonly type: 'tree' | 'blob' | 'commit';
  readonly path: string;
  readonly mode: string;
}

/**
 * GET /projects/:id/repository/files/:file_path/analysis (a Cratehouse extension): the audio
 * analysis of a repository file (LFS content resolved), or that it is still running (202).
 * `analysis` is exactly /audio/v1/analyze's body and `waveform` /audio/v1/waveform's (800 bins);
 * they are type parameters because hosting does not import audio's types (the renderer instantiates
 * them with AnalyzeResponse and WaveformResponse).
 */
export type RepositoryFileAnalysis<Analysis = Readonly<Record<string, unknown>>, Waveform = Readonly<Record<string, unknown>>> =
  | {
      readonly status: 'ready';
      readonly file_path: string;
      readonly blob_id: string;
      readonly sha256: string;
      readonly size: number;
      readonly analysis: Analysis;
      readonly waveform: Waveform;
    }
  | { readonly status: 'pending'; readonly file_path: string; readonly blob_id: string };

/** One object of a Git LFS batch answer (the spec's shape, docs/api/batch.md of git-lfs). */
export interface LfsBatchObject {
  readonly oid: string;
  readonly size: number;
  readonly authenticated?: boolean;
  readonly actions?: Readonly<
    Record<string, { readonly href: string; readonly header: Readonly<Record<string, string>>; readonly expires_in: number }>
  >;
  readonly error?: { readonly code: number; readonly message: string };
}

/** A Git LFS batch answer (`POST <project>.git/info/lfs/objects/batch`). */
export interface LfsBatchResponse {
  readonly transfer: 'basic';
  readonly objects: readonly LfsBatchObject[];
  readonly hash_algo: 'sha256';
}
