import type { Request, Router } from 'express';
import { paginate } from '../../http/pagination.js';
import type { ProjectRecord } from '../../store/schema.js';
import { presentBadge } from './badges.js';
import type { ProjectBadgeService, ShownBadge } from './project-badges.js';
import { badgeIdOf, badgeInputOf } from './badge-params.js';
import type { ProjectService } from '../projects/projects.js';
import { paramsOf, readableProjectOf, requireUser, viewerOf, type RequestLinks } from '../request.js';

/** What the project badge routes need. */
export interface ProjectBadgeRouteDeps {
  readonly projects: ProjectService;
  readonly projectBadges: ProjectBadgeService;
  readonly links: RequestLinks;
}

/**
 * Mount /projects/:id/badges (list, render, get, create, edit, delete), in the group routes' order
 * of checks: the router's 401 for writes, parameters (400), the project (404), the caller's rights (403).
 */
export function mountProjectBadgeRoutes(router: Router, deps: ProjectBadgeRouteDeps): void {
  const { projects, projectBadges } = deps;
  // `%{gitlab_server}` is the host clients reach this server at (the public URL's, when configured).
  const hostOf = (req: Request) => new URL(deps.links.baseUrl(req)).host;
  const valuesFor = (req: Request, project: Readonly<ProjectRecord>) => projectBadges.placeholderValues(project, hostOf(req));
  const present = (shown: ShownBadge, values: Awaited<ReturnType<typeof valuesFor>> | null) =>
    presentBadge(shown.badge, values, shown.kind);

  router.get('/projects/:id/badges', async (req, res) => {
    const p = paramsOf(req);
    const name = p.string('name');
    p.check();
    const project = readableProjectOf(projects, req, res);
    const page = paginate(projectBadges.list(project, name), { url: deps.links.requestUrl(req) });
    // Rendering needs git (the commit sha): only ask when there is something to render.
    const values = page.items.length > 0 ? await valuesFor(req, project) : null;
    res.set(page.headers).json(page.items.map((b) => present(b, values)));
  });

  // Before /:badge_id, which would otherwise take "render" as an id.
  router.get('/projects/:id/badges/render', async (req, res) => {
    const p = paramsOf(req);
    p.require('link_url', 'image_url');
    const [linkUrl, imageUrl] = p.checked(p.string('link_url'), p.string('image_url'));
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    res.json(await projectBadges.render(viewerOf(projects, res), project, linkUrl, imageUrl, hostOf(req)));
  });

  router.get('/projects/:id/badges/:badge_id', async (req, res) => {
    const badgeId = badgeIdOf(req.params.badge_id);
    const project = readableProjectOf(projects, req, res);
    const shown = projectBadges.find(project, badgeId);
    res.json(present(shown, await valuesFor(req, project)));
  });

  router.post('/projects/:id/badges', async (req, res) => {
    requireUser(res);
    const p = paramsOf(req);
    p.require('link_url', 'image_url');
    const input = badgeInputOf(p);
    p.check();
    const project = readableProjectOf(projects, req, res);
    const badge = await projectBadges.create(viewerOf(projects, res), project, input);
    res.status(201).json(presentBadge(badge, await valuesFor(req, project), 'project'));
  });

  router.put('/projects/:id/badges/:badge_id', async (req, res) => {
    requireUser(res);
    const badgeId = badgeIdOf(req.params.badge_id);
    const p = paramsOf(req);
    const input = badgeInputOf(p);
    p.check();
    const project = readableProjectOf(projects, req, res);
    const badge = await projectBadges.update(viewerOf(projects, res), project, badgeId, input);
    res.json(presentBadge(badge, await valuesFor(req, project), 'project'));
  });

  router.delete('/projects/:id/badges/:badge_id', async (req, res) => {
    requireUser(res);
    const badgeId = badgeIdOf(req.params.badge_id);
    const project = readableProjectOf(projects, req, res);
    await projectBadges.remove(viewerOf(projects, res), project, badgeId);
    res.status(204).end();
  });
}
