import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, withToken, type CallInit } from '../../test-support/hosting-client.js';
import { adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';

let app: TestApp;
let ownerToken: string;
let strangerToken: string;
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-git-'));

const client = gitClient(work);
const git = client.run;
/** Run git and expect success, with git's message in the assertion. */
const ok = async (args: readonly string[], cwd = work) => {
  const r = await git(args, cwd);
  expect(r.status, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
};
const api = (token: string, route: string, init: CallInit = {}) => callHosting(app, token, route, init);

beforeAll(async () => {
  app = await startTestApp();
  ownerToken = (await app.addUser('maker')).token;
  strangerToken = (await app.addUser('stranger')).token;
}, 30_000);

afterAll(() => app.close());

describe('projects over real git repositories', () => {
  let project: Project;
  let log: string;

  it('push commits and a tag over HTTP with a token, clone them back', async () => {
    project = (await (
      await api(ownerToken, '/projects', { method: 'POST', body: { name: 'Beat Tape', visibility: 'private' } })
    ).json()) as Project;
    const src = path.join(work, 'src');
    await ok(['init', '-q', src]);
    for (let i = 1; i <= 3; i++) {
      writeFileSync(path.join(src, `track-${i}.txt`), `take ${i}\n`);
      await ok(['add', '.'], src);
      await ok(['commit', '-q', '-m', `Take ${i}`], src);
    }
    await ok(['tag', 'v1'], src);
    await ok(['push', '-q', withToken(project.http_url_to_repo, ownerToken), 'main', 'v1'], src);
    log = await ok(['log', '--format=%H %s', 'main'], src);

    const clone = path.join(work, 'clone');
    await ok(['clone', '-q', withToken(project.http_url_to_repo, ownerToken), clone]);
    expect(await ok(['log', '--format=%H %s', 'main'], clone)).toBe(log);
    expect((await ok(['tag'], clone)).trim()).toBe('v1');

    const after = (await (await api(ownerToken, `/projects/${project.id}?statistics=true`)).json()) as Project;
    expect(after).toMatchObject({ empty_repo: false, default_branch: 'main', statistics: { commit_count: 3 } });
    expect(after.last_activity_at > project.last_activity_at).toBe(true);
  });

  it('private repositories: anonymous clone is asked for credentials, strangers get 404, push needs developer', async () => {
    const anon = await git(['ls-remote', project.http_url_to_repo]);
    expect(anon.status).not.toBe(0);
    expect(anon.stderr).toMatch(/Authentication failed|could not read Username|401/);
    const stranger = await git(['ls-remote', withToken(project.http_url_to_repo, strangerToken)]);
    expect(stranger.status).not.toBe(0);
    expect(stranger.stderr).toMatch(/not found|404/i);
    const bad = await git(['ls-remote', withToken(project.http_url_to_repo, 'wrong-token')]);
    expect(bad.status).not.toBe(0);
  });

  it('public repositories clone anonymously; pushing still needs a token with rights', async () => {
    expect((await api(ownerToken, `/projects/${project.id}`, { method: 'PUT', body: { visibility: 'public' } })).status).toBe(200);
    const anon = path.join(work, 'anon');
    await ok(['clone', '-q', project.http_url_to_repo, anon]);
    expect(await ok(['log', '--format=%H %s', 'main'], anon)).toBe(log);
    writeFileSync(path.join(anon, 'graffiti.txt'), 'x\n');
    await ok(['add', '.'], anon);
    await ok(['commit', '-q', '-m', 'graffiti'], anon);
    expect((await git(['push', '-q', withToken(project.http_url_to_repo, strangerToken), 'main'], anon)).status).not.toBe(0);
    expect((await git(['push', '-q', project.http_url_to_repo, 'main'], anon)).status).not.toBe(0);
    expect((await ok(['ls-remote', project.http_url_to_repo, 'refs/heads/main'])).split('\t')[0]).toBe(log.split(' ')[0]);
  });

  it('archived projects refuse pushes', async () => {
    await api(ownerToken, `/projects/${project.id}/archive`, { method: 'POST' });
    const push = await git(
      ['push', '-q', withToken(project.http_url_to_repo, ownerToken), 'HEAD:refs/heads/late'],
      path.join(work, 'anon'),
    );
    expect(push.status).not.toBe(0);
    expect(push.stderr).toContain('archived');
    await api(ownerToken, `/projects/${project.id}/unarchive`, { method: 'POST' });
  });

  it('a fork reaches import_status finished with the same commits', async () => {
    const res = await api(strangerToken, `/projects/${project.id}/fork`, { method: 'POST', body: { namespace: 'stranger' } });
    expect(res.status).toBe(201);
    const fork = (await res.json()) as Project;
    let status = fork.import_status;
    for (let i = 0; i < 200 && status !== 'finished' && status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      status = ((await (await api(strangerToken, `/projects/${fork.id}`)).json()) as Project).import_status;
    }
    expect(status).toBe('finished');
    const clone = path.join(work, 'fork-clone');
    await ok(['clone', '-q', withToken(fork.http_url_to_repo, strangerToken), clone]);
    expect(await ok(['log', '--format=%H %s', 'main'], clone)).toBe(log);
    expect((await ok(['tag'], clone)).trim()).toBe('v1');
    // The fork is its own repository: a push there does not reach the source.
    writeFileSync(path.join(clone, 'remix.txt'), 'remix\n');
    await ok(['add', '.'], clone);
    await ok(['commit', '-q', '-m', 'Remix'], clone);
    await ok(['push', '-q', 'origin', 'main'], clone);
    expect((await ok(['ls-remote', project.http_url_to_repo, 'refs/heads/main'])).split('\t')[0]).toBe(log.split(' ')[0]);
  });

  it('the snapshot is a tar of the bare repository holding those commits', async () => {
    const res = await app.fetch(`/api/v4/projects/${project.id}/snapshot`, { headers: { 'PRIVATE-TOKEN': adminToken } });
    expect(res.status).toBe(200);
    const tar = path.join(work, 'snapshot.tar');
    writeFileSync(tar, Buffer.from(await res.arrayBuffer()));
    const out = path.join(work, 'snapshot');
    await ok(['init', '-q', '--bare', out]);
    execFileSync('tar', ['-xf', tar, '-C', out]);
    expect(await ok(['--git-dir', out, 'log', '--format=%H %s', 'main'])).toBe(log);
  });

  it('import_url clones a repository (scheduled → finished); a bad URL ends failed with import_error', async () => {
    const res = await api(ownerToken, '/projects', { method: 'POST', body: { name: 'Imported', import_url: project.http_url_to_repo } });
    expect(res.status).toBe(201);
    const imported = (await res.json()) as Project;
    expect(imported.import_status).toBe('scheduled');
    await app.jobs.onIdle();
    const done = (await (await api(ownerToken, `/projects/${imported.id}`)).json()) as Project;
    expect(done).toMatchObject({ import_status: 'finished', import_error: null, empty_repo: false });
    const clone = path.join(work, 'imported');
    await ok(['clone', '-q', withToken(done.http_url_to_repo, ownerToken), clone]);
    expect(await ok(['log', '--format=%H %s', 'main'], clone)).toBe(log);

    const broken = (await (
      await api(ownerToken, '/projects', { method: 'POST', body: { name: 'Broken', import_url: `${app.url}/nobody/nothing.git` } })
    ).json()) as Project;
    await app.jobs.onIdle();
    const failed = (await (await api(ownerToken, `/projects/${broken.id}`)).json()) as Project;
    expect(failed.import_status).toBe('failed');
    expect(failed.import_error).toBeTruthy();
    expect(failed.empty_repo).toBe(true);
    // The failed import still leaves a usable, empty repository.
    expect((await git(['ls-remote', withToken(failed.http_url_to_repo, ownerToken)])).status).toBe(0);

    const bad = await api(ownerToken, '/projects', { method: 'POST', body: { name: 'Sneaky', import_url: 'file:///etc' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: { import_url: ['is blocked: Only allowed schemes are http, https'] } });
  });
});
