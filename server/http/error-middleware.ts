import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError } from './errors.js';
import type { Logger } from './logger.js';

/** How one API turns an AppError (or, for null, an unknown failure: a 500) into a status and body. */
export type ErrorPresenter = (
  error: AppError | null,
  req: Request,
) => { readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> };

/** An API's mount path and its presenter, for the app-level last resort. */
export interface ApiErrorShape {
  readonly prefix: string;
  readonly present: ErrorPresenter;
}

/**
 * Express error middleware for one API. Body-parser and size errors become AppErrors first, so the
 * API's presenter decides the shape; anything else is logged and answered as a bare 500.
 */
export function createErrorMiddleware(present: ErrorPresenter, log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res: Response, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    answerError(err, req, res, present, log);
  };
}

/**
 * The app's last error handler, after every router: whatever escaped one (or failed outside any:
 * path decoding, static files, middleware before the routers) is answered as JSON in the shape of the
 * API its path belongs to, `fallback` elsewhere. Express's own handler would answer an HTML page,
 * with the stack trace outside production.
 */
export function createLastResortErrorHandler(apis: readonly ApiErrorShape[], fallback: ErrorPresenter, log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res: Response, _next) => {
    if (res.headersSent) {
      // Half an answer is already out: all that is left is to end the connection.
      log.error(`error after the response started on ${req.method} ${safePath(req)}`, err);
      res.destroy();
      return;
    }
    const path = safePath(req);
    const api = apis.find((a) => path === a.prefix || path.startsWith(`${a.prefix}/`));
    answerError(err, req, res, api?.present ?? fallback, log);
  };
}

/** Present an error and send it; never throws, whatever the error or its details hold. */
function answerError(err: unknown, req: Request, res: Response, present: ErrorPresenter, log: Logger): void {
  const appError = toAppError(err);
  if (!appError) log.error(`unhandled error on ${req.method} ${safePath(req)}`, err);
  let answer = present(appError, req);
  // Details that cannot be serialised (an echoed input nested too deep, a cycle) are left out.
  if (!isSerialisable(answer.body)) answer = present(appError ? withoutDetails(appError) : null, req);
  if (!isSerialisable(answer.body)) answer = { status: answer.status, body: { message: `${answer.status}` } };
  if (answer.headers) res.set(answer.headers);
  if (answer.status === 401 && !res.get('WWW-Authenticate')) res.set('WWW-Authenticate', 'Bearer');
  if (mustCloseUnreadBody(req)) res.set('Connection', 'close');
  res.status(answer.status).json(answer.body);
}

/** Largest unread body Node is left to read and discard after an early answer, keeping the connection. */
const drainableBytes = 1024 * 1024;

/**
 * Whether an early answer (too large, refused, failed) must close the connection: when the client waits
 * for 100 Continue that never came, or its body is chunked or large. A small body is read and
 * discarded by Node instead, so the client, still writing, reads the answer rather than a reset.
 */
function mustCloseUnreadBody(req: Request): boolean {
  if (!bodyUnread(req)) return false;
  if (/100-continue/i.test(req.headers.expect ?? '')) return true;
  const length = Number(req.headers['content-length']);
  return req.headers['transfer-encoding'] !== undefined || !(length <= drainableBytes);
}

/** True while a request's body has not been read whole (answered early: too large, refused, failed). */
export function bodyUnread(req: Request): boolean {
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  return hasBody && !req.complete;
}

function isSerialisable(body: unknown): boolean {
  try {
    JSON.stringify(body);
    return true;
  } catch {
    return false;
  }
}

function withoutDetails(error: AppError): AppError {
  const { code, retryAfter } = error.options;
  return new AppError(error.kind, error.message.slice(0, 1000), {
    ...(code === undefined ? {} : { code }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
}

/** The request path for logs and routing, even when it is not valid percent-encoding. */
function safePath(req: Request): string {
  return (req.originalUrl || req.url || '/').split('?')[0]!;
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/** Translate errors raised by Express and its parsers (body too large, bad JSON) into AppErrors. */
export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (!err || typeof err !== 'object') return null;
  // decodeURIComponent of a path or parameter that is not valid percent-encoding.
  if (err instanceof URIError)
    return new AppError('invalid', 'The URL is not valid percent-encoding', {
      issues: [{ loc: ['path'], msg: 'The URL is not valid percent-encoding', type: 'value_error' }],
    });
  const e = err as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (e.type === 'entity.too.large' || status === 413) return new AppError('too-large', 'Request body is too large');
  if (e.type === 'entity.parse.failed')
    return new AppError('invalid', 'Request body is not valid JSON', {
      issues: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
      code: 'json_invalid',
    });
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported' || status === 415)
    return new AppError('unsupported-media', e.message ?? 'Unsupported media type');
  if (typeof status === 'number' && status >= 400 && status < 500 && e.expose !== false)
    return new AppError('invalid', e.message ?? 'Bad request');
  return null;
}
