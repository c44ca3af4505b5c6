import type { ProjectRecord } from '../../store/schema.js';
import type { ProjectStatistics, RootStorageStatistics } from '../api-types.js';
import type { ProjectsRepo } from './projects-repo.js';
import type { ProjectPaths, RepositoryOps } from './projects.js';

/** How storage figures reach the records, the repositories and their folders. */
export interface StorageSources {
  readonly repo: ProjectsRepo;
  readonly git: RepositoryOps;
  readonly paths: ProjectPaths;
  /** The bytes of the LFS objects a project links (none when LFS is not wired). */
  readonly lfsSize?: (projectId: number) => number;
}

/** A project's `statistics` (GitLab's ProjectStatistics): its repository (a walk by git) and stored uploads. */
export async function projectStatistics(from: StorageSources, p: Readonly<ProjectRecord>): Promise<ProjectStatistics> {
  const stats = await from.git.stats(from.paths.repository(p), p.defaultBranch);
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
    repositorySize += (await from.git.stats(from.paths.repository(project), project.defaultBranch)).repositorySize;
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
