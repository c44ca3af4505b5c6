import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { AuthGuard } from '../../auth/authenticate.js';
import { audioScopeRules, familyOf } from '../../auth/scopes.js';
import type { Identity, IdentityService } from '../../auth/identity.js';
import type { Meter } from '../../auth/metering.js';
import { createErrorMiddleware } from '../../http/error-middleware.js';
import { AppError, invalidParams } from '../../http/errors.js';
import { contentHashHeader, expectsContinue } from '../../http/expect-continue.js';
import { parseJsonBodies } from '../../http/json-body.js';
import type { Logger } from '../../http/logger.js';
import { receiveAudioUpload } from './receive-audio-upload.js';
import { sendUserContent, userContentHeadersFor } from '../../http/serve-user-content.js';
import type { JobRunner } from '../../queue/job-runner.js';
import type { AnalysisService, HeldFile } from '../analysis/analysis-service.js';
import type { LibraryFolders } from '../library/library-folders.js';
import type { LibraryService } from '../library/library-service.js';
import { mountLibraryRoutes } from './library-routes.js';
import { sha256QuerySchema } from './library-schemas.js';
import type { SourceInfo } from '../analysis/analysis-worker.js';
import type { StoredArtifact } from '../artifacts/artifact-store.js';
import { scopeGrade, type GradeResult } from '../engines/grade-policy.js';
import type { EngineId } from '../engines/registry.js';
import { buildOpenApi } from './openapi.js';
import {
  presentAnalysis,
  presentAudioError,
  presentHealth,
  presentJob,
  presentMe,
  presentSeparationPending,
  separationRetryAfterS,
} from './present.js';
import type { ToolInfo } from '../../http/tool-probe.js';
import { audioRouteSpecs, type AudioRouteSpec } from './route-specs.js';
import { sourceRequestSchema } from './schemas.js';
import type { SourceService } from '../sources/source-service.js';
import { validatePart } from './validation.js';

/** What the audio service needs from the composition root. */
export interface AudioDeps {
  readonly version: string;
  readonly identity: IdentityService;
  /** Resolves callers (failed-authentication limit, token, scopes). */
  readonly auth: AuthGuard;
  readonly meter: Meter;
  readonly jobs: JobRunner;
  readonly tools: { readonly ffmpeg: ToolInfo | null; readonly git: ToolInfo | null };
  readonly maxJsonKb: number;
  readonly analysis: AnalysisService;
  /** Where uploads stream to while they arrive, and how large they may be. */
  readonly uploads: { readonly tmpDir: string; readonly maxBytes: number };
  readonly sources: SourceService;
  /** Internal prefix for X-Accel-Redirect (a front server streams artifacts), or null to send the bytes. */
  readonly accelRedirect: string | null;
  readonly log: Logger;
  /** The producer's library and its folders on disk. */
  readonly library: LibraryService;
  readonly folders: LibraryFolders;
  /** Audio the server holds that a tenant may read (its library, sources it fetched), for `?sha256=`. */
  findHeldAudio(tenant: string, sha256: string): Promise<HeldFile | undefined>;
}

/** A route whose answer is its engine's analysis of the upload. */
type AnalysisRouteSpec = AudioRouteSpec & { readonly engine: EngineId };

/** Adapts an engine's result to the file it was asked about (the cache holds the engine's own result). */
type Scope = (result: unknown, source: SourceInfo) => unknown;

type Handler = (req: Request, res: Response, caller: Identity | null) => Promise<unknown> | unknown;

/** The /audio/v1 router: every route comes from audioRouteSpecs, so openapi.json lists exactly what is mounted. */
export function createAudioRouter(deps: AudioDeps): Router {
  const router = express.Router();
  router.use(parseJsonBodies({ limitKb: deps.maxJsonKb }));
  const openapi = buildOpenApi(Object.values(audioRouteSpecs), deps.version);

  const mount = (spec: AudioRouteSpec, handler: Handler) => {
    const expressPath = spec.path.replace(/\{(\w+)\}/g, ':$1');
    const route: RequestHandler = async (req, res) => {
      const caller = spec.auth ? await authenticate(req) : null;
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

  // The token's scopes are checked by the route family of audioScopeRules.
  const authenticate = async (req: Request): Promise<Identity> => {
    const caller = await deps.auth.authenticate(req, ['bearer'], familyOf(audioScopeRules, req.method, req.path));
    if (!caller) throw new AppError('unauthorized', 'Not authenticated');
    return caller;
  };
  const requireCaller = (caller: Identity | null): Identity => {
    if (!caller) throw new AppError('unauthorized', 'Not authenticated');
    return caller;
  };
  const jobId = (req: Request) => String(req.params.job_id);

  mount(audioRouteSpecs.healthz, () => presentHealth(deps.version, deps.tools.ffmpeg, deps.tools.git, deps.analysis.isWarm()));
  mount(audioRouteSpecs.openapi, () => openapi);
  mount(audioRouteSpecs.me, (_req, _res, caller) => {
    const who = requireCaller(caller);
    return presentMe(who, deps.identity.tenantSecret(who.tenant) ?? '', deps.meter.report(who.tenant));
  });
  mount(audioRouteSpecs.getJob, (req, _res, caller) => presentJob(deps.jobs.getForTenant(requireCaller(caller).tenant, jobId(req))));
  mount(audioRouteSpecs.cancelJob, async (req, _res, caller) =>
    presentJob(await deps.jobs.cancel(requireCaller(caller).tenant, jobId(req))),
  );

  mount(audioRouteSpecs.createSource, async (req, res, caller) => {
    const who = requireCaller(caller);
    const request = validatePart(sourceRequestSchema, 'body', req.body);
    const job = await deps.sources.submit(who.tenant, request);
    res.status(202);
    return presentJob(job);
  });
  mount(audioRouteSpecs.getArtifact, async (req, res, caller) => {
    requireCaller(caller);
    const artifact = await deps.sources.artifact(String(req.params.content_id), String(req.params.name));
    if (deps.accelRedirect) {
      // The front server streams the file (ranges included) from its internal location.
      res.set({
        ...userContentHeadersFor(artifact.name),
        'X-Accel-Redirect': `${deps.accelRedirect}${artifact.contentId}/${encodeURIComponent(artifact.name)}`,
      });
      res.end();
      return;
    }
    await sendArtifact(res, artifact);
  });

  /** An analysis route: validate the query, stream the upload to disk, analyse with the spec's engine (cached), answer. */
  const mountAnalysis = (spec: AnalysisRouteSpec, scope: Scope = (result) => result) =>
    mount(spec, async (req, res, caller) => {
      const engineId = spec.engine;
      const options = spec.headSeconds !== undefined ? { headSeconds: spec.headSeconds } : {};
      const who = requireCaller(caller);
      const params = spec.query ? (validatePart(spec.query, 'query', req.query) as Record<string, unknown>) : {};
      const { sha256 } = validatePart(sha256QuerySchema, 'query', { sha256: req.query.sha256 });
      if (sha256 !== undefined) {
        const answer = await analyseHeld(req, res, who, sha256.toLowerCase(), spec, params, options);
        return presentAnalysis(answer.source, scope(answer.result, answer.source));
      }
      const claimed = req.get(contentHashHeader);
      if (claimed !== undefined) {
        if (!/^[0-9a-fA-F]{64}$/.test(claimed))
          throw invalidParams([
            {
              loc: ['header', contentHashHeader],
              msg: 'String should be 64 hexadecimal characters',
              type: 'string_pattern_mismatch',
              input: claimed,
            },
          ]);
        const hit = await deps.analysis.lookup(who.tenant, claimed.toLowerCase(), spec.path, engineId, params, options.headSeconds);
        if (hit) {
          res.set('X-Cache', 'hit');
          // The body was never asked for: close the connection rather than read it.
          if (!expectsContinue(req)) res.set('Connection', 'close');
          return presentAnalysis(hit.source, scope(hit.result, hit.source));
        }
        if (expectsContinue(req)) res.writeContinue();
      }
      // A client that goes away cancels its analysis.
      const abort = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      // The analysis starts while the upload arrives; used only if the cache has no answer.
      const early = deps.analysis.begin(engineId, params, { ...options, signal: abort.signal });
      const upload = await receiveAudioUpload(req, deps.uploads, early);
      deps.meter.uploaded(who.tenant, upload.bytes);
      if (claimed !== undefined && claimed.toLowerCase() !== upload.sha256) {
        early.cancel();
        await upload.discard();
        throw invalidParams([
          {
            loc: ['header', contentHashHeader],
            msg: 'Does not match the sha256 of the uploaded file',
            type: 'value_error',
            input: claimed,
          },
        ]);
      }
      const answer = await deps.analysis.analyse(who.tenant, upload, spec.path, engineId, params, {
        ...options,
        signal: abort.signal,
        early,
      });
      res.set('X-Cache', answer.cache);
      return presentAnalysis(answer.source, scope(answer.result, answer.source));
    });
  /**
   * `?sha256=` with an empty body: analyse audio the server already holds that the caller may read.
   * Audio held only for another tenant is the same 404 as unknown audio: a hash is not possession.
   */
  const analyseHeld = async (
    req: Request,
    res: Response,
    who: Identity,
    sha256: string,
    spec: AnalysisRouteSpec,
    params: Record<string, unknown>,
    options: { readonly headSeconds?: number },
  ) => {
    if (hasBody(req)) {
      res.set('Connection', 'close');
      throw invalidParams([
        {
          loc: ['query', 'sha256'],
          msg: 'Send either ?sha256= with an empty body, or the file without it',
          type: 'value_error',
          input: sha256,
        },
      ]);
    }
    const held = await deps.findHeldAudio(who.tenant, sha256);
    if (!held) throw new AppError('not-found', 'No audio with this sha256 is held for you: send the file');
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const answer = await deps.analysis.analyseFile(who.tenant, held, spec.path, spec.engine, params, { ...options, signal: abort.signal });
    res.set('X-Cache', answer.cache);
    return answer;
  };
  mountAnalysis(audioRouteSpecs.loudness);
  mountAnalysis(audioRouteSpecs.waveform);
  mountAnalysis(audioRouteSpecs.spectrum);
  mountAnalysis(audioRouteSpecs.onsets);
  // The grade of a head is rescoped to the whole file at answer time (the cached result is the head's).
  mountAnalysis(audioRouteSpecs.grade, (result, source) => scopeGrade(result as GradeResult, source.duration_s));
  mountAnalysis(audioRouteSpecs.samples);
  mountAnalysis(audioRouteSpecs.naming);
  mountAnalysis(audioRouteSpecs.features);
  mountAnalysis(audioRouteSpecs.emotion);
  mountAnalysis(audioRouteSpecs.analyze);
  // No backend yet: answer at once, without reading the upload.
  mount(audioRouteSpecs.separate, (_req, res, caller) => {
    requireCaller(caller);
    res.status(503).set({ 'Retry-After': String(separationRetryAfterS), Connection: 'close' });
    return presentSeparationPending();
  });

  mountLibraryRoutes(mount, {
    library: deps.library,
    folders: deps.folders,
    uploads: deps.uploads,
    onUploaded: (tenant, bytes) => deps.meter.uploaded(tenant, bytes),
  });

  router.use(methodNotAllowedOrNotFound(Object.values(audioRouteSpecs)));
  router.use(createErrorMiddleware((error) => presentAudioError(error), deps.log));
  return router;
}

/** Stream an artifact as user content, with ranges and its content id as a strong validator. */
async function sendArtifact(res: Response, artifact: StoredArtifact): Promise<void> {
  // Content-addressed, so the content id is a strong validator (the app's own ETags are off).
  const sent = await sendUserContent(res, artifact.file, artifact.name, {
    cacheControl: 'public, max-age=31536000, immutable',
    etag: `"${artifact.contentId}"`,
  });
  if (!sent) throw new AppError('not-found', 'Artifact not found');
}

/** True when a request carries a body (a declared length above 0, or a chunked one). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
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
