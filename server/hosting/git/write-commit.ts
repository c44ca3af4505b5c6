/**
 * One commit of file actions, written without a working tree: blobs with hash-object, the tree in
 * a temporary index (GIT_INDEX_FILE, read-tree of the parent, update-index --index-info,
 * write-tree), the commit with commit-tree, and the branch moved by update-ref only if it still
 * holds the parent, so a push or another commit that landed meanwhile is never lost: the loser is
 * told to retry and nothing it wrote is reachable.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { gitIn } from './repository-command.js';
import { ZERO_SHA } from './git-names.js';
import { updateRef } from './refs.js';
import type { GitRunOptions } from './run-git.js';

/** One change of a commit, as GitLab's `actions[]` name them. */
export type FileAction =
  | { readonly action: 'create'; readonly filePath: string; readonly content: Buffer; readonly executable?: boolean }
  | {
      readonly action: 'update';
      readonly filePath: string;
      readonly content: Buffer;
      readonly executable?: boolean;
      readonly lastCommitId?: string;
    }
  | { readonly action: 'delete'; readonly filePath: string; readonly lastCommitId?: string }
  | {
      readonly action: 'move';
      readonly filePath: string;
      readonly previousPath: string;
      readonly content?: Buffer;
      readonly lastCommitId?: string;
    }
  | { readonly action: 'chmod'; readonly filePath: string; readonly executable: boolean };

/** A person and a time, for the author and committer lines. */
export interface Signature {
  readonly name: string;
  readonly email: string;
}

/** What to commit, onto what, and which ref to move. */
export interface CommitWrite {
  /** The commit the new one builds on; null for a first commit (an empty repository or an orphan branch). */
  readonly parent: string | null;
  readonly actions: readonly FileAction[];
  readonly message: string;
  readonly author: Signature;
  readonly committer: Signature;
  readonly when: Date;
  /** The full ref to move, e.g. `refs/heads/main`. */
  readonly ref: string;
  /** The value `ref` must still hold (ZERO_SHA: it must not exist yet). */
  readonly expected: string;
}

/** Refusals of a commit, in GitLab's words (a 400 with `{"message": …}`). */
export function commitRefusal(message: string): AppError {
  return new AppError('invalid', message, { code: 'render_api_error' });
}

interface Entry {
  readonly mode: string;
  readonly sha: string;
}

/** Write the commit and move the ref; returns the new commit's SHA. */
export async function writeCommit(dir: string, write: CommitWrite, run: GitRunOptions = {}): Promise<string> {
  const before = write.parent ? await readTree(dir, write.parent, run) : new Map<string, Entry>();
  const after = new Map(before);
  const blob = async (content: Buffer) =>
    (await gitIn(dir, ['hash-object', '-w', '--stdin'], run, 'The file could not be stored', { input: content })).stdout
      .toString('utf8')
      .trim();
  for (const action of write.actions) {
    const current = after.get(action.filePath);
    switch (action.action) {
      case 'create':
        assertFree(after, action.filePath);
        after.set(action.filePath, { mode: action.executable ? '100755' : '100644', sha: await blob(action.content) });
        break;
      case 'update':
        if (!current) throw commitRefusal("A file with this name doesn't exist");
        after.set(action.filePath, {
          mode: action.executable === undefined ? current.mode : action.executable ? '100755' : '100644',
          sha: await blob(action.content),
        });
        break;
      case 'delete':
        if (!current) throw commitRefusal("A file with this name doesn't exist");
        after.delete(action.filePath);
        break;
      case 'move': {
        const previous = after.get(action.previousPath);
        if (!previous) throw commitRefusal("A file with this name doesn't exist");
        after.delete(action.previousPath);
        assertFree(after, action.filePath);
        after.set(action.filePath, { mode: previous.mode, sha: action.content ? await blob(action.content) : previous.sha });
        break;
      }
      case 'chmod':
        if (!current) throw commitRefusal("A file with this name doesn't exist");
        after.set(action.filePath, { mode: action.executable ? '100755' : '100644', sha: current.sha });
        break;
    }
  }

  const tree = await writeTree(dir, write.parent, before, after, run);
  const env = {
    GIT_AUTHOR_NAME: clean(write.author.name),
    GIT_AUTHOR_EMAIL: clean(write.author.email),
    GIT_AUTHOR_DATE: `${Math.floor(write.when.getTime() / 1000)} +0000`,
    GIT_COMMITTER_NAME: clean(write.committer.name),
    GIT_COMMITTER_EMAIL: clean(write.committer.email),
    GIT_COMMITTER_DATE: `${Math.floor(write.when.getTime() / 1000)} +0000`,
  };
  // Stored as sent (commit-tree does not clean it up), as GitLab's commits API stores it.
  const message = write.message;
  const commitArgs = ['commit-tree', tree, ...(write.parent ? ['-p', write.parent] : [])];
  const commit = (await gitIn(dir, commitArgs, run, 'The commit could not be written', { input: message, env })).stdout
    .toString('utf8')
    .trim();
  try {
    await updateRef(dir, write.ref, commit, write.expected, run, `Could not update ${write.ref}. Please refresh and try again.`);
  } catch (e) {
    // GitLab answers a branch that moved under the commit with a 400 (Gitlab::Git::CommitError).
    if (e instanceof AppError && e.kind === 'conflict') throw commitRefusal(e.message);
    throw e;
  }
  return commit;
}

/** Every file of a commit's tree: path → mode and blob. */
async function readTree(dir: string, commit: string, run: GitRunOptions): Promise<Map<string, Entry>> {
  const out = await gitIn(dir, ['ls-tree', '-r', '-z', '--full-tree', '--end-of-options', commit], run, 'The tree could not be read');
  const entries = new Map<string, Entry>();
  for (const line of out.stdout.toString('utf8').split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', , sha = ''] = line.slice(0, tab).split(' ');
    entries.set(line.slice(tab + 1), { mode, sha });
  }
  return entries;
}

/** A path may be created only where no file or folder is, and under no file. */
function assertFree(files: ReadonlyMap<string, Entry>, filePath: string): void {
  if (files.has(filePath)) throw commitRefusal('A file with this name already exists');
  const asFolder = `${filePath}/`;
  for (const existing of files.keys()) {
    if (existing.startsWith(asFolder)) throw commitRefusal('A directory with this name already exists');
    if (filePath.startsWith(`${existing}/`)) throw commitRefusal('A file with this name already exists');
  }
}

/** The tree of `after`, built in a temporary index from the parent's tree and the changed paths only. */
async function writeTree(
  dir: string,
  parent: string | null,
  before: ReadonlyMap<string, Entry>,
  after: ReadonlyMap<string, Entry>,
  run: GitRunOptions,
): Promise<string> {
  const indexFile = path.join(path.resolve(dir), `cratehouse-index-${randomUUID()}`);
  const env = { GIT_INDEX_FILE: indexFile };
  try {
    if (parent) await gitIn(dir, ['read-tree', '--end-of-options', parent], run, 'The tree could not be read', { env });
    const removals: string[] = [];
    const additions: string[] = [];
    for (const [file] of before) if (!after.has(file)) removals.push(`0 ${ZERO_SHA}\t${file}\0`);
    for (const [file, entry] of after) {
      const old = before.get(file);
      if (!old || old.mode !== entry.mode || old.sha !== entry.sha) additions.push(`${entry.mode} ${entry.sha}\t${file}\0`);
    }
    // Removals first: a file may give way to a folder of the same name in one commit.
    const info = [...removals, ...additions].join('');
    if (info !== '') await gitIn(dir, ['update-index', '-z', '--index-info'], run, 'The files could not be staged', { input: info, env });
    return (await gitIn(dir, ['write-tree'], run, 'The tree could not be written', { env })).stdout.toString('utf8').trim();
  } finally {
    await rm(indexFile, { force: true });
    await rm(`${indexFile}.lock`, { force: true });
  }
}

/** git refuses these in an identity. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what git refuses
  return s.replace(/[<>\x00-\x1f]/g, '').trim();
}
