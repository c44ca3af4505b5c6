/**
 * Reads of a bare repository's content through the system git: resolving revisions, listing trees,
 * looking up and streaming blobs, and streaming archives. Like repositories.ts, every call gets an
 * argument array, `--git-dir`, a timeout and an optional AbortSignal; revisions are checked before
 * they reach git, paths reach it only after a full object name (`<sha>:<path>`) or as literal
 * pathspecs after `--`, and failures become AppErrors that name no server paths.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../../http/errors.js';
import { isObjectId, isValidBranchName } from './git-names.js';
import { failure, git, QUICK_MS, streamOutput } from './repository-command.js';
import { GitCommandError, runGit, type GitRunOptions } from './run-git.js';

/** One entry of a tree, as `git ls-tree` names it. */
export interface TreeEntry {
  readonly id: string;
  /** The last path component. */
  readonly name: string;
  readonly type: 'tree' | 'blob' | 'commit';
  /** The full path from the repository's root. */
  readonly path: string;
  /** Git's octal mode: 040000, 100644, 100755, 120000 or 160000. */
  readonly mode: string;
}

/** A blob found at a path of a commit. */
export interface BlobAtPath {
  readonly id: string;
  readonly mode: string;
  readonly size: number;
}

/** The archive formats `git archive` is asked for (an allow-list: nothing else reaches git). */
export type ArchiveFormat = 'tar' | 'tar.gz' | 'tar.bz2' | 'zip';

/**
 * True when `rev` may be handed to git as a revision to read: a branch or tag name under git's
 * ref-name rules (which also covers hex object-name prefixes) or HEAD. Never an option, never
 * revision syntax (`..`, `^`, `~`, `@{`, `:`).
 */
export function isReadableRevision(rev: string): boolean {
  return rev === 'HEAD' || isObjectId(rev) || isValidBranchName(rev);
}

/**
 * Split a repository path into its components, or null when it is not a plain relative path:
 * empty components (a doubled slash), `.`/`..`, NUL, or a leading slash are refused. A trailing
 * slash is allowed (GitLab's tree `path=dir/`). `''` is the root (no components).
 */
export function splitRepositoryPath(p: string, options: { readonly allowLeadingSlash?: boolean } = {}): string[] | null {
  let rest = p;
  if (options.allowLeadingSlash && rest.startsWith('/')) rest = rest.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  if (rest === '') return [];
  const parts = rest.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))) return null;
  return parts;
}

/** The full object name of the commit `rev` names, or undefined when it names none (or is not a plain revision). */
export async function findCommit(dir: string, rev: string, run: GitRunOptions = {}): Promise<string | undefined> {
  if (!isReadableRevision(rev)) return undefined;
  return verify(path.resolve(dir), `${rev}^{commit}`, run);
}

/** The full object name of the blob whose (possibly abbreviated) object name is `id`, or undefined. */
export async function findBlob(dir: string, id: string, run: GitRunOptions = {}): Promise<string | undefined> {
  if (!/^[0-9a-f]{4,64}$/.test(id)) return undefined;
  return verify(path.resolve(dir), `${id}^{blob}`, run);
}

/** The size in bytes of a blob given by its full object name. */
export async function blobSize(dir: string, id: string, run: GitRunOptions = {}): Promise<number> {
  assertId(id);
  const out = await git(path.resolve(dir), ['cat-file', '-s', id], run, 'The file could not be read');
  return Number(out.stdout.toString('utf8').trim());
}

/**
 * The entries of the tree at `treePath` in `commit` (`[]` parts: the root), or undefined when
 * nothing or something other than a tree is there. `recursive` lists every subtree's entries too,
 * the subtrees included (GitLab's `recursive=true`). Entries come in git's order.
 */
export async function listTree(
  dir: string,
  commit: string,
  treePath: readonly string[],
  recursive: boolean,
  run: GitRunOptions = {},
): Promise<TreeEntry[] | undefined> {
  assertId(commit);
  const target = path.resolve(dir);
  const prefix = treePath.join('/');
  const tree = prefix === '' ? await verify(target, `${commit}^{tree}`, run) : await objectAt(target, commit, prefix, 'tree', run);
  if (!tree) return undefined;
  const out = await git(target, ['ls-tree', '-z', ...(recursive ? ['-r', '-t'] : []), tree], run, 'The tree could not be read', [], {
    maxStdout: 256 * 1024 * 1024,
  });
  const entries: TreeEntry[] = [];
  for (const record of out.stdout.toString('utf8').split('\0')) {
    if (record === '') continue;
    // "<mode> SP <type> SP <object> TAB <path>"; the path may hold any byte but NUL.
    const tab = record.indexOf('\t');
    const [mode, type, id] = record.slice(0, tab).split(' ');
    const relative = record.slice(tab + 1);
    if (!mode || !id || (type !== 'tree' && type !== 'blob' && type !== 'commit')) continue;
    const full = prefix === '' ? relative : `${prefix}/${relative}`;
    entries.push({ id, name: full.slice(full.lastIndexOf('/') + 1), type, path: full, mode });
  }
  return entries;
}

/** The blob at `filePath` in `commit` (its id, mode and size), or undefined when no file is there. */
export async function findBlobAtPath(
  dir: string,
  commit: string,
  filePath: readonly string[],
  run: GitRunOptions = {},
): Promise<BlobAtPath | undefined> {
  assertId(commit);
  if (filePath.length === 0) return undefined;
  const target = path.resolve(dir);
  const parent = filePath.slice(0, -1);
  const name = filePath[filePath.length - 1]!;
  // List the parent tree, not a pathspec: the path is compared as bytes, never interpreted.
  const tree =
    parent.length === 0 ? await verify(target, `${commit}^{tree}`, run) : await objectAt(target, commit, parent.join('/'), 'tree', run);
  if (!tree) return undefined;
  const out = await git(target, ['ls-tree', '-z', '-l', tree], run, 'The file could not be read', [], { maxStdout: 64 * 1024 * 1024 });
  for (const record of out.stdout.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0 || record.slice(tab + 1) !== name) continue;
    const [mode, type, id, size] = record.slice(0, tab).split(/ +/);
    if (type !== 'blob' || !mode || !id) return undefined;
    return { id, mode, size: Number(size) };
  }
  return undefined;
}

/** The last commit reachable from `commit` that changed `filePath` (GitLab's `last_commit_id`). */
export async function lastCommitFor(
  dir: string,
  commit: string,
  filePath: readonly string[],
  run: GitRunOptions = {},
): Promise<string | undefined> {
  assertId(commit);
  const out = await git(
    path.resolve(dir),
    ['--literal-pathspecs', 'log', '-1', '--format=%H', '--no-color', commit, '--', filePath.join('/')],
    run,
    'The file history could not be read',
  );
  return out.stdout.toString('utf8').trim() || undefined;
}

/**
 * Stream a blob's bytes (`git cat-file blob`), never holding more than a pipe's worth. A failing
 * git destroys the stream with an AppError; destroying the stream stops git. No default timeout:
 * a large file streams as long as the client reads.
 */
export function streamBlob(dir: string, id: string, run: GitRunOptions = {}): Readable {
  assertId(id);
  return streamGit(path.resolve(dir), ['cat-file', 'blob', id], run, 'The file could not be read');
}

/**
 * Stream an archive of `commit` (`git archive`) in one of the allowed formats, every member under
 * `prefix/`, limited to `subPath` when given (which must exist: check with findPathType first).
 * tar.bz2 is git's tar piped through bzip2 by git itself (a fixed filter, never user input).
 */
export function streamArchive(
  dir: string,
  commit: string,
  format: ArchiveFormat,
  prefix: string,
  subPath: readonly string[],
  run: GitRunOptions = {},
): Readable {
  assertId(commit);
  if (prefix.includes('\0') || prefix.includes('/')) throw new AppError('invalid', 'The archive prefix must be one path component');
  const filters = format === 'tar.bz2' ? ['-c', 'tar.tar.bz2.command=bzip2 -c'] : [];
  const args = [
    ...filters,
    '--literal-pathspecs',
    'archive',
    `--format=${format}`,
    `--prefix=${prefix}/`,
    commit,
    ...(subPath.length > 0 ? ['--', subPath.join('/')] : []),
  ];
  return streamGit(path.resolve(dir), args, run, 'The archive could not be written');
}

/** What is at `p` in `commit`: 'tree', 'blob', 'commit' (a submodule), or undefined when nothing is. */
export async function findPathType(
  dir: string,
  commit: string,
  p: readonly string[],
  run: GitRunOptions = {},
): Promise<'tree' | 'blob' | 'commit' | undefined> {
  assertId(commit);
  if (p.length === 0) return 'tree';
  try {
    const out = await runGit(['--git-dir=' + path.resolve(dir), 'cat-file', '-t', `${commit}:${p.join('/')}`], run, {
      timeoutMs: QUICK_MS,
    });
    const type = out.stdout.toString('utf8').trim();
    return type === 'tree' || type === 'blob' || type === 'commit' ? type : undefined;
  } catch (e) {
    if (e instanceof GitCommandError && e.exitCode === 128) return undefined;
    throw failure(e, 'The repository could not be read', [path.resolve(dir)]);
  }
}

/** Extensions of the markup READMEs GitLab renders, preferred over plain ones (Gitlab::MarkupHelper). */
const markupReadme = /\.(md|markdown|mdown|mkd|mkdn|mdwn|rmd|rdoc|adoc|ad|asciidoc|textile|rst|org|creole|wiki|mediawiki|pod|pod6)$/i;

/**
 * The README GitLab would show for `branch`: among the blobs at the root named `readme*` (any
 * case), the first markup one, else the first plain one (no extension, or `.txt`); undefined when
 * the branch or a README does not exist.
 */
export async function findReadme(dir: string, branch: string, run: GitRunOptions = {}): Promise<string | undefined> {
  if (!isValidBranchName(branch)) return undefined;
  const commit = await verify(path.resolve(dir), `refs/heads/${branch}^{commit}`, run);
  if (!commit) return undefined;
  const root = (await listTree(dir, commit, [], false, run)) ?? [];
  const readmes = root.filter((e) => e.type === 'blob' && /^readme[^/]*$/i.test(e.name));
  return (readmes.find((e) => markupReadme.test(e.name)) ?? readmes.find((e) => /^readme(\.txt)?$/i.test(e.name)))?.path;
}

// ---- helpers ------------------------------------------------------------------------------------

/** `rev-parse --verify --quiet`: the object name, or undefined when `expr` names nothing. */
async function verify(dir: string, expr: string, run: GitRunOptions): Promise<string | undefined> {
  try {
    const out = await runGit(['--git-dir=' + dir, 'rev-parse', '--verify', '--quiet', '--end-of-options', expr], run, {
      timeoutMs: QUICK_MS,
    });
    return out.stdout.toString('utf8').trim() || undefined;
  } catch (e) {
    // --verify --quiet exits 1, silently, when the name resolves to nothing (or to the wrong type).
    if (e instanceof GitCommandError && e.exitCode === 1) return undefined;
    throw failure(e, 'The repository could not be read', [dir]);
  }
}

/**
 * The object at `<commit>:<p>` if it has `type`. The path follows a full object name and a colon,
 * where git reads it literally (no revision syntax, no pathspec magic).
 */
async function objectAt(dir: string, commit: string, p: string, type: 'tree' | 'blob', run: GitRunOptions): Promise<string | undefined> {
  const id = await verify(dir, `${commit}:${p}`, run);
  if (!id) return undefined;
  const found = await findPathType(dir, commit, p.split('/'), run);
  return found === type ? id : undefined;
}

function streamGit(dir: string, args: readonly string[], run: GitRunOptions, sentence: string): Readable {
  return streamOutput(
    run.gitPath ?? 'git',
    ['--git-dir=' + dir, ...args],
    run,
    run.timeoutMs ?? null,
    (code, stderr) => failure(new GitCommandError('git', code, stderr), sentence, [dir]) as Error,
  );
}

function assertId(id: string): void {
  if (!isObjectId(id)) throw new AppError('invalid', `"${id}" is not a full object name`, { code: 'invalid_revision' });
}
