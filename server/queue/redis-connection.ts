import type { RedisOptions as BullRedisOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';

/** Key prefix of every queue Cratehouse keeps in Redis (one Redis may serve other applications). */
export const redisKeyPrefix = 'cratehouse';

/**
 * ioredis options for a CRATEHOUSE_REDIS_URL that load-config accepted: `redis://[user:pass@]host[:port][/db]`,
 * `rediss://…` (TLS) or `unix:///path/to.sock`. BullMQ's blocking connections need
 * `maxRetriesPerRequest: null` (a command waits for Redis to come back rather than failing the worker).
 */
export function redisOptions(url: string): RedisOptions & BullRedisOptions {
  const u = new URL(url);
  const base: RedisOptions & BullRedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true };
  if (u.protocol === 'unix:') return { ...base, path: decodeURIComponent(u.pathname) };
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  return {
    ...base,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 6379,
    db,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: { servername: u.hostname } } : {}),
  };
}
