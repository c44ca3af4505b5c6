import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../http/logger.js';
import { lostAndFoundStamp, type ProjectService, type ProjectStores } from './projects.js';

/** What one reconciliation did. */
export interface ReconcileReport {
  /** Repositories no project owned: where each was, and where it went under lost+found. */
  readonly movedAside: readonly { readonly from: string; readonly to: string }[];
  /** Projects whose repository was missing and was created again, empty. */
  readonly recreated: readonly number[];
  /** Every disagreement this pass found, repaired or spared (keys for `onlyIfSeenBefore`). */
  readonly found: ReadonlySet<string>;
}

/** How a reconciliation treats repositories another node (or this one) may be creating right now. */
export interface ReconcileOptions {
  /**
   * Leave unowned repositories changed (contents or name), and projects without a repository
   * updated, more recently than this alone (ms): on a data dir shared by several nodes, another
   * node may be part-way through a create, rename or delete (record and repository move one after
   * the other).
   */
  readonly spareYoungerThanMs?: number;
  /**
   * Repair only the disagreements a previous pass already found (its `found`): one still there a
   * whole interval later is no operation in flight, whatever its timestamps say (a rename moves an
   * old repository before its record is updated). Unset: repair whatever is found (at boot).
   */
  readonly onlyIfSeenBefore?: ReadonlySet<string>;
}

/**
 * Make the repositories on disk and the project records agree: at boot, before any request or job
 * runs, and then periodically on a running node (periodic-reconciliation.ts). A process killed
 * part-way through a create, fork, import, rename or delete can leave a repository no project owns
 * (it would block that name for good) or a project without its repository. Unowned repositories
 * are moved to `lost+found/repositories/<time>/…` (kept, never deleted: the data may matter) and
 * logged. A project whose repository is missing gets an empty one, unless a fork or import job
 * that will fill it is still to run: GitLab answers for a project whose repository does not exist
 * as for an empty one (`empty_repo: true`), and the record (members, settings, stars…) is kept.
 */
export async function reconcileRepositories(
  projects: ProjectService,
  stores: ProjectStores,
  log: Logger,
  now: Date = new Date(),
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const root = stores.paths.repositoryRoot;
  const onDisk = await stores.git.list(root);
  // Before deciding that nobody owns a folder: every record other nodes committed is in the mirror.
  await stores.repo.sync();
  const owned = new Map<string, number>();
  const dirOf = new Map<number, string>();
  for (const p of stores.repo.projects) {
    try {
      const dir = path.resolve(stores.paths.repository(p));
      owned.set(dir, p.id);
      dirOf.set(p.id, dir);
    } catch {
      log.error(`repositories: project ${p.id} has no namespace ${p.namespaceId}; its repository cannot be placed`, null);
    }
  }
  const found = new Set<string>();
  const young = (at: number) => !!options.spareYoungerThanMs && now.getTime() - at < options.spareYoungerThanMs;
  const unseen = (key: string) => options.onlyIfSeenBefore !== undefined && !options.onlyIfSeenBefore.has(key);
  const stamp = lostAndFoundStamp(now);
  const movedAside: { from: string; to: string }[] = [];
  for (const dir of onDisk) {
    if (owned.has(path.resolve(dir)) || projects.isClaimed(dir)) continue;
    const key = `unowned ${path.resolve(dir)}`;
    found.add(key);
    if (unseen(key) || young(await changedAt(dir))) continue;
    // Gone meanwhile (another node's pass, a create that took it aside): nothing to move.
    if (!(await stores.git.exists(dir))) continue;
    const to = await stores.git.moveAside(dir, root, stores.paths.lostAndFound, stamp);
    movedAside.push({ from: dir, to });
    log.info(
      `repositories: ${path.relative(root, dir)} belonged to no project (a create, rename or delete was interrupted); moved to ${to}`,
    );
  }
  const recreated: number[] = [];
  // A repository in the listing exists: only the others cost a stat (at 100,000 projects a pass
  // would otherwise make 100,000 of them). One removed since the listing waits for the next pass.
  const listed = new Set(onDisk.map((dir) => path.resolve(dir)));
  for (const p of stores.repo.projects) {
    // A scheduled or started fork or import is run again at boot, and makes its repository itself.
    if (p.importStatus === 'scheduled' || p.importStatus === 'started') continue;
    const dir = dirOf.get(p.id);
    if (!dir || listed.has(dir) || projects.isClaimed(dir) || (await stores.git.exists(dir))) continue;
    const key = `missing ${p.id} ${dir}`;
    found.add(key);
    // Another node may be between committing this record and renaming its repository into place.
    if (unseen(key) || young(Date.parse(p.updatedAt))) continue;
    try {
      await stores.git.init(dir, p.defaultBranch);
    } catch (error) {
      log.error(`repositories: project ${p.id} has no repository on disk and an empty one could not be created`, error);
      continue;
    }
    if (!p.emptyRepo) await stores.repo.update(p.id, { emptyRepo: true });
    recreated.push(p.id);
    log.info(`repositories: project ${p.id} (${projects.fullPath(p)}) had no repository on disk; created an empty one`);
  }
  return { movedAside, recreated, found };
}

/**
 * When a folder last changed: its contents (mtime) or its name (ctime: a rename moves an old
 * repository into place without touching its mtime).
 */
async function changedAt(dir: string): Promise<number> {
  try {
    const s = await stat(dir);
    return Math.max(s.mtimeMs, s.ctimeMs);
  } catch {
    return 0;
  }
}
