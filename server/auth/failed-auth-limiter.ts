import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../http/errors.js';
import { digestToken } from './tokens.js';

/** How many failed authentications are tolerated before a client is made to wait. */
export interface FailedAuthLimits {
  /** Failures allowed per client address and per presented token within the window; 0 turns the limit off. */
  readonly failures: number;
  readonly windowS: number;
  /** How long an address or token that went over is refused. */
  readonly blockS: number;
  /** Never limit loopback clients (the desktop app, where every caller is the local user). */
  readonly exemptLoopback: boolean;
}

/** The defaults of a headless server. */
export const defaultFailedAuthLimits: FailedAuthLimits = { failures: 10, windowS: 60, blockS: 300, exemptLoopback: false };

const message = 'Too many failed authentication attempts. Try again later.';

/**
 * Counts failed authentications (unknown, revoked or expired tokens, bad git credentials) per client
 * address and per presented token (its digest), with rate-limiter-flexible. Once either goes over,
 * every authenticated request from that address or with that token is refused with `rate-limited`
 * (429, Retry-After) until the block ends, valid tokens included: otherwise the block would still
 * tell a guesser which guess was right. Requests without a token are not counted. In memory per
 * process; a store-backed limiter (Redis, Postgres) can be passed for several nodes.
 */
export class FailedAuthLimiter {
  private readonly limiter: RateLimiterAbstract | null;

  constructor(
    private readonly limits: FailedAuthLimits,
    limiter?: RateLimiterAbstract,
  ) {
    this.limiter =
      limits.failures <= 0
        ? null
        : (limiter ??
          new RateLimiterMemory({
            keyPrefix: 'failed-auth',
            points: limits.failures,
            duration: limits.windowS,
            blockDuration: limits.blockS,
          }));
  }

  /** Refuse a client or token that is blocked; call before checking the token. */
  async check(ip: string | undefined, token: string): Promise<void> {
    const keys = this.keysOf(ip, token);
    if (!this.limiter || keys.length === 0) return;
    const states = await Promise.all(keys.map((k) => this.limiter!.get(k)));
    const blocked = states.filter((s): s is RateLimiterRes => s !== null && s.consumedPoints > this.limits.failures);
    if (blocked.length > 0) throw tooMany(Math.max(...blocked.map((s) => s.msBeforeNext)));
  }

  /** Count one failure; refuses at once when it is one too many. */
  async fail(ip: string | undefined, token: string): Promise<void> {
    const keys = this.keysOf(ip, token);
    if (!this.limiter || keys.length === 0) return;
    const results = await Promise.allSettled(keys.map((k) => this.limiter!.consume(k)));
    const over = results.flatMap((r) => (r.status === 'rejected' && r.reason instanceof RateLimiterRes ? [r.reason] : []));
    if (over.length > 0) throw tooMany(Math.max(...over.map((s) => s.msBeforeNext)));
  }

  private keysOf(ip: string | undefined, token: string): string[] {
    const address = normaliseAddress(ip);
    if (this.limits.exemptLoopback && isLoopback(address)) return [];
    return [`ip:${address}`, `token:${digestToken(token)}`];
  }
}

/**
 * The failure counters of several nodes, kept in Redis (an ioredis client) so a failure on one node
 * counts on all; while Redis cannot be reached, each node counts in memory instead of letting
 * guesses through or refusing everyone.
 */
export function redisFailureCounters(limits: FailedAuthLimits, client: unknown): RateLimiterAbstract {
  const options = { points: limits.failures, duration: limits.windowS, blockDuration: limits.blockS };
  return new RateLimiterRedis({
    ...options,
    storeClient: client,
    keyPrefix: 'cratehouse:failed-auth',
    insuranceLimiter: new RateLimiterMemory({ ...options, keyPrefix: 'failed-auth' }),
  });
}

function tooMany(msBeforeNext: number): AppError {
  return new AppError('rate-limited', message, {
    code: 'too_many_failed_authentications',
    retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  });
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
function normaliseAddress(ip: string | undefined): string {
  const a = (ip ?? 'unknown').toLowerCase();
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(address);
}
