// React Query keys of a project's repository data: everything under `repository(id)` is refreshed
// after a commit from the Files tab.

/** Query keys of the Files tab. */
export const repositoryKeys = {
  repository: (id: number) => ['hosting', 'repository', id] as const,
  refs: (id: number) => ['hosting', 'repository', id, 'refs'] as const,
  tree: (id: number, ref: string, path: string) => ['hosting', 'repository', id, 'tree', ref, path] as const,
  meta: (id: number, ref: string, path: string) => ['hosting', 'repository', id, 'meta', ref, path] as const,
  text: (id: number, ref: string, path: string) => ['hosting', 'repository', id, 'text', ref, path] as const,
  commits: (id: number, ref: string, path: string) => ['hosting', 'repository', id, 'commits', ref, path] as const,
  analysis: (id: number, ref: string, path: string) => ['hosting', 'repository', id, 'analysis', ref, path] as const,
};
