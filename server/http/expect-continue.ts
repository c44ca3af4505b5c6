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
 * Express middleware: send 100 Continue once something starts reading the body, so a request
 * answered before that (refused: too large by its Content-Length, unauthorized) never invites the
 * body at all. Audio uploads that carry a content hash are left alone (their route answers from the
 * cache or sends the 100 itself).
 */
export function continueUnlessHashFirst(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const hashFirst = req.method === 'POST' && req.headers[contentHashHeader] !== undefined && (req.url ?? '').startsWith('/audio/v1/');
  if (expectsContinue(req) && !hashFirst) continueWhenRead(req, res);
  next();
}

function continueWhenRead(req: IncomingMessage, res: ServerResponse): void {
  let sent = false;
  const send = () => {
    if (sent) return;
    sent = true;
    req.off('resume', send);
    req.off('newListener', onListener);
    if (!res.headersSent && !req.complete) res.writeContinue();
  };
  // pipe() and 'data' listeners resume the stream; async iteration and read() listen for 'readable'.
  const onListener = (event: string | symbol) => {
    if (event === 'readable' || event === 'data') queueMicrotask(send);
  };
  req.on('resume', send);
  req.on('newListener', onListener);
}
