import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { startServer, type RunningServer } from '../start-server.js';
import { memoryLogger } from '../test-support/test-app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** CI fetches the clients (.ci/run), so there a missing client is a failure, not a skip. */
const required = process.env.CRATEHOUSE_REQUIRE_CLIENTS === '1' || Boolean(process.env.CI);

/** glab on PATH, else the one e2e/clients/fetch-glab.sh unpacks from Debian bookworm-backports (idempotent). */
function findGlab(): string | undefined {
  if (spawnSync('glab', ['--version']).status === 0) return 'glab';
  const fetched = spawnSync('bash', [path.join(root, 'e2e/clients/fetch-glab.sh')], { encoding: 'utf8', timeout: 180_000 });
  const bin = fetched.status === 0 ? fetched.stdout.trim().split('\n').pop() : undefined;
  return bin && spawnSync(bin, ['--version']).status === 0 ? bin : undefined;
}

const glab = findGlab();
const adminToken = 'glab-admin';
const execGit = (args: readonly string[]) =>
  promisify(execFile)('git', args, { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, encoding: 'utf8' });

interface Run {
  readonly code: number;
  readonly out: string;
}

describe.skipIf(!glab && !required)('the official glab CLI (Debian bookworm-backports 1.33) against the hosting API', () => {
  let server: RunningServer;
  let home: string;
  let token: string;
  let username: string;
  let host: string;

  /** Run glab as the user in `cwd`, never prompting, with its config in a private HOME. */
  const run = (args: readonly string[], cwd: string): Promise<Run> =>
    new Promise((resolve) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HOME: home,
        GLAB_CONFIG_DIR: path.join(home, 'glab'),
        GITLAB_HOST: host,
        NO_PROMPT: '1',
        NO_COLOR: '1',
        GIT_TERMINAL_PROMPT: '0',
      };
      delete env.GITLAB_TOKEN;
      const child = execFile(glab!, args, { cwd, env, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
      );
      child.stdin?.end();
    });
  const api = async (route: string, init: { method?: string; body?: unknown; as?: string } = {}) => {
    const res = await fetch(`${server.url}/api/v4${route}`, {
      method: init.method ?? 'GET',
      headers: { 'PRIVATE-TOKEN': init.as ?? token, ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** A fresh working directory that is a git repository, as glab expects to be run in one. */
  const workDir = async (name: string) => {
    const dir = path.join(home, 'work', name);
    await mkdir(dir, { recursive: true });
    expect(spawnSync('git', ['init', '-q', dir]).status).toBe(0);
    return dir;
  };
  /** Clone over HTTP (asynchronously: the server runs in this process). */
  const clone = async (project: string) => {
    const dir = path.join(home, 'clones', project.replace('/', '-'));
    const url = `${server.url}/${project}.git`.replace('://', `://oauth2:${token}@`);
    const { stderr } = await execGit(['clone', '-q', url, dir]);
    return { dir, stderr };
  };

  beforeAll(async () => {
    expect(glab, 'glab is unavailable: e2e/clients/fetch-glab.sh could not fetch it from Debian bookworm-backports').toBeDefined();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-glab-'));
    home = await mkdtemp(path.join(tmpdir(), 'cratehouse-glab-home-'));
    server = await startServer(loadConfig({}, { dataDir, port: 0, adminToken }), {
      log: memoryLogger(),
      rendererDir: null,
      meterFlushMs: 60_000,
    });
    host = new URL(server.url).host;
    username = `glab${Date.now().toString(36)}`;
    const user = await api('/users', {
      method: 'POST',
      as: adminToken,
      body: { email: `${username}@example.com`, username, name: 'Glab Producer', password: 'long-enough-password' },
    });
    expect(user.status).toBe(201);
    token = String(
      (
        await api(`/users/${String(user.body.id)}/personal_access_tokens`, {
          method: 'POST',
          as: adminToken,
          body: { name: 'glab', scopes: ['api'] },
        })
      ).body.token,
    );
    for (const [key, value] of [
      ['api_protocol', 'http'],
      ['git_protocol', 'http'],
      ['token', token],
    ] as const) {
      const set = await run(['config', 'set', '--host', host, key, value], home);
      expect(set.code, set.out).toBe(0);
    }
  }, 240_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('glab repo create (no --defaultBranch: glab sends an empty default_branch) makes an empty project on main', async () => {
    const r = await run(['repo', 'create', 'plain-tape', '--public'], await workDir('plain'));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`Created repository Glab Producer / plain-tape`);
    const project = await api(`/projects/${encodeURIComponent(`${username}/plain-tape`)}`);
    expect(project.body).toMatchObject({
      path_with_namespace: `${username}/plain-tape`,
      default_branch: 'main',
      empty_repo: true,
      visibility: 'public',
    });
  }, 120_000);

  it('glab repo create --readme commits README.md ("# <name>") to the default branch', async () => {
    const r = await run(['repo', 'create', 'readme-tape', '--readme', '--public'], await workDir('readme'));
    expect(r.code, r.out).toBe(0);
    const project = await api(`/projects/${encodeURIComponent(`${username}/readme-tape`)}?statistics=true`);
    expect(project.body).toMatchObject({ default_branch: 'main', empty_repo: false, statistics: { commit_count: 1 } });
    const { dir, stderr } = await clone(`${username}/readme-tape`);
    expect(stderr).not.toContain('warning');
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe('# readme-tape\n');
    const log = await execGit(['-C', dir, 'log', '--format=%an|%ae|%s', 'main']);
    expect(log.stdout.trim()).toBe(`Glab Producer|${username}@example.com|Initial commit`);
  }, 120_000);

  it('glab repo fork forks a project and waits for it (it reads statistics while the fork job runs)', async () => {
    // The source is made through the API, so this scenario does not depend on the create scenarios.
    const source = await api('/projects', { method: 'POST', body: { name: 'Fork Source', visibility: 'public' } });
    expect(source.status).toBe(201);
    const r = await run(
      ['repo', 'fork', `${username}/fork-source`, '--name', 'fork-copy', '--path', 'fork-copy', '--clone=false', '--remote=false'],
      await workDir('fork'),
    );
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`Created fork ${username}/fork-copy`);
    const fork = await api(`/projects/${encodeURIComponent(`${username}/fork-copy`)}?statistics=true`);
    expect(fork.body).toMatchObject({
      import_status: 'finished',
      forked_from_project: { id: source.body.id },
      statistics: { commit_count: 0 },
    });
  }, 120_000);
});
