import type { Router } from 'express';
import type { ProjectService } from '../projects/projects.js';
import type { RequestLinks } from '../request.js';
import { mountAnalysisRoutes } from './analysis-routes.js';
import { mountArchiveRoutes } from './archive-routes.js';
import { mountBlobRoutes } from './blob-routes.js';
import type { RepositoryFileAnalyses } from './file-analysis.js';
import { mountFileRoutes } from './file-routes.js';
import type { LfsContent } from './lfs-content.js';
import type { RepositoryReader } from './repository-reader.js';
import { mountTreeRoutes } from './tree-routes.js';

/** What the read side of the repository API needs. */
export interface RepositoryReadRouteDeps {
  readonly projects: ProjectService;
  readonly reader: RepositoryReader;
  readonly links: RequestLinks;
  /** Resolves LFS pointers for `lfs=true` raw reads. */
  readonly lfsContent: LfsContent;
  readonly analyses: RepositoryFileAnalyses;
}

/** The read side of GitLab's repository API: tree, files (GET, HEAD, raw), blobs and archives; and the audio analysis of files. */
export function mountRepositoryReadRoutes(router: Router, deps: RepositoryReadRouteDeps): void {
  mountTreeRoutes(router, deps);
  mountFileRoutes(router, deps);
  mountBlobRoutes(router, deps);
  mountArchiveRoutes(router, deps);
  mountAnalysisRoutes(router, deps);
}
