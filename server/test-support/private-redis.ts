import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A redis-server of the test's own, on a Unix socket in a temp dir, with nothing saved to disk. */
export interface PrivateRedis {
  /** CRATEHOUSE_REDIS_URL for it (unix:///…/redis.sock). */
  readonly url: string;
  stop(): Promise<void>;
}

/** Whether redis-server can be run here. */
function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Why Redis tests skip here, or null when they run. CRATEHOUSE_REQUIRE_REDIS=1 (set by .ci/run) turns a
 * missing redis-server into a failure instead of a skip.
 */
export function redisSkipReason(env: Readonly<Record<string, string | undefined>>): string | null {
  if (hasRedisServer()) return null;
  if (env.CRATEHOUSE_REQUIRE_REDIS === '1')
    throw new Error('CRATEHOUSE_REQUIRE_REDIS=1 but redis-server is not installed (apt-get install redis-server)');
  return 'redis-server is not installed: the Redis queue tests are skipped (apt-get install redis-server, or CRATEHOUSE_REQUIRE_REDIS=1 to fail instead)';
}

/** Start redis-server on a socket in a fresh temp dir (no TCP port, no RDB or AOF files); kill it with stop(). */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-redis-'));
  const socket = path.join(dir, 'redis.sock');
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = Date.now() + 10_000;
  while (!(await answersPing(socket))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start: ${output.slice(-500)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `unix://${socket}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function answersPing(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = createConnection(socket);
    conn.once('error', () => resolve(false));
    conn.once('connect', () => conn.write('PING\r\n'));
    conn.once('data', (d) => {
      conn.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
  });
}
