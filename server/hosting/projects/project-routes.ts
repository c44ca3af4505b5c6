// The /projects routes (GitLab's lib/api/projects.rb): one handler per endpoint, each a few lines over
// the project services. Over 400 lines because the family has that many endpoints; the presenter,
// queries and actions they call live beside it.
import type { Request, Response, Router } from 'express';
import { accessLevels } from '../../auth/identity.js';
import { AppError, notFound } from '../../http/errors.js';
import { receiveUpload } from '../../http/multipart.js';
import { pageHeaders, pageParams, paginate } from '../../http/pagination.js';
import type { MergeMethod, ProjectRecord, Visibility } from '../../store/schema.js';
import { Params } from '../params.js';
import { paramsOf, readableProjectOf, requireAdmin, requireUser, userOf, viewerOf, visibilities, type RequestLinks } from '../request.js';
import { presentProjectUser, presentShare, presentUpload } from './present-project.js';
import type { ProjectActions } from './project-actions.js';
import type { Viewer } from './project-access.js';
import { joinJsonArray } from './project-json-cache.js';
import type { ProjectFilters } from './project-list.js';
import type { NotificationLevels } from './project-presenter.js';
import type { ProjectQueries } from './project-queries.js';
import { settingKeys } from './project-rules.js';
import { pickSettings, type ProjectInput, type ProjectService } from './projects.js';

/** What the project routes need besides the services: the helpers routes.ts shares. */
export interface ProjectRouteDeps {
  readonly projects: ProjectService;
  readonly actions: ProjectActions;
  readonly queries: ProjectQueries;
  readonly uploads: { readonly tmpDir: string; readonly maxBytes: number };
  /** The caller's numeric notification levels for a project and for its namespace's group. */
  readonly notificationLevels?: NotificationLevels;
  /** Cleanup of what other families keep per project (hooks, exports) when one is deleted. */
  readonly onProjectRemoved?: (projectId: number) => Promise<void>;
  readonly links: RequestLinks;
}

const mergeMethods = ['merge', 'rebase_merge', 'ff'] as const;
/** GitLab's global search scopes; only `projects` is served here. */
const searchScopes = [
  'projects',
  'issues',
  'merge_requests',
  'milestones',
  'snippet_titles',
  'users',
  'wiki_blobs',
  'commits',
  'blobs',
  'notes',
] as const;
const orderings = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'] as const;
/** Attributes PUT /projects/:id understands (one of them must be sent). */
const editableKeys = [
  'name',
  'path',
  'description',
  'default_branch',
  'visibility',
  'merge_method',
  'tag_list',
  'topics',
  'ci_config_path',
  ...settingKeys,
];

/** Mount /projects, /users/:id/projects and the project actions on the hosting router. */
export function mountProjectRoutes(router: Router, deps: ProjectRouteDeps): void {
  const { projects, actions } = deps;
  const presenterOfRouter = deps.queries.createPresenter(deps.notificationLevels);
  const presenter = (req: Request, res: Response) => presenterOfRouter.forRequest(viewerOf(projects, res), deps.links.baseUrl(req));
  /** Admin-only project routes: 401, then 403, then the project's 404. */
  const adminProject = (req: Request, res: Response) => {
    requireAdmin(res);
    return readableProjectOf(projects, req, res);
  };

  /** Parse the `F` filters (and GitLab's extras) of a list request. */
  const filtersOf = (
    p: Params,
    req: Request,
  ): { filters: ProjectFilters; simple: boolean; statistics: boolean; customAttributes: boolean } => {
    const raw = req.query.custom_attributes;
    const filters: ProjectFilters = {
      archived: p.bool('archived'),
      visibility: p.oneOf<Visibility>('visibility', visibilities),
      orderBy: p.oneOf('order_by', orderings),
      sort: p.oneOf('sort', ['asc', 'desc'] as const),
      search: p.string('search'),
      searchNamespaces: p.bool('search_namespaces'),
      owned: p.bool('owned'),
      membership: p.bool('membership'),
      starred: p.bool('starred'),
      withIssuesEnabled: p.bool('with_issues_enabled'),
      withMergeRequestsEnabled: p.bool('with_merge_requests_enabled'),
      minAccessLevel: p.int('min_access_level'),
      idAfter: p.int('id_after'),
      idBefore: p.int('id_before'),
      lastActivityAfter: p.string('last_activity_after'),
      lastActivityBefore: p.string('last_activity_before'),
      customAttributes:
        raw && typeof raw === 'object' && !Array.isArray(raw)
          ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, String(v)]))
          : undefined,
    };
    return {
      filters,
      simple: p.bool('simple') ?? false,
      statistics: p.bool('statistics') ?? false,
      customAttributes: p.bool('with_custom_attributes') ?? false,
    };
  };

  /** Filter and count, then present only the page (statistics need git: only for the page). */
  const sendList = async (req: Request, res: Response, extra: Partial<ProjectFilters> = {}) => {
    const p = paramsOf(req);
    const { filters, simple, statistics, customAttributes } = filtersOf(p, req);
    p.check();
    const url = deps.links.requestUrl(req);
    const { page, perPage } = pageParams(url);
    const viewer = viewerOf(projects, res);
    const found = deps.queries.list(viewer, { ...filters, ...extra }, { offset: (page - 1) * perPage, limit: perPage });
    const present = presenter(req, res);
    present.prepare(found.items);
    const headers = pageHeaders(url, page, perPage, found.total);
    if (!statistics && !customAttributes)
      return sendJsonBody(res.set(headers), joinJsonArray(found.items.map((project) => present.itemJson(project, simple))));
    const items = await Promise.all(
      found.items.map(async (project) =>
        present.item(
          project,
          simple,
          statistics && mayReadStatistics(viewer, project) ? await deps.queries.statistics(project) : null,
          customAttributes,
        ),
      ),
    );
    res.set(headers).json(items);
  };

  /** The `P` attributes of a create or edit request. */
  const inputOf = (p: Params): ProjectInput => {
    const tags = p.list('tag_list') ?? p.list('topics');
    const description = p.has('description') ? (p.string('description') ?? null) : undefined;
    const ciConfigPath = p.has('ci_config_path') ? (p.string('ci_config_path') ?? null) : undefined;
    return {
      name: p.string('name'),
      path: p.string('path'),
      namespaceId: p.int('namespace_id'),
      description,
      visibility: p.oneOf<Visibility>('visibility', visibilities),
      defaultBranch: p.string('default_branch'),
      settings: pickSettings((key) => p.bool(key)),
      mergeMethod: p.oneOf<MergeMethod>('merge_method', mergeMethods),
      tagList: tags,
      ciConfigPath,
      importUrl: p.string('import_url'),
      initializeWithReadme: p.bool('initialize_with_readme'),
    };
  };

  router.get('/projects', (req, res) => sendList(req, res));

  router.post('/projects', async (req, res) => {
    const user = requireUser(res);
    const p = paramsOf(req);
    p.requireOneOf('name', 'path');
    const input = inputOf(p);
    p.check();
    const project = await projects.create(viewerOf(projects, res), input, user);
    res.status(201).json(presenter(req, res).full(project));
  });

  router.post('/projects/user/:user_id', async (req, res) => {
    requireAdmin(res);
    const owner = projects.getUser(String(req.params.user_id));
    const p = paramsOf(req);
    p.require('name');
    const input = inputOf(p);
    p.check();
    const project = await projects.create(
      viewerOf(projects, res),
      { ...input, namespaceId: input.namespaceId ?? owner.namespaceId },
      owner,
    );
    res.status(201).json(presenter(req, res).full(project));
  });

  // lib/api/groups.rb: the group's projects with the /projects filters, read access applied as there.
  router.get('/groups/:id/projects', async (req, res) => {
    const group = deps.queries.readableGroupOf(userOf(res), String(req.params.id));
    const p = paramsOf(req);
    const scope = deps.queries.groupScope(group.id, p.bool('include_subgroups') ?? false, p.bool('with_shared') ?? true);
    p.check();
    await sendList(req, res, { groupScope: scope });
  });

  // lib/api/search.rb, scope `projects`: the /projects search over what the caller may read.
  // Other scopes name records this server does not keep: an empty page.
  router.get('/search', async (req, res) => {
    requireUser(res);
    const p = paramsOf(req).require('scope', 'search');
    const [scope] = p.checked(p.oneOf('scope', searchScopes), p.string('search'));
    if (scope === 'projects') await sendList(req, res);
    else deps.links.sendPage(req, res, []);
  });

  router.get('/users/:user_id/projects', async (req, res) => {
    const owner = projects.getUser(String(req.params.user_id));
    await sendList(req, res, { namespaceId: owner.namespaceId });
  });

  router.get('/users/:user_id/starred_projects', async (req, res) => {
    const user = projects.getUser(String(req.params.user_id));
    const viewer = viewerOf(projects, res);
    const p = paramsOf(req);
    const { simple } = filtersOf(p, req);
    p.check();
    const found = deps.queries.starredBy(viewer, user.id);
    const page = paginate(found, { url: deps.links.requestUrl(req) });
    const present = presenter(req, res);
    res.set(page.headers).json(page.items.map((x) => present.item(x, simple, null, false)));
  });

  router.get('/projects/:id', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const viewer = viewerOf(projects, res);
    const p = paramsOf(req);
    const statistics = p.bool('statistics') ?? false;
    const customAttributes = p.bool('with_custom_attributes') ?? false;
    p.check();
    const present = presenter(req, res);
    if (!viewer.user) return void res.json(present.item(project, false, null, false));
    const stats = statistics && mayReadStatistics(viewer, project) ? await deps.queries.statistics(project) : null;
    res.json(present.full(project, { withAccess: true, statistics: stats, customAttributes }));
  });

  router.put('/projects/:id', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const p = paramsOf(req);
    p.requireOneOf(...editableKeys);
    const input = inputOf(p);
    p.check();
    const updated = await projects.update(viewerOf(projects, res), project, { ...input, namespaceId: undefined, importUrl: undefined });
    res.json(presenter(req, res).full(updated));
  });

  router.delete('/projects/:id', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    await projects.remove(viewerOf(projects, res), project, deps.onProjectRemoved);
    res.status(202).json({ message: '202 Accepted' });
  });

  router.get('/projects/:id/users', (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const p = paramsOf(req);
    const search = p.string('search');
    p.check();
    const users = actions.members(project, search).map((u) => presentProjectUser(u, deps.links.baseUrl(req)));
    const page = paginate(users, { url: deps.links.requestUrl(req) });
    res.set(page.headers).json(page.items);
  });

  for (const [action, starred] of [
    ['star', true],
    ['unstar', false],
  ] as const) {
    router.post(`/projects/:id/${action}`, async (req, res) => {
      requireUser(res);
      const project = readableProjectOf(projects, req, res);
      if (!(await actions.setStar(viewerOf(projects, res), project, starred))) return void res.status(304).end();
      res.status(200).json(presenter(req, res).full(deps.queries.findProject(project.id)!));
    });
  }

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    router.post(`/projects/:id/${action}`, async (req, res) => {
      requireUser(res);
      const project = readableProjectOf(projects, req, res);
      const updated = await actions.setArchived(viewerOf(projects, res), project, archived);
      res.status(200).json(presenter(req, res).full(updated));
    });
  }

  router.post('/projects/:id/share', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const p = paramsOf(req);
    p.require('group_id', 'group_access');
    const reads = [p.int('group_id'), p.int('group_access')] as const;
    const expiresAt = p.string('expires_at') ?? null;
    const [groupId, groupAccess] = p.checked(...reads);
    const share = await actions.share(viewerOf(projects, res), project, groupId, groupAccess, expiresAt === '' ? null : expiresAt);
    res.status(201).json(presentShare(share));
  });

  router.delete('/projects/:id/share/:group_id', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const p = new Params({ group_id: req.params.group_id });
    const [groupId] = p.checked(p.int('group_id'));
    await actions.unshare(viewerOf(projects, res), project, groupId);
    res.status(204).end();
  });

  router.post('/projects/:id/fork', async (req, res) => {
    requireUser(res);
    const source = readableProjectOf(projects, req, res);
    const p = paramsOf(req);
    const namespace = p.string('namespace_id') ?? p.string('namespace_path') ?? p.string('namespace');
    const input = {
      namespace,
      name: p.string('name'),
      path: p.string('path'),
      description: p.string('description'),
      visibility: p.oneOf<Visibility>('visibility', visibilities),
    };
    p.check();
    const fork = await actions.fork(viewerOf(projects, res), source, input);
    res.status(201).json(presenter(req, res).full(fork));
  });

  router.get('/projects/:id/forks', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    await sendList(req, res, { forkedFromId: project.id });
  });

  router.post('/projects/:id/fork/:forked_from_id', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const p = new Params({ forked_from_id: req.params.forked_from_id });
    const [from] = p.checked(p.int('forked_from_id'));
    const updated = await actions.linkFork(viewerOf(projects, res), project, from);
    res.status(201).json(presenter(req, res).full(updated));
  });

  router.delete('/projects/:id/fork', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    res.status((await actions.unlinkFork(viewerOf(projects, res), project)) ? 204 : 304).end();
  });

  router.post('/projects/:id/housekeeping', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    await actions.housekeeping(viewerOf(projects, res), project);
    res.status(201).json({ message: 'Housekeeping task: gc has been completed' });
  });

  router.get('/projects/:id/snapshot', async (req, res) => {
    const user = requireUser(res);
    const project = readableProjectOf(projects, req, res);
    if (!user.admin) throw new AppError('forbidden', 'Forbidden');
    const p = paramsOf(req);
    const wiki = p.bool('wiki') ?? false;
    p.check();
    // No wiki repositories exist here: a wiki snapshot is always "not found", as for a project without one.
    if (wiki) throw notFound('Wiki');
    const tar = await deps.queries.snapshot(project);
    res.set({
      'Content-Type': 'application/x-tar',
      'Content-Disposition': 'attachment; filename="snapshot.tar"',
      'Content-Transfer-Encoding': 'binary',
      'Cache-Control': 'private',
    });
    tar.on('error', () => res.destroy());
    tar.pipe(res);
  });

  router.post('/projects/:id/uploads', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const upload = await receiveUpload(req, {
      tmpDir: deps.uploads.tmpDir,
      maxBytes: deps.uploads.maxBytes,
      field: 'file',
      missingIssue: { loc: ['file'], msg: 'is missing', type: 'missing' },
    });
    try {
      const record = await actions.saveUpload(viewerOf(projects, res), project, upload.path, upload.filename, upload.bytes);
      res.status(201).json(presentUpload(record, projects.fullPath(project)));
    } catch (error) {
      await upload.discard();
      throw error;
    }
  });

  // GitLab's admin custom attributes, so `custom_attributes[key]=value` filters have something to match.
  router.get('/projects/:id/custom_attributes', (req, res) => {
    const project = adminProject(req, res);
    res.json(Object.entries(project.customAttributes).map(([key, value]) => ({ key, value })));
  });
  router.put('/projects/:id/custom_attributes/:key', async (req, res) => {
    const project = adminProject(req, res);
    const p = paramsOf(req);
    p.require('value');
    const [value] = p.checked(p.string('value'));
    const key = String(req.params.key);
    await actions.setCustomAttribute(project, key, value);
    res.json({ key, value });
  });
  router.delete('/projects/:id/custom_attributes/:key', async (req, res) => {
    const project = adminProject(req, res);
    const key = String(req.params.key);
    await actions.removeCustomAttribute(project, key);
    res.status(204).end();
  });
}

/** Send JSON serialised already, with the Content-Type the hosting router's res.json sets (no charset, as GitLab). */
function sendJsonBody(res: Response, body: Buffer): void {
  res.setHeader('Content-Type', 'application/json');
  res.send(body);
}

/** GitLab shows statistics to reporters and up (and admins). */
function mayReadStatistics(viewer: Viewer, project: Readonly<ProjectRecord>): boolean {
  return viewer.admin || viewer.level(project) >= accessLevels.reporter;
}
