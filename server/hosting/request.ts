import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthGuard } from '../auth/authenticate.js';
import type { Identity } from '../auth/identity.js';
import type { Meter } from '../auth/metering.js';
import { familyOf, hostingScopeRules } from '../auth/scopes.js';
import { AppError } from '../http/errors.js';
import { paginate } from '../http/pagination.js';
import { requestBaseUrl } from '../http/request-host.js';
import type { UserRecord, Visibility } from '../store/schema.js';
import { Params } from './params.js';
import type { Viewer } from './projects/project-access.js';
import type { ProjectService } from './projects/projects.js';

/** The visibility levels a `visibility` parameter accepts, least open first. */
export const visibilities: readonly Visibility[] = ['private', 'internal', 'public'];

/** GitLab's frame headers, and its JSON: `Content-Type: application/json` with no charset. */
export function answerLikeGitLab(_req: Request, res: Response, next: NextFunction): void {
  res.set({ 'X-Frame-Options': 'SAMEORIGIN', 'X-Content-Type-Options': 'nosniff' });
  // python-gitlab 3.x parses a body only when the header is exactly that; express would append
  // "; charset=utf-8" (res.type/res.set would add the charset back: set the raw header).
  res.json = (body: unknown) => {
    res.setHeader('Content-Type', 'application/json');
    return res.send(Buffer.from(JSON.stringify(body) ?? 'null'));
  };
  next();
}

/**
 * Resolve the caller once per request (for callerOf); like GitLab, a presented but unknown token is a
 * 401 even on public reads, and every non-GET needs a caller. Lookup order is GitLab's: Bearer,
 * private_token, PRIVATE-TOKEN. The token's scopes are checked here too, by the route family of
 * hostingScopeRules; a caller's requests are metered by route.
 */
export function resolveCaller(auth: AuthGuard, meter: Meter): RequestHandler {
  return async (req, res, next) => {
    const caller = await auth.authenticate(
      req,
      ['bearer', 'private-token-param', 'private-token-header'],
      familyOf(hostingScopeRules, req.method, req.path),
    );
    res.locals.caller = caller;
    if (!caller && req.method !== 'GET' && req.method !== 'HEAD') throw new AppError('unauthorized', 'Unauthorized');
    if (caller) {
      res.on('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path;
        if (route) meter.request(caller.tenant, `${req.method} /api/v4${route}`);
      });
    }
    next();
  };
}

/** The caller the /api/v4 router resolved for this request, or null (anonymous). */
export function callerOf(res: Response): Identity | null {
  return (res.locals.caller as Identity | null | undefined) ?? null;
}

/** The calling user, or null. */
export function userOf(res: Response): Readonly<UserRecord> | null {
  return callerOf(res)?.user ?? null;
}

/** The calling user; a 401 without one. */
export function requireUser(res: Response): Readonly<UserRecord> {
  const user = userOf(res);
  if (!user) throw new AppError('unauthorized', 'Unauthorized');
  return user;
}

/** The calling user when an admin; 401 without a caller, 403 for anyone else. */
export function requireAdmin(res: Response): Readonly<UserRecord> {
  const user = requireUser(res);
  if (!user.admin) throw new AppError('forbidden', 'Forbidden');
  return user;
}

/** Query string, form and JSON body merged, as Grape reads them (body wins). */
export function paramsOf(req: Request): Params {
  return new Params({ ...(req.query as Record<string, unknown>), ...((req.body as Record<string, unknown> | undefined) ?? {}) });
}

/** The caller's project access (built once per request: routes of one request share it). */
export function viewerOf(projects: ProjectService, res: Response): Viewer {
  return (res.locals.viewer as Viewer | undefined) ?? (res.locals.viewer = projects.policy.viewer(userOf(res)));
}

/** The project named by `:id` (an id or a full path) if the caller may read it; a 404 otherwise. */
export function readableProjectOf(projects: ProjectService, req: Request, res: Response) {
  return projects.policy.readable(viewerOf(projects, res), String(req.params.id));
}

/** Links built from the request: to this server (the public URL's, when configured) and to this request. */
export interface RequestLinks {
  /** The server's base URL as clients reach it (a path prefix of the public URL kept). */
  baseUrl(req: Request): string;
  /** The full URL of this request, for pagination links. */
  requestUrl(req: Request): URL;
  /** Answer one page of `items` with GitLab's pagination headers. */
  sendPage<T>(req: Request, res: Response, items: readonly T[]): void;
}

/** RequestLinks for a server whose configured public URL is `publicUrl` (null: the request's own host). */
export function createRequestLinks(publicUrl: string | null): RequestLinks {
  const baseUrl = (req: Request) => requestBaseUrl(req, publicUrl);
  // The public URL may carry a path prefix (a reverse proxy at /cratehouse); keep it.
  const requestUrl = (req: Request) => new URL(baseUrl(req) + req.originalUrl);
  return {
    baseUrl,
    requestUrl,
    sendPage: (req, res, items) => {
      const page = paginate(items, { url: requestUrl(req) });
      res.set(page.headers).json(page.items);
    },
  };
}

/** Today's date as GitLab's token fields spell it (YYYY-MM-DD, UTC). */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
