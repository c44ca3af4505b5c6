import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Answer what Node's HTTP parser refuses before the app sees a request (headers or URL too large,
 * a malformed request line, a header timeout) with a JSON body in the API's shape, instead of
 * Node's bare status line; the connection then closes, as with Node's own answer.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    // Only where no answer has started on this connection (Node's own rule), else just close.
    const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (!socket.writable || busy) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const reason = STATUS_CODES[status] ?? 'Bad Request';
    // The request line, when it arrived, says which API was asked.
    const audio = /^[A-Z]+ \/audio\//.test(error.rawPacket?.toString('latin1', 0, 32) ?? '');
    const body = JSON.stringify(audio ? { detail: reason } : { message: `${status} ${reason}` });
    // As Node's own handler does: write the answer, then close.
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.destroy();
  });
}
