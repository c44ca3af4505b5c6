/**
 * The first commit of a new repository, written with git's plumbing (no work tree, no stdin): a
 * blob from a file, a tree from a private index, a commit, and the branch created only if it does
 * not exist yet. Used for GitLab's `initialize_with_readme`.
 */
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { assertBranchName } from './git-names.js';
import { GitCommandError, lastLine, runGit, type GitRunOptions } from './run-git.js';

/** One file of the first commit: a path at the top of the tree and its content. */
export interface InitialFile {
  readonly path: string;
  readonly content: string;
}

/** Who the commit is by (author and committer, as GitLab's commits made for a user). */
export interface CommitIdentity {
  readonly name: string;
  readonly email: string;
}

/** Commit `file` as the only content of `branch` in the bare repository `dir`, which must not have that branch yet. */
export async function commitInitialFile(
  dir: string,
  branch: string,
  file: InitialFile,
  message: string,
  by: CommitIdentity,
  run: GitRunOptions = {},
): Promise<string> {
  assertBranchName(branch);
  if (!/^[^/\\\0]+$/.test(file.path) || file.path === '.' || file.path === '..') throw new AppError('invalid', 'The file path is invalid');
  const target = path.resolve(dir);
  // Scratch files inside the repository folder: a staged repository is not visible to anyone yet.
  const scratch = path.join(target, `cratehouse-initial-${randomUUID()}`);
  const index = `${scratch}.index`;
  const env = {
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: by.name,
    GIT_AUTHOR_EMAIL: by.email,
    GIT_COMMITTER_NAME: by.name,
    GIT_COMMITTER_EMAIL: by.email,
  };
  const git = async (args: readonly string[]) =>
    (await runGit(['--git-dir=' + target, ...args], run, { env, timeoutMs: 30_000 })).stdout.toString('utf8').trim();
  try {
    await writeFile(scratch, file.content);
    const blob = await git(['hash-object', '-w', '--', scratch]);
    await git(['update-index', '--add', '--cacheinfo', `100644,${blob},${file.path}`]);
    const tree = await git(['write-tree']);
    const commit = await git(['commit-tree', tree, '-m', message]);
    // The all-zero old value: fail rather than overwrite a branch something else created meanwhile.
    await git(['update-ref', `refs/heads/${branch}`, commit, '0'.repeat(commit.length)]);
    return commit;
  } catch (e) {
    if (e instanceof GitCommandError)
      throw new AppError(
        'unavailable',
        `The first commit could not be written: ${lastLine(e.stderr)
          .replace(/^(fatal|error): /, '')
          .split(target)
          .join('')}`,
        { cause: e },
      );
    throw e;
  } finally {
    await rm(scratch, { force: true });
    await rm(index, { force: true });
  }
}
