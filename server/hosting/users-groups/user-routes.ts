import type { Router } from 'express';
import type { IdentityService } from '../../auth/identity.js';
import { AppError, notFound } from '../../http/errors.js';
import { Params } from '../params.js';
import { presentUser, presentUserBasic } from '../present.js';
import { paramsOf, requireAdmin, requireUser, userOf, type RequestLinks } from '../request.js';

/** What the user routes need. */
export interface UserRouteDeps {
  readonly identity: IdentityService;
  readonly links: RequestLinks;
}

/** Mount /user and /users (list, get, create). */
export function mountUserRoutes(router: Router, deps: UserRouteDeps): void {
  const { identity, links } = deps;

  router.get('/user', (req, res) => {
    const user = requireUser(res);
    res.json(presentUser(user, links.baseUrl(req), user));
  });

  router.get('/users', (req, res) => {
    const viewer = userOf(res);
    const p = paramsOf(req);
    const username = p.string('username');
    const search = p.string('search')?.toLowerCase();
    const active = p.bool('active');
    const blocked = p.bool('blocked');
    p.check();
    // Anonymous callers may look a user up by username only, as on GitLab instances with public profiles.
    if (!viewer && username === undefined) throw new AppError('forbidden', 'Not authorized to access /api/v4/users');
    const users = identity.listUsers(viewer, { username, search, active, blocked });
    links.sendPage(
      req,
      res,
      users.map((u) => (viewer?.admin ? presentUser(u, links.baseUrl(req), viewer) : presentUserBasic(u, links.baseUrl(req)))),
    );
  });

  router.get('/users/:id', (req, res) => {
    const p = new Params({ id: req.params.id });
    const id = p.int('id');
    p.check();
    const user = id === undefined ? undefined : identity.findUserById(id);
    if (!user) throw notFound('User');
    res.json(presentUser(user, links.baseUrl(req), userOf(res)));
  });

  router.post('/users', async (req, res) => {
    requireAdmin(res);
    const p = paramsOf(req);
    // GitLab's declaration order: email, at_least_one_of(password, reset_password, force_random_password), name, username.
    p.require('email').requireOneOf('password', 'reset_password', 'force_random_password').require('name', 'username');
    const required = [p.string('email'), p.string('name'), p.string('username')] as const;
    const rest = { admin: p.bool('admin'), tenant: p.string('tenant'), password: p.string('password') ?? null };
    const [email, name, username] = p.checked(...required);
    const input = { email, name, username, ...rest };
    if (input.password !== null && input.password.length < 8)
      throw new AppError('invalid', 'user is invalid', { fields: { password: ['is too short (minimum is 8 characters)'] } });
    const user = await identity.createUser(input);
    res.status(201).json(presentUser(user, links.baseUrl(req), userOf(res)));
  });
}
