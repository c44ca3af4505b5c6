import type { UsageReport } from '../../auth/metering.js';
import type { Identity } from '../../auth/identity.js';
import type { AppError } from '../../http/errors.js';
import type { ToolInfo } from '../../http/tool-probe.js';
import type { JobRecord } from '../../store/schema.js';
import type { SourceInfo } from '../analysis/analysis-worker.js';
import type { Health, JobStatus, Me } from '../api-types.js';

/** The spec's JobStatus for a job record. */
export function presentJob(job: Readonly<JobRecord>): JobStatus {
  return {
    job_id: job.jobId,
    type: job.type,
    status: job.status,
    progress: job.progress,
    result: (job.result ?? null) as JobStatus['result'],
    result_ref: job.resultRef,
    error: job.error,
    created: job.created,
    started: job.started,
    finished: job.finished,
  };
}

/** An analysis answer: the `source` block first, then the engine's fields. */
export function presentAnalysis(source: SourceInfo, result: unknown): Record<string, unknown> {
  return { source, ...(result as Record<string, unknown>) };
}

/** Seconds a client should wait before asking /separate again. */
export const separationRetryAfterS = 3600;

/** Body of /separate while no separation backend is connected. */
export function presentSeparationPending(): Record<string, unknown> {
  return {
    detail: 'Stem separation needs a compute backend (a GPU separation worker), and none is connected to this server. Try again later.',
    status: 'pending',
    code: 'compute_pending',
    backend: { kind: 'stem-separation', connected: false, needs: 'a GPU separation worker' },
    retry_after_s: separationRetryAfterS,
  };
}

/** Body of GET /healthz. */
export function presentHealth(version: string, ffmpeg: ToolInfo | null, git: ToolInfo | null, warm: boolean): Health {
  const tool = (t: ToolInfo | null) => ({ found: t !== null, path: t?.path ?? null, version: t?.version ?? null });
  return {
    status: 'ok',
    service: 'cratehouse-audio',
    version,
    api_version: '0.1.0',
    ffmpeg: tool(ffmpeg),
    git: tool(git),
    analysis: { warm },
  };
}

/** Body of GET /me. */
export function presentMe(identity: Identity, webhookSecret: string, usage: UsageReport): Me {
  return {
    identity: {
      user_id: identity.user.id,
      username: identity.user.username,
      name: identity.user.name,
      admin: identity.user.admin,
      token_name: identity.token.name,
    },
    tenant: { id: identity.tenant, webhook_secret: webhookSecret },
    usage: { ...usage, requests: { ...usage.requests } },
  };
}

/**
 * Errors in the FastAPI shape: 422 `{"detail": [ValidationError]}` for invalid requests, otherwise
 * `{"detail": "<message>"}`. Unknown failures (null) are a bare 500.
 */
export function presentAudioError(error: AppError | null): { status: number; body: unknown; headers?: Record<string, string> } {
  if (!error) return { status: 500, body: { detail: 'Internal Server Error' } };
  switch (error.kind) {
    case 'invalid':
    case 'unprocessable':
      // A request the server cannot even address (an invalid Host): 400, as Starlette's host check answers.
      if (error.options.code === 'invalid_host') return { status: 400, body: { detail: error.message } };
      return error.options.issues
        ? { status: 422, body: { detail: error.options.issues } }
        : { status: 422, body: { detail: [{ loc: ['body'], msg: error.message, type: 'value_error' }] } };
    case 'unauthorized':
      return { status: 401, body: { detail: error.message }, headers: { 'WWW-Authenticate': 'Bearer' } };
    case 'forbidden':
      if (error.options.code === 'insufficient_scope') {
        const scope = (error.options.scopes ?? []).join(' ');
        return {
          status: 403,
          body: { detail: error.message, code: 'insufficient_scope' },
          headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", error_description="${error.message}", scope="${scope}"` },
        };
      }
      return { status: 403, body: { detail: error.message } };
    case 'not-found':
      return { status: 404, body: { detail: error.message } };
    case 'conflict':
      return { status: 409, body: { detail: error.message } };
    case 'too-large':
      return { status: 413, body: { detail: error.message } };
    case 'unsupported-media':
      return { status: 415, body: { detail: error.message } };
    case 'rate-limited':
      return {
        status: 429,
        body: { detail: error.message, code: error.options.code ?? 'rate_limited' },
        headers: { 'Retry-After': String(error.options.retryAfter ?? 60) },
      };
    case 'unavailable':
      return {
        status: 503,
        body: { detail: error.message, ...(error.options.code ? { code: error.options.code } : {}) },
        headers: error.options.retryAfter === undefined ? undefined : { 'Retry-After': String(error.options.retryAfter) },
      };
  }
}
