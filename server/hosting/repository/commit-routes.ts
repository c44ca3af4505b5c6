import type { Router } from 'express';
import { AppError } from '../../http/errors.js';
import { pageHeaders, pageParams } from '../../http/pagination.js';
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
    const actions = actionsOf(req.body as Record<string, unknown> | undefined);
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
 * `actions[]` as Grape validates them: an array of hashes, each with a known `action` and a
 * `file_path`, a `previous_path` for moves and `execute_filemode` for chmod; problems are one 400
 * `{"error": "actions[0][action] does not have a valid value"}`.
 */
function actionsOf(body: Record<string, unknown> | undefined): ActionInput[] {
  const raw = body?.actions;
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw) : null;
  const problems: { loc: string; msg: string }[] = [];
  if (!list) problems.push({ loc: 'actions', msg: 'is invalid' });
  const actions: ActionInput[] = [];
  (list ?? []).forEach((item: unknown, i) => {
    const at = (k: string) => `actions[${i}][${k}]`;
    if (!item || typeof item !== 'object') {
      problems.push({ loc: `actions[${i}]`, msg: 'is invalid' });
      return;
    }
    const a = item as Record<string, unknown>;
    const text = (k: string) =>
      typeof a[k] === 'string' ? (a[k] as string) : a[k] === undefined || a[k] === null ? undefined : String(a[k]);
    const action = text('action');
    const filePath = text('file_path');
    if (action === undefined || action === '') problems.push({ loc: at('action'), msg: 'is missing' });
    else if (!(actionNames as readonly string[]).includes(action)) problems.push({ loc: at('action'), msg: 'does not have a valid value' });
    if (filePath === undefined || filePath === '') problems.push({ loc: at('file_path'), msg: 'is missing' });
    const encoding = text('encoding');
    if (encoding !== undefined && encoding !== 'text' && encoding !== 'base64')
      problems.push({ loc: at('encoding'), msg: 'does not have a valid value' });
    const mode = a.execute_filemode;
    const executable = mode === undefined || mode === null ? undefined : mode === true || mode === 'true' || mode === 1 || mode === '1';
    const content = text('content');
    const lastCommitId = text('last_commit_id') || undefined;
    if (problems.length > 0 || !action || !filePath) return;
    switch (action) {
      case 'create':
        actions.push({ action, filePath, content: contentOf(content, encoding), executable });
        break;
      case 'update':
        actions.push({ action, filePath, content: contentOf(content, encoding), executable, lastCommitId });
        break;
      case 'delete':
        actions.push({ action, filePath, lastCommitId });
        break;
      case 'move': {
        const previousPath = text('previous_path');
        if (!previousPath) problems.push({ loc: at('previous_path'), msg: 'is missing' });
        else
          actions.push({
            action,
            filePath,
            previousPath,
            content: content === undefined ? undefined : contentOf(content, encoding),
            lastCommitId,
          });
        break;
      }
      case 'chmod':
        if (executable === undefined) problems.push({ loc: at('execute_filemode'), msg: 'is missing' });
        else actions.push({ action, filePath, executable });
        break;
    }
  });
  if (problems.length > 0) {
    throw new AppError('invalid', problems.map((x) => `${x.loc} ${x.msg}`).join(', '), {
      issues: problems.map((x) => ({ loc: [x.loc], msg: x.msg, type: 'invalid' })),
    });
  }
  return actions;
}
