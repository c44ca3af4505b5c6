import { ZERO_SHA } from './git-names.js';
import { gitIn } from './repository-command.js';
import type { GitRunOptions } from './run-git.js';

/** A file a push added or changed: its path and its new blob. */
export interface ChangedFile {
  readonly path: string;
  readonly blobId: string;
}

/** git's empty tree: what a new branch is compared with. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * The regular files added or modified from `before` to `after` (renames count as additions; a zero
 * `before` compares with the empty tree, so a new branch lists every file it holds).
 */
export async function listChangedFiles(dir: string, before: string, after: string, run: GitRunOptions = {}): Promise<ChangedFile[]> {
  const from = before === ZERO_SHA ? EMPTY_TREE : before;
  const out = await gitIn(
    dir,
    [
      '-c',
      'core.quotePath=false',
      'diff-tree',
      '-r',
      '--no-renames',
      '--diff-filter=AM',
      '--raw',
      '-z',
      '--end-of-options',
      from,
      after,
      '--',
    ],
    run,
    'The pushed changes could not be read',
  );
  const parts = out.stdout.toString('utf8').split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [, bMode, , blobId] = parts[i]!.slice(1).split(' ');
    if (blobId && (bMode === '100644' || bMode === '100755')) files.push({ path: parts[i + 1]!, blobId });
  }
  return files;
}
