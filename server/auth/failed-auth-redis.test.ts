import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { redisOptions } from '../queue/redis-connection.js';
import { startPrivateRedis, redisSkipReason, type PrivateRedis } from '../test-support/private-redis.js';
import { FailedAuthLimiter, redisFailureCounters, type FailedAuthLimits } from './failed-auth-limiter.js';

const redisSkip = redisSkipReason(process.env);
const limits: FailedAuthLimits = { failures: 10, windowS: 60, blockS: 300, exemptLoopback: false };

describe.skipIf(redisSkip !== null)('failed-auth limit over Redis (several nodes)', () => {
  let redis: PrivateRedis;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await redis?.stop();
  });

  /** One node's limiter, with its own connection, as build-services makes it. */
  const node = async () => {
    const client = new Redis({ ...redisOptions(redis.url), enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    clients.push(client);
    await new Promise((resolve) => client.once('ready', resolve));
    return new FailedAuthLimiter(limits, redisFailureCounters(limits, client));
  };

  it('counts failures on either node against one limit, and blocks the client on both', async () => {
    const [a, b] = [await node(), await node()];
    // 10 failures allowed in the window, 5 on each node: none refused yet.
    for (let i = 0; i < 10; i++) await (i % 2 === 0 ? a : b).fail('203.0.113.7', `wrong-${i}`);
    // The 11th, on either node, is one too many (per node in memory it would be the 6th: allowed).
    const refused = await a.fail('203.0.113.7', 'wrong-10').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).kind).toBe('rate-limited');
    // The other node refuses that address too, before even checking its token.
    const onB = await b.check('203.0.113.7', 'a-valid-token-maybe').catch((e: unknown) => e);
    expect((onB as AppError).kind).toBe('rate-limited');
    // Another address is not affected.
    await expect(b.check('198.51.100.1', 'x')).resolves.toBeUndefined();
  });
});
