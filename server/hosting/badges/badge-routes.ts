import type { Request, Response, Router } from 'express';
import { paginate } from '../../http/pagination.js';
import type { GroupRecord } from '../../store/schema.js';
import { presentBadge, presentBadgeRender, validateBadgeUrls, type BadgeService } from './badges.js';
import { badgeIdOf, badgeInputOf } from './badge-params.js';
import type { ProjectService } from '../projects/projects.js';
import { paramsOf, requireUser, userOf, viewerOf, type RequestLinks } from '../request.js';

/** What the badge routes need. */
export interface BadgeRouteDeps {
  readonly projects: ProjectService;
  readonly badges: BadgeService;
  readonly links: RequestLinks;
}

/**
 * Mount /groups/:id/badges (list, render, get, create, edit, delete). Checks run in Grape's order:
 * the router's 401 for writes, then parameter validation (400), then the group (404) and the
 * caller's rights (403); render authenticates inside the endpoint, so its 400 comes before its 401.
 */
export function mountBadgeRoutes(router: Router, deps: BadgeRouteDeps): void {
  const { projects } = deps;
  const { badges } = deps;
  // `%{gitlab_server}` is the host clients reach this server at (the public URL's, when configured).
  const valuesFor = (req: Request, res: Response, group: Readonly<GroupRecord>) =>
    badges.placeholderValues(viewerOf(projects, res), group, new URL(deps.links.baseUrl(req)).host);
  const groupId = (req: Request) => String(req.params.id);

  router.get('/groups/:id/badges', async (req, res) => {
    const p = paramsOf(req);
    const name = p.string('name');
    p.check();
    const group = badges.readableGroup(userOf(res), groupId(req));
    const page = paginate(badges.list(group, name), { url: deps.links.requestUrl(req) });
    // Rendering needs git (the commit sha): only ask when there is something to render.
    const values = page.items.length > 0 ? await valuesFor(req, res, group) : null;
    res.set(page.headers).json(page.items.map((b) => presentBadge(b, values)));
  });

  // Before /:badge_id, which would otherwise take "render" as an id.
  router.get('/groups/:id/badges/render', async (req, res) => {
    const p = paramsOf(req);
    p.require('link_url', 'image_url');
    const [linkUrl, imageUrl] = p.checked(p.string('link_url'), p.string('image_url'));
    const group = badges.ownedGroup(requireUser(res), groupId(req));
    validateBadgeUrls(linkUrl, imageUrl);
    res.json(presentBadgeRender(linkUrl, imageUrl, await valuesFor(req, res, group)));
  });

  router.get('/groups/:id/badges/:badge_id', async (req, res) => {
    const badgeId = badgeIdOf(req.params.badge_id);
    const group = badges.readableGroup(userOf(res), groupId(req));
    const badge = badges.find(group, badgeId);
    res.json(presentBadge(badge, await valuesFor(req, res, group)));
  });

  router.post('/groups/:id/badges', async (req, res) => {
    const user = requireUser(res);
    const p = paramsOf(req);
    p.require('link_url', 'image_url');
    const input = badgeInputOf(p);
    p.check();
    const group = badges.ownedGroup(user, groupId(req));
    const badge = await badges.create(group, input);
    res.status(201).json(presentBadge(badge, await valuesFor(req, res, group)));
  });

  router.put('/groups/:id/badges/:badge_id', async (req, res) => {
    const user = requireUser(res);
    const badgeId = badgeIdOf(req.params.badge_id);
    const p = paramsOf(req);
    const input = badgeInputOf(p);
    p.check();
    const group = badges.ownedGroup(user, groupId(req));
    const badge = await badges.update(group, badgeId, input);
    res.json(presentBadge(badge, await valuesFor(req, res, group)));
  });

  router.delete('/groups/:id/badges/:badge_id', async (req, res) => {
    const user = requireUser(res);
    const badgeId = badgeIdOf(req.params.badge_id);
    const group = badges.ownedGroup(user, groupId(req));
    await badges.remove(group, badgeId);
    res.status(204).end();
  });
}
