import type { Branch, Commit, CommitDetail, Compare, Diff, Tag } from '../api-types.js';
import type { CommitInfo, FileDiff } from '../git/history.js';
import type { TagRef } from '../git/refs.js';

/** Where a project's pages live, for `web_url`s: `<base>/<namespace>/<project>`. */
export interface ProjectLinks {
  readonly projectUrl: string;
  readonly projectId: number;
}

/** GitLab renders times with milliseconds (`2012-05-28T04:42:42.000-07:00`). */
function withMillis(iso: string): string {
  return iso.replace(/(T\d{2}:\d{2}:\d{2})(?=[Z+-])/, '$1.000');
}

/** GitLab's Commit; trailers only when read (a list asks with `trailers=true`). */
export function presentCommit(c: CommitInfo, links: ProjectLinks, withTrailers = true): Commit {
  const trailers: Record<string, string> = {};
  const extended: Record<string, string[]> = {};
  if (withTrailers) {
    for (const [key, value] of c.trailers) {
      trailers[key] = value;
      (extended[key] ??= []).push(value);
    }
  }
  const title = c.message.split('\n', 1)[0] ?? '';
  return {
    id: c.id,
    short_id: c.id.slice(0, 8),
    created_at: withMillis(c.committedDate),
    parent_ids: c.parentIds,
    title,
    message: c.message,
    author_name: c.authorName,
    author_email: c.authorEmail,
    authored_date: withMillis(c.authoredDate),
    committer_name: c.committerName,
    committer_email: c.committerEmail,
    committed_date: withMillis(c.committedDate),
    trailers,
    extended_trailers: extended,
    web_url: `${links.projectUrl}/-/commit/${c.id}`,
  };
}

/** GitLab's CommitDetail (`stats` left out when the caller passed `stats=false`). */
export function presentCommitDetail(
  c: CommitInfo,
  links: ProjectLinks,
  stats: { readonly additions: number; readonly deletions: number } | null,
): CommitDetail {
  return {
    ...presentCommit(c, links),
    ...(stats ? { stats: { additions: stats.additions, deletions: stats.deletions, total: stats.additions + stats.deletions } } : {}),
    status: null,
    project_id: links.projectId,
    last_pipeline: null,
  };
}

/** GitLab's Diff. */
export function presentDiff(d: FileDiff): Diff {
  return {
    diff: d.diff,
    collapsed: false,
    too_large: d.tooLarge,
    new_path: d.newPath,
    old_path: d.oldPath,
    a_mode: d.aMode,
    b_mode: d.bMode,
    new_file: d.newFile,
    renamed_file: d.renamedFile,
    deleted_file: d.deletedFile,
    generated_file: false,
  };
}

/** What a branch entry needs besides its commit. */
export interface BranchFacts {
  readonly name: string;
  readonly commit: CommitInfo;
  readonly merged: boolean;
  readonly isDefault: boolean;
  readonly canPush: boolean;
}

/** GitLab's Branch; no branch is protected here (pushes are checked by project role only). */
export function presentBranch(b: BranchFacts, links: ProjectLinks): Branch {
  return {
    name: b.name,
    commit: presentCommit(b.commit, links),
    merged: b.merged,
    protected: false,
    developers_can_push: false,
    developers_can_merge: false,
    can_push: b.canPush,
    default: b.isDefault,
    web_url: `${links.projectUrl}/-/tree/${encodeURI(b.name)}`,
  };
}

/** GitLab's Tag. */
export function presentTag(t: TagRef, commit: CommitInfo, links: ProjectLinks): Tag {
  return {
    name: t.name,
    message: t.message,
    target: t.target,
    commit: presentCommit(commit, links),
    release: null,
    protected: false,
    created_at: t.createdAt && withMillis(t.createdAt),
  };
}

/** GitLab's Compare. */
export function presentCompare(
  compare: {
    readonly commits: readonly CommitInfo[];
    readonly diffs: readonly FileDiff[];
    readonly same: boolean;
    readonly from: string;
    readonly to: string;
  },
  links: ProjectLinks,
): Compare {
  const commits = compare.commits.map((c) => presentCommit(c, links));
  return {
    commit: commits[commits.length - 1] ?? null,
    commits,
    diffs: compare.diffs.map(presentDiff),
    compare_timeout: false,
    compare_same_ref: compare.same,
    web_url: `${links.projectUrl}/-/compare/${compare.from}...${compare.to}`,
  };
}
