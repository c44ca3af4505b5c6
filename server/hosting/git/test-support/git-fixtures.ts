/** Test helpers: the real git CLI in an isolated environment, and a tiny git HTTP server over serveGitHttp. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseGitPath, serveGitHttp, type GitHttpResult, type GitHttpService } from '../smart-http.js';

/** A temporary directory and its removal. */
export async function tempDir(prefix = 'cratehouse-git-'): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** An environment for the git CLI that ignores the machine's config and any outer git. */
export function cliEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^GIT_/.test(k)) env[k] = v;
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Ada Producer',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Producer',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    LC_ALL: 'C',
  };
}

/** Run the git CLI; resolves with stdout and stderr, rejects with both in the message. */
export function cli(home: string, args: readonly string[], cwd?: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: cliEnv(home), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')} failed: ${stderr}`, { cause: error }));
      else resolve({ stdout, stderr });
    });
  });
}

/** Run any program; resolves with stdout. */
export function run(command: string, args: readonly string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} failed: ${stderr}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

/** What the test server saw of one request. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly service: GitHttpService | null;
  readonly contentEncoding: string | undefined;
  readonly contentLength: string | undefined;
  readonly transferEncoding: string | undefined;
  readonly authorization: string | undefined;
}

/** A gate the test may put in front of serveGitHttp: answer with a status instead of serving (status 0: never answer). */
export type Gate = (req: http.IncomingMessage) => { status: number; headers?: Record<string, string> } | null;

/** A listening git server for repositories under `root` (`<root>/<fullPath>.git`). */
export interface GitTestServer {
  readonly url: string;
  readonly port: number;
  readonly requests: SeenRequest[];
  readonly results: { service: GitHttpService; result: GitHttpResult }[];
  readonly errors: unknown[];
  gate: Gate | null;
  /** Resolves once every request served so far has settled (its result recorded). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Start the test server on 127.0.0.1. */
export async function startGitServer(root: string): Promise<GitTestServer> {
  const requests: SeenRequest[] = [];
  const results: GitTestServer['results'] = [];
  const errors: unknown[] = [];
  const state: { gate: Gate | null } = { gate: null };
  const inFlight = new Set<Promise<unknown>>();
  const server = http.createServer((req, res) => {
    const target = parseGitPath(req.url ?? '/');
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      service: target?.service ?? null,
      contentEncoding: req.headers['content-encoding'],
      contentLength: req.headers['content-length'],
      transferEncoding: req.headers['transfer-encoding'],
      authorization: req.headers.authorization,
    });
    const gated = state.gate?.(req);
    if (gated?.status === 0) return;
    if (gated) {
      res.writeHead(gated.status, gated.headers).end();
      return;
    }
    if (!target) {
      res.writeHead(404).end('not a git URL');
      return;
    }
    const served = serveGitHttp(req, res, {
      repoDir: path.join(root, `${target.fullPath}.git`),
      service: target.service,
      remoteUser: 'ada',
    }).then(
      (result) => {
        results.push({ service: target.service, result });
      },
      (e: unknown) => {
        errors.push(e);
        if (!res.headersSent) res.writeHead(500).end(String(e));
      },
    );
    inFlight.add(served);
    void served.finally(() => inFlight.delete(served));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    results,
    errors,
    get gate() {
      return state.gate;
    },
    set gate(g: Gate | null) {
      state.gate = g;
    },
    idle: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
