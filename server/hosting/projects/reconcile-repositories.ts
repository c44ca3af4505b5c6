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
}

/** How a reconciliation treats repositories another node may be creating right now. */
export interface ReconcileOptions {
  /**
   * Leave unowned repositories modified, and projects without a repository updated, more recently
   * than this alone (ms): on a data dir shared by several nodes, another node may be part-way
   * through a create, rename or delete (record and repository move one after the other).
   */
  readonly spareYoungerThanMs?: number;
}

/**
 * Make the repositories on disk and the project records agree, at boot, before any request or job
 * runs. A process killed part-way through a create, fork, import, rename or delete can leave a
 * repository no project owns (it would block that name for good) or a project without its
 * repository. Unowned repositories are moved to `lost+found/repositories/<time>/…` (kept, never
 * deleted: the data may matter) and logged; a project whose repository is missing gets an empty
 * one, unless a fork or import job that will fill it is still to run.
 */
export async function reconcileRepositories(
  projects: ProjectService,
  stores: ProjectStores,
  log: Logger,
  now: Date = new Date(),
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const root = stores.paths.repositoryRoot;
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
  const stamp = lostAndFoundStamp(now);
  const movedAside: { from: string; to: string }[] = [];
  for (const dir of await stores.git.list(root)) {
    if (owned.has(path.resolve(dir)) || projects.isClaimed(dir)) continue;
    if (options.spareYoungerThanMs && now.getTime() - (await modifiedAt(dir)) < options.spareYoungerThanMs) continue;
    const to = await stores.git.moveAside(dir, root, stores.paths.lostAndFound, stamp);
    movedAside.push({ from: dir, to });
    log.info(
      `repositories: ${path.relative(root, dir)} belonged to no project (a create, rename or delete was interrupted); moved to ${to}`,
    );
  }
  const recreated: number[] = [];
  for (const p of stores.repo.projects) {
    // A scheduled or started fork or import is run again at boot, and makes its repository itself.
    if (p.importStatus === 'scheduled' || p.importStatus === 'started') continue;
    // Another node may be between committing this record and renaming its repository into place.
    if (options.spareYoungerThanMs && now.getTime() - Date.parse(p.updatedAt) < options.spareYoungerThanMs) continue;
    const dir = dirOf.get(p.id);
    if (!dir || (await stores.git.exists(dir))) continue;
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
  return { movedAside, recreated };
}

async function modifiedAt(dir: string): Promise<number> {
  try {
    return (await stat(dir)).mtimeMs;
  } catch {
    return 0;
  }
}
