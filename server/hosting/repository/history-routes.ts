import type { Router } from 'express';
import { mountBranchRoutes } from './branch-routes.js';
import { mountCommitRoutes } from './commit-routes.js';
import { mountCompareRoutes } from './compare-routes.js';
import { mountFileWriteRoutes } from './file-write-routes.js';
import type { HistoryRouteDeps } from './shared-routes.js';
import { mountTagRoutes } from './tag-routes.js';

export type { HistoryRouteDeps } from './shared-routes.js';

/** Mount commits, branches, tags, compare, contributors and file writes under /projects/:id/repository. */
export function mountRepositoryHistoryRoutes(router: Router, deps: HistoryRouteDeps): void {
  mountCommitRoutes(router, deps);
  mountBranchRoutes(router, deps);
  mountTagRoutes(router, deps);
  mountCompareRoutes(router, deps);
  mountFileWriteRoutes(router, deps);
}
