import type { Request, Router } from 'express';
import type { IdentityService } from '../../auth/identity.js';
import type { GroupRecord } from '../../store/schema.js';
import { presentGroup, presentMember } from '../present.js';
import { paramsOf, requireUser, userOf, visibilities, type RequestLinks } from '../request.js';

/** What the group routes need. */
export interface GroupRouteDeps {
  readonly identity: IdentityService;
  readonly links: RequestLinks;
}

/** Mount /groups (list, create, get) and /groups/:id/members (list, add). */
export function mountGroupRoutes(router: Router, deps: GroupRouteDeps): void {
  const { identity, links } = deps;
  const groupJson = (req: Request, group: Readonly<GroupRecord>) => presentGroup(group, identity.fullPath(group), identity.fullName(group), links.baseUrl(req));

  router.get('/groups', (req, res) => {
    const viewer = userOf(res);
    const p = paramsOf(req);
    const search = p.string('search')?.toLowerCase();
    const owned = p.bool('owned');
    const minAccess = p.int('min_access_level');
    const orderBy = p.oneOf('order_by', ['name', 'path', 'id', 'similarity'] as const) ?? 'name';
    const sort = p.oneOf('sort', ['asc', 'desc'] as const) ?? 'asc';
    const allAvailable = p.bool('all_available');
    p.check();
    const groups = identity.repo.groups
      .filter((g) => identity.canReadGroup(viewer, g))
      .filter((g) => {
        // Like GitLab: a signed-in non-admin sees the groups they belong to (with their ancestors and
        // descendants) unless all_available is set; anonymous callers see public groups.
        if (!viewer || viewer.admin || allAvailable) return true;
        return identity.inHierarchyOf(viewer, g);
      })
      .filter((g) => !search || g.name.toLowerCase().includes(search) || g.path.toLowerCase().includes(search))
      .filter((g) => !owned || (viewer !== null && identity.accessLevel(viewer, g.id) >= 50))
      .filter((g) => minAccess === undefined || (viewer !== null && identity.accessLevel(viewer, g.id) >= minAccess));
    const key = orderBy === 'id' ? (g: (typeof groups)[number]) => g.id : (g: (typeof groups)[number]) => (orderBy === 'path' ? g.path : g.name).toLowerCase();
    groups.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      const c = x < y ? -1 : x > y ? 1 : a.id - b.id;
      return sort === 'asc' ? c : -c;
    });
    links.sendPage(req, res, groups.map((g) => groupJson(req, g)));
  });

  router.post('/groups', async (req, res) => {
    const user = requireUser(res);
    const p = paramsOf(req);
    p.require('name', 'path');
    const input = {
      name: p.string('name') ?? '',
      path: p.string('path') ?? '',
      description: p.string('description'),
      visibility: p.oneOf('visibility', visibilities),
      parentId: p.int('parent_id') ?? null,
    };
    p.check();
    const group = await identity.createGroup(input, user);
    res.status(201).json(groupJson(req, group));
  });

  router.get('/groups/:id', (req, res) => {
    res.json(groupJson(req, identity.readableGroup(userOf(res), String(req.params.id))));
  });

  router.get('/groups/:id/members', (req, res) => {
    const group = identity.readableGroup(userOf(res), String(req.params.id));
    const members = identity.repo.members
      .filter((m) => m.groupId === group.id)
      .flatMap((m) => {
        const u = identity.repo.userById(m.userId);
        return u ? [presentMember(m, u, links.baseUrl(req))] : [];
      });
    links.sendPage(req, res, members);
  });

  router.post('/groups/:id/members', async (req, res) => {
    const user = requireUser(res);
    const group = identity.readableGroup(user, String(req.params.id));
    const p = paramsOf(req);
    if (!p.has('username')) p.require('user_id');
    p.require('access_level');
    const userId = p.int('user_id');
    const username = p.string('username');
    const accessLevel = p.int('access_level');
    const expiresAt = p.string('expires_at') ?? null;
    p.check();
    const member = await identity.addGroupMember(user, group.id, userId ?? username ?? '', accessLevel ?? 0, expiresAt);
    res.status(201).json(presentMember(member, identity.findUser(member.userId), links.baseUrl(req)));
  });
}
