import type { RedisOptions as BullRedisOptions, WorkerOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';

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

/**
 * A dying node may lose one job this many times before BullMQ gives up on it (moves it to failed: a
 * queued job is re-queued by resume() at the next boot, an analysis task is answered 503).
 */
const maxStalls = 3;

/**
 * The options every Cratehouse BullMQ Worker runs with: `concurrency` jobs at once, each locked for
 * `lockS` seconds (renewed while it runs), so a job whose node died is moved back to waiting by the
 * stalled-job check once its lock expires and taken by another node.
 */
export function bullWorkerOptions(url: string, concurrency: number, lockS: number): WorkerOptions {
  return {
    connection: redisOptions(url),
    prefix: redisKeyPrefix,
    concurrency,
    lockDuration: lockS * 1000,
    stalledInterval: (lockS * 1000) / 2,
    maxStalledCount: maxStalls,
  };
}

/**
 * Refuse to start when Redis cannot be reached (a wrong host, port or socket), naming the variable,
 * instead of a server whose queues wait forever for it.
 */
export async function checkRedisReachable(url: string, timeoutMs = 5000): Promise<void> {
  const client = new Redis({ ...redisOptions(url), lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined); // reported below, once
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs))),
    ]);
  } catch (error) {
    throw new Error(`CRATEHOUSE_REDIS_URL: cannot reach Redis at ${url} (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
