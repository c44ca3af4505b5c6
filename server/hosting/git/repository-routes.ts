import express, { type Request, type Response, type Router } from 'express';
import type { AuthGuard } from '../../auth/authenticate.js';
import type { Identity } from '../../auth/identity.js';
import { toAppError } from '../../http/error-middleware.js';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import { sendUserContent } from '../../http/serve-user-content.js';
import type { ProjectRecord } from '../../store/schema.js';
import { createLfsRouter } from '../lfs/lfs-routes.js';
import type { LfsLockService } from '../lfs/lfs-locks.js';
import type { LfsService } from '../lfs/lfs.js';
import type { LfsPushCheck } from '../lfs/lfs-push-check.js';
import { parseGitPath, serveGitHttp, type GitHttpService } from './smart-http.js';
import { presentHostingError } from '../present.js';
import type { ProjectService } from '../projects/projects.js';

/** A push that reached the repository: who, where, and which refs moved. */
export interface PushEvent {
  readonly project: Readonly<ProjectRecord>;
  readonly identity: Identity;
  readonly refUpdates: readonly { readonly before: string; readonly after: string; readonly ref: string }[];
}

/** What the repository router needs. */
export interface RepositoryRouteDeps {
  readonly projects: ProjectService;
  /** Resolves callers (failed-authentication limit, token, scopes). */
  readonly auth: AuthGuard;
  readonly gitPath: string;
  readonly log: Logger;
  /** Told after every successful push (hooks fire from here); never awaited by the push. */
  readonly onPush?: (event: PushEvent) => void;
  /** Git LFS beside git (`<project>.git/info/lfs/…`); not served when absent. */
  readonly lfs?: {
    readonly lfs: LfsService;
    readonly locks: LfsLockService;
    readonly publicUrl: string | null;
    /** GitLab's LFS integrity check on pushes; pushes are not checked when absent. */
    readonly pushCheck?: LfsPushCheck;
  };
}

const tokenSources = ['basic', 'bearer', 'private-token-header'] as const;

/**
 * Routes at the server root that GitLab serves outside /api/v4: git's smart HTTP for every
 * project (`/<namespace>/<project>.git/info/refs`, `git-upload-pack`, `git-receive-pack`) with a
 * token as the password, and project uploads (`/<namespace>/<project>/uploads/<secret>/<file>`).
 */
export function createRepositoryRouter(deps: RepositoryRouteDeps): Router {
  const router = express.Router();
  const { projects } = deps;
  if (deps.lfs) router.use(createLfsRouter({ ...deps.lfs, auth: deps.auth, log: deps.log }));

  router.use(async (req, res, next) => {
    const git = parseGitPath(req.url);
    if (!git) return next();
    try {
      await serveGit(req, res, git.fullPath, git.service, git.access);
    } catch (error) {
      if (res.headersSent) {
        deps.log.error(`git ${git.service} for ${git.fullPath} failed mid-stream`, error);
        res.destroy();
        return;
      }
      answerGitError(res, error);
    }
  });

  router.get(/^\/(?:-\/project\/(\d+)|(.+)\/([^/]+))\/uploads\/([0-9a-f]{32})\/([^/]+)$/, async (req, res, next) => {
    const part = (i: number) => (req.params as unknown as Record<string, string | undefined>)[i];
    const decode = (s: string | undefined) => decodeURIComponent(s ?? '');
    let caller: Identity | null;
    try {
      caller = await deps.auth.authenticate(req, ['bearer', 'private-token-header', 'private-token-param'], 'uploads');
    } catch (error) {
      // Refused like the API refuses a token (401, 403 insufficient_scope, 429), in its shape.
      const { status, body, headers } = presentHostingError(toAppError(error));
      res
        .status(status)
        .set(headers ?? {})
        .json(body);
      return;
    }
    const project = projects.policy.find(part(0) ?? `${decode(part(1))}/${decode(part(2))}`);
    // Unknown and unreadable look the same: the app's 404.
    if (!project || !projects.policy.viewer(caller?.user ?? null).canRead(project)) return next();
    const found = projects.findUpload(project, String(part(3)), decode(part(4)));
    if (!found) return next();
    const { upload, file } = found;
    // Readers of the project only, so no shared cache may keep it; revalidated, since uploads can be deleted.
    sendUserContent(res, file, upload.filename, { cacheControl: 'private, no-cache' }).then(
      (sent) => (sent ? undefined : next()),
      (error: unknown) => {
        deps.log.error(`serving upload ${upload.secret}/${upload.filename} of project ${project.id} failed`, error);
        if (res.headersSent) res.destroy();
        else res.status(500).json({ message: '500 Internal Server Error' });
      },
    );
  });

  async function serveGit(req: Request, res: Response, fullPath: string, service: GitHttpService, access: 'read' | 'write'): Promise<void> {
    const wantsPush = access === 'write';
    const caller = await deps.auth.authenticate(req, tokenSources, wantsPush ? 'git-write' : 'git-read');
    const project = projects.policy.find(fullPath);
    const viewer = projects.policy.viewer(caller?.user ?? null);
    const readable = !!project && viewer.canRead(project);
    // Anonymous: ask for credentials (git prompts, or uses its helper) instead of revealing anything.
    if (!caller && (!readable || wantsPush)) throw new AppError('unauthorized', 'HTTP Basic: Access denied');
    if (!project || !readable)
      throw new AppError('not-found', "The project you were looking for could not be found or you don't have permission to view it.");
    if (wantsPush && project.archived) throw new AppError('forbidden', 'You are not allowed to push code to this project: it is archived.');
    if (wantsPush && !viewer.canPush(project)) throw new AppError('forbidden', 'You are not allowed to push code to this project.');
    if (project.importStatus === 'scheduled' || project.importStatus === 'started')
      throw new AppError('unavailable', 'The repository is being imported; try again shortly.', { retryAfter: 5 });

    // A push's pre-receive check: pointers to LFS objects the project does not link refuse it.
    const gate = service === 'receive-pack' && req.method === 'POST' ? await deps.lfs?.pushCheck?.gate(project) : undefined;
    let outcome;
    try {
      outcome = await serveGitHttp(req, res, {
        repoDir: projects.repositoryOf(project),
        gitPath: deps.gitPath,
        service,
        remoteUser: caller?.user.username,
        config: gate?.config,
        env: gate?.env,
      });
    } finally {
      await gate?.release();
    }
    if (service === 'receive-pack' && outcome.refUpdates.length > 0 && caller) {
      await afterPush(project, caller, outcome.refUpdates);
    }
  }

  /** A push changes the project: activity, emptiness, and the default branch of a first push. */
  async function afterPush(project: Readonly<ProjectRecord>, identity: Identity, refUpdates: PushEvent['refUpdates']): Promise<void> {
    const updated = await projects.recordPush(project);
    try {
      deps.onPush?.({ project: updated, identity, refUpdates });
    } catch (error) {
      deps.log.error(`push listener failed for project ${project.id}`, error);
    }
  }

  return router;
}

/** git clients show the body of an error answer to the user: plain text, one sentence. */
function answerGitError(res: Response, error: unknown): void {
  if (!(error instanceof AppError)) {
    res.status(500).type('text/plain').send('Internal server error\n');
    return;
  }
  const status =
    { unauthorized: 401, forbidden: 403, 'not-found': 404, 'rate-limited': 429, unavailable: 503 }[error.kind as string] ?? 400;
  if (status === 401) res.set('WWW-Authenticate', 'Basic realm="Cratehouse"');
  if (error.options.retryAfter !== undefined) res.set('Retry-After', String(error.options.retryAfter));
  const needs =
    error.options.code === 'insufficient_scope' && error.options.scopes
      ? ` The token needs one of these scopes: ${error.options.scopes.join(', ')}.`
      : '';
  res.status(status).type('text/plain').send(`${error.message}${needs}\n`);
}
