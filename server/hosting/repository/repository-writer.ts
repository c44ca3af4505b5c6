import { AppError, notFound } from '../../http/errors.js';
import type { ProjectRecord, UserRecord } from '../../store/schema.js';
import * as commits from '../git/history.js';
import type { CommitInfo } from '../git/history.js';
import { isValidBranchName, ZERO_SHA } from '../git/git-names.js';
import * as refs from '../git/refs.js';
import type { GitRunOptions } from '../git/run-git.js';
import { commitRefusal, writeCommit, type FileAction } from '../git/write-commit.js';
import { formatLfsPointer, parseLfsPointer, type LfsPointer } from '../lfs/lfs-pointer.js';
import type { Viewer } from '../projects/project-access.js';
import type { ProjectService } from '../projects/projects.js';
import { assertPath } from './repository-history.js';

/** One ref a write moved, as a push reports it (zero `before`: created; zero `after`: deleted). */
export interface RefChange {
  readonly ref: string;
  readonly before: string;
  readonly after: string;
}

/** What a push triggers (activity, emptiness, default branch, hooks): the same for git pushes and API writes. */
export type AfterPush = (project: Readonly<ProjectRecord>, user: Readonly<UserRecord>, changes: readonly RefChange[]) => Promise<void>;

/**
 * Git LFS for API commits: which paths a commit's `.gitattributes` track with `filter=lfs`, and the
 * store that keeps their content as the project's objects (as git-lfs does on the client).
 */
export interface CommitLfs {
  trackedPaths(dir: string, commit: string, paths: readonly string[]): Promise<ReadonlySet<string>>;
  store(project: Readonly<ProjectRecord>, content: Buffer): Promise<{ readonly oid: string; readonly size: number }>;
  /** Whether the project links the object a pointer names, with that size (its bytes are on the server). */
  holds(project: Readonly<ProjectRecord>, pointer: LfsPointer): Promise<boolean>;
}

/** An action as the API sent it, with a `last_commit_id` to check against the start branch. */
export type ActionInput = FileAction & { readonly lastCommitId?: string };

/** A commit request: GitLab's `POST /repository/commits` parameters. */
export interface CommitInput {
  readonly branch: string;
  readonly startBranch?: string;
  readonly startSha?: string;
  readonly message: string;
  readonly actions: readonly ActionInput[];
  readonly authorName?: string;
  readonly authorEmail?: string;
  /** The refusal when a `last_commit_id` no longer matches (the files API words it its own way). */
  readonly changedMessage?: (action: ActionInput) => string;
}

/**
 * Writes to a project's repository through the API: commits of file actions, branches and tags.
 * Each write checks the caller may push (403 otherwise, archived projects included), moves one ref
 * with compare-and-swap, and then runs the same after-push steps a git push runs.
 */
export class RepositoryWriter {
  private readonly run: GitRunOptions;

  constructor(
    private readonly projects: ProjectService,
    gitPath: string,
    private readonly afterPush: AfterPush,
    private readonly lfs: CommitLfs | null = null,
  ) {
    this.run = { gitPath };
  }

  /** Commit `input.actions` as one commit on `input.branch`; returns the new commit. */
  async commit(viewer: Viewer, project: Readonly<ProjectRecord>, input: CommitInput): Promise<CommitInfo> {
    const user = this.assertCanWrite(viewer, project);
    if (!isValidBranchName(input.branch)) throw commitRefusal('Branch name is invalid');
    for (const a of input.actions) {
      assertPath(a.filePath, 'file_path');
      if (a.action === 'move') assertPath(a.previousPath, 'previous_path');
    }
    const dir = this.dir(project);
    const target = await refs.listBranches(dir, this.run);
    const empty = target.length === 0;
    const current = target.find((b) => b.name === input.branch);
    let parent: string | null;
    if (input.startSha) {
      parent = /^[0-9a-f]{4,64}$/.test(input.startSha) ? await commits.resolveCommit(dir, input.startSha, this.run) : null;
      if (!parent) throw commitRefusal(`Cannot find start_sha '${input.startSha}'`);
    } else {
      const startName = input.startBranch ?? input.branch;
      const start = target.find((b) => b.name === startName);
      if (!start && !empty) throw commitRefusal('You can only create or edit files when you are on a branch');
      parent = start?.commitId ?? null;
    }
    const newBranch = input.startSha !== undefined || (input.startBranch !== undefined && input.startBranch !== input.branch);
    if (newBranch && current && !empty)
      throw commitRefusal(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
    if (parent) {
      for (const action of input.actions) {
        if (!('lastCommitId' in action) || !action.lastCommitId) continue;
        const last = await commits.lastCommitForPath(
          dir,
          parent,
          action.action === 'move' ? action.previousPath : action.filePath,
          this.run,
        );
        if (last !== action.lastCommitId)
          throw commitRefusal(input.changedMessage?.(action) ?? `The file has changed since you started editing it: ${action.filePath}`);
      }
    }
    const author = { name: input.authorName ?? user.name, email: input.authorEmail ?? user.email };
    const expected = current?.commitId ?? ZERO_SHA;
    const actions = parent ? await this.storeTrackedInLfs(project, dir, parent, input.actions) : input.actions;
    const sha = await writeCommit(
      dir,
      {
        parent,
        actions,
        message: input.message,
        author,
        committer: { name: user.name, email: user.email },
        when: new Date(),
        ref: `refs/heads/${input.branch}`,
        expected,
      },
      this.run,
    );
    await this.afterPush(project, user, [{ ref: `refs/heads/${input.branch}`, before: expected, after: sha }]);
    return (await commits.findCommit(dir, sha, this.run))!;
  }

  /** Create a branch at `ref` (a branch, tag or SHA). */
  async createBranch(viewer: Viewer, project: Readonly<ProjectRecord>, name: string, ref: string): Promise<void> {
    const user = this.assertCanWrite(viewer, project);
    if (!isValidBranchName(name)) throw commitRefusal('Branch name is invalid');
    const dir = this.dir(project);
    const commit = isValidBranchName(ref) || /^[0-9a-f]{4,64}$/.test(ref) ? await commits.resolveCommit(dir, ref, this.run) : null;
    if ((await refs.listBranches(dir, this.run)).some((b) => b.name === name)) throw commitRefusal('Branch already exists');
    if (!commit) throw commitRefusal(`Invalid reference name: ${ref}`);
    try {
      await refs.createBranch(dir, name, commit, this.run);
    } catch (e) {
      if (e instanceof AppError && e.kind === 'conflict') throw commitRefusal('Branch already exists');
      throw e;
    }
    await this.afterPush(project, user, [{ ref: `refs/heads/${name}`, before: ZERO_SHA, after: commit }]);
  }

  /** Delete a branch; never the default branch (405, as GitLab). */
  async deleteBranch(viewer: Viewer, project: Readonly<ProjectRecord>, name: string): Promise<void> {
    const user = this.assertCanWrite(viewer, project);
    const dir = this.dir(project);
    const found = isValidBranchName(name) ? (await refs.listBranches(dir, this.run)).find((b) => b.name === name) : undefined;
    if (!found) throw notFound('Branch');
    if (name === project.defaultBranch)
      throw new AppError('forbidden', 'The default branch of a project cannot be deleted.', { code: 'method_not_allowed' });
    await refs.deleteBranch(dir, name, found.commitId, this.run);
    await this.afterPush(project, user, [{ ref: `refs/heads/${name}`, before: found.commitId, after: ZERO_SHA }]);
  }

  /** Create a tag at `ref`, annotated when `message` is given (the caller is the tagger). */
  async createTag(viewer: Viewer, project: Readonly<ProjectRecord>, name: string, ref: string, message: string | undefined): Promise<void> {
    const user = this.assertCanWrite(viewer, project);
    if (!isValidBranchName(name)) throw commitRefusal('Tag name invalid');
    const dir = this.dir(project);
    if ((await refs.listTags(dir, this.run)).some((t) => t.name === name)) throw commitRefusal(`Tag ${name} already exists`);
    const commit = isValidBranchName(ref) || /^[0-9a-f]{4,64}$/.test(ref) ? await commits.resolveCommit(dir, ref, this.run) : null;
    if (!commit) throw commitRefusal(`Target ${ref} is invalid`);
    const text = message?.trim();
    try {
      await refs.createTag(
        dir,
        name,
        commit,
        text ? { message: text, tagger: { name: user.name, email: user.email, when: new Date() } } : null,
        this.run,
      );
    } catch (e) {
      if (e instanceof AppError && e.kind === 'conflict') throw commitRefusal(`Tag ${name} already exists`);
      throw e;
    }
    const created = (await refs.listTags(dir, this.run)).find((t) => t.name === name);
    await this.afterPush(project, user, [{ ref: `refs/tags/${name}`, before: ZERO_SHA, after: created?.target ?? commit }]);
  }

  /**
   * Content for paths the start commit's `.gitattributes` track with `filter=lfs` goes to the
   * project's LFS objects, and the commit holds pointer files, as a push from git-lfs would. A
   * pointer to an object the project holds (a client that uploaded through the batch API first) is
   * committed as it is; any other content, a pointer to an object the project lacks included, is
   * stored (as GitLab's `Lfs::FileTransformer` does), so no tracked path ever points nowhere.
   */
  private async storeTrackedInLfs(
    project: Readonly<ProjectRecord>,
    dir: string,
    parent: string,
    actions: readonly ActionInput[],
  ): Promise<readonly ActionInput[]> {
    const lfs = this.lfs;
    if (!lfs || !project.settings.lfs_enabled) return actions;
    const withContent = actions.filter((a) => 'content' in a && a.content !== undefined);
    if (withContent.length === 0) return actions;
    const tracked = await lfs.trackedPaths(dir, parent, [...new Set(withContent.map((a) => a.filePath))]);
    if (tracked.size === 0) return actions;
    const out: ActionInput[] = [];
    for (const action of actions) {
      if (withContent.includes(action) && tracked.has(action.filePath) && 'content' in action && action.content) {
        const pointer = parseLfsPointer(action.content);
        if (pointer && (await lfs.holds(project, pointer))) {
          out.push(action);
          continue;
        }
        const object = await lfs.store(project, action.content);
        out.push({ ...action, content: formatLfsPointer(object) });
      } else out.push(action);
    }
    return out;
  }

  /** The caller must be able to push: a developer or more, and the project not archived (403 as GitLab). */
  private assertCanWrite(viewer: Viewer, project: Readonly<ProjectRecord>): Readonly<UserRecord> {
    const user = viewer.user;
    if (!user) throw new AppError('unauthorized', 'Unauthorized');
    if (!viewer.canPush(project)) throw new AppError('forbidden', 'Forbidden');
    if (project.importStatus === 'scheduled' || project.importStatus === 'started')
      throw new AppError('unavailable', 'The repository is being imported; try again shortly.', { retryAfter: 5 });
    return user;
  }

  private dir(project: Readonly<ProjectRecord>): string {
    return this.projects.repositoryOf(project);
  }
}
