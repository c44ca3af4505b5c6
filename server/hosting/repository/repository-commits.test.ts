import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, type CallInit } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { CommitDetail, Project } from '../api-types.js';

let app: TestApp;
let owner: string;
let ownerId: number;
let reader: string;
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-commits-'));
const git = gitClient(work);
const api = (token: string | null, route: string, init: CallInit = {}) => callHosting(app, token, route, init);
/** Read the bare repository with the git CLI: what the API says must be what git sees. */
const bare = (project: Project, args: readonly string[]) =>
  git.ok([`--git-dir=${app.projects.repositoryOf(app.projects.policy.find(String(project.id))!)}`, ...args]);

let receiver: http.Server;
const hookBodies: { event: string; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      hookBodies.push({ event: String(req.headers['x-gitlab-event']), body: JSON.parse(body) as Record<string, unknown> });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  app = await startTestApp();
  const composer = await app.addUser('composer');
  owner = composer.token;
  ownerId = composer.id;
  reader = (await app.addUser('listener')).token;
}, 30_000);

afterAll(async () => {
  await app.close();
  await new Promise((r) => receiver.close(r));
});

const newProject = async (name: string, visibility = 'private'): Promise<Project> =>
  readJson<Project>(api(owner, '/projects', { method: 'POST', body: { name, visibility } }));

describe('POST /projects/:id/repository/commits', () => {
  let project: Project;
  let first: CommitDetail;

  it('makes the first commit of an empty repository: one commit with every action, the branch, and the push effects', async () => {
    project = await newProject('Stems');
    const port = (receiver.address() as AddressInfo).port;
    expect(
      (
        await api(owner, `/projects/${project.id}/hooks`, {
          method: 'POST',
          body: { url: `http://127.0.0.1:${port}/hook`, push_events: true },
        })
      ).status,
    ).toBe(201);
    const wav = Buffer.from([0x52, 0x49, 0x46, 0x46, 0x00, 0xff, 0x10, 0x80]);
    const res = await api(owner, `/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: {
        branch: 'main',
        commit_message: 'Add stems\n\nSigned-off-by: Composer <c@example.com>',
        author_name: 'Ada Producer',
        author_email: 'ada@example.com',
        actions: [
          { action: 'create', file_path: 'README.md', content: '# Stems\n' },
          { action: 'create', file_path: 'stems/kick.wav', content: wav.toString('base64'), encoding: 'base64' },
          { action: 'create', file_path: 'tools/render.sh', content: 'echo render\n', execute_filemode: true },
        ],
      },
    });
    expect(res.status).toBe(201);
    first = await readJson<CommitDetail>(res);
    const head = (await bare(project, ['rev-parse', 'refs/heads/main'])).trim();
    expect(first.id).toBe(head);
    expect(first).toMatchObject({
      short_id: head.slice(0, 8),
      title: 'Add stems',
      parent_ids: [],
      author_name: 'Ada Producer',
      author_email: 'ada@example.com',
      committer_name: 'composer',
      project_id: project.id,
      stats: { additions: 2, deletions: 0, total: 2 },
    });
    // (The WAV holds a NUL: git counts it as binary, no lines, as GitLab's stats do.)
    expect(first.trailers).toEqual({ 'Signed-off-by': 'Composer <c@example.com>' });
    expect(first.web_url).toBe(`${app.url}/${project.path_with_namespace}/-/commit/${head}`);
    // One commit, the three files with their modes and exact bytes.
    expect((await bare(project, ['rev-list', '--count', 'main'])).trim()).toBe('1');
    expect(await bare(project, ['ls-tree', '-r', '--format=%(objectmode) %(path)', 'main'])).toBe(
      '100644 README.md\n100644 stems/kick.wav\n100755 tools/render.sh\n',
    );
    expect(await bare(project, ['log', '-1', '--format=%an <%ae>|%cn|%s', 'main'])).toBe(
      'Ada Producer <ada@example.com>|composer|Add stems\n',
    );
    // The push effects: no longer empty, default branch main, push hook with the new head.
    const after = await readJson<Project>(api(owner, `/projects/${project.id}`));
    expect(after).toMatchObject({ empty_repo: false, default_branch: 'main' });
    for (let i = 0; i < 100 && hookBodies.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(hookBodies[0]).toMatchObject({ event: 'Push Hook', body: { ref: 'refs/heads/main', after: head, total_commits_count: 1 } });
  }, 120_000);

  it('the bytes of a base64 file are exactly those sent', async () => {
    const dir = app.projects.repositoryOf(app.projects.policy.find(String(project.id))!);
    const out = await new Promise<Buffer>((resolve, reject) => {
      import('node:child_process').then(
        ({ execFile }) =>
          execFile('git', [`--git-dir=${dir}`, 'cat-file', 'blob', 'main:stems/kick.wav'], { encoding: 'buffer' }, (e, stdout) =>
            e ? reject(e) : resolve(stdout),
          ),
        reject,
      );
    });
    expect([...out]).toEqual([0x52, 0x49, 0x46, 0x46, 0x00, 0xff, 0x10, 0x80]);
  }, 120_000);

  it('update, move, chmod and delete in one commit on top of the branch', async () => {
    const res = await api(owner, `/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: {
        branch: 'main',
        commit_message: 'Rework',
        actions: [
          { action: 'update', file_path: 'README.md', content: '# Stems v2\n' },
          { action: 'move', previous_path: 'stems/kick.wav', file_path: 'drums/kick.wav' },
          { action: 'chmod', file_path: 'tools/render.sh', execute_filemode: false },
          { action: 'delete', file_path: 'tools/render.sh' },
          { action: 'create', file_path: 'tools', content: 'now a file\n' },
        ],
      },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const commit = await readJson<CommitDetail>(res);
    expect(commit.parent_ids).toEqual([first.id]);
    expect(await bare(project, ['ls-tree', '-r', '--format=%(objectmode) %(path)', 'main'])).toBe(
      '100644 README.md\n100644 drums/kick.wav\n100644 tools\n',
    );
    expect(await bare(project, ['show', 'main:README.md'])).toBe('# Stems v2\n');
    expect((await bare(project, ['rev-parse', 'main:drums/kick.wav'])).trim()).toBe(
      (await bare(project, [`rev-parse`, `${first.id}:stems/kick.wav`])).trim(),
    );
  }, 120_000);

  it('refuses like GitLab: existing and missing files, an unknown start branch, bad actions; nothing is committed', async () => {
    const before = (await bare(project, ['rev-parse', 'main'])).trim();
    const post = (body: Record<string, unknown>) =>
      api(owner, `/projects/${project.id}/repository/commits`, { method: 'POST', body: { branch: 'main', commit_message: 'x', ...body } });
    const exists = await post({ actions: [{ action: 'create', file_path: 'README.md', content: 'again' }] });
    expect([exists.status, await exists.json()]).toEqual([400, { message: 'A file with this name already exists' }]);
    const missing = await post({ actions: [{ action: 'update', file_path: 'nope.txt', content: 'x' }] });
    expect([missing.status, await missing.json()]).toEqual([400, { message: "A file with this name doesn't exist" }]);
    const gone = await post({ actions: [{ action: 'delete', file_path: 'nope.txt' }] });
    expect([gone.status, await gone.json()]).toEqual([400, { message: "A file with this name doesn't exist" }]);
    const dirClash = await post({ actions: [{ action: 'create', file_path: 'drums', content: 'x' }] });
    expect([dirClash.status, await dirClash.json()]).toEqual([400, { message: 'A directory with this name already exists' }]);
    const noStart = await post({ branch: 'feature', actions: [{ action: 'create', file_path: 'a.txt', content: 'x' }] });
    expect([noStart.status, await noStart.json()]).toEqual([
      400,
      { message: 'You can only create or edit files when you are on a branch' },
    ]);
    const badAction = await post({ actions: [{ action: 'rename', file_path: 'a' }] });
    expect([badAction.status, await badAction.json()]).toEqual([400, { error: 'actions[0][action] does not have a valid value' }]);
    // Grape's String coercion (Coercible::String, which rejects arrays and hashes): GitLab's 400, not a file named "[object Object]".
    const objectContent = await post({ actions: [{ action: 'create', file_path: 'obj.txt', content: { bytes: 'x' } }] });
    expect([objectContent.status, await objectContent.json()]).toEqual([400, { error: 'actions[0][content] is invalid' }]);
    const several = await post({
      actions: [
        { action: 'create', file_path: 'ok.txt', content: 'fine' },
        { action: 'update', file_path: 'README.md', content: ['a', 'b'], encoding: 'hex' },
        { action: 'chmod', file_path: 'README.md' },
        'create',
      ],
    });
    expect([several.status, await several.json()]).toEqual([
      400,
      {
        error:
          'actions[1][encoding] does not have a valid value, actions[1][content] is invalid, actions[2][execute_filemode] is missing, actions[3] is invalid',
      },
    ]);
    const traversal = await post({ actions: [{ action: 'create', file_path: '../escape.txt', content: 'x' }] });
    expect([traversal.status, await traversal.json()]).toEqual([400, { error: 'file_path should be a valid file path' }]);
    const missingParams = await api(owner, `/projects/${project.id}/repository/commits`, { method: 'POST', body: {} });
    expect([missingParams.status, await missingParams.json()]).toEqual([
      400,
      { error: 'branch is missing, commit_message is missing, actions is missing' },
    ]);
    const stale = await post({ actions: [{ action: 'update', file_path: 'README.md', content: 'x', last_commit_id: first.id }] });
    expect([stale.status, await stale.json()]).toEqual([400, { message: 'The file has changed since you started editing it: README.md' }]);
    expect((await bare(project, ['rev-parse', 'main'])).trim()).toBe(before);
    expect(await bare(project, ['for-each-ref', '--format=%(refname)'])).toBe('refs/heads/main\n');
  }, 120_000);

  it('start_branch makes a new branch from another; an existing target branch is refused', async () => {
    const res = await api(owner, `/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: {
        branch: 'mix',
        start_branch: 'main',
        commit_message: 'Mix',
        actions: [{ action: 'create', file_path: 'mix.txt', content: 'mix\n' }],
      },
    });
    expect(res.status).toBe(201);
    const commit = await readJson<CommitDetail>(res);
    expect(commit.parent_ids).toEqual([(await bare(project, ['rev-parse', 'main'])).trim()]);
    expect((await bare(project, ['rev-parse', 'mix'])).trim()).toBe(commit.id);
    const again = await api(owner, `/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: {
        branch: 'mix',
        start_branch: 'main',
        commit_message: 'Mix',
        actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }],
      },
    });
    expect([again.status, await again.json()]).toEqual([
      400,
      { message: "A branch called 'mix' already exists. Switch to that branch in order to make changes" },
    ]);
  }, 120_000);

  it('a number or a boolean as content is its text, as Grape coerces a String (Kernel#String)', async () => {
    const res = await api(owner, `/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: {
        branch: 'numbers',
        start_branch: 'main',
        commit_message: 'Numbers',
        actions: [
          { action: 'create', file_path: 'bpm.txt', content: 174 },
          { action: 'create', file_path: 'loop.txt', content: true },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(await bare(project, ['show', 'numbers:bpm.txt'])).toBe('174');
    expect(await bare(project, ['show', 'numbers:loop.txt'])).toBe('true');
  }, 120_000);

  it('two commits racing on one branch: each lands or is refused with 400, never lost', async () => {
    const base = (await bare(project, ['rev-parse', 'main'])).trim();
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        api(owner, `/projects/${project.id}/repository/commits`, {
          method: 'POST',
          body: {
            branch: 'main',
            commit_message: `race ${i}`,
            actions: [{ action: 'create', file_path: `race/${i}.txt`, content: `${i}\n` }],
          },
        }),
      ),
    );
    const landed: string[] = [];
    for (const r of results) {
      const body = (await r.json()) as { id?: string; message?: string };
      if (r.status === 201) landed.push(body.id!);
      else expect([r.status, body.message]).toEqual([400, 'Could not update refs/heads/main. Please refresh and try again.']);
    }
    expect(landed.length).toBeGreaterThan(0);
    // Every commit that answered 201 is in the branch's history; the branch gained exactly those.
    const history = (await bare(project, ['rev-list', `${base}..main`])).trim().split('\n').filter(Boolean);
    expect(new Set(history)).toEqual(new Set(landed));
    const files = (await bare(project, ['ls-tree', '--name-only', 'main:race'])).trim().split('\n');
    expect(files.length).toBe(landed.length);
  }, 120_000);

  it('access: strangers 404 on a private project, readers and read_api tokens 403, archived projects 403', async () => {
    const body = { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] };
    expect((await api(reader, `/projects/${project.id}/repository/commits`, { method: 'POST', body })).status).toBe(404);
    expect((await api(null, `/projects/${project.id}/repository/commits`, { method: 'POST', body })).status).toBe(401);
    const shared = await newProject('Shared', 'internal');
    // An internal project: a signed-in non-member reads it but may not push.
    const refused = await api(reader, `/projects/${shared.id}/repository/commits`, { method: 'POST', body });
    expect([refused.status, await refused.json()]).toEqual([403, { message: '403 Forbidden' }]);
    const scoped = await app.identity.createToken(ownerId, { name: 'ro', scopes: ['read_api'] });
    const readOnly = await api(scoped.token, `/projects/${project.id}/repository/commits`, { method: 'POST', body });
    expect(readOnly.status).toBe(403);
    expect(((await readOnly.json()) as { error: string }).error).toBe('insufficient_scope');
    expect((await api(scoped.token, `/projects/${project.id}/repository/commits`)).status).toBe(200);
    expect((await api(owner, `/projects/${shared.id}/archive`, { method: 'POST' })).ok).toBe(true);
    const archived = await api(owner, `/projects/${shared.id}/repository/commits`, { method: 'POST', body });
    expect(archived.status).toBe(403);
  }, 120_000);
});

describe('/projects/:id/repository/files writes', () => {
  let project: Project;
  const file = (p: string) => `/projects/${project.id}/repository/files/${encodeURIComponent(p)}`;

  it('create, update with last_commit_id, delete: each one commit on the branch', async () => {
    project = await newProject('Lyrics');
    const created = await api(owner, file('songs/verse one.txt'), {
      method: 'POST',
      body: { branch: 'main', commit_message: 'Verse', content: 'la la\n' },
    });
    expect([created.status, await created.json()]).toEqual([201, { file_path: 'songs/verse one.txt', branch: 'main' }]);
    expect(await bare(project, ['show', 'main:songs/verse one.txt'])).toBe('la la\n');
    const last = (await bare(project, ['rev-parse', 'main'])).trim();
    const again = await api(owner, file('songs/verse one.txt'), {
      method: 'POST',
      body: { branch: 'main', commit_message: 'Verse', content: 'x' },
    });
    expect([again.status, await again.json()]).toEqual([400, { message: 'A file with this name already exists' }]);
    const updated = await api(owner, file('songs/verse one.txt'), {
      method: 'PUT',
      body: {
        branch: 'main',
        commit_message: 'Edit',
        content: Buffer.from('na na\n').toString('base64'),
        encoding: 'base64',
        last_commit_id: last,
      },
    });
    expect([updated.status, await updated.json()]).toEqual([200, { file_path: 'songs/verse one.txt', branch: 'main' }]);
    expect(await bare(project, ['show', 'main:songs/verse one.txt'])).toBe('na na\n');
    const stale = await api(owner, file('songs/verse one.txt'), {
      method: 'PUT',
      body: { branch: 'main', commit_message: 'Edit', content: 'zz', last_commit_id: last },
    });
    expect([stale.status, await stale.json()]).toEqual([
      400,
      { message: 'You are attempting to update a file that has changed since you started editing it.' },
    ]);
    const missing = await api(owner, file('nope.txt'), { method: 'PUT', body: { branch: 'main', commit_message: 'Edit', content: 'x' } });
    expect([missing.status, await missing.json()]).toEqual([400, { message: "A file with this name doesn't exist" }]);
    const noContent = await api(owner, file('b.txt'), { method: 'POST', body: { branch: 'main', commit_message: 'x' } });
    expect([noContent.status, await noContent.json()]).toEqual([400, { error: 'content is missing' }]);
    const deleted = await api(owner, file('songs/verse one.txt'), { method: 'DELETE', body: { branch: 'main', commit_message: 'Gone' } });
    expect(deleted.status).toBe(204);
    expect(await bare(project, ['log', '--format=%s', 'main'])).toBe('Gone\nEdit\nVerse\n');
    expect(await bare(project, ['ls-tree', '-r', '--name-only', 'main'])).toBe('');
  }, 120_000);
});
