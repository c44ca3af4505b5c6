import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { resolveIdentity } from '../auth/authenticate.js';
import type { Identity, IdentityService } from '../auth/identity.js';
import type { Meter } from '../auth/metering.js';
import { createErrorMiddleware } from '../http/error-middleware.js';
import { AppError } from '../http/errors.js';
import type { Logger } from '../http/logger.js';
import type { JobRunner } from '../queue/job-runner.js';
import { buildOpenApi } from './openapi.js';
import { presentAudioError, presentHealth, presentJob, presentMe, type ToolInfo } from './present.js';
import { audioRouteSpecs, type AudioRouteSpec } from './route-specs.js';
import { validatePart } from './validation.js';

/** What the audio service needs from the composition root. */
export interface AudioDeps {
  readonly version: string;
  readonly identity: IdentityService;
  readonly meter: Meter;
  readonly jobs: JobRunner;
  readonly tools: { readonly ffmpeg: ToolInfo | null; readonly git: ToolInfo | null };
  readonly maxJsonKb: number;
  readonly log: Logger;
}

type Handler = (req: Request, res: Response, caller: Identity | null) => Promise<unknown> | unknown;

/** The /audio/v1 router: every route comes from audioRouteSpecs, so openapi.json lists exactly what is mounted. */
export function createAudioRouter(deps: AudioDeps): Router {
  const router = express.Router();
  router.use(express.json({ limit: `${deps.maxJsonKb}kb` }));
  const openapi = buildOpenApi(Object.values(audioRouteSpecs), deps.version);

  const mount = (spec: AudioRouteSpec, handler: Handler) => {
    const expressPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const route: RequestHandler = async (req, res) => {
      const caller = spec.auth ? authenticate(req) : null;
      if (caller) {
        const tenant = caller.tenant;
        res.on('finish', () => deps.meter.request(tenant, `${spec.method.toUpperCase()} /audio/v1${spec.path}`));
      }
      if (spec.params) validatePart(spec.params, 'path', req.params);
      const body = await handler(req, res, caller);
      if (!res.headersSent) res.json(body);
    };
    router[spec.method](expressPath, route);
  };

  const authenticate = (req: Request): Identity => {
    const caller = resolveIdentity(deps.identity, req, ['bearer']);
    if (!caller) throw new AppError('unauthorized', 'Not authenticated');
    return caller;
  };
  const requireCaller = (caller: Identity | null): Identity => {
    if (!caller) throw new AppError('unauthorized', 'Not authenticated');
    return caller;
  };
  const jobId = (req: Request) => String(req.params.job_id);

  mount(audioRouteSpecs.healthz, () => presentHealth(deps.version, deps.tools.ffmpeg, deps.tools.git));
  mount(audioRouteSpecs.openapi, () => openapi);
  mount(audioRouteSpecs.me, (_req, _res, caller) => {
    const who = requireCaller(caller);
    return presentMe(who, deps.identity.tenantSecret(who.tenant) ?? '', deps.meter.report(who.tenant));
  });
  mount(audioRouteSpecs.getJob, (req, _res, caller) => presentJob(deps.jobs.getForTenant(requireCaller(caller).tenant, jobId(req))));
  mount(audioRouteSpecs.cancelJob, async (req, _res, caller) => presentJob(await deps.jobs.cancel(requireCaller(caller).tenant, jobId(req))));

  router.use(methodNotAllowedOrNotFound(Object.values(audioRouteSpecs)));
  router.use(createErrorMiddleware((error) => presentAudioError(error), deps.log));
  return router;
}

/** FastAPI answers 405 for a known path with another method, 404 otherwise. */
function methodNotAllowedOrNotFound(specs: readonly AudioRouteSpec[]) {
  const patterns = specs.map((s) => ({ method: s.method, re: new RegExp(`^${s.path.replace(/\{\w+\}/g, '[^/]+')}/?$`) }));
  return (req: Request, res: Response, _next: NextFunction) => {
    const allowed = patterns.filter((p) => p.re.test(req.path)).map((p) => p.method.toUpperCase());
    if (allowed.length > 0) {
      res.set('Allow', allowed.join(', ')).status(405).json({ detail: 'Method Not Allowed' });
      return;
    }
    res.status(404).json({ detail: 'Not Found' });
  };
}
