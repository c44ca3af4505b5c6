/**
 * What every repository operation of git/ shares: running git on one repository (`--git-dir`, never
 * discovery; a timeout; an optional stdin; failures as AppErrors that name no server paths), a
 * child's output as a stream, the refs plumbing several operations need, and the checks on target
 * folders.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { PassThrough, type Readable } from 'node:stream';
import {
  childEnvironment,
  GitCommandError,
  lastLine,
  runGit,
  startTracked,
  type GitCallSpec,
  type GitOutput,
  type GitRunOptions,
} from './run-git.js';

/** Default limit of quick reads and config edits. */
export const QUICK_MS = 30_000;

/** Default limit of the operations that copy or rewrite a repository. */
export const LONG_MS = 60 * 60_000;

/** Run git in a repository, turning failures into AppErrors that say `sentence`. */
export async function git(
  dir: string,
  args: readonly string[],
  run: GitRunOptions,
  sentence: string,
  otherPaths: readonly string[] = [],
  spec: GitCallSpec = {},
): Promise<GitOutput> {
  try {
    return await runGit(['--git-dir=' + dir, ...args], run, { timeoutMs: QUICK_MS, ...spec });
  } catch (e) {
    throw failure(e, sentence, [dir, ...otherPaths]);
  }
}

/**
 * `git --git-dir=<dir> …args` with an optional stdin: a failure becomes an AppError saying
 * `sentence`, unless `raw` (for callers that read git's exit codes and messages themselves).
 */
export async function gitIn(
  dir: string,
  args: readonly string[],
  run: GitRunOptions,
  sentence: string,
  spec: GitCallSpec & { readonly input?: Buffer | string; readonly raw?: boolean } = {},
): Promise<GitOutput> {
  const target = path.resolve(dir);
  const full = ['--git-dir=' + target, ...args];
  try {
    if (spec.input === undefined) return await runGit(full, run, { timeoutMs: QUICK_MS, ...spec });
    return await runWithInput(full, spec.input, run, spec);
  } catch (e) {
    if (spec.raw) throw e;
    throw failure(e, sentence, [target]);
  }
}

/** runGit with bytes written to the child's stdin. */
async function runWithInput(args: readonly string[], input: Buffer | string, run: GitRunOptions, spec: GitCallSpec): Promise<GitOutput> {
  const tracked = startTracked(run.gitPath ?? 'git', args, run, childEnvironment(spec.env), spec.timeoutMs ?? QUICK_MS);
  const { child } = tracked;
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
  });
  child.stdin.end(input);
  const code = await tracked.exited;
  if (code !== 0) throw new GitCommandError(`git ${args.find((a) => !a.startsWith('-')) ?? ''}`.trim(), code, stderr);
  return { stdout: Buffer.concat(chunks), stderr };
}

/**
 * A child's stdout as a stream (git cat-file, git archive, tar): a non-zero exit destroys the stream
 * with `failed(code, stderr)`; destroying the stream stops the child. `timeoutMs` null: no limit (how
 * long it streams is up to the client reading it).
 */
export function streamOutput(
  command: string,
  args: readonly string[],
  run: Omit<GitRunOptions, 'gitPath'>,
  timeoutMs: number | null,
  failed: (code: number | null, stderr: string) => Error,
): Readable {
  const tracked = startTracked(command, args, run, childEnvironment(), timeoutMs);
  const { child } = tracked;
  child.stdin.end();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 16_000) stderr += chunk.toString('utf8');
  });
  const out = new PassThrough();
  child.stdout.pipe(out, { end: false });
  out.on('close', () => tracked.kill());
  tracked.exited.then(
    (code) => {
      if (code === 0) out.end();
      else out.destroy(failed(code, stderr));
    },
    (e: unknown) => out.destroy(e instanceof Error ? e : new Error(String(e))),
  );
  return out;
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
