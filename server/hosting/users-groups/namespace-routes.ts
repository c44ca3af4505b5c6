import type { Router } from 'express';
import type { IdentityService } from '../../auth/identity.js';
import { notFound } from '../../http/errors.js';
import { presentNamespace } from '../present.js';
import type { ProjectQueries } from '../projects/project-queries.js';
import { paramsOf, requireUser, type RequestLinks } from '../request.js';

/** What the namespace routes need. */
export interface NamespaceRouteDeps {
  readonly identity: IdentityService;
  /** For a namespace's storage (its projects' repositories and uploads). */
  readonly queries: ProjectQueries;
  readonly links: RequestLinks;
}

/** Mount /namespaces (list, get with storage for the owner and admins). */
export function mountNamespaceRoutes(router: Router, deps: NamespaceRouteDeps): void {
  const { identity, links } = deps;

  router.get('/namespaces', (req, res) => {
    const user = requireUser(res);
    const p = paramsOf(req);
    const search = p.string('search')?.toLowerCase();
    p.check();
    const namespaces = identity
      .namespacesFor(user)
      .filter((n) => !search || n.fullPath.toLowerCase().includes(search) || n.name.toLowerCase().includes(search))
      .map((n) => presentNamespace(n, links.baseUrl(req)));
    links.sendPage(req, res, namespaces);
  });

  router.get('/namespaces/:id', async (req, res) => {
    const user = requireUser(res);
    const key = String(req.params.id).toLowerCase();
    const ns = identity.namespacesFor(user).find((n) => String(n.id) === key || n.fullPath.toLowerCase() === key);
    if (!ns) throw notFound('Namespace');
    // Storage is told to whom it is counted against (the user, for their own namespace) and to admins.
    if (!user.admin && !(ns.kind === 'user' && ns.id === user.namespaceId)) return void res.json(presentNamespace(ns, links.baseUrl(req)));
    const storage = await deps.queries.namespaceStorage(ns.id);
    res.json({
      ...presentNamespace(ns, links.baseUrl(req)),
      root_repository_size: storage.repository_size,
      root_storage_statistics: storage,
    });
  });
}
