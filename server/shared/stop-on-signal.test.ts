import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Start `args` (a server entry), send SIGTERM the moment it prints its ready line; resolve with how it exited. */
function signalAtReady(args: readonly string[], dataDir: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    env: {
      ...process.env,
      CRATEHOUSE_PORT: '0',
      CRATEHOUSE_DATA_DIR: dataDir,
      CRATEHOUSE_ADMIN_TOKEN: 'sig-admin',
      CRATEHOUSE_LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (/listening on http/.test(line)) child.kill('SIGTERM');
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('cratehouse serve on SIGTERM', () => {
  // server/main.ts's SIGTERM path is covered by server/store/crash.test.ts; the CLI's `serve` shares stopOnSignal.
  it('stops gracefully even when signalled at its ready line: exit code 0, data dir released', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-signal-'));
    try {
      expect(await signalAtReady(['server/cli.ts', 'serve'], dir)).toEqual({ code: 0, signal: null });
      await expect(stat(path.join(dir, 'server.lock'))).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
