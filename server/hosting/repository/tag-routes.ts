import type { Router } from 'express';
import { paramsOf, viewerOf } from '../request.js';
import { projectContext, type HistoryRouteDeps } from './shared-routes.js';
import { presentTag } from './present-repository.js';

/** Mount GET/POST /projects/:id/repository/tags and GET …/tags/:tag_name. */
export function mountTagRoutes(router: Router, deps: HistoryRouteDeps): void {
  const { history, writer } = deps;

  router.get('/projects/:id/repository/tags', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req);
    const options = {
      search: p.string('search'),
      orderBy: p.oneOf('order_by', ['name', 'updated', 'version'] as const),
      sort: p.oneOf('sort', ['asc', 'desc'] as const),
    };
    p.check();
    const tags = await history.listTags(project, options);
    deps.links.sendPage(
      req,
      res,
      tags.map((t) => presentTag(t.tag, t.commit, links)),
    );
  });

  router.get('/projects/:id/repository/tags/:tag_name', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const found = await history.getTag(project, String(req.params.tag_name));
    res.json(presentTag(found.tag, found.commit, links));
  });

  router.post('/projects/:id/repository/tags', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req).require('tag_name', 'ref');
    const [name, ref] = p.checked(p.string('tag_name'), p.string('ref'));
    await writer.createTag(viewerOf(deps.projects, res), project, name, ref, p.string('message'));
    const created = await history.getTag(project, name);
    res.status(201).json(presentTag(created.tag, created.commit, links));
  });
}
