import type { Router } from 'express';
import type { IdentityService } from '../../auth/identity.js';
import { Params } from '../params.js';
import { presentToken } from '../present.js';
import { paramsOf, requireAdmin, requireUser, today, type RequestLinks } from '../request.js';

/** What the personal access token routes need. */
export interface TokenRouteDeps {
  readonly identity: IdentityService;
  readonly links: RequestLinks;
}

/** Mount /users/:id/personal_access_tokens (create, admins) and /personal_access_tokens (list, revoke). */
export function mountTokenRoutes(router: Router, deps: TokenRouteDeps): void {
  const { identity, links } = deps;

  router.post('/users/:id/personal_access_tokens', async (req, res) => {
    requireAdmin(res);
    const p = paramsOf(req);
    p.require('name', 'scopes');
    const required = [p.string('name'), p.list('scopes')] as const;
    const expiresAt = p.string('expires_at') ?? null;
    const [name, scopes] = p.checked(...required);
    const user = identity.getUser(String(req.params.id));
    const { record, token } = await identity.createToken(user.id, { name, scopes, expiresAt });
    res.status(201).json(presentToken(record, today(), token));
  });

  router.get('/personal_access_tokens', (req, res) => {
    const user = requireUser(res);
    const p = paramsOf(req);
    const userId = p.int('user_id');
    p.check();
    links.sendPage(
      req,
      res,
      identity.listTokens(user, userId).map((t) => presentToken(t, today())),
    );
  });

  router.delete('/personal_access_tokens/:id', async (req, res) => {
    const user = requireUser(res);
    const p = new Params({ id: req.params.id });
    const id = p.int('id');
    p.check();
    await identity.revokeToken(user, id ?? -1);
    res.status(204).end();
  });
}
