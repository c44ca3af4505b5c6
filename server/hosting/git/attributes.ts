/**
 * Git attributes of paths as a commit's `.gitattributes` files set them, read from a bare
 * repository: the commit is read into a temporary index and `git check-attr --cached` answers
 * (git 2.39 has no `check-attr --source`).
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { gitIn } from './repository-command.js';
import type { GitRunOptions } from './run-git.js';

/** The paths among `paths` that `commit`'s attributes give `filter=lfs` (what `git lfs track` writes). */
export async function findLfsTrackedPaths(
  dir: string,
  commit: string,
  paths: readonly string[],
  run: GitRunOptions = {},
): Promise<ReadonlySet<string>> {
  if (paths.length === 0) return new Set();
  const indexFile = path.join(path.resolve(dir), `cratehouse-attr-${randomUUID()}.index`);
  const env = { GIT_INDEX_FILE: indexFile };
  try {
    await gitIn(dir, ['read-tree', '--end-of-options', commit], run, 'The attributes could not be read', { env });
    const out = await gitIn(dir, ['check-attr', '--cached', '-z', '--stdin', 'filter'], run, 'The attributes could not be read', {
      env,
      input: paths.map((p) => `${p}\0`).join(''),
    });
    // `-z` output: path NUL attribute NUL value NUL, per path.
    const fields = out.stdout.toString('utf8').split('\0');
    const tracked = new Set<string>();
    for (let i = 0; i + 2 < fields.length; i += 3) if (fields[i + 1] === 'filter' && fields[i + 2] === 'lfs') tracked.add(fields[i]!);
    return tracked;
  } finally {
    await rm(indexFile, { force: true });
  }
}
