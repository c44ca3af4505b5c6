import type { Request, Response, Router } from 'express';
import { AppError } from '../../http/errors.js';
import { pageParams } from '../../http/pagination.js';
import type { TreeEntry } from '../git/repository-read.js';
import { paramsOf, readableProjectOf, type RequestLinks } from '../request.js';
import type { ProjectService } from '../projects/projects.js';
import type { RepositoryReader } from './repository-reader.js';

/** What the tree route needs. */
export interface TreeRouteDeps {
  readonly projects: ProjectService;
  readonly reader: RepositoryReader;
  readonly links: RequestLinks;
}

/**
 * GET /projects/:id/repository/tree: `path`, `ref`, `recursive`, and GitLab's three paginations:
 * `legacy` (page/per_page with X-Total and Link), `keyset` (`page_token`: the id of the last entry
 * already seen; a Link rel="next" while more follow) and `none` (recursive only: everything).
 */
export function mountTreeRoutes(router: Router, deps: TreeRouteDeps): void {
  const { projects, reader, links } = deps;
  router.get('/projects/:id/repository/tree', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const params = paramsOf(req);
    const ref = params.string('ref');
    const path = params.string('path');
    const recursive = params.bool('recursive') ?? false;
    const pagination = params.oneOf('pagination', ['legacy', 'keyset', 'none'] as const) ?? 'legacy';
    const pageToken = params.string('page_token');
    params.check();
    if (pagination === 'none' && !recursive) throw paramError('pagination', 'cannot be "none" unless "recursive" is true');
    const entries = (await reader.tree(project, { ref, path, recursive })).map(presentTreeObject);
    if (pagination === 'none') res.json(entries);
    else if (pagination === 'keyset') sendKeysetPage(req, res, links, entries, pageToken);
    else links.sendPage(req, res, entries);
  });
}

/** GitLab's TreeObject entity. */
function presentTreeObject(e: TreeEntry): TreeEntry {
  return { id: e.id, name: e.name, type: e.type, path: e.path, mode: e.mode };
}

/**
 * One keyset page: the entries after the first one whose id is `pageToken` (Gitaly's cursor is an
 * entry's object id), and a Link to the next page while entries remain.
 */
function sendKeysetPage(
  req: Request,
  res: Response,
  links: RequestLinks,
  entries: readonly TreeEntry[],
  pageToken: string | undefined,
): void {
  const url = links.requestUrl(req);
  const { perPage } = pageParams(url);
  let start = 0;
  if (pageToken) {
    const at = entries.findIndex((e) => e.id === pageToken);
    if (at < 0) throw paramError('page_token', 'is invalid');
    start = at + 1;
  }
  const page = entries.slice(start, start + perPage);
  if (start + perPage < entries.length && page.length > 0) {
    const next = new URL(url);
    next.searchParams.set('page_token', page[page.length - 1]!.id);
    next.searchParams.set('per_page', String(perPage));
    next.searchParams.sort();
    res.set('Link', `<${next.toString()}>; rel="next"`);
  }
  res.json(page);
}

function paramError(name: string, msg: string): AppError {
  return new AppError('invalid', `${name} ${msg}`, { issues: [{ loc: [name], msg, type: 'invalid' }] });
}
