import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab, GitbeakerRequestError } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { startServer, type RunningServer } from '../start-server.js';
import { memoryLogger } from '../test-support/test-app.js';

const adminToken = 'gitbeaker-admin';

describe('@gitbeaker/rest (the npm GitLab client) against the hosting API', () => {
  let server: RunningServer;
  let work: string;
  let api: InstanceType<typeof Gitlab<false>>;
  let username: string;

  /** Run git (asynchronously: the server runs in this process) and expect success. */
  const git = async (args: readonly string[], cwd = work) => {
    const env = {
      ...process.env,
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    return promisify(execFile)('git', args, { cwd, env, encoding: 'utf8' });
  };
  const cloneUrl = (project: { http_url_to_repo: string }, token: string) => project.http_url_to_repo.replace('://', `://oauth2:${token}@`);
  /** The branch HEAD names in the server's repository, as a clone sees it. */
  const remoteHead = async (url: string) =>
    /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec((await git(['ls-remote', '--symref', url, 'HEAD'])).stdout)?.[1];
  let token: string;

  beforeAll(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-gitbeaker-'));
    work = await mkdtemp(path.join(tmpdir(), 'cratehouse-gitbeaker-work-'));
    server = await startServer(loadConfig({}, { dataDir, port: 0, adminToken }), {
      log: memoryLogger(),
      rendererDir: null,
      meterFlushMs: 60_000,
    });
    const admin = new Gitlab({ host: server.url, token: adminToken });
    username = `beaker${Date.now().toString(36)}`;
    const user = await admin.Users.create({
      email: `${username}@example.com`,
      username,
      name: 'Beaker Producer',
      password: 'long-enough-password',
    });
    // An admin makes the user's token as python-gitlab's smoke test does (the endpoint gitbeaker names differently across versions).
    const res = await fetch(`${server.url}/api/v4/users/${user.id}/personal_access_tokens`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'beaker', scopes: ['api'] }),
    });
    token = ((await res.json()) as { token: string }).token;
    api = new Gitlab({ host: server.url, token });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('Projects.create({ initializeWithReadme: true }) commits README.md to the default branch', async () => {
    const project = await api.Projects.create({ name: 'Stem Pack', description: 'drums and bass', initializeWithReadme: true });
    expect(project).toMatchObject({ path: 'stem-pack', default_branch: 'main', empty_repo: false });
    expect(project.readme_url).toBe(`${project.web_url}/-/blob/main/README.md`);
    expect((await api.Projects.show(project.id, { statistics: true })).statistics).toMatchObject({ commit_count: 1 });
    const dir = path.join(work, 'stem-pack');
    await git(['clone', '-q', cloneUrl(project, token), dir]);
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe('# Stem Pack\n\ndrums and bass\n');
    expect((await git(['log', '--format=%an <%ae> %s'], dir)).stdout.trim()).toBe(
      `Beaker Producer <${username}@example.com> Initial commit`,
    );
    expect((await git(['ls-files'], dir)).stdout.trim()).toBe('README.md');
  }, 120_000);

  it('Projects.create with a blank defaultBranch takes the default (GitLab: default_branch.presence)', async () => {
    const project = await api.Projects.create({ name: 'Blank Branch', defaultBranch: '' });
    expect(project).toMatchObject({ default_branch: 'main', empty_repo: true });
  }, 120_000);

  it('Projects.edit({ defaultBranch }) to a branch that does not exist is a 400 and keeps HEAD; to one that exists moves it', async () => {
    const project = await api.Projects.create({ name: 'Head Keeper', initializeWithReadme: true });
    const url = cloneUrl(project, token);
    const error = await api.Projects.edit(project.id, { defaultBranch: 'nope' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitbeakerRequestError);
    const cause = (error as GitbeakerRequestError).cause as { description: string; response: Response };
    expect(cause.response.status).toBe(400);
    expect(JSON.parse(cause.description)).toEqual({ base: ["Could not change HEAD: branch 'nope' does not exist"] });
    expect((await api.Projects.show(project.id)).default_branch).toBe('main');
    expect(await remoteHead(url)).toBe('main');

    const dir = path.join(work, 'head-keeper');
    await git(['clone', '-q', url, dir]);
    await git(['checkout', '-q', '-b', 'mixdown'], dir);
    await writeFile(path.join(dir, 'mix.txt'), 'v1\n');
    await git(['add', 'mix.txt'], dir);
    await git(['commit', '-q', '-m', 'Mixdown'], dir);
    await git(['push', '-q', 'origin', 'mixdown'], dir);
    expect((await api.Projects.edit(project.id, { defaultBranch: 'mixdown' })).default_branch).toBe('mixdown');
    expect(await remoteHead(url)).toBe('mixdown');
  }, 120_000);
});
