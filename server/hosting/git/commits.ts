/**
 * Reading history: a branch's head, commits of a range (push hooks), git log parsed. Reads of a
 * repository's contents (trees, files, commits) belong next to these.
 */
import path from 'node:path';
import { AppError, notFound } from '../../http/errors.js';
import { assertBranchName, assertRevision, isObjectId, isZeroId } from './git-names.js';
import { failure, git, QUICK_MS } from './repository-command.js';
import { GitCommandError, runGit, type GitRunOptions } from './run-git.js';
import { readNulFields } from './nul-fields.js';

/** The last commit of `branch`, or null when the branch does not exist. */
export async function headCommit(dir: string, branch: string, run: GitRunOptions = {}): Promise<string | null> {
  assertBranchName(branch);
  try {
    const out = await runGit(
      ['--git-dir=' + path.resolve(dir), 'rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`],
      run,
      { timeoutMs: QUICK_MS },
    );
    return out.stdout.toString('utf8').trim() || null;
  } catch (e) {
    // --verify --quiet exits 1, silently, when the branch does not exist.
    if (e instanceof GitCommandError && e.exitCode === 1) return null;
    throw failure(e, 'The branch could not be read', [path.resolve(dir)]);
  }
}

/** One commit as GitLab's push hook payload shows it. */
export interface CommitSummary {
  readonly id: string;
  /** The whole message, as stored. */
  readonly message: string;
  /** Its first line. */
  readonly title: string;
  /** Author date, ISO 8601 with the author's offset (GitLab's `timestamp`). */
  readonly timestamp: string;
  readonly author: { readonly name: string; readonly email: string };
  /** Paths added, modified and removed against the first parent (a rename is a removal and an addition, as in GitLab). */
  readonly added: readonly string[];
  readonly modified: readonly string[];
  readonly removed: readonly string[];
}

/** The newest `limit` commits reachable from `ref` (best a full ref name or SHA: a bare name may match a tag first), oldest first. */
export async function recentCommits(dir: string, ref: string, limit: number, run: GitRunOptions = {}): Promise<CommitSummary[]> {
  assertRevision(ref);
  return logCommits(path.resolve(dir), [ref], limit, run);
}

/**
 * The newest `limit` commits in `before..after`, oldest first: what a push from `before` to `after`
 * brought. A zero `before` (a new ref) means everything reachable from `after`; pass another branch's
 * head instead to leave out what that branch already had (GitLab does so with the default branch).
 * A zero `after` (a deletion) brought nothing.
 */
export async function commitsBetween(
  dir: string,
  before: string,
  after: string,
  limit: number,
  run: GitRunOptions = {},
): Promise<CommitSummary[]> {
  assertObjectIds(before, after);
  if (isZeroId(after)) return [];
  return logCommits(path.resolve(dir), isZeroId(before) ? [after] : [after, `^${before}`], limit, run);
}

/** How many commits `before..after` holds (GitLab's `total_commits_count`, which is not limited). */
export async function countCommitsBetween(dir: string, before: string, after: string, run: GitRunOptions = {}): Promise<number> {
  assertObjectIds(before, after);
  if (isZeroId(after)) return 0;
  const revs = isZeroId(before) ? [after] : [after, `^${before}`];
  const out = await git(
    path.resolve(dir),
    ['rev-list', '--count', '--end-of-options', ...revs, '--'],
    run,
    'The commits could not be counted',
  );
  return Number(out.stdout.toString('utf8').trim()) || 0;
}

function assertObjectIds(...ids: string[]): void {
  for (const id of ids)
    if (!isObjectId(id)) throw new AppError('invalid', `"${id}" is not a full commit SHA`, { code: 'invalid_revision' });
}

/** The fields of one commit record, each ended by NUL; the record starts with a 0x1e marker. */
const LOG_FORMAT = '%x1e%H%x00%an%x00%ae%x00%aI%x00%B';

async function logCommits(dir: string, revs: readonly string[], limit: number, run: GitRunOptions): Promise<CommitSummary[]> {
  if (!Number.isInteger(limit) || limit < 1) return [];
  let out;
  try {
    out = await runGit(
      [
        '--git-dir=' + dir,
        '-c',
        'log.showSignature=false',
        'log',
        `--max-count=${limit}`,
        '--reverse',
        '-z',
        '--no-renames',
        '--name-status',
        '--diff-merges=first-parent',
        '--no-color',
        `--format=${LOG_FORMAT}`,
        '--end-of-options',
        ...revs,
        '--',
      ],
      run,
      { timeoutMs: QUICK_MS },
    );
  } catch (e) {
    if (e instanceof GitCommandError && /unknown revision|bad revision|bad object|ambiguous argument/.test(e.stderr))
      throw notFound('Commit');
    throw failure(e, 'The commits could not be read', [dir]);
  }
  return parseLog(out.stdout.toString('utf8'));
}

/**
 * Parse `git log -z --name-status` output in LOG_FORMAT (the commit fields, then status and path pairs).
 */
export function parseLog(text: string): CommitSummary[] {
  const commits: CommitSummary[] = [];
  const fields = readNulFields(text, false);
  while (!fields.done) {
    if (fields.peek() !== '\x1e') throw new Error('unexpected git log output');
    fields.skip();
    const id = fields.next();
    const name = fields.next();
    const email = fields.next();
    const timestamp = fields.next();
    const message = fields.next();
    const added: string[] = [];
    const modified: string[] = [];
    const removed: string[] = [];
    if (fields.peek() === '\n') fields.skip(); // the line break between the header and the file list
    while (!fields.done && fields.peek() !== '\x1e') {
      const status = fields.next();
      const file = fields.next();
      if (status.startsWith('A')) added.push(file);
      else if (status.startsWith('D')) removed.push(file);
      else modified.push(file); // M, T (type change) and anything else git may add
    }
    commits.push({ id, message, title: message.split('\n', 1)[0] ?? '', timestamp, author: { name, email }, added, modified, removed });
  }
  return commits;
}
