/**
 * Operations on bare repositories through the system git: the only code (with smart-http.ts) that
 * touches repositories on disk. Every git call gets an argument array (never a shell), `--git-dir`
 * (never discovery, which could wander up into a parent repository), a timeout and an optional
 * AbortSignal; failures become AppErrors whose messages name no server paths.
 *
 * This file holds a repository's life on disk (create, move, list, set aside, HEAD, housekeeping) and
 * is the git layer's one entry point: it re-exports the other parts, each a file of its own —
 * commits.ts (history reads), repository-stats.ts, repository-copies.ts (fork, import, snapshot,
 * bundles) — over repository-command.ts (running git on a repository, refs plumbing, path checks).
 * A new kind of read (trees, files) gets its own file beside commits.ts and a line here.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError, notFound } from '../../http/errors.js';
import { assertBranchName } from './git-names.js';
import { layOutBareRepository } from './repository-template.js';
import { assertAbsent, assertRepositoryPath, exists, failure, git, LONG_MS } from './repository-command.js';
import { GitCommandError, runGit, type GitRunOptions } from './run-git.js';

export type { GitRunOptions } from './run-git.js';
export * from './commits.js';
export * from './repository-copies.js';
export * from './repository-stats.js';

/** Create an empty bare repository whose HEAD names `defaultBranch`, accepting pushes over HTTP. */
export async function initBare(dir: string, defaultBranch: string, run: GitRunOptions = {}): Promise<void> {
  assertBranchName(defaultBranch);
  const target = path.resolve(dir);
  await assertAbsent(target);
  await mkdir(path.dirname(target), { recursive: true });
  try {
    // What `git init --bare --template=` (no sample hooks, none from a system template directory)
    // makes, copied from a model git made once: no git process per repository.
    await layOutBareRepository(target, defaultBranch, run);
  } catch (e) {
    await rm(target, { recursive: true, force: true });
    throw failure(e, 'The repository could not be created', [target]);
  }
}

/** Delete a repository directory; a missing one is already removed. Only paths ending in `.git` are accepted. */
export async function removeRepository(dir: string): Promise<void> {
  const target = assertRepositoryPath(dir);
  await rm(target, { recursive: true, force: true, maxRetries: 3 });
}

/** Move a repository (a rename within the data dir), creating the target's parent directories. */
export async function moveRepository(from: string, to: string): Promise<void> {
  const source = path.resolve(from);
  const target = path.resolve(to);
  if (!(await exists(source))) throw notFound('Repository');
  await assertAbsent(target);
  await mkdir(path.dirname(target), { recursive: true });
  await rename(source, target);
}

/**
 * Every repository directory under `root`: folders named `*.git` (namespace folders are walked,
 * repositories are not entered). Absolute paths, sorted; a missing root has none.
 */
export async function listRepositories(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (entry.name.endsWith('.git')) found.push(full);
      else await walk(full);
    }
  };
  await walk(path.resolve(root));
  return found.sort();
}

/** True when something (a repository, or what is left of one) is at `dir`. */
export async function repositoryExists(dir: string): Promise<boolean> {
  return exists(path.resolve(dir));
}

/**
 * Move a repository that no project owns out of the way, never deleting it: to
 * `<into>/<stamp>/<its path under root>` (a numbered suffix if that is taken). Returns where it went.
 */
export async function moveAside(dir: string, root: string, into: string, stamp: string): Promise<string> {
  const source = assertRepositoryPath(dir);
  const relative = path.relative(path.resolve(root), source);
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${source} is not under ${root}`);
  let target = path.join(path.resolve(into), stamp, relative);
  for (let n = 2; await exists(target); n++) target = path.join(path.resolve(into), `${stamp}-${n}`, relative);
  await mkdir(path.dirname(target), { recursive: true });
  await rename(source, target);
  return target;
}

/** Point HEAD at `branch` (which may not exist yet: an empty repository's first push creates it). */
export async function setHead(dir: string, branch: string, run: GitRunOptions = {}): Promise<void> {
  assertBranchName(branch);
  await git(path.resolve(dir), ['symbolic-ref', 'HEAD', `refs/heads/${branch}`], run, 'The default branch could not be changed');
}

/** Repositories whose `git gc` this process is running; a second request finds its lease taken. */
const housekeepingRuns = new Set<string>();

/**
 * Run `git gc` on a repository, one at a time per repository: a call while another runs is a
 * `conflict`, as GitLab answers while its housekeeping lease is taken. (The set lives at module
 * level because it describes child processes of this process; git's own gc.pid lock covers other
 * processes, and its refusal is reported the same way.)
 */
export async function housekeeping(dir: string, run: GitRunOptions = {}): Promise<void> {
  const target = path.resolve(dir);
  if (housekeepingRuns.has(target)) throw leaseTaken();
  housekeepingRuns.add(target);
  try {
    await runGit(['--git-dir=' + target, 'gc', '--quiet'], run, { timeoutMs: LONG_MS });
  } catch (e) {
    if (e instanceof GitCommandError && /gc is already running|gc\.pid\.lock/.test(e.stderr)) throw leaseTaken();
    throw failure(e, 'Housekeeping failed', [target]);
  } finally {
    housekeepingRuns.delete(target);
  }
}

function leaseTaken(): AppError {
  return new AppError('conflict', 'Somebody already triggered housekeeping for this resource and it is still running', {
    code: 'housekeeping_running',
  });
}
