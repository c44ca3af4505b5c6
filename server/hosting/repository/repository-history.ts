import { AppError, notFound } from '../../http/errors.js';
import type { ProjectRecord } from '../../store/schema.js';
import * as commits from '../git/history.js';
import type { CommitInfo, CommitQuery, Contributor, FileDiff } from '../git/history.js';
import { assertRevision, isValidBranchName } from '../git/git-names.js';
import * as refs from '../git/refs.js';
import type { BranchRef, TagRef } from '../git/refs.js';
import type { GitRunOptions } from '../git/run-git.js';
import type { Viewer } from '../projects/project-access.js';
import type { ProjectService } from '../projects/projects.js';
import type { BranchFacts } from './present-repository.js';

/** A listing of commits: which, and which page. */
export interface CommitListing {
  readonly refName?: string;
  readonly all?: boolean;
  readonly path?: string;
  readonly since?: string;
  readonly until?: string;
  readonly firstParent?: boolean;
  readonly order?: 'default' | 'topo';
}

/** What a comparison found. */
export interface Comparison {
  readonly commits: readonly CommitInfo[];
  readonly diffs: readonly FileDiff[];
  readonly same: boolean;
}

/**
 * Reading a project's history through the git layer: commits, diffs, branches, tags, comparisons
 * and contributors. Callers have checked that the viewer may read the project; revisions and paths
 * are validated here before they reach git.
 */
export class RepositoryHistory {
  private readonly run: GitRunOptions;

  constructor(
    private readonly projects: ProjectService,
    gitPath: string,
  ) {
    this.run = { gitPath };
  }

  /** One page of commits and how many the listing holds in all. */
  async listCommits(
    project: Readonly<ProjectRecord>,
    listing: CommitListing,
    window: { readonly offset: number; readonly limit: number },
  ): Promise<{ readonly items: readonly CommitInfo[]; readonly total: number }> {
    const query = this.queryOf(project, listing);
    const dir = this.dir(project);
    const [items, total] = await Promise.all([
      commits.listCommits(dir, query, window, this.run),
      commits.countCommits(dir, query, this.run),
    ]);
    return { items, total };
  }

  /** A commit by SHA, branch or tag; `404 Commit Not Found` when there is none. */
  async getCommit(project: Readonly<ProjectRecord>, rev: string): Promise<CommitInfo> {
    const commit = validRevision(rev) ? await commits.findCommit(this.dir(project), rev, this.run) : undefined;
    if (!commit) throw notFound('Commit');
    return commit;
  }

  /** Lines added and removed by a commit against its first parent. */
  async commitStats(
    project: Readonly<ProjectRecord>,
    commit: CommitInfo,
  ): Promise<{ readonly additions: number; readonly deletions: number }> {
    return commits.diffStats(this.dir(project), commit.parentIds[0] ?? null, commit.id, this.run);
  }

  /** A commit's file diffs against its first parent. */
  async commitDiff(project: Readonly<ProjectRecord>, rev: string): Promise<FileDiff[]> {
    const commit = await this.getCommit(project, rev);
    return commits.diffTrees(this.dir(project), commit.parentIds[0] ?? null, commit.id, this.run);
  }

  /** Every branch with its commit, whether it is merged into the default branch, and whether the viewer may push to it. */
  async listBranches(viewer: Viewer, project: Readonly<ProjectRecord>, search?: string): Promise<BranchFacts[]> {
    const dir = this.dir(project);
    const all = (await refs.listBranches(dir, this.run)).filter((b) => matchesSearch(b.name, search));
    return this.branchFacts(viewer, project, all);
  }

  /** One branch; `404 Branch Not Found` when it does not exist. */
  async getBranch(viewer: Viewer, project: Readonly<ProjectRecord>, name: string): Promise<BranchFacts> {
    const found = isValidBranchName(name) ? (await refs.listBranches(this.dir(project), this.run)).find((b) => b.name === name) : undefined;
    if (!found) throw notFound('Branch');
    return (await this.branchFacts(viewer, project, [found]))[0]!;
  }

  /** Tags with their commits, ordered as GitLab's `order_by` (`updated`: the commit's date, `name`, `version`) and `sort`. */
  async listTags(
    project: Readonly<ProjectRecord>,
    options: { readonly search?: string; readonly orderBy?: 'name' | 'updated' | 'version'; readonly sort?: 'asc' | 'desc' },
  ): Promise<{ tag: TagRef; commit: CommitInfo }[]> {
    const dir = this.dir(project);
    const tags = (await refs.listTags(dir, this.run)).filter((t) => matchesSearch(t.name, options.search));
    const byId = await commits.commitsById(
      dir,
      tags.map((t) => t.commitId),
      this.run,
    );
    const items = tags.flatMap((tag) => {
      const commit = byId.get(tag.commitId);
      return commit ? [{ tag, commit }] : [];
    });
    const orderBy = options.orderBy ?? 'updated';
    const collator = new Intl.Collator('en', { numeric: orderBy === 'version' });
    items.sort((a, b) =>
      orderBy === 'updated'
        ? Date.parse(a.commit.committedDate) - Date.parse(b.commit.committedDate) || a.tag.name.localeCompare(b.tag.name)
        : collator.compare(a.tag.name, b.tag.name),
    );
    if ((options.sort ?? 'desc') === 'desc') items.reverse();
    return items;
  }

  /** One tag; `404 Tag Not Found` when it does not exist. */
  async getTag(project: Readonly<ProjectRecord>, name: string): Promise<{ tag: TagRef; commit: CommitInfo }> {
    const found = isValidBranchName(name) ? (await this.listTags(project, {})).find((t) => t.tag.name === name) : undefined;
    if (!found) throw notFound('Tag');
    return found;
  }

  /** `from` against `to`: commits in `from..to` (oldest first) and the diff from their merge base (or from `from` itself when `straight`). */
  async compare(project: Readonly<ProjectRecord>, from: string, to: string, straight: boolean): Promise<Comparison> {
    const dir = this.dir(project);
    const [base, head] = await Promise.all([
      validRevision(from) ? commits.resolveCommit(dir, from, this.run) : null,
      validRevision(to) ? commits.resolveCommit(dir, to, this.run) : null,
    ]);
    if (!base || !head) throw notFound('Ref');
    const diffFrom = straight ? base : ((await commits.mergeBase(dir, base, head, this.run)) ?? null);
    const [list, diffs] = await Promise.all([
      commits.listCommits(dir, { revs: [head, `^${base}`], order: 'topo' }, { offset: 0, limit: 10_000 }, this.run),
      base === head ? Promise.resolve([]) : commits.diffTrees(dir, diffFrom, head, this.run),
    ]);
    return { commits: list.reverse(), diffs, same: base === head };
  }

  /** Authors of `ref` (the default branch when absent), ordered as GitLab's `order_by` and `sort` (default: commits, ascending). */
  async contributors(
    project: Readonly<ProjectRecord>,
    options: { readonly ref?: string; readonly orderBy?: 'name' | 'email' | 'commits'; readonly sort?: 'asc' | 'desc' },
  ): Promise<Contributor[]> {
    const ref = options.ref ?? `refs/heads/${project.defaultBranch}`;
    if (!validRevision(ref) && !ref.startsWith('refs/heads/')) throw notFound('Ref');
    const found = await commits.contributors(this.dir(project), ref, this.run);
    const orderBy = options.orderBy ?? 'commits';
    found.sort((a, b) => (orderBy === 'commits' ? a.commits - b.commits : a[orderBy].localeCompare(b[orderBy])));
    if (options.sort === 'desc') found.reverse();
    return found;
  }

  private async branchFacts(viewer: Viewer, project: Readonly<ProjectRecord>, branches: readonly BranchRef[]): Promise<BranchFacts[]> {
    const dir = this.dir(project);
    const defaultBranch = (await refs.listBranches(dir, this.run)).find((b) => b.name === project.defaultBranch);
    const [byId, merged] = await Promise.all([
      commits.commitsById(
        dir,
        branches.map((b) => b.commitId),
        this.run,
      ),
      defaultBranch ? refs.branchesMergedInto(dir, defaultBranch.commitId, this.run) : Promise.resolve(new Set<string>()),
    ]);
    const canPush = viewer.canPush(project);
    return branches.flatMap((b) => {
      const commit = byId.get(b.commitId);
      // GitLab's merged_to_root_ref?: reachable from the default branch's head, and not that head itself.
      return commit
        ? [
            {
              name: b.name,
              commit,
              merged: merged.has(b.name) && b.commitId !== defaultBranch?.commitId,
              isDefault: b.name === project.defaultBranch,
              canPush,
            },
          ]
        : [];
    });
  }

  private queryOf(project: Readonly<ProjectRecord>, listing: CommitListing): CommitQuery {
    let revs: readonly string[] | 'all';
    if (listing.all) revs = 'all';
    else {
      const ref = listing.refName ?? project.defaultBranch;
      const range = /^(.*?)(\.{2,3})(.*)$/.exec(ref);
      if (range) {
        const [, a = '', dots = '..', b = ''] = range;
        if (!validRevision(a || 'HEAD') || !validRevision(b || 'HEAD')) throw invalidRef(ref);
        revs = [`${a || 'HEAD'}${dots}${b || 'HEAD'}`];
      } else {
        if (!validRevision(ref)) throw invalidRef(ref);
        revs = [ref];
      }
    }
    const file = listing.path?.replace(/\/+$/, '');
    if (file) assertPath(file);
    return {
      revs,
      path: file || undefined,
      since: listing.since,
      until: listing.until,
      firstParent: listing.firstParent,
      order: listing.order,
    };
  }

  private dir(project: Readonly<ProjectRecord>): string {
    return this.projects.repositoryOf(project);
  }
}

/** GitLab's branch and tag `search`: a substring, `^prefix` or `suffix$`, case-insensitive. */
function matchesSearch(name: string, search: string | undefined): boolean {
  if (!search) return true;
  const lower = name.toLowerCase();
  let term = search.toLowerCase();
  const start = term.startsWith('^');
  const end = term.endsWith('$');
  term = term.slice(start ? 1 : 0, end ? -1 : undefined);
  if (start && end) return lower === term;
  if (start) return lower.startsWith(term);
  if (end) return lower.endsWith(term);
  return lower.includes(term);
}

function validRevision(rev: string): boolean {
  try {
    assertRevision(rev);
    return true;
  } catch {
    return /^[0-9a-f]{4,39}$/.test(rev);
  }
}

function invalidRef(ref: string): AppError {
  return new AppError('invalid', `ref_name is invalid`, {
    issues: [{ loc: ['ref_name'], msg: 'is invalid', type: 'invalid', input: ref }],
  });
}

/**
 * A repository path as the API accepts it: relative, `/`-separated, no empty, `.` or `..` segment,
 * no NUL. Grape's file_path validator answers 400 `file_path should be a valid file path`.
 */
export function assertPath(file: string, param = 'path'): void {
  const segments = file.split('/');
  const bad =
    file === '' ||
    file.includes('\0') ||
    file.startsWith('/') ||
    segments.some((s) => s === '' || s === '.' || s === '..') ||
    segments.some((s) => s.toLowerCase() === '.git');
  if (bad)
    throw new AppError('invalid', `${param} should be a valid file path`, {
      issues: [{ loc: [param], msg: 'should be a valid file path', type: 'invalid', input: file }],
    });
}
