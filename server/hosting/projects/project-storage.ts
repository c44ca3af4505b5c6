import type { ProjectRecord } from '../../store/schema.js';
import type { ProjectStatistics, RootStorageStatistics } from '../api-types.js';
import type { ProjectStores } from './projects.js';

/** A project's `statistics` (GitLab's ProjectStatistics): its repository (a walk by git) and stored uploads. */
export async function projectStatistics(from: ProjectStores, p: Readonly<ProjectRecord>): Promise<ProjectStatistics> {
  const stats = await from.git.stats(from.paths.repository(p), p.defaultBranch);
  const uploadsSize = from.repo.uploadsOf(p.id).reduce((sum, u) => sum + u.size, 0);
  return {
    commit_count: stats.commitCount,
    storage_size: stats.repositorySize + uploadsSize,
    repository_size: stats.repositorySize,
    wiki_size: 0,
    lfs_objects_size: 0,
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
export async function namespaceStorage(from: ProjectStores, namespaceId: number): Promise<RootStorageStatistics> {
  let repositorySize = 0;
  let uploadsSize = 0;
  for (const project of from.repo.projects) {
    if (project.namespaceId !== namespaceId) continue;
    repositorySize += (await from.git.stats(from.paths.repository(project), project.defaultBranch)).repositorySize;
    for (const upload of from.repo.uploadsOf(project.id)) uploadsSize += upload.size;
  }
  return {
    storage_size: repositorySize + uploadsSize,
    repository_size: repositorySize,
    uploads_size: uploadsSize,
    wiki_size: 0,
    lfs_objects_size: 0,
    build_artifacts_size: 0,
    pipeline_artifacts_size: 0,
    packages_size: 0,
    snippets_size: 0,
  };
}
