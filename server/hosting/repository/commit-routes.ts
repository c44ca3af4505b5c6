import type { Router } from 'express';
import { pageHeaders, pageParams } from '../../http/pagination.js';
import type { Params } from '../params.js';
import { paramsOf, viewerOf } from '../request.js';
import { contentOf, dateParam, projectContext, type HistoryRouteDeps } from './shared-routes.js';
import { presentCommit, presentCommitDetail, presentDiff } from './present-repository.js';
import type { ActionInput } from './repository-writer.js';

const actionNames = ['create', 'delete', 'move', 'update', 'chmod'] as const;

/** Mount GET/POST /projects/:id/repository/commits, GET …/commits/:sha and …/commits/:sha/diff. */
export function mountCommitRoutes(router: Router, deps: HistoryRouteDeps): void {
  const { history, writer } = deps;

  router.get('/projects/:id/repository/commits', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req);
    const listing = {
      refName: p.string('ref_name') || undefined,
      all: p.bool('all'),
      path: p.string('path') || undefined,
      since: dateParam(p, 'since'),
      until: dateParam(p, 'until'),
      firstParent: p.bool('first_parent'),
      order: p.oneOf('order', ['default', 'topo'] as const),
    };
    const withStats = p.bool('with_stats') ?? false;
    const trailers = p.bool('trailers') ?? false;
    p.check();
    const url = deps.links.requestUrl(req);
    const { page, perPage } = pageParams(url);
    const found = await history.listCommits(project, listing, { offset: (page - 1) * perPage, limit: perPage });
    const items = await Promise.all(
      found.items.map(async (c) => {
        const commit = presentCommit(c, links, trailers);
        if (!withStats) return commit;
        const stats = await history.commitStats(project, c);
        return { ...commit, stats: { additions: stats.additions, deletions: stats.deletions, total: stats.additions + stats.deletions } };
      }),
    );
    res.set(pageHeaders(url, page, perPage, found.total)).json(items);
  });

  router.post('/projects/:id/repository/commits', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req).require('branch', 'commit_message', 'actions');
    const [branch, message] = p.checked(p.string('branch'), p.string('commit_message'));
    const actions = actionsOf(p, req.body as Record<string, unknown> | undefined);
    const stats = paramsOf(req).bool('stats') ?? true;
    const commit = await writer.commit(viewerOf(deps.projects, res), project, {
      branch,
      message,
      actions,
      startBranch: p.string('start_branch') || undefined,
      startSha: p.string('start_sha') || undefined,
      authorName: p.string('author_name') || undefined,
      authorEmail: p.string('author_email') || undefined,
    });
    res.status(201).json(presentCommitDetail(commit, links, stats ? await history.commitStats(project, commit) : null));
  });

  router.get('/projects/:id/repository/commits/:sha', async (req, res) => {
    const { project, links } = projectContext(deps, req, res);
    const p = paramsOf(req);
    const stats = p.bool('stats') ?? true;
    p.check();
    const commit = await history.getCommit(project, String(req.params.sha));
    res.json(presentCommitDetail(commit, links, stats ? await history.commitStats(project, commit) : null));
  });

  router.get('/projects/:id/repository/commits/:sha/diff', async (req, res) => {
    const { project } = projectContext(deps, req, res);
    const diffs = await history.commitDiff(project, String(req.params.sha));
    deps.links.sendPage(req, res, diffs.map(presentDiff));
  });
}

/**
 * `actions[]` as Grape validates them (GitLab's `requires :actions, type: Array do … end`): an array
 * of hashes, each read through `Params.nested`, so every attribute is coerced and worded as a
 * top-level one (`content` is a String: a number becomes its text, an array or a hash is
 * `actions[0][content] is invalid`); all problems are one 400 `{"error": "…"}`.
 */
function actionsOf(p: Params, body: Record<string, unknown> | undefined): ActionInput[] {
  const raw = body?.actions;
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw) : null;
  if (!list) p.invalid('actions');
  const actions: (ActionInput | undefined)[] = (list ?? []).map((item: unknown, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      p.invalid(`actions[${i}]`);
      return undefined;
    }
    const a = p.nested(`actions[${i}]`, item as Record<string, unknown>).require('action', 'file_path');
    const action = a.oneOf('action', actionNames);
    const filePath = a.string('file_path');
    const encoding = a.oneOf('encoding', ['text', 'base64'] as const);
    const executable = a.bool('execute_filemode');
    const content = a.string('content');
    const lastCommitId = a.string('last_commit_id') || undefined;
    const previousPath = action === 'move' ? a.require('previous_path').string('previous_path') : undefined;
    if (action === 'chmod') a.require('execute_filemode');
    if (!action || !filePath) return undefined;
    switch (action) {
      case 'create':
        return { action, filePath, content: contentOf(content, encoding), executable };
      case 'update':
        return { action, filePath, content: contentOf(content, encoding), executable, lastCommitId };
      case 'delete':
        return { action, filePath, lastCommitId };
      case 'move':
        return previousPath
          ? { action, filePath, previousPath, content: content === undefined ? undefined : contentOf(content, encoding), lastCommitId }
          : undefined;
      case 'chmod':
        return executable === undefined ? undefined : { action, filePath, executable };
    }
  });
  p.check();
  return actions.filter((a): a is ActionInput => a !== undefined);
}
