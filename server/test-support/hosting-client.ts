import { execFile } from 'node:child_process';

/** What an /api/v4 call from a test sends: a method and, optionally, a JSON body. */
export interface CallInit {
  readonly method?: string;
  readonly body?: unknown;
}

/** Call /api/v4 on a test app with a PRIVATE-TOKEN (null: anonymous) and an optional JSON body. */
export function callHosting(
  app: { fetch(path: string, init?: RequestInit): Promise<Response> },
  token: string | null,
  route: string,
  init: CallInit = {},
): Promise<Response> {
  return app.fetch(`/api/v4${route}`, {
    method: init.method ?? 'GET',
    headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** A response's JSON body. */
export async function readJson<T = Record<string, unknown>>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

/** A clone URL that carries a token as git's password. */
export function withToken(url: string, token: string): string {
  return url.replace('http://', `http://oauth2:${token}@`);
}

/** What one git command did. */
export interface GitResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The git CLI as a test client: no user config, no credential helpers, no prompts (only what a URL
 * carries), a fixed author. Async: the server under test runs in the test's own process, so a
 * blocking spawn would deadlock it.
 */
export function gitClient(
  home: string,
  author: { readonly name: string; readonly email: string } = { name: 'Test Producer', email: 'producer@example.com' },
) {
  const run = (args: readonly string[], cwd = home): Promise<GitResult> =>
    new Promise((resolve) => {
      execFile(
        'git',
        [
          '-c',
          'credential.helper=',
          '-c',
          'init.defaultBranch=main',
          '-c',
          `user.name=${author.name}`,
          '-c',
          `user.email=${author.email}`,
          ...args,
        ],
        {
          cwd,
          env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', HOME: home },
          encoding: 'utf8',
          maxBuffer: 1 << 26,
        },
        (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  /** Run and return stdout; a failing command rejects with git's message. */
  const ok = async (args: readonly string[], cwd = home): Promise<string> => {
    const r = await run(args, cwd);
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  return { run, ok };
}
