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
  const groupJson = (req: Request, group: Readonly<GroupRecord>) =>
    presentGroup(group, identity.fullPath(group), identity.fullName(group), links.baseUrl(req));

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
    const groups = identity.listGroups(viewer, { search, owned, minAccessLevel: minAccess, allAvailable, orderBy, sort });
    links.sendPage(
      req,
      res,
      groups.map((g) => groupJson(req, g)),
    );
  });

  router.post('/groups', async (req, res) => {
    const user = requireUser(res);
    const p = paramsOf(req);
    p.require('name', 'path');
    const required = [p.string('name'), p.string('path')] as const;
    const rest = {
      description: p.string('description'),
      visibility: p.oneOf('visibility', visibilities),
      parentId: p.int('parent_id') ?? null,
    };
    const [name, path] = p.checked(...required);
    const group = await identity.createGroup({ name, path, ...rest }, user);
    res.status(201).json(groupJson(req, group));
  });

  router.get('/groups/:id', (req, res) => {
    res.json(groupJson(req, identity.readableGroup(userOf(res), String(req.params.id))));
  });

  router.get('/groups/:id/members', (req, res) => {
    const group = identity.readableGroup(userOf(res), String(req.params.id));
    const members = identity.groupMembers(group).map(({ member, user }) => presentMember(member, user, links.baseUrl(req)));
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
    const [level] = p.checked(accessLevel);
    // user_id is required only without username, and a username sent as null reads as absent: '' then finds no user (404).
    const member = await identity.addGroupMember(user, group.id, userId ?? username ?? '', level, expiresAt);
    res.status(201).json(presentMember(member, identity.getUser(member.userId), links.baseUrl(req)));
  });
}
