import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverNodeFlags } from '../../server/config/node-flags.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const serverEntry = path.join(repoRoot, 'dist/server/main.js');

/** A headless Cratehouse server running as a child process, as a self-hoster runs it. */
export interface TestServer {
  /** Where it listens, e.g. http://127.0.0.1:43123 (no trailing slash). */
  readonly url: string;
  /** The first admin's (root's) personal access token. */
  readonly adminToken: string;
  readonly dataDir: string;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, wait for a graceful exit (SIGKILL after `graceMs`), remove the data dir. */
  stop(graceMs?: number): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

/** To start a server again where a stopped one was (shell.spec.ts: the server stopped mid-session). */
export interface RestartOptions {
  readonly port: number;
  /** Kept by stop(): the caller that made it removes it. */
  readonly dataDir: string;
  readonly adminToken: string;
}

/**
 * Start `node dist/server/main.js` on a free port with a fresh data dir and a known admin token, and
 * resolve once it prints "Cratehouse listening on http://…" (up to 90 s: a start took 20–30 s on the shared
 * 2-core machine under load). Needs `npm run build` first. With
 * `restart`, on that port with that data dir and token instead.
 */
export async function startTestServer(startTimeoutMs = 90_000, restart?: RestartOptions): Promise<TestServer> {
  if (!existsSync(serverEntry)) throw new Error(`${serverEntry} does not exist: run \`npm run build\` before the e2e tests`);
  const dataDir = restart?.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cratehouse-e2e-')));
  const adminToken = restart?.adminToken ?? `e2e-admin-${randomBytes(16).toString('hex')}`;
  const removeDataDir = () => (restart ? Promise.resolve() : rm(dataDir, { recursive: true, force: true }));

  // The developer's own CRATEHOUSE_* settings must not leak into the test server; tool paths may.
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('CRATEHOUSE_') || name === 'CRATEHOUSE_FFMPEG' || name === 'CRATEHOUSE_GIT',
    ),
  );
  Object.assign(env, {
    CRATEHOUSE_PORT: String(restart?.port ?? 0),
    CRATEHOUSE_DATA_DIR: dataDir,
    CRATEHOUSE_ADMIN_TOKEN: adminToken,
    CRATEHOUSE_LOG_LEVEL: 'error',
    // The specs serve media from loopback HTTP servers (as the desktop app allows).
    CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true',
  });

  const child = spawn(process.execPath, [...serverNodeFlags, serverEntry], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

  let url: string;
  try {
    url = await waitForUrl(child, () => output, exited, startTimeoutMs);
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await removeDataDir();
    throw error;
  }

  let stopping: ReturnType<TestServer['stop']> | null = null;
  return {
    url,
    adminToken,
    dataDir,
    output: () => output,
    stop: (graceMs = 15_000) =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          try {
            await exited;
          } finally {
            clearTimeout(timer);
          }
        }
        const result = await exited;
        await removeDataDir();
        return result;
      })()),
  };
}

function waitForUrl(
  child: ChildProcess,
  output: () => string,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const listening = /^Cratehouse listening on (http:\/\/\S+)\s*$/m;
    const onData = () => {
      const match = listening.exec(output());
      if (match?.[1]) {
        done();
        resolve(match[1].replace(/\/+$/, ''));
      }
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the server did not print its URL within ${timeoutMs} ms; output:\n${output()}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
    };
    // Registered after the collector in startTestServer, so output() already holds the chunk.
    child.stdout?.on('data', onData);
    void exited.then(({ code, signal }) => {
      done();
      reject(new Error(`the server exited before listening (code ${code}, signal ${signal}); output:\n${output()}`));
    });
  });
}
