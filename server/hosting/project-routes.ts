import type { Request, Response, Router } from 'express';
import { accessLevels } from '../auth/identity.js';
import { AppError, notFound } from '../http/errors.js';
import { receiveUpload } from '../http/multipart.js';
import { pageHeaders, pageParams, paginate } from '../http/pagination.js';
import type { MergeMethod, ProjectRecord, UserRecord, Visibility } from '../store/schema.js';
import type { ProjectStatistics } from './api-types.js';
import type { ProjectActions } from './project-actions.js';
import type { Viewer } from './project-access.js';
import { ProjectJsonCache, joinJsonArray } from './project-json-cache.js';
import { listProjectPage, ProjectListIndex, type ProjectFilters } from './project-list.js';
import { settingKeys } from './project-rules.js';
import { pickSettings, type ProjectInput, type ProjectService } from './projects.js';
import { Params } from './params.js';
import { presentProject, presentProjectBasic, presentProjectSimple, presentProjectUser, presentShare, presentUpload, type ProjectContext } from './present-project.js';

/** What the project routes need besides the services: the helpers routes.ts shares. */
export interface ProjectRouteDeps {
  readonly projects: ProjectService;
  readonly actions: ProjectActions;
  readonly uploads: { readonly tmpDir: string; readonly maxBytes: number };
  readonly userOf: (res: Response) => Readonly<UserRecord> | null;
  readonly baseUrl: (req: Request) => string;
  readonly requestUrl: (req: Request) => URL;
  readonly params: (req: Request) => Params;
  /** The caller's numeric notification levels for a project and for its namespace's group. */
  readonly notificationLevels?: (userId: number, project: Readonly<ProjectRecord>) => { readonly project: number; readonly group: number };
  /** Cleanup of what other families keep per project (hooks, exports) when one is deleted. */
  readonly onProjectRemoved?: (projectId: number) => Promise<void>;
}

const visibilities = ['private', 'internal', 'public'] as const;
const mergeMethods = ['merge', 'rebase_merge', 'ff'] as const;
const orderings = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'] as const;
/** Attributes PUT /projects/:id understands (one of them must be sent). */
const editableKeys = ['name', 'path', 'description', 'default_branch', 'visibility', 'merge_method', 'tag_list', 'topics', 'ci_config_path', ...settingKeys];

/** Mount /projects, /users/:id/projects and the project actions on the hosting router. */
export function mountProjectRoutes(router: Router, deps: ProjectRouteDeps): void {
  const { projects, actions } = deps;
  const viewerOf = (res: Response): Viewer => (res.locals.viewer as Viewer | undefined) ?? (res.locals.viewer = projects.policy.viewer(deps.userOf(res)));
  const requireUser = (res: Response): Readonly<UserRecord> => {
    const user = deps.userOf(res);
    if (!user) throw new AppError('unauthorized', 'Unauthorized');
    return user;
  };
  const projectOf = (req: Request, res: Response) => projects.policy.readable(viewerOf(res), String(req.params.id));
  const jsonCache = new ProjectJsonCache(() => projects.repo.revision);
  const listIndex = new ProjectListIndex(projects.repo);

  /** Per-request presenter: namespace names, counts and shares are looked up once per request. */
  const presenter = (req: Request, res: Response) => {
    const viewer = viewerOf(res);
    const base = deps.baseUrl(req);
    let stars: ReadonlyMap<number, number> | null = null;
    let forks: ReadonlyMap<number, number> | null = null;
    const namespaces = new Map<number, Pick<ProjectContext, 'namespace' | 'namespaceName' | 'owner'>>();
    const identity = projects.identity;
    const nsContext = (namespaceId: number) => {
      let c = namespaces.get(namespaceId);
      if (c) return c;
      const ns = identity.repo.namespaceById(namespaceId);
      if (!ns) throw new Error(`namespace ${namespaceId} missing`);
      if (ns.kind === 'user') {
        const owner = identity.repo.userById(ns.ownerId) ?? null;
        c = { namespace: { id: ns.id, name: owner?.name ?? ns.name, path: ns.path, kind: 'user', fullPath: ns.path, parentId: null }, namespaceName: owner?.name ?? ns.name, owner };
      } else {
        const group = identity.repo.groupById(ns.id);
        const fullPath = group ? identity.fullPath(group) : ns.path;
        c = { namespace: { id: ns.id, name: group?.name ?? ns.name, path: ns.path, kind: 'group', fullPath, parentId: group?.parentId ?? null }, namespaceName: group ? identity.fullName(group) : '', owner: null };
      }
      namespaces.set(namespaceId, c);
      return c;
    };
    const context = (p: Readonly<ProjectRecord>, withAccess: boolean, statistics?: ProjectStatistics | null, customAttributes?: boolean): ProjectContext => {
      // Counted once per request, for the projects being presented only.
      counted ??= new Set(p.forkedFromId === null ? [p.id] : [p.id, p.forkedFromId]);
      stars ??= projects.repo.starCounts(counted);
      forks ??= projects.repo.forkCounts();
      const parent = p.forkedFromId === null ? undefined : projects.repo.byId(p.forkedFromId);
      return {
        base,
        ...nsContext(p.namespaceId),
        starCount: stars.get(p.id) ?? 0,
        forksCount: forks.get(p.id) ?? 0,
        shares: projects.repo.sharesOf(p.id).map((share) => {
          const group = identity.repo.groupById(share.groupId);
          return { share, groupName: group?.name ?? '', groupFullPath: group ? identity.fullPath(group) : '' };
        }),
        forkedFrom: parent && viewer.canRead(parent) ? presentProjectBasic(parent, context(parent, false)) : null,
        ...(withAccess && viewer.user ? { access: viewer.access(p), notificationLevels: deps.notificationLevels?.(viewer.user.id, p) } : {}),
        statistics,
        customAttributes: customAttributes && viewer.admin,
        canAdmin: viewer.canAdmin(p),
      };
    };
    /** Set by `prepare` to the page's projects (and their parents) before presenting them. */
    let counted: Set<number> | undefined;
    return {
      /** Limit the per-request counts to these projects (a page), instead of every project. */
      prepare: (page: readonly Readonly<ProjectRecord>[]) => {
        counted = new Set(page.flatMap((p) => (p.forkedFromId === null ? [p.id] : [p.id, p.forkedFromId])));
      },
      /** The full Project (single reads with access; writes without `permissions`). */
      full: (p: Readonly<ProjectRecord>, options: { readonly withAccess?: boolean; readonly statistics?: ProjectStatistics | null; readonly customAttributes?: boolean } = {}) =>
        presentProject(p, context(p, options.withAccess ?? false, options.statistics, options.customAttributes)),
      /** A list item: simple, basic (anonymous) or ProjectWithAccess. */
      item: (p: Readonly<ProjectRecord>, simple: boolean, statistics: ProjectStatistics | null, customAttributes: boolean) => {
        if (simple) return presentProjectSimple(p, context(p, false));
        if (!viewer.user) return presentProjectBasic(p, context(p, false));
        return presentProject(p, context(p, true, statistics, customAttributes));
      },
      /** `item` without statistics or custom attributes, serialised, from the cache when nothing it depends on changed. */
      itemJson: (p: Readonly<ProjectRecord>, simple: boolean): Buffer => {
        // The simple and basic shapes are the same and depend on nothing about the caller.
        if (simple || !viewer.user) return jsonCache.json(p.id, `s ${base}`, () => presentProjectSimple(p, context(p, false)));
        const access = viewer.access(p);
        const levels = deps.notificationLevels?.(viewer.user.id, p);
        const parent = p.forkedFromId === null ? undefined : projects.repo.byId(p.forkedFromId);
        const parentReadable = parent !== undefined && viewer.canRead(parent);
        const variant = `f ${base} ${viewer.canAdmin(p) ? 1 : 0} ${parentReadable ? 1 : 0} ${access.project} ${access.group} ${levels?.project ?? '-'} ${levels?.group ?? '-'}`;
        return jsonCache.json(p.id, variant, () => presentProject(p, context(p, true, null, false)));
      },
    };
  };

  const statisticsOf = async (p: Readonly<ProjectRecord>): Promise<ProjectStatistics> => {
    const stats = await projects.git.stats(projects.paths.repository(p), p.defaultBranch);
    const uploadsSize = projects.repo.uploadsOf(p.id).reduce((sum, u) => sum + u.size, 0);
    return {
      commit_count: stats.commitCount,
      storage_size: stats.repositorySize + uploadsSize,
      repository_size: stats.repositorySize,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: uploadsSize,
    };
  };

  /** Parse the `F` filters (and GitLab's extras) of a list request. */
  const filtersOf = (p: Params, req: Request): { filters: ProjectFilters; simple: boolean; statistics: boolean; customAttributes: boolean } => {
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
      customAttributes: raw && typeof raw === 'object' && !Array.isArray(raw) ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, String(v)])) : undefined,
    };
    return { filters, simple: p.bool('simple') ?? false, statistics: p.bool('statistics') ?? false, customAttributes: p.bool('with_custom_attributes') ?? false };
  };

  /** Filter and count, then present only the page (statistics need git: only for the page). */
  const sendList = async (req: Request, res: Response, extra: Partial<ProjectFilters> = {}) => {
    const p = deps.params(req);
    const { filters, simple, statistics, customAttributes } = filtersOf(p, req);
    p.check();
    const url = deps.requestUrl(req);
    const { page, perPage } = pageParams(url);
    const viewer = viewerOf(res);
    const found = listProjectPage(
      projects.repo,
      viewer,
      { ...filters, ...extra },
      (id) => {
        const ns = projects.identity.repo.namespaceById(id);
        return ns ? projects.namespaceFullPath(ns) : '';
      },
      { offset: (page - 1) * perPage, limit: perPage },
      listIndex,
    );
    const present = presenter(req, res);
    present.prepare(found.items);
    const headers = pageHeaders(url, page, perPage, found.total);
    if (!statistics && !customAttributes) return sendJsonBody(res.set(headers), joinJsonArray(found.items.map((project) => present.itemJson(project, simple))));
    const items = await Promise.all(
      found.items.map(async (project) => present.item(project, simple, statistics && mayReadStatistics(viewer, project) ? await statisticsOf(project) : null, customAttributes)),
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
    };
  };

  router.get('/projects', (req, res) => sendList(req, res));

  router.post('/projects', async (req, res) => {
    const user = requireUser(res);
    const p = deps.params(req);
    p.requireOneOf('name', 'path');
    const input = inputOf(p);
    p.check();
    const project = await projects.create(viewerOf(res), input, user);
    res.status(201).json(presenter(req, res).full(project));
  });

  router.post('/projects/user/:user_id', async (req, res) => {
    const caller = requireUser(res);
    if (!caller.admin) throw new AppError('forbidden', 'Forbidden');
    const owner = projects.findUser(String(req.params.user_id));
    const p = deps.params(req);
    p.require('name');
    const input = inputOf(p);
    p.check();
    const project = await projects.create(viewerOf(res), { ...input, namespaceId: input.namespaceId ?? owner.namespaceId }, owner);
    res.status(201).json(presenter(req, res).full(project));
  });

  router.get('/users/:user_id/projects', async (req, res) => {
    const owner = projects.findUser(String(req.params.user_id));
    await sendList(req, res, { namespaceId: owner.namespaceId });
  });

  router.get('/users/:user_id/starred_projects', async (req, res) => {
    const user = projects.findUser(String(req.params.user_id));
    const starred = new Set(projects.repo.allStarsOf(user.id));
    const viewer = viewerOf(res);
    const p = deps.params(req);
    const { simple } = filtersOf(p, req);
    p.check();
    const found = projects.repo.projects.filter((x) => starred.has(x.id) && viewer.canRead(x)).reverse();
    const page = paginate(found, { url: deps.requestUrl(req) });
    const present = presenter(req, res);
    res.set(page.headers).json(page.items.map((x) => present.item(x, simple, null, false)));
  });

  router.get('/projects/:id', async (req, res) => {
    const project = projectOf(req, res);
    const viewer = viewerOf(res);
    const p = deps.params(req);
    const statistics = p.bool('statistics') ?? false;
    const customAttributes = p.bool('with_custom_attributes') ?? false;
    p.check();
    const present = presenter(req, res);
    if (!viewer.user) return void res.json(present.item(project, false, null, false));
    const stats = statistics && mayReadStatistics(viewer, project) ? await statisticsOf(project) : null;
    res.json(present.full(project, { withAccess: true, statistics: stats, customAttributes }));
  });

  router.put('/projects/:id', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    const p = deps.params(req);
    p.requireOneOf(...editableKeys);
    const input = inputOf(p);
    p.check();
    const updated = await projects.update(viewerOf(res), project, { ...input, namespaceId: undefined, importUrl: undefined });
    res.json(presenter(req, res).full(updated));
  });

  router.delete('/projects/:id', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    await projects.remove(viewerOf(res), project, deps.onProjectRemoved);
    res.status(202).json({ message: '202 Accepted' });
  });

  router.get('/projects/:id/users', (req, res) => {
    const project = projectOf(req, res);
    const p = deps.params(req);
    const search = p.string('search');
    p.check();
    const users = actions.members(project, search).map((u) => presentProjectUser(u, deps.baseUrl(req)));
    const page = paginate(users, { url: deps.requestUrl(req) });
    res.set(page.headers).json(page.items);
  });

  for (const [action, starred] of [['star', true], ['unstar', false]] as const) {
    router.post(`/projects/:id/${action}`, async (req, res) => {
      requireUser(res);
      const project = projectOf(req, res);
      if (!(await actions.setStar(viewerOf(res), project, starred))) return void res.status(304).end();
      res.status(200).json(presenter(req, res).full(projects.repo.byId(project.id)!));
    });
  }

  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    router.post(`/projects/:id/${action}`, async (req, res) => {
      requireUser(res);
      const project = projectOf(req, res);
      const updated = await actions.setArchived(viewerOf(res), project, archived);
      res.status(200).json(presenter(req, res).full(updated));
    });
  }

  router.post('/projects/:id/share', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    const p = deps.params(req);
    p.require('group_id', 'group_access');
    const groupId = p.int('group_id');
    const groupAccess = p.int('group_access');
    const expiresAt = p.string('expires_at') ?? null;
    p.check();
    const share = await actions.share(viewerOf(res), project, groupId!, groupAccess!, expiresAt === '' ? null : expiresAt);
    res.status(201).json(presentShare(share));
  });

  router.delete('/projects/:id/share/:group_id', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    const p = new Params({ group_id: req.params.group_id });
    const groupId = p.int('group_id');
    p.check();
    await actions.unshare(viewerOf(res), project, groupId!);
    res.status(204).end();
  });

  router.post('/projects/:id/fork', async (req, res) => {
    requireUser(res);
    const source = projectOf(req, res);
    const p = deps.params(req);
    const namespace = p.string('namespace_id') ?? p.string('namespace_path') ?? p.string('namespace');
    const input = { namespace, name: p.string('name'), path: p.string('path'), description: p.string('description'), visibility: p.oneOf<Visibility>('visibility', visibilities) };
    p.check();
    const fork = await actions.fork(viewerOf(res), source, input);
    res.status(201).json(presenter(req, res).full(fork));
  });

  router.get('/projects/:id/forks', async (req, res) => {
    const project = projectOf(req, res);
    await sendList(req, res, { forkedFromId: project.id });
  });

  router.post('/projects/:id/fork/:forked_from_id', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    const p = new Params({ forked_from_id: req.params.forked_from_id });
    const from = p.int('forked_from_id');
    p.check();
    const updated = await actions.linkFork(viewerOf(res), project, from!);
    res.status(201).json(presenter(req, res).full(updated));
  });

  router.delete('/projects/:id/fork', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    res.status((await actions.unlinkFork(viewerOf(res), project)) ? 204 : 304).end();
  });

  router.post('/projects/:id/housekeeping', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    await actions.housekeeping(viewerOf(res), project);
    res.status(201).json({ message: 'Housekeeping task: gc has been completed' });
  });

  router.get('/projects/:id/snapshot', async (req, res) => {
    const user = requireUser(res);
    const project = projectOf(req, res);
    if (!user.admin) throw new AppError('forbidden', 'Forbidden');
    const p = deps.params(req);
    const wiki = p.bool('wiki') ?? false;
    p.check();
    // No wiki repositories exist here: a wiki snapshot is always "not found", as for a project without one.
    if (wiki) throw notFound('Wiki');
    const tar = await projects.git.snapshot(projects.paths.repository(project));
    res.set({ 'Content-Type': 'application/x-tar', 'Content-Disposition': 'attachment; filename="snapshot.tar"', 'Content-Transfer-Encoding': 'binary', 'Cache-Control': 'private' });
    tar.on('error', () => res.destroy());
    tar.pipe(res);
  });

  router.post('/projects/:id/uploads', async (req, res) => {
    requireUser(res);
    const project = projectOf(req, res);
    const upload = await receiveUpload(req, { tmpDir: deps.uploads.tmpDir, maxBytes: deps.uploads.maxBytes, field: 'file', missingIssue: { loc: ['file'], msg: 'is missing', type: 'missing' } });
    try {
      const record = await actions.saveUpload(viewerOf(res), project, upload.path, upload.filename, upload.bytes);
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
    const p = deps.params(req);
    p.require('value');
    const value = p.string('value') ?? '';
    p.check();
    const key = String(req.params.key);
    await projects.repo.update(project.id, { customAttributes: { ...project.customAttributes, [key]: value } });
    res.json({ key, value });
  });
  router.delete('/projects/:id/custom_attributes/:key', async (req, res) => {
    const project = adminProject(req, res);
    const key = String(req.params.key);
    if (!(key in project.customAttributes)) throw notFound('Custom Attribute');
    const rest = Object.fromEntries(Object.entries(project.customAttributes).filter(([k]) => k !== key));
    await projects.repo.update(project.id, { customAttributes: rest });
    res.status(204).end();
  });
  const adminProject = (req: Request, res: Response) => {
    const user = requireUser(res);
    if (!user.admin) throw new AppError('forbidden', 'Forbidden');
    return projectOf(req, res);
  };
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
