import type { Request, Router } from 'express';
import { paginate } from '../../http/pagination.js';
import type { HookEvents, ProjectHookRecord } from '../../store/schema.js';
import { hookEventKeys, type HookInput, type HookService } from './hooks.js';
import { Params } from '../params.js';
import type { ProjectService } from '../projects/projects.js';
import { paramsOf, readableProjectOf, requireUser, viewerOf, type RequestLinks } from '../request.js';

/** What the hook routes need. */
export interface HookRouteDeps {
  readonly projects: ProjectService;
  readonly hooks: HookService;
  readonly links: RequestLinks;
}

/** GitLab's ProjectHook entity; the token is write-only and never shown. */
export function presentHook(h: Readonly<ProjectHookRecord>): Record<string, unknown> {
  return {
    id: h.id,
    url: h.url,
    project_id: h.projectId,
    ...h.events,
    push_events_branch_filter: h.pushEventsBranchFilter,
    enable_ssl_verification: h.enableSslVerification,
    created_at: h.createdAt,
  };
}

/** Mount /projects/:id/hooks (list, get, create, edit, delete, test). */
export function mountHookRoutes(router: Router, deps: HookRouteDeps): void {
  const { projects, hooks } = deps;
  const hookIdOf = (req: Request) => {
    const p = new Params({ hook_id: req.params.hook_id });
    const [id] = p.checked(p.int('hook_id'));
    return id;
  };
  /** Hook attributes; on edit the wiki switch is spelled `wiki_events` (the spec), `wiki_page_events` accepted too. */
  const inputOf = (p: Params, edit: boolean): HookInput => {
    const events: Partial<HookEvents> = {};
    for (const key of hookEventKeys) {
      const value = p.bool(key);
      if (value !== undefined) events[key] = value;
    }
    if (edit) {
      const wiki = p.bool('wiki_events');
      if (wiki !== undefined) events.wiki_page_events = wiki;
    }
    return {
      url: p.string('url'),
      token: p.has('token') ? (p.string('token') ?? null) : undefined,
      events,
      pushEventsBranchFilter: p.has('push_events_branch_filter') ? p.string('push_events_branch_filter') || null : undefined,
      enableSslVerification: p.bool('enable_ssl_verification'),
    };
  };

  router.get('/projects/:id/hooks', (req, res) => {
    requireUser(res);
    const list = hooks.list(viewerOf(projects, res), readableProjectOf(projects, req, res)).map(presentHook);
    const page = paginate(list, { url: deps.links.requestUrl(req) });
    res.set(page.headers).json(page.items);
  });

  router.get('/projects/:id/hooks/:hook_id', (req, res) => {
    requireUser(res);
    res.json(presentHook(hooks.get(viewerOf(projects, res), readableProjectOf(projects, req, res), hookIdOf(req))));
  });

  router.post('/projects/:id/hooks', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const p = paramsOf(req);
    p.require('url');
    const input = inputOf(p, false);
    p.check();
    res.status(201).json(presentHook(await hooks.create(viewerOf(projects, res), project, input)));
  });

  router.put('/projects/:id/hooks/:hook_id', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const hookId = hookIdOf(req);
    const p = paramsOf(req);
    p.require('url');
    const input = inputOf(p, true);
    p.check();
    res.json(presentHook(await hooks.update(viewerOf(projects, res), project, hookId, input)));
  });

  // Idempotent, as the spec says: the hook in the body if it existed, an empty answer otherwise.
  router.delete('/projects/:id/hooks/:hook_id', async (req, res) => {
    requireUser(res);
    const project = readableProjectOf(projects, req, res);
    const removed = await hooks.remove(viewerOf(projects, res), project, hookIdOf(req));
    if (removed) res.json(presentHook(removed));
    else res.status(204).end();
  });

  router.post('/projects/:id/hooks/:hook_id/test/:trigger', async (req, res) => {
    const user = requireUser(res);
    const project = readableProjectOf(projects, req, res);
    await hooks.test(viewerOf(projects, res), project, hookIdOf(req), String(req.params.trigger), user);
    res.status(201).json({ message: '201 Created' });
  });
}
