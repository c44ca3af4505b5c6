import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, withToken, type CallInit } from '../../test-support/hosting-client.js';
import type { JobHandler } from '../../queue/job-runner.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project, ProjectExportStatus } from '../api-types.js';
import { defaultArchiveLimits, extractTarGz } from '../../shared/tar-archive.js';

const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-export-'));
let app: TestApp;
let ownerToken: string;
let developerToken: string;
let strangerToken: string;
/** The blocker job holds the (single-slot) runner until the gate opens, so "started" can be observed. */
let gate: Promise<void> = Promise.resolve();
const blocker: JobHandler = async () => {
  await gate;
  return { result: null };
};

const git = gitClient(work).ok;
const api = (token: string | null, route: string, init: CallInit = {}) => callHosting(app, token, route, init);
const json = readJson;

/** Hold the runner, run `during` while the export is queued, then let it run to the end. */
async function exportHeld(projectId: number, body: unknown, during: () => Promise<void>): Promise<void> {
  let open: () => void = () => undefined;
  gate = new Promise((resolve) => (open = resolve));
  await app.jobs.submit({ type: 'blocker', tenant: 'default', params: null });
  const res = await api(ownerToken, `/projects/${projectId}/export`, { method: 'POST', body });
  expect(res.status).toBe(202);
  expect(await res.json()).toEqual({ message: '202 Accepted' });
  try {
    await during();
  } finally {
    open();
  }
  await app.jobs.onIdle();
}

let project: Project;
let uploadUrl: string;
let log: string;

beforeAll(async () => {
  app = await startTestApp({ jobHandlers: new Map([['blocker', blocker]]) });
  ownerToken = (await app.addUser('exporter')).token;
  const dev = await app.addUser('helper');
  developerToken = dev.token;
  strangerToken = (await app.addUser('stranger')).token;
  const group = await json<{ id: number }>(
    api(ownerToken, '/groups', { method: 'POST', body: { name: 'Label', path: 'label', visibility: 'internal' } }),
  );
  await api(ownerToken, `/groups/${group.id}/members`, { method: 'POST', body: { user_id: dev.id, access_level: 30 } });
  project = await json<Project>(
    api(ownerToken, '/projects', {
      method: 'POST',
      body: {
        name: 'Beat Tape',
        namespace_id: group.id,
        description: 'loops and stems',
        visibility: 'internal',
        issues_enabled: false,
        merge_method: 'ff',
        tag_list: ['lofi', 'drums'],
        ci_config_path: 'ci/build.yml',
      },
    }),
  );
  const src = path.join(work, 'src');
  await git(['init', '-q', src]);
  for (let i = 1; i <= 2; i++) {
    writeFileSync(path.join(src, `take-${i}.txt`), `take ${i}\n`);
    await git(['add', '.'], src);
    await git(['commit', '-q', '-m', `Take ${i}`], src);
  }
  await git(['push', '-q', withToken(project.http_url_to_repo, ownerToken), 'main'], src);
  log = await git(['log', '--format=%H %s', 'main'], src);
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('stem bytes')]), 'kick drum.wav');
  const up = await app.fetch(`/api/v4/projects/${project.id}/uploads`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': ownerToken },
    body: form,
  });
  uploadUrl = ((await up.json()) as { url: string }).url;
  const hook = await api(ownerToken, `/projects/${project.id}/hooks`, {
    method: 'POST',
    body: { url: 'http://hooks.example.com/push', token: 'very-secret-hook-token', push_events: true, tag_push_events: true },
  });
  expect(hook.status).toBe(201);
}, 60_000);

afterAll(() => app.close());

describe('POST /projects/:id/export, GET …/export, GET …/export/download', () => {
  it('none before the first export; the download is 404 "Not found or has expired"', async () => {
    const status = await json<ProjectExportStatus>(api(ownerToken, `/projects/${project.id}/export`));
    expect(status).toEqual({
      id: project.id,
      description: 'loops and stems',
      name: 'Beat Tape',
      name_with_namespace: 'Label / Beat Tape',
      path: 'beat-tape',
      path_with_namespace: 'label/beat-tape',
      created_at: project.created_at,
      export_status: 'none',
    });
    const download = await api(ownerToken, `/projects/${project.id}/export/download`);
    expect(download.status).toBe(404);
    expect(await download.json()).toEqual({ message: '404 Not found or has expired' });
  });

  it('maintainers only: developers and other readers 403, private projects 404 to strangers, anonymous 401', async () => {
    const hidden = await json<Project>(api(ownerToken, '/projects', { method: 'POST', body: { name: 'Hidden' } }));
    for (const route of ['/export', '/export/download']) {
      expect((await api(developerToken, `/projects/${project.id}${route}`)).status).toBe(403);
      expect((await api(strangerToken, `/projects/${project.id}${route}`)).status).toBe(403);
      expect((await api(strangerToken, `/projects/${hidden.id}${route}`)).status).toBe(404);
      expect((await api(null, `/projects/${project.id}${route}`)).status).toBe(401);
    }
    const post = await api(developerToken, `/projects/${project.id}/export`, { method: 'POST' });
    expect(post.status).toBe(403);
    expect(await post.json()).toEqual({ message: '403 Forbidden' });
  });

  it('started while queued (download "not available yet"), then finished with _links and a GitLab-named tar.gz', async () => {
    await exportHeld(project.id, { description: 'exported description' }, async () => {
      expect(await json(api(ownerToken, `/projects/${project.id}/export`))).toMatchObject({ export_status: 'started' });
      expect((await json(api(ownerToken, `/projects/${project.id}/export`)))._links).toBeUndefined();
      const early = await api(ownerToken, `/projects/${project.id}/export/download`);
      expect(early.status).toBe(404);
      expect(await early.json()).toEqual({ message: 'The project export file is not available yet' });
      const again = await api(ownerToken, `/projects/${project.id}/export`, { method: 'POST' });
      expect(again.status).toBe(400);
    });
    const status = await json<ProjectExportStatus>(api(ownerToken, `/projects/${project.id}/export`));
    expect(status).toMatchObject({
      export_status: 'finished',
      description: 'loops and stems',
      _links: {
        api_url: `${app.url}/api/v4/projects/${project.id}/export/download`,
        web_url: `${app.url}/label/beat-tape/download_export`,
      },
    });

    const res = await api(ownerToken, `/projects/${project.id}/export/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{3}_label_beat-tape_export\.tar\.gz"/,
    );
    const archive = path.join(work, 'download.tar.gz');
    await writeFile(archive, Buffer.from(await res.arrayBuffer()));
    const out = path.join(work, 'download');
    const entries = await extractTarGz(archive, out, { limits: defaultArchiveLimits });
    const secretAndName = uploadUrl.replace(/^\/uploads\//, '');
    expect(entries.map((e) => e.path).sort()).toEqual(
      [
        'GITLAB_VERSION',
        'VERSION',
        'project.bundle',
        'tree/project.json',
        'tree/project/project_badges.ndjson',
        'tree/project/project_feature.ndjson',
        'tree/project/project_hooks.ndjson',
        `uploads/${secretAndName}`,
      ].sort(),
    );
    expect(await readFile(path.join(out, 'VERSION'), 'utf8')).toBe('0.2.4');
    const tree = JSON.parse(await readFile(path.join(out, 'tree/project.json'), 'utf8')) as Record<string, unknown>;
    expect(tree).toMatchObject({
      description: 'exported description',
      visibility: 'internal',
      visibility_level: 10,
      default_branch: 'main',
      merge_method: 'ff',
      merge_requests_ff_only_enabled: true,
      tag_list: ['lofi', 'drums'],
      ci_config_path: 'ci/build.yml',
      issues_enabled: false,
      wiki_enabled: true,
    });
    const feature = JSON.parse(await readFile(path.join(out, 'tree/project/project_feature.ndjson'), 'utf8')) as Record<string, unknown>;
    expect(feature).toMatchObject({ issues_access_level: 0, wiki_access_level: 20 });
    const hooks = await readFile(path.join(out, 'tree/project/project_hooks.ndjson'), 'utf8');
    expect(JSON.parse(hooks)).toMatchObject({
      url: 'http://hooks.example.com/push',
      push_events: true,
      tag_push_events: true,
      issues_events: false,
    });
    expect(hooks).not.toContain('very-secret-hook-token');
    expect(hooks).not.toContain('token');
    expect(await readFile(path.join(out, 'uploads', ...secretAndName.split('/')), 'utf8')).toBe('stem bytes');
    const heads = await git(['bundle', 'list-heads', path.join(out, 'project.bundle')]);
    expect(heads).toContain(`${log.split('\n')[0]!.split(' ')[0]} refs/heads/main`);
    // Archives live under exports/<project id>/ only.
    expect(await readdir(path.join(app.dataDir, 'exports', String(project.id)))).toEqual([
      res.headers.get('content-disposition')!.match(/filename="([^"]+)"/)![1],
    ]);
  });

  it('an empty repository exports without a bundle', async () => {
    const empty = await json<Project>(api(ownerToken, '/projects', { method: 'POST', body: { name: 'Empty Crate' } }));
    await exportHeld(empty.id, {}, async () => undefined);
    const res = await api(ownerToken, `/projects/${empty.id}/export/download`);
    expect(res.status).toBe(200);
    const archive = path.join(work, 'empty.tar.gz');
    await writeFile(archive, Buffer.from(await res.arrayBuffer()));
    const entries = await extractTarGz(archive, path.join(work, 'empty'), { limits: defaultArchiveLimits });
    expect(entries.map((e) => e.path)).not.toContain('project.bundle');
    expect(entries.map((e) => e.path)).toContain('tree/project.json');
  });

  it('upload[url] and upload[http_method] are checked like Grape', async () => {
    const post = (body: unknown) => api(ownerToken, `/projects/${project.id}/export`, { method: 'POST', body });
    let res = await post({ upload: { http_method: 'PUT' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'upload[url] is missing' });
    res = await post({ upload: { url: 'http://127.0.0.1:9/x', http_method: 'GET' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'upload[http_method] does not have a valid value' });
    res = await app.fetch(`/api/v4/projects/${project.id}/export?upload[http_method]=PATCH&upload[url]=http://127.0.0.1:9/x`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': ownerToken },
    });
    expect(await res.json()).toEqual({ error: 'upload[http_method] does not have a valid value' });
    res = await post({ upload: { url: 'ftp://example.com/x' } });
    expect(await res.json()).toEqual({ error: 'upload[url] is invalid' });
  });

  it('uploads the archive with PUT (default) or POST while after_export_action, then finished; the body is the archive', async () => {
    const received: { method: string; type: string | undefined; body: Buffer }[] = [];
    let hold: () => void = () => undefined;
    const held = new Promise<void>((r) => (hold = r));
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method ?? '', type: req.headers['content-type'], body: Buffer.concat(chunks) });
        void held.then(() => res.writeHead(req.url === '/fail' ? 500 : 200).end('ok'));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await api(ownerToken, `/projects/${project.id}/export`, { method: 'POST', body: { upload: { url: `${base}/put` } } });
      expect(res.status).toBe(202);
      for (let i = 0; i < 200 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await json(api(ownerToken, `/projects/${project.id}/export`))).toMatchObject({ export_status: 'after_export_action' });
      hold();
      await app.jobs.onIdle();
      expect(await json(api(ownerToken, `/projects/${project.id}/export`))).toMatchObject({ export_status: 'finished' });
      const download = Buffer.from(await (await api(ownerToken, `/projects/${project.id}/export/download`)).arrayBuffer());
      expect(received[0]).toMatchObject({ method: 'PUT', type: 'application/gzip' });
      expect(received[0]!.body.equals(download)).toBe(true);

      await api(ownerToken, `/projects/${project.id}/export`, {
        method: 'POST',
        body: { upload: { url: `${base}/post`, http_method: 'POST' } },
      });
      await app.jobs.onIdle();
      expect(received[1]).toMatchObject({ method: 'POST', type: 'application/gzip' });
      expect((await json(api(ownerToken, `/projects/${project.id}/export`))).export_status).toBe('finished');

      await api(ownerToken, `/projects/${project.id}/export`, { method: 'POST', body: { upload: { url: `${base}/fail` } } });
      await app.jobs.onIdle();
      expect(await json(api(ownerToken, `/projects/${project.id}/export`))).toMatchObject({
        export_status: 'failed',
        export_error: expect.stringMatching(/answered 500/),
      });
    } finally {
      hold();
      await new Promise((r) => server.close(r));
    }
  });

  it('deleting the project removes its archives', async () => {
    const doomed = await json<Project>(api(ownerToken, '/projects', { method: 'POST', body: { name: 'Doomed' } }));
    await exportHeld(doomed.id, {}, async () => undefined);
    expect(await readdir(path.join(app.dataDir, 'exports', String(doomed.id)))).toHaveLength(1);
    expect((await api(ownerToken, `/projects/${doomed.id}`, { method: 'DELETE' })).status).toBe(202);
    await expect(readdir(path.join(app.dataDir, 'exports', String(doomed.id)))).rejects.toThrow(/ENOENT/);
    expect(app.store.data.projectExports.some((e) => e.projectId === doomed.id)).toBe(false);
  });
});
