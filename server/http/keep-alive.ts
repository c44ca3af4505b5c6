import type { Server } from 'node:http';

/** How long an idle keep-alive connection stays open (Node's default is 5 s). */
export const KEEP_ALIVE_MS = 65_000;

/**
 * Keep idle connections open well past what clients assume. A client reuses an idle connection until
 * its own timer (undici: the server's hint minus 1 s) says otherwise; when the server closes first,
 * as Node's 5 s default does while a busy client's timer runs late, the client's next request meets a
 * closed socket and fails with ECONNRESET. 65 s is what load balancers in front expect (more than their
 * 60 s idle timeout); the header timeout stays above it, as Node requires for reused connections.
 */
export function keepIdleConnectionsOpen(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
}
