/**
 * One git call inside one bare repository, for the history and commit-writing modules: `--git-dir`
 * (never discovery), an optional stdin, the quick default timeout, and failures turned into
 * AppErrors that name no server paths.
 */
import path from 'node:path';
import { AppError } from '../../http/errors.js';
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

const QUICK_MS = 30_000;

/** Run `git --git-dir=<dir> …args`; a failure becomes an AppError saying `sentence` (unless `raw`, for callers that read exit codes). */
export async function gitIn(
  dir: string,
  args: readonly string[],
  run: GitRunOptions,
  sentence: string,
  spec: GitCallSpec & { readonly input?: Buffer | string; readonly raw?: boolean } = {},
): Promise<GitOutput> {
  const full = ['--git-dir=' + path.resolve(dir), ...args];
  try {
    if (spec.input === undefined) return await runGit(full, run, { timeoutMs: QUICK_MS, ...spec });
    return await runWithInput(full, spec.input, run, spec);
  } catch (e) {
    if (spec.raw) throw e;
    throw gitFailure(e, sentence, dir);
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

/** A git failure as an AppError: a missing repository is a 404, anything else says `sentence` and git's reason. */
export function gitFailure(e: unknown, sentence: string, dir: string): unknown {
  if (e instanceof AppError || !(e instanceof GitCommandError)) return e;
  if (/not a git repository|does not appear to be a git repository/i.test(e.stderr))
    return new AppError('not-found', 'Repository Not Found', { cause: e });
  const target = path.resolve(dir);
  const reason = lastLine(e.stderr)
    .replace(/^(fatal|error): /, '')
    .split(target)
    .join(path.basename(target));
  return new AppError('unavailable', reason ? `${sentence}: ${reason}` : sentence, { cause: e });
}
