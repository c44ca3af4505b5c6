import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
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

  describe('the repository through glab: view, archive, contributors, group clone', () => {
    // The bytes committed, known here: a binary stem (every byte value twice) and a README.
    const stem = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    const readme = '# Night Drive\n\nSynthwave stems.\n';
    let head: string;
    /** Commit files through the API as `author` (what the scenarios then read back through glab). */
    const commit = async (
      projectPath: string,
      message: string,
      actions: readonly Record<string, unknown>[],
      author?: readonly [string, string],
    ) => {
      const res = await api(`/projects/${encodeURIComponent(projectPath)}/repository/commits`, {
        method: 'POST',
        body: { branch: 'main', commit_message: message, actions, ...(author ? { author_name: author[0], author_email: author[1] } : {}) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return String(res.body.id);
    };

    beforeAll(async () => {
      expect((await api('/projects', { method: 'POST', body: { name: 'Night Drive', description: 'Synthwave stems.' } })).status).toBe(201);
      const project = `${username}/night-drive`;
      await commit(project, 'README', [{ action: 'create', file_path: 'README.md', content: readme }]);
      await commit(
        project,
        'Kick',
        [{ action: 'create', file_path: 'stems/kick.wav', content: stem.toString('base64'), encoding: 'base64' }],
        ['Dee Bass', 'dee@example.com'],
      );
      head = await commit(
        project,
        'Snare',
        [{ action: 'create', file_path: 'stems/snare.txt', content: 'snare\n' }],
        ['Dee Bass', 'dee@example.com'],
      );
    }, 120_000);

    it('glab repo view prints the name, the description and the README from the default branch', async () => {
      const r = await run(['repo', 'view', `${username}/night-drive`], home);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(`name:\tGlab Producer / Night Drive\ndescription:\tSynthwave stems.\n---\n${readme}`);
    }, 120_000);

    it('glab repo archive --format zip and tar.gz saves the branch as an archive, byte for byte', async () => {
      const dir = await workDir('archive');
      const prefix = `night-drive-main-${head}`;
      const expected = { 'README.md': Buffer.from(readme), 'stems/kick.wav': stem, 'stems/snare.txt': Buffer.from('snare\n') };
      for (const format of ['zip', 'tar.gz'] as const) {
        const r = await run(['repo', 'archive', `${username}/night-drive`, `drive-${format}`, '--format', format], dir);
        expect(r.code, r.out).toBe(0);
        const file = path.join(dir, `drive-${format}.${format}`);
        const out = path.join(dir, `out-${format}`);
        await mkdir(out);
        if (format === 'zip') await promisify(execFile)('unzip', ['-q', file, '-d', out]);
        else await promisify(execFile)('tar', ['-xzf', file, '-C', out]);
        expect(await readdir(out)).toEqual([prefix]);
        for (const [name, bytes] of Object.entries(expected)) {
          const got = await readFile(path.join(out, prefix, name));
          expect(createHash('sha256').update(got).digest('hex'), `${format}: ${name}`).toBe(
            createHash('sha256').update(bytes).digest('hex'),
          );
        }
      }
    }, 120_000);

    it('glab repo contributors lists each author with their commit count', async () => {
      const r = await run(['repo', 'contributors', '-R', `${username}/night-drive`, '--order', 'name', '--sort', 'asc'], home);
      expect(r.code, r.out).toBe(0);
      // Counted from the commits above: Dee Bass two, the user one.
      const lines = r.out.split('\n').filter((l) => l.includes('@example.com'));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(new RegExp(`Dee Bass\\s+dee@example\\.com\\s+2`));
      expect(lines[1]).toMatch(new RegExp(`Glab Producer\\s+${username}@example\\.com\\s+1`));
    }, 120_000);

    it('glab repo clone -g clones every project of a group and its subgroups; --include-subgroups=false only its own', async () => {
      const group = await api('/groups', { method: 'POST', body: { name: 'Beat Crew', path: `crew-${username}` } });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      const sub = await api('/groups', { method: 'POST', body: { name: 'Vocals', path: 'vocals', parent_id: group.body.id } });
      expect(sub.status, JSON.stringify(sub.body)).toBe(201);
      const projects = [
        [group.body.id, 'Drums', `crew-${username}/drums`],
        [group.body.id, 'Bass', `crew-${username}/bass`],
        [sub.body.id, 'Takes', `crew-${username}/vocals/takes`],
      ] as const;
      for (const [namespaceId, name, full] of projects) {
        const created = await api('/projects', { method: 'POST', body: { name, path: name.toLowerCase(), namespace_id: namespaceId } });
        expect(created.status).toBe(201);
        await commit(full, `First ${name}`, [{ action: 'create', file_path: `${name.toLowerCase()}.txt`, content: `${full}\n` }]);
      }
      // git asks for credentials for each clone: a credential store, as a glab user over HTTP would have.
      await writeFile(path.join(home, '.git-credentials'), `http://oauth2:${token}@${host}\n`, { mode: 0o600 });
      await execGit(['config', '--file', path.join(home, '.gitconfig'), 'credential.helper', 'store']);

      const all = await workDir('group-all');
      const r = await run(['repo', 'clone', '-g', `crew-${username}`, '-p', '--paginate'], all);
      expect(r.code, r.out).toBe(0);
      for (const [, name, full] of projects) {
        expect(await readFile(path.join(all, full, `${name.toLowerCase()}.txt`), 'utf8'), full).toBe(`${full}\n`);
      }
      const own = await workDir('group-own');
      const mine = await run(['repo', 'clone', '-g', `crew-${username}`, '-p', '--include-subgroups=false'], own);
      expect(mine.code, mine.out).toBe(0);
      expect((await readdir(path.join(own, `crew-${username}`))).sort()).toEqual(['bass', 'drums']);
    }, 180_000);
  });
});
