import type { Router } from 'express';
import { paramsOf, viewerOf } from '../request.js';
import { projectContext, type HistoryRouteDeps } from './shared-routes.js';
import { presentBranch } from './present-repository.js';

/** Mount GET/POST /projects/:id/repository/branches, GET and DELETE …/branches/:branch. */
export function mountBranchRoutes(router: Router, deps: HistoryRouteDeps): void {
  const { history, writer } = deps;

  router.get('/projects/:id/repository/branches', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req);
    const search = p.string('search');
    p.check();
    const branches = await history.listBranches(viewerOf(deps.projects, res), project, search);
    deps.links.sendPage(
      req,
      res,
      branches.map((b) => presentBranch(b, links)),
    );
  });

  router.get('/projects/:id/repository/branches/:branch', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    res.json(presentBranch(await history.getBranch(viewerOf(deps.projects, res), project, String(req.params.branch)), links));
  });

  router.post('/projects/:id/repository/branches', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req).require('branch', 'ref');
    const [branch, ref] = p.checked(p.string('branch'), p.string('ref'));
    const viewer = viewerOf(deps.projects, res);
    await writer.createBranch(viewer, project, branch, ref);
    res.status(201).json(presentBranch(await history.getBranch(viewer, project, branch), links));
  });

  router.delete('/projects/:id/repository/branches/:branch', async (req, res) => {
    const { project } = projectContext(deps, req, res);
    await writer.deleteBranch(viewerOf(deps.projects, res), project, String(req.params.branch));
    res.status(204).end();
  });
}
