import { AppError } from '../../http/errors.js';
import type { ProjectRecord } from '../../store/schema.js';
import type { ProjectStatistics, RootStorageStatistics } from '../api-types.js';
import type { ProjectStores } from './projects.js';

/** What the statistics read of a repository. */
interface RepositoryFigures {
  readonly commitCount: number;
  readonly repositorySize: number;
}

const noFigures: RepositoryFigures = { commitCount: 0, repositorySize: 0 };

/**
 * A project's commit count and repository bytes. GitLab reads these from its database, so a readable
 * project always has them: while a fork or import job is filling the folder (scheduled or started),
 * or when there is no repository at all, they are zero rather than a failure of git.
 */
async function repositoryFigures(from: ProjectStores, p: Readonly<ProjectRecord>): Promise<RepositoryFigures> {
  if (p.importStatus === 'scheduled' || p.importStatus === 'started') return noFigures;
  try {
    return await from.git.stats(from.paths.repository(p), p.defaultBranch);
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not-found') return noFigures;
    throw error;
  }
}

/** How storage figures reach the records, the repositories and their folders, and LFS's sizes. */
export type StorageSources = ProjectStores & {
  /** The bytes of the LFS objects a project links (none when LFS is not wired). */
  readonly lfsSize?: (projectId: number) => number;
};

/** A project's `statistics` (GitLab's ProjectStatistics): its repository (a walk by git) and stored uploads. */
export async function projectStatistics(from: StorageSources, p: Readonly<ProjectRecord>): Promise<ProjectStatistics> {
  const stats = await repositoryFigures(from, p);
  const uploadsSize = from.repo.uploadsOf(p.id).reduce((sum, u) => sum + u.size, 0);
  const lfsSize = from.lfsSize?.(p.id) ?? 0;
  return {
    commit_count: stats.commitCount,
    storage_size: stats.repositorySize + uploadsSize + lfsSize,
    repository_size: stats.repositorySize,
    wiki_size: 0,
    lfs_objects_size: lfsSize,
    job_artifacts_size: 0,
    packages_size: 0,
    snippets_size: 0,
    uploads_size: uploadsSize,
  };
}

/**
 * What a namespace's projects hold on disk, in GitLab's RootStorageStatistics fields: repository
 * bytes (the same walk as a project's `statistics`) and stored uploads (imported ones included).
 */
export async function namespaceStorage(from: StorageSources, namespaceId: number): Promise<RootStorageStatistics> {
  let repositorySize = 0;
  let uploadsSize = 0;
  let lfsSize = 0;
  for (const project of from.repo.projects) {
    if (project.namespaceId !== namespaceId) continue;
    repositorySize += (await repositoryFigures(from, project)).repositorySize;
    for (const upload of from.repo.uploadsOf(project.id)) uploadsSize += upload.size;
    lfsSize += from.lfsSize?.(project.id) ?? 0;
  }
  return {
    storage_size: repositorySize + uploadsSize + lfsSize,
    repository_size: repositorySize,
    uploads_size: uploadsSize,
    wiki_size: 0,
    lfs_objects_size: lfsSize,
    build_artifacts_size: 0,
    pipeline_artifacts_size: 0,
    packages_size: 0,
    snippets_size: 0,
  };
}
