import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError } from './errors.js';
import type { Logger } from './logger.js';

/** How one API turns an AppError (or, for null, an unknown failure: a 500) into a status and body. */
export type ErrorPresenter = (error: AppError | null, req: Request) => { readonly status: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> };

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
    const appError = toAppError(err);
    if (!appError) {
      log.error(`unhandled error on ${req.method} ${req.originalUrl}`, err);
      const { status, body } = present(null, req);
      res.status(status).json(body);
      return;
    }
    const { status, body, headers } = present(appError, req);
    if (headers) res.set(headers);
    if (status === 401 && !res.get('WWW-Authenticate')) res.set('WWW-Authenticate', 'Bearer');
    res.status(status).json(body);
  };
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
  const e = err as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (e.type === 'entity.too.large' || status === 413) return new AppError('too-large', 'Request body is too large');
  if (e.type === 'entity.parse.failed') return new AppError('invalid', 'Request body is not valid JSON', { issues: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }], code: 'json_invalid' });
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported' || status === 415) return new AppError('unsupported-media', e.message ?? 'Unsupported media type');
  if (typeof status === 'number' && status >= 400 && status < 500 && e.expose !== false) return new AppError('invalid', e.message ?? 'Bad request');
  return null;
}
