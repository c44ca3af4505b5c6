/**
 * Operations on bare repositories through the system git: the only code (with smart-http.ts) that
 * touches repositories on disk. Every git call gets an argument array (never a shell), `--git-dir`
 * (never discovery, which could wander up into a parent repository), a timeout and an optional
 * AbortSignal; failures become AppErrors whose messages name no server paths.
 */
import { lstat, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { AppError, notFound } from '../../http/errors.js';
import { resolvePublicAddress, type OutboundPolicy } from '../../http/outbound.js';
import { assertBranchName, assertRevision, isObjectId, isZeroId } from './git-names.js';
import { pinnedCloneArgs, pinnedCloneEnv, scrubSecrets, splitCredentials } from './remote-url.js';
import { childEnvironment, GitCommandError, lastLine, runGit, startTracked, type GitRunOptions } from './run-git.js';

export type { GitRunOptions } from './run-git.js';

/** Default limits: quick reads and config edits, then the operations that copy or rewrite a repository. */
const QUICK_MS = 30_000;
const LONG_MS = 60 * 60_000;

/** Create an empty bare repository whose HEAD names `defaultBranch`, accepting pushes over HTTP. */
export async function initBare(dir: string, defaultBranch: string, run: GitRunOptions = {}): Promise<void> {
  assertBranchName(defaultBranch);
  const target = path.resolve(dir);
  await assertAbsent(target);
  await mkdir(path.dirname(target), { recursive: true });
  try {
    // An empty template: no sample hooks, and no hooks from a system template directory.
    await runGit(['init', '--bare', '--quiet', '--template=', `--initial-branch=${defaultBranch}`, '--', target], run, { timeoutMs: QUICK_MS });
    await acceptHttpPushes(target, run);
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

/** What GET /projects?statistics=true and the project pages need to know about a repository. */
export interface RepositoryStats {
  /** No branches at all (GitLab's `empty_repo`). */
  readonly empty: boolean;
  /** HEAD's branch if it exists, else the requested default branch if it exists, else the first branch, else null. */
  readonly defaultBranch: string | null;
  /** Commits reachable from that branch. */
  readonly commitCount: number;
  /** Bytes of all files in the repository directory (apparent sizes, the same on every file system). */
  readonly repositorySize: number;
  /** The last commit of that branch. */
  readonly headSha: string | null;
  /** Branch names in git's ref order. */
  readonly branches: readonly string[];
}

/**
 * A repository's statistics in two git calls (for-each-ref marks HEAD's branch; rev-list counts)
 * plus one walk of the directory, run side by side.
 */
export async function repositoryStats(dir: string, defaultBranch: string, run: GitRunOptions = {}): Promise<RepositoryStats> {
  const target = path.resolve(dir);
  const [refs, repositorySize] = await Promise.all([
    git(target, ['for-each-ref', '--format=%(HEAD)%00%(objectname)%00%(refname)', 'refs/heads/'], run, 'The repository could not be read'),
    directorySize(target),
  ]);
  const branches: { name: string; sha: string; head: boolean }[] = [];
  for (const line of refs.stdout.toString('utf8').split('\n')) {
    const [mark, sha, ref] = line.split('\0');
    if (sha && ref?.startsWith('refs/heads/')) branches.push({ name: ref.slice('refs/heads/'.length), sha, head: mark === '*' });
  }
  const chosen = branches.find((b) => b.head) ?? branches.find((b) => b.name === defaultBranch) ?? branches[0] ?? null;
  let commitCount = 0;
  if (chosen) {
    const counted = await git(target, ['rev-list', '--count', chosen.sha], run, 'The repository could not be read');
    commitCount = Number(counted.stdout.toString('utf8').trim()) || 0;
  }
  return {
    empty: branches.length === 0,
    defaultBranch: chosen?.name ?? null,
    commitCount,
    repositorySize,
    headSha: chosen?.sha ?? null,
    branches: branches.map((b) => b.name),
  };
}

/** Point HEAD at `branch` (which may not exist yet: an empty repository's first push creates it). */
export async function setHead(dir: string, branch: string, run: GitRunOptions = {}): Promise<void> {
  assertBranchName(branch);
  await git(path.resolve(dir), ['symbolic-ref', 'HEAD', `refs/heads/${branch}`], run, 'The default branch could not be changed');
}

/** The last commit of `branch`, or null when the branch does not exist. */
export async function headCommit(dir: string, branch: string, run: GitRunOptions = {}): Promise<string | null> {
  assertBranchName(branch);
  try {
    const out = await runGit(['--git-dir=' + path.resolve(dir), 'rev-parse', '--verify', '--quiet', '--end-of-options', `refs/heads/${branch}^{commit}`], run, { timeoutMs: QUICK_MS });
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
export async function commitsBetween(dir: string, before: string, after: string, limit: number, run: GitRunOptions = {}): Promise<CommitSummary[]> {
  assertObjectIds(before, after);
  if (isZeroId(after)) return [];
  return logCommits(path.resolve(dir), isZeroId(before) ? [after] : [after, `^${before}`], limit, run);
}

/** How many commits `before..after` holds (GitLab's `total_commits_count`, which is not limited). */
export async function countCommitsBetween(dir: string, before: string, after: string, run: GitRunOptions = {}): Promise<number> {
  assertObjectIds(before, after);
  if (isZeroId(after)) return 0;
  const revs = isZeroId(before) ? [after] : [after, `^${before}`];
  const out = await git(path.resolve(dir), ['rev-list', '--count', '--end-of-options', ...revs, '--'], run, 'The commits could not be counted');
  return Number(out.stdout.toString('utf8').trim()) || 0;
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

/**
 * Copy every ref of `sourceDir` into a new, independent bare repository at `targetDir` with the
 * same HEAD. The copy goes through git's transport (`--no-local`), not hard links or a file copy,
 * so only reachable objects travel: a fork never inherits objects its source had dropped from
 * history (a secret that was force-pushed away).
 */
export async function forkRepository(sourceDir: string, targetDir: string, run: GitRunOptions = {}): Promise<void> {
  const source = path.resolve(sourceDir);
  const target = path.resolve(targetDir);
  const head = await symbolicHead(source, run);
  await cloneInto(target, ['clone', '--mirror', '--no-local', '--quiet', '--template=', '--', source, target], run, 'The repository could not be forked', [source]);
  if (head) await setHeadRef(target, head, run);
}

/** Options for importing a repository from a URL: the outbound rules plus the run options. */
export interface ImportOptions extends GitRunOptions, Pick<OutboundPolicy, 'resolve' | 'isAllowedAddress'> {
  /** Allow private and loopback hosts (the desktop app; tests); false on a public server. */
  readonly allowPrivate: boolean;
}

/**
 * Clone a remote http(s) repository (branches, tags and HEAD) into a new bare repository. The host
 * is checked under the outbound rules and git is pinned to the checked address, with redirects,
 * proxies, other transports and credential helpers off. Credentials in the URL
 * (https://user:token@host/…) are used but never stored, logged or repeated in messages.
 */
export async function importRepository(url: string, targetDir: string, options: ImportOptions): Promise<void> {
  const target = path.resolve(targetDir);
  await assertAbsent(target);
  const destination = await resolvePublicAddress(url, { allowPrivate: options.allowPrivate, resolve: options.resolve, isAllowedAddress: options.isAllowedAddress, allowCredentials: true });
  const credentials = splitCredentials(destination.url);
  const args = [...pinnedCloneArgs(destination), 'clone', '--bare', '--quiet', '--template=', '--', credentials.publicUrl, target];
  const run: GitRunOptions = { ...options, timeoutMs: options.timeoutMs ?? LONG_MS };
  try {
    await cloneInto(target, args, run, 'The repository could not be imported', [], pinnedCloneEnv(credentials));
  } catch (e) {
    throw importFailure(e, credentials.publicUrl, credentials.secrets);
  }
}

/**
 * An uncompressed tar of the repository as GitLab's snapshot has it (HEAD, packed-refs, refs/,
 * objects/, shallow; not config or hooks), paths relative to the repository, produced by the system
 * `tar` and streamed. A failing tar destroys the stream with an AppError; destroying the stream
 * stops tar. There is no default timeout: how long it streams is up to the client reading it.
 */
export async function snapshotTar(dir: string, run: Omit<GitRunOptions, 'gitPath'> & { readonly tarPath?: string } = {}): Promise<Readable> {
  const target = path.resolve(dir);
  if (!(await exists(path.join(target, 'HEAD')))) throw notFound('Repository');
  const entries: string[] = [];
  for (const name of ['HEAD', 'packed-refs', 'refs', 'objects', 'shallow']) if (await exists(path.join(target, name))) entries.push(name);
  const tracked = startTracked(run.tarPath ?? 'tar', ['-cf', '-', '-C', target, '--', ...entries], run, childEnvironment(), null);
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
      else out.destroy(new AppError('unavailable', `The repository snapshot could not be written (tar: ${scrubPaths(lastLine(stderr), [target])})`));
    },
    (e: unknown) => out.destroy(e instanceof Error ? e : new Error(String(e))),
  );
  return out;
}

/**
 * Write every ref (and HEAD) of a repository into a bundle file, for project export. Returns false,
 * writing nothing, when the repository has no refs: git cannot bundle an empty repository, and an
 * export of one simply has no bundle.
 */
export async function createBundle(dir: string, file: string, run: GitRunOptions = {}): Promise<boolean> {
  const source = path.resolve(dir);
  const out = path.resolve(file);
  const refs = await git(source, ['for-each-ref', '--count=1', '--format=%(refname)'], run, 'The repository could not be read');
  if (refs.stdout.toString('utf8').trim() === '') return false;
  await mkdir(path.dirname(out), { recursive: true });
  await git(source, ['bundle', 'create', out, '--all'], { ...run, timeoutMs: run.timeoutMs ?? LONG_MS }, 'The repository could not be bundled', [out]);
  return true;
}

/** Create a new bare repository at `targetDir` from a bundle file (all its refs and its HEAD). */
export async function restoreFromBundle(file: string, targetDir: string, run: GitRunOptions = {}): Promise<void> {
  const bundle = path.resolve(file);
  const target = path.resolve(targetDir);
  if (!(await exists(bundle))) throw notFound('Bundle');
  // git's own complaint about a file that is no bundle is a chain of confusing lines; say it plainly.
  if (!(await isBundleFile(bundle))) throw new AppError('invalid', 'The file is not a git bundle', { code: 'invalid_bundle' });
  await cloneInto(target, ['clone', '--mirror', '--quiet', '--template=', '--', bundle, target], { ...run, timeoutMs: run.timeoutMs ?? LONG_MS }, 'The repository could not be restored from its bundle', [bundle]);
}

// ---- helpers ------------------------------------------------------------------------------------

/** Run git in a repository, turning failures into AppErrors that say `sentence`. */
async function git(dir: string, args: readonly string[], run: GitRunOptions, sentence: string, otherPaths: readonly string[] = []) {
  try {
    return await runGit(['--git-dir=' + dir, ...args], run, { timeoutMs: QUICK_MS });
  } catch (e) {
    throw failure(e, sentence, [dir, ...otherPaths]);
  }
}

/**
 * Clone into a directory that must not exist yet, then make the result a standalone repository of
 * ours: no remote left behind (its URL points at another repository or host), pushes accepted over
 * HTTP. A failure at any step removes the half-made target.
 */
async function cloneInto(target: string, args: readonly string[], run: GitRunOptions, sentence: string, otherPaths: readonly string[], env?: Record<string, string>): Promise<void> {
  await assertAbsent(target);
  await mkdir(path.dirname(target), { recursive: true });
  try {
    await runGit(args, run, { timeoutMs: LONG_MS, env });
    await dropRemote(target, run);
    await acceptHttpPushes(target, run);
  } catch (e) {
    await rm(target, { recursive: true, force: true });
    if (e instanceof GitCommandError && env) throw e; // the caller (an import) words remote failures itself
    throw failure(e, sentence, [target, ...otherPaths]);
  }
}

async function dropRemote(target: string, run: GitRunOptions): Promise<void> {
  try {
    await runGit(['--git-dir=' + target, 'config', '--remove-section', 'remote.origin'], run, { timeoutMs: QUICK_MS });
  } catch (e) {
    // No such section (exit 128 with "no such section") means there was nothing to drop.
    if (!(e instanceof GitCommandError && /no such section/i.test(e.stderr))) throw e;
  }
}

/** http-backend serves receive-pack only when the repository allows it (or a user is named). */
async function acceptHttpPushes(target: string, run: GitRunOptions): Promise<void> {
  await runGit(['--git-dir=' + target, 'config', 'http.receivepack', 'true'], run, { timeoutMs: QUICK_MS });
}

/** The full ref HEAD points to, or null when HEAD is detached. */
async function symbolicHead(dir: string, run: GitRunOptions): Promise<string | null> {
  try {
    const out = await runGit(['--git-dir=' + dir, 'symbolic-ref', '--quiet', 'HEAD'], run, { timeoutMs: QUICK_MS });
    return out.stdout.toString('utf8').trim() || null;
  } catch (e) {
    if (e instanceof GitCommandError && e.exitCode === 1) return null;
    throw failure(e, 'The repository could not be read', [dir]);
  }
}

async function setHeadRef(dir: string, ref: string, run: GitRunOptions): Promise<void> {
  await git(dir, ['symbolic-ref', 'HEAD', ref], run, 'The default branch could not be set');
}

function assertObjectIds(...ids: string[]): void {
  for (const id of ids) if (!isObjectId(id)) throw new AppError('invalid', `"${id}" is not a full commit SHA`, { code: 'invalid_revision' });
}

/** The fields of one commit record, each ended by NUL; the record starts with a 0x1e marker. */
const LOG_FORMAT = '%x1e%H%x00%an%x00%ae%x00%aI%x00%B';

async function logCommits(dir: string, revs: readonly string[], limit: number, run: GitRunOptions): Promise<CommitSummary[]> {
  if (!Number.isInteger(limit) || limit < 1) return [];
  let out;
  try {
    out = await runGit(
      ['--git-dir=' + dir, '-c', 'log.showSignature=false', 'log', `--max-count=${limit}`, '--reverse', '-z', '--no-renames', '--name-status', '--diff-merges=first-parent', '--no-color', `--format=${LOG_FORMAT}`, '--end-of-options', ...revs, '--'],
      run,
      { timeoutMs: QUICK_MS },
    );
  } catch (e) {
    if (e instanceof GitCommandError && /unknown revision|bad revision|bad object|ambiguous argument/.test(e.stderr)) throw notFound('Commit');
    throw failure(e, 'The commits could not be read', [dir]);
  }
  return parseLog(out.stdout.toString('utf8'));
}

/**
 * Parse `git log -z --name-status` output in LOG_FORMAT. Read field by field (not split on a
 * separator): a message may contain any byte but NUL, and a path any byte but NUL.
 */
export function parseLog(text: string): CommitSummary[] {
  const commits: CommitSummary[] = [];
  let pos = 0;
  const field = (): string => {
    const end = text.indexOf('\0', pos);
    const value = text.slice(pos, end < 0 ? text.length : end);
    pos = end < 0 ? text.length : end + 1;
    return value;
  };
  while (pos < text.length) {
    if (text[pos] !== '\x1e') throw new Error(`unexpected git log output at ${pos}`);
    pos++;
    const id = field();
    const name = field();
    const email = field();
    const timestamp = field();
    const message = field();
    const added: string[] = [];
    const modified: string[] = [];
    const removed: string[] = [];
    if (text[pos] === '\n') pos++; // the line break between the header and the file list
    while (pos < text.length && text[pos] !== '\x1e') {
      const status = field();
      const file = field();
      if (status.startsWith('A')) added.push(file);
      else if (status.startsWith('D')) removed.push(file);
      else modified.push(file); // M, T (type change) and anything else git may add
    }
    commits.push({ id, message, title: message.split('\n', 1)[0] ?? '', timestamp, author: { name, email }, added, modified, removed });
  }
  return commits;
}

/** Sum of the apparent sizes of every file under `dir` (symbolic links count as themselves). */
async function directorySize(dir: string): Promise<number> {
  let total = 0;
  let pending = [dir];
  while (pending.length > 0) {
    const next: string[] = [];
    await Promise.all(
      pending.map(async (d) => {
        let entries;
        try {
          entries = await readdir(d, { withFileTypes: true });
        } catch (e) {
          // A directory removed under us (gc pruning loose objects) simply no longer counts.
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw e;
        }
        const sizes = await Promise.all(
          entries.map(async (entry) => {
            const full = path.join(d, entry.name);
            if (entry.isDirectory()) {
              next.push(full);
              return 0;
            }
            try {
              return (await lstat(full)).size;
            } catch {
              return 0;
            }
          }),
        );
        for (const s of sizes) total += s;
      }),
    );
    pending = next;
  }
  return total;
}

/** True when a file starts with a v2 or v3 bundle signature. */
async function isBundleFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(16);
    const { bytesRead } = await handle.read(head, 0, 16, 0);
    return /^# v[23] git bundle\n/.test(head.subarray(0, bytesRead).toString('latin1'));
  } finally {
    await handle.close();
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/** A target must not exist (or be an empty directory): nothing of another repository is overwritten. */
async function assertAbsent(target: string): Promise<void> {
  try {
    const entries = await readdir(target);
    if (entries.length > 0) throw new AppError('conflict', 'A repository already exists at that path', { code: 'repository_exists' });
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new AppError('conflict', 'A file already exists where the repository should go', { code: 'repository_exists' });
    if (code !== 'ENOENT') throw e;
  }
}

function assertRepositoryPath(dir: string): string {
  const target = path.resolve(dir);
  // A guard against a wrong argument deleting a data directory: repositories are `<path>.git`.
  if (!path.basename(target).endsWith('.git') || path.basename(target) === '.git') throw new AppError('invalid', 'Only repository directories (ending in .git) can be removed');
  return target;
}

function leaseTaken(): AppError {
  return new AppError('conflict', 'Somebody already triggered housekeeping for this resource and it is still running', { code: 'housekeeping_running' });
}

/** Turn a git failure into an AppError saying `sentence` and git's own reason, without server paths. */
function failure(e: unknown, sentence: string, paths: readonly string[]): unknown {
  if (e instanceof AppError) return e;
  if (!(e instanceof GitCommandError)) return e;
  if (/not a git repository|does not appear to be a git repository/i.test(e.stderr) && !/bundle/i.test(e.stderr)) return new AppError('not-found', 'Repository Not Found', { cause: e });
  const reason = scrubPaths(lastLine(e.stderr).replace(/^(fatal|error): /, ''), paths);
  return new AppError('unavailable', reason ? `${sentence}: ${reason}` : sentence, { cause: e });
}

/** Words an import's failure for a person, naming the URL without credentials. */
function importFailure(e: unknown, publicUrl: string, secrets: readonly string[]): unknown {
  if (!(e instanceof GitCommandError)) return e;
  const said = scrubSecrets(e.stderr, secrets);
  const clean = (message: string, kind: 'invalid' | 'unavailable', code: string) =>
    new AppError(kind, scrubSecrets(message, secrets), { code, cause: new Error(scrubSecrets(e.message, secrets)) });
  if (/terminal prompts disabled|Authentication failed|could not read (Username|Password)|returned error: 40[13]/i.test(said)) return clean(`${publicUrl} needs credentials that were missing or not accepted (put them in the URL: https://user:token@host/path.git)`, 'invalid', 'import_auth');
  if (/returned error: 30\d|redirect/i.test(said)) return clean(`${publicUrl} redirects elsewhere; redirects are not followed, so use the repository's final URL`, 'invalid', 'import_redirect');
  if (/returned error: 404|not found|does not appear to be a git repository/i.test(said)) return clean(`No git repository was found at ${publicUrl}`, 'invalid', 'import_not_found');
  if (/Failed to connect|Connection refused|Could not resolve|timed out|Connection reset/i.test(said)) return clean(`Could not connect to ${new URL(publicUrl).host} to import ${publicUrl}`, 'unavailable', 'import_unreachable');
  const reason = lastLine(said).replace(/^(fatal|error): /, '');
  return clean(`The repository at ${publicUrl} could not be imported${reason ? `: ${reason}` : ''}`, 'invalid', 'import_failed');
}

function scrubPaths(text: string, paths: readonly string[]): string {
  let out = text;
  for (const p of [...paths].sort((a, b) => b.length - a.length)) out = out.split(p).join(path.basename(p));
  return out;
}
