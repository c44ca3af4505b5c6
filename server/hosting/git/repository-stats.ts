/** A repository's statistics: branches, HEAD, commit count and size on disk. */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { git } from './repository-command.js';
import type { GitRunOptions } from './run-git.js';

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
