/**
 * Git LFS at `/<namespace…>/<project>[.git]/info/lfs/…`, beside git's smart HTTP and authenticated
 * the same way (a token as the Basic password; scopes read_repository / write_repository), plus
 * the short-lived transfer tokens the batch answer hands out for the object transfers.
 */
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, type Router } from 'express';
import type { AuthGuard } from '../../auth/authenticate.js';
import { toAppError } from '../../http/error-middleware.js';
import { AppError, statusForKind } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import { requestBaseUrl } from '../../http/request-host.js';
import type { UserRecord } from '../../store/schema.js';
import { LockConflict, type LfsLockQuery, type LfsLockService } from './lfs-locks.js';
import { parseLfsPath, type LfsTarget } from './lfs-path.js';
import { transferScheme, type LfsService } from './lfs.js';

/** What the LFS routes need. */
export interface LfsRouteDeps {
  readonly lfs: LfsService;
  readonly locks: LfsLockService;
  readonly auth: AuthGuard;
  /** The server's public URL for the hrefs of batch answers (from the request's Host when null). */
  readonly publicUrl: string | null;
  readonly log: Logger;
}

/** The spec's media type, for requests and answers. */
export const lfsMediaType = 'application/vnd.git-lfs+json';

const tokenSources = ['basic', 'bearer', 'private-token-header'] as const;
const parseJson = express.json({ type: () => true, limit: '4mb' });

/** The LFS batch, transfer and locking routes for every project. */
export function createLfsRouter(deps: LfsRouteDeps): Router {
  const router = express.Router();
  const { lfs, locks } = deps;

  router.use(async (req, res, next) => {
    const target = parseLfsPath(req.method, req.url);
    if (!target) return next();
    try {
      await serve(req, res, target);
    } catch (error) {
      if (res.headersSent) {
        deps.log.error(`LFS ${target.action} for ${target.fullPath} failed mid-stream`, error);
        res.destroy();
        return;
      }
      answerLfsError(res, error, deps.log);
    }
  });

  async function serve(req: Request, res: Response, target: LfsTarget): Promise<void> {
    const repoUrl = `${requestBaseUrl(req, deps.publicUrl)}/${target.fullPath.split('/').map(encodeURIComponent).join('/')}.git`;
    switch (target.action) {
      case 'batch': {
        const body = await readJson(req, res);
        const need = (body as { operation?: unknown } | null)?.operation === 'upload' ? 'write' : 'read';
        const { project, user } = await callerOf(req, target, need);
        return send(res, 200, await lfs.batch(project, user, body, repoUrl));
      }
      case 'download': {
        const { project } = await callerOf(req, target, 'read', 'download');
        const { size, stream } = await lfs.download(project, target.oid!);
        res
          .status(200)
          .set({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(size), 'Cache-Control': 'private, no-store' });
        await pipeline(stream, res).catch(() => res.destroy()); // a client that left
        return;
      }
      case 'upload': {
        const { project, grantedSize } = await callerOf(req, target, 'write', 'upload');
        const size = grantedSize ?? contentLengthOf(req);
        await lfs.upload(project, target.oid!, size, req);
        res.status(200).end();
        return;
      }
      case 'verify': {
        const body = await readJson(req, res);
        const { project } = await callerOf(
          req,
          target,
          'write',
          'upload',
          typeof (body as { oid?: unknown } | null)?.oid === 'string' ? String((body as { oid: string }).oid) : '',
        );
        await lfs.verify(project, body);
        return send(res, 200, {});
      }
      case 'locks-list': {
        const { project } = await callerOf(req, target, 'read');
        const page = locks.list(project, req.query as LfsLockQuery);
        return send(res, 200, { locks: page.items, ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}) });
      }
      case 'locks-create': {
        const body = await readJson(req, res);
        const { project, user } = await callerOf(req, target, 'write');
        return send(res, 201, { lock: await locks.create(project, user!, body) });
      }
      case 'locks-verify': {
        const body = await readJson(req, res);
        const { project, user } = await callerOf(req, target, 'write');
        const found = locks.verify(project, user!, body);
        return send(res, 200, { ours: found.ours, theirs: found.theirs, ...(found.nextCursor ? { next_cursor: found.nextCursor } : {}) });
      }
      case 'unlock': {
        const body = await readJson(req, res);
        const { project, viewer } = await callerOf(req, target, 'write');
        return send(res, 200, { lock: await locks.unlock(project, viewer, target.lockId!, body) });
      }
    }
  }

  /**
   * The project and caller: from a transfer token the batch answer signed (for object transfers),
   * else from the request's token with the scope `need` asks for. Either way the caller's access is
   * checked now, against the project as it is now.
   */
  async function callerOf(req: Request, target: LfsTarget, need: 'read' | 'write', transfer?: 'download' | 'upload', oid?: string) {
    const header = req.get('authorization') ?? '';
    const transferToken = transfer && header.startsWith(`${transferScheme} `) ? header.slice(transferScheme.length + 1).trim() : null;
    let user: Readonly<UserRecord> | null;
    let grantedSize: number | undefined;
    let projectId: number | undefined;
    if (transferToken !== null) {
      const grant = lfs.checkToken(transferToken, oid ?? target.oid ?? null);
      if (grant.operation !== transfer) throw new AppError('unauthorized', 'The LFS transfer token is for another operation');
      user = grant.userId === 0 ? null : (lfs.findUser(grant.userId) ?? null);
      if (grant.userId !== 0 && user?.state !== 'active') throw new AppError('unauthorized', 'Invalid LFS transfer token');
      grantedSize = grant.size;
      projectId = grant.projectId;
    } else {
      user = (await deps.auth.authenticate(req, tokenSources, need === 'write' ? 'git-write' : 'git-read'))?.user ?? null;
    }
    const { project, viewer } = lfs.resolve(target.fullPath, user, need);
    if (projectId !== undefined && project.id !== projectId)
      throw new AppError('unauthorized', 'The LFS transfer token is for another project');
    return { project, viewer, user, grantedSize };
  }

  return router;
}

/** A JSON body (the spec's media type or plain JSON), at most 4 MB. */
async function readJson(req: Request, res: Response): Promise<unknown> {
  await new Promise<void>((resolve, reject) => {
    parseJson(req, res, (error?: unknown) =>
      error ? reject(toAppError(error) ?? new AppError('invalid', 'Request body is not valid JSON')) : resolve(),
    );
  });
  return req.body as unknown;
}

function contentLengthOf(req: IncomingMessage): number {
  const length = req.headers['content-length'];
  if (!length || !/^\d+$/.test(length))
    throw new AppError('invalid', 'An upload without a transfer token needs a Content-Length', { code: 'length_required' });
  return Number(length);
}

function send(res: Response, status: number, body: unknown): void {
  res.status(status).type(lfsMediaType).send(JSON.stringify(body));
}

/** Errors in the spec's shape (`{"message": ...}`); a 401 tells git-lfs to ask for credentials. */
function answerLfsError(res: Response, error: unknown, log: Logger): void {
  const known = toAppError(error);
  if (!known) {
    log.error('LFS request failed', error);
    send(res, 500, { message: 'Internal server error' });
    return;
  }
  const status = statusForKind[known.kind];
  if (status === 401) res.set({ 'LFS-Authenticate': 'Basic realm="Cratehouse"', 'WWW-Authenticate': 'Basic realm="Cratehouse"' });
  if (known.options.retryAfter !== undefined) res.set('Retry-After', String(known.options.retryAfter));
  const needs =
    known.options.code === 'insufficient_scope' && known.options.scopes
      ? ` The token needs one of these scopes: ${known.options.scopes.join(', ')}.`
      : '';
  // A body still on its way is drained, and the connection not reused, so the client reads the answer.
  if (!res.req.complete) {
    res.set('Connection', 'close');
    res.req.resume();
  }
  send(res, status, { ...(known instanceof LockConflict ? { lock: known.lock } : {}), message: `${known.message}${needs}` });
}
