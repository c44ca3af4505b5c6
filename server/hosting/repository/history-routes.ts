import type { Request, Response, Router } from 'express';
import type { ProjectRecord } from '../../store/schema.js';
import type { ProjectService } from '../projects/projects.js';
import { readableProjectOf, type RequestLinks } from '../request.js';
import { mountBranchRoutes } from './branch-routes.js';
import { mountCommitRoutes } from './commit-routes.js';
import { mountCompareRoutes } from './compare-routes.js';
import { mountFileWriteRoutes } from './file-write-routes.js';
import type { ProjectLinks } from './present-repository.js';
import type { RepositoryHistory } from './repository-history.js';
import type { RepositoryWriter } from './repository-writer.js';
import { mountTagRoutes } from './tag-routes.js';

/** What the repository history and write routes need. */
export interface HistoryRouteDeps {
  readonly projects: ProjectService;
  readonly history: RepositoryHistory;
  readonly writer: RepositoryWriter;
  readonly links: RequestLinks;
}

/** The readable project of `:id` and the links its entities carry. */
export interface ProjectContext {
  readonly project: Readonly<ProjectRecord>;
  readonly links: ProjectLinks;
}

/** Shared by the route files: the project (404 unless readable) and its links. */
export function projectContext(deps: HistoryRouteDeps, req: Request, res: Response): ProjectContext {
  const project = readableProjectOf(deps.projects, req, res);
  return { project, links: { projectUrl: `${deps.links.baseUrl(req)}/${deps.projects.fullPath(project)}`, projectId: project.id } };
}

/** Mount commits, branches, tags, compare, contributors and file writes under /projects/:id/repository. */
export function mountRepositoryHistoryRoutes(router: Router, deps: HistoryRouteDeps): void {
  mountCommitRoutes(router, deps);
  mountBranchRoutes(router, deps);
  mountTagRoutes(router, deps);
  mountCompareRoutes(router, deps);
  mountFileWriteRoutes(router, deps);
}
