import express, { type Request, type Response, type Router } from 'express';
import type { AuthGuard } from '../auth/authenticate.js';
import { familyOf, hostingScopeRules } from '../auth/scopes.js';
import type { Identity, IdentityService } from '../auth/identity.js';
import type { Meter } from '../auth/metering.js';
import { createErrorMiddleware } from '../http/error-middleware.js';
import { AppError, notFound } from '../http/errors.js';
import { parseJsonBodies } from '../http/json-body.js';
import type { Logger } from '../http/logger.js';
import { paginate } from '../http/pagination.js';
import { requestBaseUrl } from '../http/request-host.js';
import type { UserRecord, Visibility } from '../store/schema.js';
import { mountBadgeRoutes } from './badge-routes.js';
import { mountExportRoutes } from './export-routes.js';
import { gitlabCompatibleVersion } from './gitlab-version.js';
import type { BadgesRepo } from './badges-repo.js';
import { namespaceStorage } from './namespace-storage.js';
import { mountNotificationRoutes } from './notification-routes.js';
import { groupNotificationLevelOf, notificationLevelOf } from './notification-settings.js';
import type { NotificationsRepo } from './notifications-repo.js';
import { Params } from './params.js';
import { mountHookRoutes } from './hook-routes.js';
import type { HookService } from './hooks.js';
import type { ProjectActions } from './project-actions.js';
import type { ProjectExportService } from './project-export.js';
import type { ProjectImportService } from './project-import.js';
import { mountProjectRoutes } from './project-routes.js';
import type { ProjectService } from './projects.js';
import { presentGroup, presentHostingError, presentMember, presentNamespace, presentToken, presentUser, presentUserBasic } from './present.js';

/** What the hosting service needs from the composition root. */
export interface HostingDeps {
  readonly version: string;
  readonly identity: IdentityService;
  /** Resolves callers (failed-authentication limit, token, scopes). */
  readonly auth: AuthGuard;
  readonly meter: Meter;
  readonly publicUrl: string | null;
  readonly maxJsonKb: number;
  readonly projects: ProjectService;
  readonly projectActions: ProjectActions;
  readonly badges: BadgesRepo;
  readonly notifications: NotificationsRepo;
  readonly hooks: HookService;
  readonly exports: ProjectExportService;
  readonly imports: ProjectImportService;
  /** Where project uploads stream to while they arrive, and how large they may be. */
  readonly uploads: { readonly tmpDir: string; readonly maxBytes: number };
  readonly log: Logger;
}

const visibilities = ['private', 'internal', 'public'] as const;

/** The /api/v4 router. */
export function createHostingRouter(deps: HostingDeps): Router {
  const { identity } = deps;
  const router = express.Router();
  // Before the body parsers, so their errors (bad JSON, 413) carry the headers too.
  router.use((_req, res, next) => {
    res.set({ 'X-Frame-Options': 'SAMEORIGIN', 'X-Content-Type-Options': 'nosniff' });
    // GitLab answers `Content-Type: application/json` with no charset, and python-gitlab 3.x parses a
    // body only when the header is exactly that; express would append "; charset=utf-8".
    // (res.type/res.set would add the charset back: set the raw header.)
    res.json = (body: unknown) => {
      res.setHeader('Content-Type', 'application/json');
      return res.send(Buffer.from(JSON.stringify(body) ?? 'null'));
    };
    next();
  });
  router.use(parseJsonBodies({ limitKb: deps.maxJsonKb }));
  router.use(express.urlencoded({ extended: true, limit: `${deps.maxJsonKb}kb` }));

  // Resolve the caller once; like GitLab, a presented but unknown token is a 401 even on public reads,
  // and every non-GET needs a caller. Lookup order is GitLab's: Bearer, private_token, PRIVATE-TOKEN.
  // The token's scopes are checked here too, by the route family of hostingScopeRules.
  router.use(async (req, res, next) => {
    const caller = await deps.auth.authenticate(req, ['bearer', 'private-token-param', 'private-token-header'], familyOf(hostingScopeRules, req.method, req.path));
    res.locals.caller = caller;
    if (!caller && req.method !== 'GET' && req.method !== 'HEAD') throw new AppError('unauthorized', 'Unauthorized');
    if (caller) {
      res.on('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path;
        if (route) deps.meter.request(caller.tenant, `${req.method} /api/v4${route}`);
      });
    }
    next();
  });

  const callerOf = (res: Response): Identity | null => (res.locals.caller as Identity | null) ?? null;
  const userOf = (res: Response): Readonly<UserRecord> | null => callerOf(res)?.user ?? null;
  const requireUser = (res: Response): Readonly<UserRecord> => {
    const user = userOf(res);
    if (!user) throw new AppError('unauthorized', 'Unauthorized');
    return user;
  };
  const requireAdmin = (res: Response): Readonly<UserRecord> => {
    const user = requireUser(res);
    if (!user.admin) throw new AppError('forbidden', 'Forbidden');
    return user;
  };
  const baseUrl = (req: Request) => requestBaseUrl(req, deps.publicUrl);
  // The public URL may carry a path prefix (a reverse proxy at /cratehouse); keep it.
  const requestUrl = (req: Request) => new URL(baseUrl(req) + req.originalUrl);
  const params = (req: Request) => new Params({ ...(req.query as Record<string, unknown>), ...((req.body as Record<string, unknown> | undefined) ?? {}) });
  const today = () => new Date().toISOString().slice(0, 10);
  const sendPage = <T>(req: Request, res: Response, items: readonly T[]) => {
    const page = paginate(items, { url: requestUrl(req) });
    res.set(page.headers).json(page.items);
  };
  const groupJson = (req: Request, group: Parameters<typeof presentGroup>[0]) => {
    return presentGroup(group, identity.fullPath(group), identity.fullName(group), baseUrl(req));
  };

  // GitLab answers /version to signed-in callers only (lib/api/version.rb: authenticate!).
  router.get('/version', (_req, res) => {
    requireUser(res);
    res.json({ version: gitlabCompatibleVersion, revision: `cratehouse-${deps.version}` });
  });

  router.get('/user', (req, res) => {
    const user = requireUser(res);
    res.json(presentUser(user, baseUrl(req), user));
  });

  router.get('/users', (req, res) => {
    const viewer = userOf(res);
    const p = params(req);
    const username = p.string('username');
    const search = p.string('search')?.toLowerCase();
    const active = p.bool('active');
    const blocked = p.bool('blocked');
    p.check();
    // Anonymous callers may look a user up by username only, as on GitLab instances with public profiles.
    if (!viewer && username === undefined) throw new AppError('forbidden', 'Not authorized to access /api/v4/users');
    const users = identity.repo.users
      .filter((u) => username === undefined || u.username.toLowerCase() === username.toLowerCase())
      .filter((u) => !search || u.username.toLowerCase().includes(search) || u.name.toLowerCase().includes(search) || (viewer?.admin && u.email.toLowerCase().includes(search)))
      .filter((u) => !active || u.state === 'active')
      .filter((u) => !blocked || u.state === 'blocked')
      .sort((a, b) => a.id - b.id);
    sendPage(req, res, users.map((u) => (viewer?.admin ? presentUser(u, baseUrl(req), viewer) : presentUserBasic(u, baseUrl(req)))));
  });

  router.get('/users/:id', (req, res) => {
    const p = new Params({ id: req.params.id });
    const id = p.int('id');
    p.check();
    const user = id === undefined ? undefined : identity.repo.userById(id);
    if (!user) throw notFound('User');
    res.json(presentUser(user, baseUrl(req), userOf(res)));
  });

  router.post('/users', async (req, res) => {
    requireAdmin(res);
    const p = params(req);
    // GitLab's declaration order: email, at_least_one_of(password, reset_password, force_random_password), name, username.
    p.require('email').requireOneOf('password', 'reset_password', 'force_random_password').require('name', 'username');
    const input = {
      email: p.string('email') ?? '',
      name: p.string('name') ?? '',
      username: p.string('username') ?? '',
      admin: p.bool('admin'),
      tenant: p.string('tenant'),
      password: p.string('password') ?? null,
    };
    p.check();
    if (input.password !== null && input.password.length < 8) throw new AppError('invalid', 'user is invalid', { fields: { password: ['is too short (minimum is 8 characters)'] } });
    const user = await identity.createUser(input);
    res.status(201).json(presentUser(user, baseUrl(req), userOf(res)));
  });

  router.post('/users/:id/personal_access_tokens', async (req, res) => {
    requireAdmin(res);
    const p = params(req);
    p.require('name', 'scopes');
    const name = p.string('name') ?? '';
    const scopes = p.list('scopes') ?? [];
    const expiresAt = p.string('expires_at') ?? null;
    p.check();
    const user = identity.findUser(String(req.params.id));
    const { record, token } = await identity.createToken(user.id, { name, scopes, expiresAt });
    res.status(201).json(presentToken(record, today(), token));
  });

  router.get('/personal_access_tokens', (req, res) => {
    const user = requireUser(res);
    const p = params(req);
    const userId = p.int('user_id');
    p.check();
    sendPage(req, res, identity.listTokens(user, userId).map((t) => presentToken(t, today())));
  });

  router.delete('/personal_access_tokens/:id', async (req, res) => {
    const user = requireUser(res);
    const p = new Params({ id: req.params.id });
    const id = p.int('id');
    p.check();
    await identity.revokeToken(user, id ?? -1);
    res.status(204).end();
  });

  router.get('/groups', (req, res) => {
    const viewer = userOf(res);
    const p = params(req);
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
    sendPage(req, res, groups.map((g) => groupJson(req, g)));
  });

  router.post('/groups', async (req, res) => {
    const user = requireUser(res);
    const p = params(req);
    p.require('name', 'path');
    const input = {
      name: p.string('name') ?? '',
      path: p.string('path') ?? '',
      description: p.string('description'),
      visibility: p.oneOf<Visibility>('visibility', visibilities),
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
        return u ? [presentMember(m, u, baseUrl(req))] : [];
      });
    sendPage(req, res, members);
  });

  router.post('/groups/:id/members', async (req, res) => {
    const user = requireUser(res);
    const group = identity.readableGroup(user, String(req.params.id));
    const p = params(req);
    if (!p.has('username')) p.require('user_id');
    p.require('access_level');
    const userId = p.int('user_id');
    const username = p.string('username');
    const accessLevel = p.int('access_level');
    const expiresAt = p.string('expires_at') ?? null;
    p.check();
    const member = await identity.addGroupMember(user, group.id, userId ?? username ?? '', accessLevel ?? 0, expiresAt);
    res.status(201).json(presentMember(member, identity.findUser(member.userId), baseUrl(req)));
  });

  router.get('/namespaces', (req, res) => {
    const user = requireUser(res);
    const p = params(req);
    const search = p.string('search')?.toLowerCase();
    p.check();
    const namespaces = identity
      .namespacesFor(user)
      .filter((n) => !search || n.fullPath.toLowerCase().includes(search) || n.name.toLowerCase().includes(search))
      .map((n) => presentNamespace(n, baseUrl(req)));
    sendPage(req, res, namespaces);
  });

  router.get('/namespaces/:id', async (req, res) => {
    const user = requireUser(res);
    const key = String(req.params.id).toLowerCase();
    const ns = identity.namespacesFor(user).find((n) => String(n.id) === key || n.fullPath.toLowerCase() === key);
    if (!ns) throw notFound('Namespace');
    // Storage is told to whom it is counted against (the user, for their own namespace) and to admins.
    if (!user.admin && !(ns.kind === 'user' && ns.id === user.namespaceId)) return void res.json(presentNamespace(ns, baseUrl(req)));
    const storage = await namespaceStorage(deps.projects, ns.id);
    res.json({ ...presentNamespace(ns, baseUrl(req)), root_repository_size: storage.repository_size, root_storage_statistics: storage });
  });

  // Before the project routes, so `/projects/import` is never read as `/projects/:id`.
  mountExportRoutes(router, { projects: deps.projects, exports: deps.exports, imports: deps.imports, tmpDir: deps.uploads.tmpDir, userOf, baseUrl, params });
  mountProjectRoutes(router, { projects: deps.projects, actions: deps.projectActions, uploads: deps.uploads, userOf, baseUrl, requestUrl, params, onProjectRemoved: (projectId) => deps.exports.forget(projectId), notificationLevels: (userId, project) => ({ project: notificationLevelOf(deps.notifications, userId, project), group: groupNotificationLevelOf(deps.notifications, userId, project.namespaceId) }) });
  mountBadgeRoutes(router, { projects: deps.projects, badges: deps.badges, userOf, baseUrl, requestUrl, params });
  mountNotificationRoutes(router, { projects: deps.projects, notifications: deps.notifications, userOf, params });
  mountHookRoutes(router, { projects: deps.projects, hooks: deps.hooks, userOf, requestUrl, params });

  router.use((_req, res) => {
    res.status(404).json({ error: '404 Not Found' });
  });
  router.use(createErrorMiddleware((error) => presentHostingError(error), deps.log));
  return router;
}
