import type { Router } from 'express';
import type { ProjectService } from '../projects/projects.js';
import type { RequestLinks } from '../request.js';
import { mountArchiveRoutes } from './archive-routes.js';
import { mountBlobRoutes } from './blob-routes.js';
import { mountFileRoutes } from './file-routes.js';
import type { RepositoryReader } from './repository-reader.js';
import { mountTreeRoutes } from './tree-routes.js';

/** What the read side of the repository API needs. */
export interface RepositoryReadRouteDeps {
  readonly projects: ProjectService;
  readonly reader: RepositoryReader;
  readonly links: RequestLinks;
}

/** The read side of GitLab's repository API: tree, files (GET, HEAD, raw), blobs and archives. */
export function mountRepositoryReadRoutes(router: Router, deps: RepositoryReadRouteDeps): void {
  mountTreeRoutes(router, deps);
  mountFileRoutes(router, deps);
  mountBlobRoutes(router, deps);
  mountArchiveRoutes(router, deps);
}
