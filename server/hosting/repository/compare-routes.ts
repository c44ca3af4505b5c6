import type { Router } from 'express';
import type { Contributor } from '../api-types.js';
import { paramsOf } from '../request.js';
import { projectContext, type HistoryRouteDeps } from './shared-routes.js';
import { presentCompare } from './present-repository.js';

/** Mount GET /projects/:id/repository/compare and …/repository/contributors. */
export function mountCompareRoutes(router: Router, deps: HistoryRouteDeps): void {
  const { history } = deps;

  router.get('/projects/:id/repository/compare', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req).require('from', 'to');
    const straight = p.bool('straight') ?? false;
    const [from, to] = p.checked(p.string('from'), p.string('to'));
    const found = await history.compare(project, from, to, straight);
    res.json(presentCompare({ ...found, from, to }, links));
  });

  router.get('/projects/:id/repository/contributors', async (req, res) => {
    const { project } = projectContext(deps, req, res);
    const p = paramsOf(req);
    const options = {
      ref: p.string('ref') || undefined,
      orderBy: p.oneOf('order_by', ['name', 'email', 'commits'] as const),
      sort: p.oneOf('sort', ['asc', 'desc'] as const),
    };
    p.check();
    const found = await history.contributors(project, options);
    // GitLab no longer counts lines per contributor: additions and deletions are always 0.
    deps.links.sendPage(
      req,
      res,
      found.map((c): Contributor => ({ name: c.name, email: c.email, commits: c.commits, additions: 0, deletions: 0 })),
    );
  });
}
