import type { ProjectRecord, ProjectShareRecord, UploadRecord, UserRecord } from '../../store/schema.js';
import type { Project, ProjectBasic, ProjectSimple, ProjectStatistics, ProjectUser } from '../api-types.js';
import type { ProjectAccess } from './project-access.js';
import { presentUserBasic } from '../present.js';

/** Everything a project's JSON needs besides the record, looked up by the caller. */
export interface ProjectContext {
  readonly base: string;
  readonly namespace: {
    readonly id: number;
    readonly name: string;
    readonly path: string;
    readonly kind: 'user' | 'group';
    readonly fullPath: string;
    readonly parentId: number | null;
  };
  /** Display name of the namespace chain (`Group / Sub`), or the owner's name for a personal project. */
  readonly namespaceName: string;
  readonly owner: Readonly<UserRecord> | null;
  readonly starCount: number;
  readonly forksCount: number;
  readonly shares: readonly { readonly share: Readonly<ProjectShareRecord>; readonly groupName: string; readonly groupFullPath: string }[];
  readonly forkedFrom: ProjectBasic | null;
  /** Present for authenticated list and single reads (GitLab's ProjectWithAccess). */
  readonly access?: ProjectAccess | null;
  /** The caller's notification levels (0 disabled … 5 custom) for the project and for its group. */
  readonly notificationLevels?: { readonly project: number; readonly group: number };
  readonly statistics?: ProjectStatistics | null;
  readonly customAttributes?: boolean;
  /** Maintainers see secrets (runners token) and import errors. */
  readonly canAdmin: boolean;
}

/** GitLab's numeric `global` level, the default of every project and group setting. */
const notificationLevelGlobal = 3;

/** GitLab's `simple=true` shape: id, name, path and URLs. */
export function presentProjectSimple(p: Readonly<ProjectRecord>, ctx: ProjectContext): ProjectSimple {
  const full = `${ctx.namespace.fullPath}/${p.path}`;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${ctx.namespaceName} / ${p.name}`,
    path: p.path,
    path_with_namespace: full,
    created_at: p.createdAt,
    default_branch: p.defaultBranch,
    tag_list: [...p.tagList],
    topics: [...p.tagList].sort(),
    ssh_url_to_repo: sshUrl(ctx.base, full),
    http_url_to_repo: `${ctx.base}/${full}.git`,
    web_url: `${ctx.base}/${full}`,
    // GitLab: <web_url>/-/blob/<default branch>/<readme path>, when the default branch has a README.
    readme_url: p.readmePath
      ? `${ctx.base}/${full}/-/blob/${[p.defaultBranch, p.readmePath].join('/').split('/').map(encodeURIComponent).join('/')}`
      : null,
    avatar_url: null,
    forks_count: ctx.forksCount,
    star_count: ctx.starCount,
    last_activity_at: p.lastActivityAt,
    namespace: {
      id: ctx.namespace.id,
      name: ctx.namespace.name,
      path: ctx.namespace.path,
      kind: ctx.namespace.kind,
      full_path: ctx.namespace.fullPath,
      parent_id: ctx.namespace.parentId,
      avatar_url: null,
      web_url: ctx.namespace.kind === 'group' ? `${ctx.base}/groups/${ctx.namespace.fullPath}` : `${ctx.base}/${ctx.namespace.path}`,
    },
  };
}

/** GitLab's BasicProjectDetails (anonymous reads, `forked_from_project`). */
export function presentProjectBasic(p: Readonly<ProjectRecord>, ctx: ProjectContext): ProjectBasic {
  return presentProjectSimple(p, ctx);
}

/** GitLab's Project entity, with `permissions` when `ctx.access` is given (ProjectWithAccess). */
export function presentProject(p: Readonly<ProjectRecord>, ctx: ProjectContext): Project {
  const api = `${ctx.base}/api/v4/projects/${p.id}`;
  const s = p.settings;
  return {
    ...presentProjectSimple(p, ctx),
    _links: {
      self: api,
      issues: `${api}/issues`,
      merge_requests: `${api}/merge_requests`,
      repo_branches: `${api}/repository/branches`,
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
    },
    empty_repo: p.emptyRepo,
    archived: p.archived,
    visibility: p.visibility,
    ...(ctx.owner ? { owner: { ...presentUserBasic(ctx.owner, ctx.base), created_at: ctx.owner.createdAt } } : {}),
    resolve_outdated_diff_discussions: s.resolve_outdated_diff_discussions,
    container_registry_enabled: s.container_registry_enabled,
    issues_enabled: s.issues_enabled,
    merge_requests_enabled: s.merge_requests_enabled,
    wiki_enabled: s.wiki_enabled,
    jobs_enabled: s.jobs_enabled,
    snippets_enabled: s.snippets_enabled,
    shared_runners_enabled: s.shared_runners_enabled,
    lfs_enabled: s.lfs_enabled,
    creator_id: p.creatorId,
    ...(p.forkedFromId !== null && ctx.forkedFrom ? { forked_from_project: ctx.forkedFrom } : {}),
    import_url: ctx.canAdmin ? scrubCredentials(p.importUrl) : null,
    import_type: p.importUrl ? 'git' : null,
    import_status: p.importStatus,
    import_error: ctx.canAdmin ? p.importError : null,
    open_issues_count: 0,
    ci_config_path: p.ciConfigPath,
    public_jobs: s.public_jobs,
    shared_with_groups: ctx.shares.map(({ share, groupName, groupFullPath }) => ({
      group_id: share.groupId,
      group_name: groupName,
      group_full_path: groupFullPath,
      group_access_level: share.groupAccess,
      expires_at: share.expiresAt,
    })),
    only_allow_merge_if_pipeline_succeeds: s.only_allow_merge_if_pipeline_succeeds,
    only_allow_merge_if_all_discussions_are_resolved: s.only_allow_merge_if_all_discussions_are_resolved,
    request_access_enabled: s.request_access_enabled,
    printing_merge_request_link_enabled: s.printing_merge_request_link_enabled,
    printing_merge_requests_link_enabled: s.printing_merge_request_link_enabled,
    merge_method: p.mergeMethod,
    updated_at: p.updatedAt,
    ...(ctx.canAdmin ? { runners_token: p.runnersToken } : {}),
    ...(ctx.access !== undefined
      ? {
          permissions: {
            project_access:
              ctx.access && ctx.access.project > 0
                ? { access_level: ctx.access.project, notification_level: ctx.notificationLevels?.project ?? notificationLevelGlobal }
                : null,
            group_access:
              ctx.access && ctx.access.group > 0
                ? { access_level: ctx.access.group, notification_level: ctx.notificationLevels?.group ?? notificationLevelGlobal }
                : null,
          },
        }
      : {}),
    ...(ctx.statistics ? { statistics: ctx.statistics } : {}),
    ...(ctx.customAttributes ? { custom_attributes: Object.entries(p.customAttributes).map(([key, value]) => ({ key, value })) } : {}),
  };
}

/** GitLab's ProjectGroupLink (answer of POST /projects/:id/share). */
export function presentShare(share: Readonly<ProjectShareRecord>): Record<string, unknown> {
  return {
    id: share.id,
    project_id: share.projectId,
    group_id: share.groupId,
    group_access: share.groupAccess,
    expires_at: share.expiresAt,
  };
}

/** A project user (GET /projects/:id/users). */
export function presentProjectUser(u: Readonly<UserRecord>, base: string): ProjectUser {
  const b = presentUserBasic(u, base);
  return { id: b.id, username: b.username, name: b.name, state: b.state, avatar_url: b.avatar_url, web_url: b.web_url };
}

/** The uploaded-file record: `alt`, `url` relative to the project, `full_path`, and Markdown. */
export function presentUpload(u: Readonly<UploadRecord>, projectFullPath: string): Record<string, unknown> {
  const url = `/uploads/${u.secret}/${encodeURIComponent(u.filename)}`;
  const image = /\.(png|jpe?g|gif|webp|svg|bmp|ico|mp4|webm|mov|ogg)$/i.test(u.filename);
  const alt = (image ? u.filename.replace(/\.[^.]+$/, '') : u.filename).replace(/]/g, '\\]');
  return {
    id: u.id,
    alt,
    url,
    full_path: `/${projectFullPath}/uploads/${u.secret}/${encodeURIComponent(u.filename)}`,
    markdown: image ? `![${alt}](${url})` : `[${alt}](${url})`,
  };
}

function sshUrl(base: string, full: string): string {
  const host = new URL(base).hostname;
  return `git@${host}:${full}.git`;
}

/** A URL with any user:password removed (import URLs may carry a token). */
export function scrubCredentials(url: string | null): string | null {
  if (!url) return url;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return null;
  }
}
