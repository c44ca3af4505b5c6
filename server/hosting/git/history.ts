/**
 * Reading history from a bare repository: commits (with their trailers), counts, a commit's or a
 * range's file diffs and line stats, merge bases and contributors. Every revision reaches git after
 * `--end-of-options`, every path after `--`; callers validate names with git-names.ts first.
 */
import path from 'node:path';
import { failure, gitIn } from './repository-command.js';
import { GitCommandError, type GitRunOptions } from './run-git.js';
import { readNulFields } from './nul-fields.js';

/** One commit as the commits API shows it. */
export interface CommitInfo {
  readonly id: string;
  readonly parentIds: readonly string[];
  readonly authorName: string;
  readonly authorEmail: string;
  /** ISO 8601 with the author's offset. */
  readonly authoredDate: string;
  readonly committerName: string;
  readonly committerEmail: string;
  readonly committedDate: string;
  /** The whole message as stored. */
  readonly message: string;
  /** `Key: value` trailers, in order (a key may repeat). */
  readonly trailers: readonly (readonly [string, string])[];
}

/** Which commits a listing walks. */
export interface CommitQuery {
  /** Revisions to start from (a ref, a SHA, `a..b`); `all` walks every ref. */
  readonly revs: readonly string[] | 'all';
  readonly path?: string;
  /** ISO 8601 bounds (inclusive, as git's --since/--until). */
  readonly since?: string;
  readonly until?: string;
  readonly firstParent?: boolean;
  /** `topo` orders children before parents; the default is git's date order of the walk. */
  readonly order?: 'default' | 'topo';
}

const FORMAT =
  '%x1e%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%(trailers:unfold,separator=%x1f,key_value_separator=%x1d)%x00%B%x00';

/** `offset` commits skipped, then at most `limit`; unknown revisions list nothing (GitLab answers an empty page). */
export async function listCommits(
  dir: string,
  query: CommitQuery,
  window: { readonly offset: number; readonly limit: number },
  run: GitRunOptions = {},
): Promise<CommitInfo[]> {
  const args = [
    '-c',
    'log.showSignature=false',
    'log',
    `--format=${FORMAT}`,
    '--no-color',
    `--skip=${window.offset}`,
    `--max-count=${window.limit}`,
    ...walkArgs(query),
  ];
  const out = await readOrMissing(dir, args, run, 'The commits could not be read');
  return out === null ? [] : parseCommits(out);
}

/** How many commits a listing would walk in all (GitLab's X-Total). */
export async function countCommits(dir: string, query: CommitQuery, run: GitRunOptions = {}): Promise<number> {
  const out = await readOrMissing(dir, ['rev-list', '--count', ...walkArgs(query)], run, 'The commits could not be counted');
  return out === null ? 0 : Number(out.trim()) || 0;
}

/** The last commit at or before `rev` that changed `file`, or null (GitLab's `last_commit_id` of a file). */
export async function lastCommitForPath(dir: string, rev: string, file: string, run: GitRunOptions = {}): Promise<string | null> {
  const out = await readOrMissing(
    dir,
    ['log', '-1', '--format=%H', '--end-of-options', rev, '--', file],
    run,
    'The file history could not be read',
  );
  return out?.trim() || null;
}

/** A commit by SHA, short SHA, branch or tag; undefined when there is none. */
export async function findCommit(dir: string, rev: string, run: GitRunOptions = {}): Promise<CommitInfo | undefined> {
  const sha = await resolveCommit(dir, rev, run);
  if (!sha) return undefined;
  const out = await gitIn(
    dir,
    ['-c', 'log.showSignature=false', 'log', '--no-walk', `--format=${FORMAT}`, '--end-of-options', sha, '--'],
    run,
    'The commit could not be read',
  );
  return parseCommits(out.stdout.toString('utf8'))[0];
}

/** Commits by SHA, in the order given (branch and tag listings); unknown ones are left out. */
export async function commitsById(dir: string, shas: readonly string[], run: GitRunOptions = {}): Promise<Map<string, CommitInfo>> {
  const unique = [...new Set(shas)];
  if (unique.length === 0) return new Map();
  const out = await gitIn(
    dir,
    ['-c', 'log.showSignature=false', 'log', '--no-walk=unsorted', `--format=${FORMAT}`, '--stdin'],
    run,
    'The commits could not be read',
    { input: unique.join('\n') + '\n' },
  );
  return new Map(parseCommits(out.stdout.toString('utf8')).map((c) => [c.id, c]));
}

/** The commit a revision names (`^{commit}`: a tag is peeled), or null when it names none. */
export async function resolveCommit(dir: string, rev: string, run: GitRunOptions = {}): Promise<string | null> {
  try {
    const out = await gitIn(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], run, '', { raw: true });
    return out.stdout.toString('utf8').trim() || null;
  } catch (e) {
    if (e instanceof GitCommandError && (e.exitCode === 1 || e.exitCode === 128)) return null;
    throw e;
  }
}

/** The best common ancestor of two commits, or null when they share none. */
export async function mergeBase(dir: string, a: string, b: string, run: GitRunOptions = {}): Promise<string | null> {
  try {
    const out = await gitIn(dir, ['merge-base', '--end-of-options', a, b], run, '', { raw: true });
    return out.stdout.toString('utf8').trim() || null;
  } catch (e) {
    if (e instanceof GitCommandError && e.exitCode === 1) return null;
    throw e;
  }
}

/** One file's change, as GitLab's Diff entity carries it. */
export interface FileDiff {
  readonly oldPath: string;
  readonly newPath: string;
  /** Octal modes as git prints them; "0" for a side that does not exist. */
  readonly aMode: string;
  readonly bMode: string;
  readonly newFile: boolean;
  readonly renamedFile: boolean;
  readonly deletedFile: boolean;
  /** The hunks (from the first `@@` or the binary notice); empty when too large. */
  readonly diff: string;
  readonly tooLarge: boolean;
}

/** GitLab collapses a file's diff above this size (Gitlab::Git::Diff's patch limit). */
const MAX_FILE_DIFF_BYTES = 200 * 1024;

/** The file diffs from `from` to `to`; `from` null: everything `to` adds (a root commit). */
export async function diffTrees(dir: string, from: string | null, to: string, run: GitRunOptions = {}): Promise<FileDiff[]> {
  const sides = from === null ? ['--root', '--end-of-options', to] : ['--end-of-options', from, to];
  const common = ['-c', 'core.quotePath=false', 'diff-tree', '-r', '-M', '--no-commit-id', '--no-color', '--no-ext-diff', '--no-textconv'];
  const [raw, patch] = await Promise.all([
    gitIn(dir, [...common, '--raw', '-z', ...sides, '--'], run, 'The diff could not be read'),
    gitIn(dir, [...common, '-p', '--full-index', ...sides, '--'], run, 'The diff could not be read'),
  ]);
  const entries = parseRaw(raw.stdout.toString('utf8'));
  const blocks = splitPatch(patch.stdout.toString('utf8'));
  return entries.map((e, i) => {
    const hunks = hunksOf(blocks[i] ?? '');
    const tooLarge = Buffer.byteLength(hunks) > MAX_FILE_DIFF_BYTES;
    return { ...e, diff: tooLarge ? '' : hunks, tooLarge };
  });
}

/** Lines added and removed from `from` to `to` (binary files count none, as in GitLab's stats). */
export async function diffStats(
  dir: string,
  from: string | null,
  to: string,
  run: GitRunOptions = {},
): Promise<{ readonly additions: number; readonly deletions: number }> {
  const sides = from === null ? ['--root', '--end-of-options', to] : ['--end-of-options', from, to];
  const out = await gitIn(
    dir,
    ['diff-tree', '-r', '-M', '--no-commit-id', '--numstat', '-z', ...sides, '--'],
    run,
    'The diff could not be read',
  );
  let additions = 0;
  let deletions = 0;
  for (const m of out.stdout.toString('utf8').matchAll(/(?:^|\0)(\d+|-)\t(\d+|-)\t/g)) {
    additions += Number(m[1]) || 0;
    deletions += Number(m[2]) || 0;
  }
  return { additions, deletions };
}

/** One author of a branch's history (grouped by e-mail, case-insensitively, as GitLab does). */
export interface Contributor {
  readonly name: string;
  readonly email: string;
  readonly commits: number;
}

/** The authors of the commits reachable from `rev`, in order of their first appearance; none for an unknown revision. */
export async function contributors(dir: string, rev: string, run: GitRunOptions = {}): Promise<Contributor[]> {
  const out = await readOrMissing(
    dir,
    ['log', '--use-mailmap', '--format=%aN%x00%aE%x00', '--end-of-options', rev, '--'],
    run,
    'The contributors could not be read',
  );
  const byEmail = new Map<string, { name: string; email: string; commits: number }>();
  const fields = (out ?? '').split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]!.replace(/^\n/, '');
    const email = fields[i + 1]!;
    const key = email.toLowerCase();
    const seen = byEmail.get(key);
    if (seen) seen.commits++;
    else byEmail.set(key, { name, email, commits: 1 });
  }
  return [...byEmail.values()];
}

// ---- helpers ------------------------------------------------------------------------------------

function walkArgs(query: CommitQuery): string[] {
  const args: string[] = [];
  if (query.since) args.push(`--since=${query.since}`);
  if (query.until) args.push(`--until=${query.until}`);
  if (query.firstParent) args.push('--first-parent');
  if (query.order === 'topo') args.push('--topo-order');
  if (query.revs === 'all') args.push('--all');
  else args.push('--end-of-options', ...query.revs);
  args.push('--');
  if (query.path) args.push(query.path);
  return args;
}

/** Run a read whose revision may not exist: null then (git's "unknown revision", "bad revision"). */
async function readOrMissing(dir: string, args: readonly string[], run: GitRunOptions, sentence: string): Promise<string | null> {
  try {
    return (await gitIn(dir, args, run, sentence, { raw: true })).stdout.toString('utf8');
  } catch (e) {
    if (
      e instanceof GitCommandError &&
      /unknown revision|bad revision|bad object|ambiguous argument|does not have any commits/.test(e.stderr)
    )
      return null;
    throw failure(e, sentence, [path.resolve(dir)]);
  }
}

/** Parse FORMAT records (each starts with 0x1e; anything between records, such as a trailing newline, is skipped). */
export function parseCommits(text: string): CommitInfo[] {
  const commits: CommitInfo[] = [];
  const fields = readNulFields(text, true);
  while (fields.seek('\x1e')) {
    fields.skip();
    const id = fields.next();
    const parents = fields.next();
    const authorName = fields.next();
    const authorEmail = fields.next();
    const authoredDate = fields.next();
    const committerName = fields.next();
    const committerEmail = fields.next();
    const committedDate = fields.next();
    const trailerText = fields.next();
    const message = fields.next();
    const trailers = trailerText
      .split('\x1f')
      .filter((t) => t.includes('\x1d'))
      .map((t) => {
        const [key = '', ...rest] = t.split('\x1d');
        return [key.trim(), rest.join('\x1d').trim()] as const;
      });
    commits.push({
      id,
      parentIds: parents === '' ? [] : parents.split(' '),
      authorName,
      authorEmail,
      authoredDate,
      committerName,
      committerEmail,
      committedDate,
      message,
      trailers,
    });
  }
  return commits;
}

type RawEntry = Omit<FileDiff, 'diff' | 'tooLarge'>;

/** `git diff-tree --raw -z`: `:old new oldsha newsha STATUS\0path\0` (two paths for renames and copies). */
function parseRaw(text: string): RawEntry[] {
  const parts = text.split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i]!;
    if (!head.startsWith(':')) continue;
    const [aMode = '0', bMode = '0', , , status = 'M'] = head.slice(1).split(' ');
    const twoPaths = status.startsWith('R') || status.startsWith('C');
    const first = parts[++i] ?? '';
    const second = twoPaths ? (parts[++i] ?? '') : first;
    const mode = (m: string) => (/^0+$/.test(m) ? '0' : m);
    entries.push({
      oldPath: first,
      newPath: second,
      aMode: mode(aMode),
      bMode: mode(bMode),
      newFile: status.startsWith('A'),
      renamedFile: status.startsWith('R'),
      deletedFile: status.startsWith('D'),
    });
  }
  return entries;
}

/** A patch cut into its per-file blocks (content lines start with ' ', '+' or '-', never "diff --git"). */
function splitPatch(text: string): string[] {
  if (text === '') return [];
  return text.split(/^(?=diff --git )/m).filter((b) => b.startsWith('diff --git '));
}

/** A block without its header lines: from the first hunk or the binary notice on. */
function hunksOf(block: string): string {
  const m = /^(@@ |Binary files )/m.exec(block);
  return m ? block.slice(m.index) : '';
}
