import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';

/** Request header carrying the sha256 of the upload, so a repeated upload can be answered unsent. */
export const contentHashHeader = 'x-content-sha256';

/**
 * Handle `Expect: 100-continue` in the app instead of Node's automatic 100: the app decides, per
 * request, whether it wants the body at all (a cache hit by content hash does not).
 */
export function handleExpectContinue(server: Server, app: RequestListener): void {
  server.on('checkContinue', (req, res) => app(req, res));
}

/** Whether the client is waiting for a 100 Continue before it sends the body. */
export function expectsContinue(req: IncomingMessage): boolean {
  return /100-continue/i.test(req.headers.expect ?? '');
}

/**
 * Express middleware: send 100 Continue at once, except for audio uploads that carry a content hash
 * (their route answers from the cache or sends the 100 itself).
 */
export function continueUnlessHashFirst(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const hashFirst = req.method === 'POST' && req.headers[contentHashHeader] !== undefined && (req.url ?? '').startsWith('/audio/v1/');
  if (expectsContinue(req) && !hashFirst) res.writeContinue();
  next();
}
