/**
 * What every repository operation of git/ shares: running git on one repository (`--git-dir`, never
 * discovery; a timeout; failures as AppErrors that name no server paths), the refs plumbing several
 * operations need, and the checks on target folders.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { GitCommandError, lastLine, runGit, type GitRunOptions } from './run-git.js';

/** Default limit of quick reads and config edits. */
export const QUICK_MS = 30_000;

/** Default limit of the operations that copy or rewrite a repository. */
export const LONG_MS = 60 * 60_000;

/** Run git in a repository, turning failures into AppErrors that say `sentence`. */
export async function git(dir: string, args: readonly string[], run: GitRunOptions, sentence: string, otherPaths: readonly string[] = []) {
  try {
    return await runGit(['--git-dir=' + dir, ...args], run, { timeoutMs: QUICK_MS });
  } catch (e) {
    throw failure(e, sentence, [dir, ...otherPaths]);
  }
}

/** http-backend serves receive-pack only when the repository allows it (or a user is named). */
export async function acceptHttpPushes(target: string, run: GitRunOptions): Promise<void> {
  await runGit(['--git-dir=' + target, 'config', 'http.receivepack', 'true'], run, { timeoutMs: QUICK_MS });
}

/** The full ref HEAD points to, or null when HEAD is detached. */
export async function symbolicHead(dir: string, run: GitRunOptions): Promise<string | null> {
  try {
    const out = await runGit(['--git-dir=' + dir, 'symbolic-ref', '--quiet', 'HEAD'], run, { timeoutMs: QUICK_MS });
    return out.stdout.toString('utf8').trim() || null;
  } catch (e) {
    if (e instanceof GitCommandError && e.exitCode === 1) return null;
    throw failure(e, 'The repository could not be read', [dir]);
  }
}

/** Point HEAD at a full ref name. */
export async function setHeadRef(dir: string, ref: string, run: GitRunOptions): Promise<void> {
  await git(dir, ['symbolic-ref', 'HEAD', ref], run, 'The default branch could not be set');
}

/** True when anything is at `p`. */
export async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/** A target must not exist (or be an empty directory): nothing of another repository is overwritten. */
export async function assertAbsent(target: string): Promise<void> {
  try {
    const entries = await readdir(target);
    if (entries.length > 0) throw new AppError('conflict', 'A repository already exists at that path', { code: 'repository_exists' });
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR')
      throw new AppError('conflict', 'A file already exists where the repository should go', { code: 'repository_exists' });
    if (code !== 'ENOENT') throw e;
  }
}

/** The resolved path of a repository folder; only paths ending in `.git` are accepted. */
export function assertRepositoryPath(dir: string): string {
  const target = path.resolve(dir);
  // A guard against a wrong argument deleting a data directory: repositories are `<path>.git`.
  if (!path.basename(target).endsWith('.git') || path.basename(target) === '.git')
    throw new AppError('invalid', 'Only repository directories (ending in .git) can be removed');
  return target;
}

/** Turn a git failure into an AppError saying `sentence` and git's own reason, without server paths. */
export function failure(e: unknown, sentence: string, paths: readonly string[]): unknown {
  if (e instanceof AppError) return e;
  if (!(e instanceof GitCommandError)) return e;
  if (/not a git repository|does not appear to be a git repository/i.test(e.stderr) && !/bundle/i.test(e.stderr))
    return new AppError('not-found', 'Repository Not Found', { cause: e });
  const reason = scrubPaths(lastLine(e.stderr).replace(/^(fatal|error): /, ''), paths);
  return new AppError('unavailable', reason ? `${sentence}: ${reason}` : sentence, { cause: e });
}

/** `text` with each of `paths` cut to its last segment: messages go back to clients, server paths must not. */
export function scrubPaths(text: string, paths: readonly string[]): string {
  let out = text;
  for (const p of [...paths].sort((a, b) => b.length - a.length)) out = out.split(p).join(path.basename(p));
  return out;
}
