import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { startServer } from '../start-server.js';
import { startWorker } from '../start-worker.js';
import { redisSkipReason, startPrivateRedis } from '../test-support/private-redis.js';
import { memoryLogger } from '../test-support/test-app.js';
import { checkRedisReachable } from './redis-connection.js';

const redisSkip = redisSkipReason(process.env);

describe('reaching Redis at start', () => {
  it('refuses to start a server or a worker whose Redis does not answer, naming CRATEHOUSE_REDIS_URL', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-noredis-'));
    const config = loadConfig({ CRATEHOUSE_REDIS_URL: `unix://${path.join(dataDir, 'nobody.sock')}` }, { dataDir, port: 0 });
    await expect(startServer(config, { log: memoryLogger(), rendererDir: null })).rejects.toThrow(
      /CRATEHOUSE_REDIS_URL: cannot reach Redis/,
    );
    await expect(startWorker(config, { log: memoryLogger() })).rejects.toThrow(/CRATEHOUSE_REDIS_URL: cannot reach Redis/);
    await expect(startWorker(loadConfig({}, { dataDir }), { log: memoryLogger() })).rejects.toThrow(/needs CRATEHOUSE_REDIS_URL/);
  });

  it.skipIf(redisSkip !== null)('passes a Redis that answers', async () => {
    const redis = await startPrivateRedis();
    try {
      await expect(checkRedisReachable(redis.url)).resolves.toBeUndefined();
    } finally {
      await redis.stop();
    }
  });
});
