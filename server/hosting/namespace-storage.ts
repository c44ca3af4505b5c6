import type { RootStorageStatistics } from './api-types.js';
import type { ProjectService } from './projects.js';

/**
 * What a namespace's projects hold on disk, in GitLab's RootStorageStatistics fields: repository
 * bytes (the same walk as a project's `statistics`) and stored uploads (imported ones included).
 */
export async function namespaceStorage(projects: ProjectService, namespaceId: number): Promise<RootStorageStatistics> {
  let repositorySize = 0;
  let uploadsSize = 0;
  for (const project of projects.repo.projects) {
    if (project.namespaceId !== namespaceId) continue;
    repositorySize += (await projects.git.stats(projects.paths.repository(project), project.defaultBranch)).repositorySize;
    for (const upload of projects.repo.uploadsOf(project.id)) uploadsSize += upload.size;
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
