import type { ProjectRecord, UserRecord } from '../../store/schema.js';
import type { CommitSummary } from '../git/repositories.js';
import { visibilityLevels } from '../projects/project-rules.js';

/** The project facts a hook payload repeats. */
export interface PayloadProject {
  readonly project: Readonly<ProjectRecord>;
  readonly fullPath: string;
  readonly namespaceName: string;
  readonly base: string;
}

/** Commits listed in a push payload: GitLab keeps the newest 20. */
export const maxPayloadCommits = 20;

/** GitLab's `project` block of hook payloads (Gitlab::HookData::ProjectBuilder). */
export function payloadProject(p: PayloadProject): Record<string, unknown> {
  const web = `${p.base}/${p.fullPath}`;
  const http = `${web}.git`;
  const ssh = `git@${new URL(p.base).hostname}:${p.fullPath}.git`;
  return {
    id: p.project.id,
    name: p.project.name,
    description: p.project.description,
    web_url: web,
    avatar_url: null,
    git_ssh_url: ssh,
    git_http_url: http,
    namespace: p.namespaceName,
    visibility_level: visibilityLevels[p.project.visibility],
    path_with_namespace: p.fullPath,
    default_branch: p.project.defaultBranch,
    ci_config_path: p.project.ciConfigPath,
    homepage: web,
    url: http,
    ssh_url: ssh,
    http_url: http,
  };
}

/**
 * GitLab's push and tag-push payload (Gitlab::DataBuilder::Push): before/after/ref, the pusher, the
 * project, up to 20 commits oldest first with added/modified/removed, the total count, and the
 * deprecated `repository` block. Tag pushes list no commits, as GitLab's do.
 */
export function pushPayload(input: {
  readonly kind: 'push' | 'tag_push';
  readonly before: string;
  readonly after: string;
  readonly ref: string;
  /** The commit the ref now points at (a tag's target); null for a deletion. */
  readonly checkoutSha: string | null;
  readonly user: Readonly<UserRecord>;
  readonly project: PayloadProject;
  readonly commits: readonly CommitSummary[];
  readonly totalCommits: number;
}): Record<string, unknown> {
  const web = `${input.project.base}/${input.project.fullPath}`;
  const project = payloadProject(input.project);
  return {
    object_kind: input.kind,
    event_name: input.kind,
    before: input.before,
    after: input.after,
    ref: input.ref,
    ref_protected: false,
    checkout_sha: input.checkoutSha,
    message: null,
    user_id: input.user.id,
    user_name: input.user.name,
    user_username: input.user.username,
    user_email: input.user.email,
    user_avatar: null,
    project_id: input.project.project.id,
    project,
    commits: input.commits.slice(-maxPayloadCommits).map((c) => ({
      id: c.id,
      message: c.message,
      title: c.title,
      timestamp: c.timestamp,
      url: `${web}/-/commit/${c.id}`,
      author: { name: c.author.name, email: c.author.email },
      added: [...c.added],
      modified: [...c.modified],
      removed: [...c.removed],
    })),
    total_commits_count: input.totalCommits,
    push_options: {},
    repository: {
      name: input.project.project.name,
      url: project.url,
      description: input.project.project.description,
      homepage: web,
      git_http_url: project.git_http_url,
      git_ssh_url: project.git_ssh_url,
      visibility_level: project.visibility_level,
    },
  };
}

/** GitLab's branch filter: `*` matches any run of characters, everything else literally. */
export function branchMatches(filter: string | null, branch: string): boolean {
  if (!filter) return true;
  const re = new RegExp(
    `^${filter
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(branch);
}
