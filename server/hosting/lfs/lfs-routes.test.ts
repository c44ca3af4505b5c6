import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, readJson } from '../../test-support/hosting-client.js';
import { writeTarGz } from '../../shared/tar-archive.js';
import { adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';

let app: TestApp;
const tokens: Record<string, string> = {};
let owner: Project;
let other: Project;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const basic = (token: string) => `Basic ${Buffer.from(`any:${token}`).toString('base64')}`;
const lfsHeaders = (token: string | null) => ({
  Accept: 'application/vnd.git-lfs+json',
  'Content-Type': 'application/vnd.git-lfs+json',
  ...(token ? { Authorization: basic(token) } : {}),
});

interface BatchAnswer {
  transfer: string;
  hash_algo: string;
  objects: {
    oid: string;
    size: number;
    actions?: Record<string, { href: string; header: Record<string, string> }>;
    error?: { code: number; message: string };
  }[];
}

function batch(
  project: Project,
  token: string | null,
  operation: 'upload' | 'download',
  objects: readonly { oid: string; size: number }[],
): Promise<Response> {
  return app.fetch(`/${project.path_with_namespace}.git/info/lfs/objects/batch`, {
    method: 'POST',
    headers: lfsHeaders(token),
    body: JSON.stringify({ operation, transfers: ['basic'], objects }),
  });
}

/** Upload through the batch API as git-lfs does: batch, PUT with the action's header, verify. */
async function upload(project: Project, token: string, bytes: Buffer, oid = sha256(bytes)): Promise<Response> {
  const answer = await readJson<BatchAnswer>(batch(project, token, 'upload', [{ oid, size: bytes.length }]));
  const put = answer.objects[0]!.actions!.upload!;
  return fetch(put.href, {
    method: 'PUT',
    headers: { ...put.header, 'Content-Type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });
}

async function download(project: Project, token: string | null, oid: string, size: number): Promise<Buffer> {
  const answer = await readJson<BatchAnswer>(batch(project, token, 'download', [{ oid, size }]));
  const get = answer.objects[0]!.actions!.download!;
  const res = await fetch(get.href, { headers: get.header });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

beforeAll(async () => {
  app = await startTestApp({ maxLfsObjectBytes: 1_000_000 });
  for (const name of ['maker', 'stranger']) tokens[name] = (await app.addUser(name)).token;
  const maker = app.identity.getUser('maker');
  tokens.readOnly = (await app.identity.createToken(maker.id, { name: 'ro', scopes: ['read_repository'] })).token;
  owner = await readJson<Project>(
    callHosting(app, tokens.maker!, '/projects', { method: 'POST', body: { name: 'Stems', visibility: 'private' } }),
  );
  other = await readJson<Project>(
    callHosting(app, tokens.stranger!, '/projects', { method: 'POST', body: { name: 'Elsewhere', visibility: 'private' } }),
  );
}, 30_000);

afterAll(() => app.close());

describe('Git LFS batch API and basic transfer', () => {
  const bytes = randomBytes(300_000);
  const oid = sha256(bytes);

  it('uploads, verifies and downloads the same bytes, stored under their sha256', async () => {
    const answer = await readJson<BatchAnswer>(batch(owner, tokens.maker!, 'upload', [{ oid, size: bytes.length }]));
    expect(answer).toMatchObject({ transfer: 'basic', hash_algo: 'sha256', objects: [{ oid, size: bytes.length }] });
    const actions = answer.objects[0]!.actions!;
    // The user's token never appears in an href; the transfer carries its own short-lived token.
    expect(JSON.stringify(answer)).not.toContain(tokens.maker);
    expect(actions.upload!.href).toBe(`${app.url}/${owner.path_with_namespace}.git/info/lfs/objects/${oid}`);
    const put = await fetch(actions.upload!.href, { method: 'PUT', headers: actions.upload!.header, body: new Uint8Array(bytes) });
    expect(put.status).toBe(200);
    const verify = await fetch(actions.verify!.href, {
      method: 'POST',
      headers: { ...actions.verify!.header, 'Content-Type': 'application/vnd.git-lfs+json' },
      body: JSON.stringify({ oid, size: bytes.length }),
    });
    expect(verify.status).toBe(200);
    expect(existsSync(path.join(app.dataDir, 'lfs', 'objects', oid.slice(0, 2), oid.slice(2, 4), oid))).toBe(true);

    expect(sha256(await download(owner, tokens.maker!, oid, bytes.length))).toBe(oid);
    // Already there: an upload batch asks for nothing.
    const again = await readJson<BatchAnswer>(batch(owner, tokens.maker!, 'upload', [{ oid, size: bytes.length }]));
    expect(again.objects[0]).toEqual({ oid, size: bytes.length });
    const stats = await readJson<Project & { statistics: { lfs_objects_size: number } }>(
      callHosting(app, tokens.maker!, `/projects/${owner.id}?statistics=true`),
    );
    expect(stats.statistics.lfs_objects_size).toBe(bytes.length);
  });

  it('downloads with the Basic token too, and answers the spec media type', async () => {
    const res = await app.fetch(`/${owner.path_with_namespace}.git/info/lfs/objects/${oid}`, {
      headers: { Authorization: basic(tokens.maker!) },
    });
    expect(res.status).toBe(200);
    expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(oid);
    const b = await batch(owner, tokens.maker!, 'download', [{ oid, size: bytes.length }]);
    expect(b.headers.get('content-type')).toMatch(/^application\/vnd\.git-lfs\+json/);
  });

  it('refuses bytes that do not hash to the oid (422) and keeps nothing', async () => {
    const real = randomBytes(1000);
    const claimed = sha256(Buffer.concat([real, Buffer.from('x')]));
    const res = await upload(owner, tokens.maker!, real, claimed);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toMatch(/does not match/);
    const answer = await readJson<BatchAnswer>(batch(owner, tokens.maker!, 'download', [{ oid: claimed, size: real.length }]));
    expect(answer.objects[0]!.error!.code).toBe(404);
    expect(existsSync(path.join(app.dataDir, 'lfs', 'objects', claimed.slice(0, 2), claimed.slice(2, 4), claimed))).toBe(false);
  });

  it('refuses a body longer than the size the batch announced (422)', async () => {
    const real = randomBytes(50_000);
    const answer = await readJson<BatchAnswer>(batch(owner, tokens.maker!, 'upload', [{ oid: sha256(real), size: 1000 }]));
    const put = answer.objects[0]!.actions!.upload!;
    const res = await fetch(put.href, { method: 'PUT', headers: put.header, body: new Uint8Array(real) });
    expect(res.status).toBe(422);
  });

  it('refuses objects over the configured limit: per object in the batch (422), 413 for a direct upload', async () => {
    const big = sha256(Buffer.from('big'));
    const answer = await readJson<BatchAnswer>(
      batch(owner, tokens.maker!, 'upload', [
        { oid: big, size: 1_000_001 },
        { oid: sha256(Buffer.from('small')), size: 5 },
      ]),
    );
    expect(answer.objects[0]!.error).toMatchObject({ code: 422 });
    expect(answer.objects[0]!.actions).toBeUndefined();
    expect(answer.objects[1]!.actions!.upload).toBeDefined();
    const direct = await app.fetch(`/${owner.path_with_namespace}.git/info/lfs/objects/${big}`, {
      method: 'PUT',
      headers: { Authorization: basic(tokens.maker!) },
      body: new Uint8Array(1_000_001),
    });
    expect(direct.status).toBe(413);
  });

  it('answers invalid objects per object with 422, unknown downloads with 404', async () => {
    const answer = await readJson<BatchAnswer>(
      batch(owner, tokens.maker!, 'download', [
        { oid: 'nothex', size: 3 },
        { oid: sha256(Buffer.from('never uploaded')), size: 14 },
      ]),
    );
    expect(answer.objects.map((o) => o.error?.code)).toEqual([422, 404]);
  });

  it('a hash known from elsewhere reveals nothing: another project cannot download it, and must upload the bytes', async () => {
    const foreign = await readJson<BatchAnswer>(batch(other, tokens.stranger!, 'download', [{ oid, size: bytes.length }]));
    expect(foreign.objects[0]!.error!.code).toBe(404);
    const byPath = await app.fetch(`/${other.path_with_namespace}.git/info/lfs/objects/${oid}`, {
      headers: { Authorization: basic(tokens.stranger!) },
    });
    expect(byPath.status).toBe(404);
    const up = await readJson<BatchAnswer>(batch(other, tokens.stranger!, 'upload', [{ oid, size: bytes.length }]));
    expect(up.objects[0]!.actions!.upload).toBeDefined();
    // A transfer token of one project does not open another, even one of the same user.
    const mine = await readJson<BatchAnswer>(batch(owner, tokens.maker!, 'download', [{ oid, size: bytes.length }]));
    const second = await readJson<Project>(callHosting(app, tokens.maker!, '/projects', { method: 'POST', body: { name: 'Second' } }));
    const res = await app.fetch(`/${second.path_with_namespace}.git/info/lfs/objects/${oid}`, {
      headers: mine.objects[0]!.actions!.download!.header,
    });
    expect(res.status).toBe(401);
    // Nor another object, nor another operation.
    const wrongOid = await app.fetch(`/${owner.path_with_namespace}.git/info/lfs/objects/${sha256(Buffer.from('x'))}`, {
      headers: mine.objects[0]!.actions!.download!.header,
    });
    expect(wrongOid.status).toBe(401);
    const asUpload = await app.fetch(`/${owner.path_with_namespace}.git/info/lfs/objects/${oid}`, {
      method: 'PUT',
      headers: mine.objects[0]!.actions!.download!.header,
      body: new Uint8Array(bytes),
    });
    expect(asUpload.status).toBe(401);
  });

  it('other tenants see 404, anonymous callers are asked for credentials, read-only tokens cannot upload', async () => {
    const stranger = await batch(owner, tokens.stranger!, 'download', [{ oid, size: bytes.length }]);
    expect(stranger.status).toBe(404);
    expect(((await stranger.json()) as { message: string }).message).toBe('Not found.');
    const anonymous = await batch(owner, null, 'download', [{ oid, size: bytes.length }]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('lfs-authenticate')).toMatch(/^Basic/);
    const readOnly = await batch(owner, tokens.readOnly!, 'upload', [{ oid, size: bytes.length }]);
    expect(readOnly.status).toBe(403);
    const readOnlyDownload = await readJson<BatchAnswer>(batch(owner, tokens.readOnly!, 'download', [{ oid, size: bytes.length }]));
    expect(readOnlyDownload.objects[0]!.actions!.download).toBeDefined();
  });

  it('honours lfs_enabled: off answers 404', async () => {
    const project = await readJson<Project>(
      callHosting(app, tokens.maker!, '/projects', { method: 'POST', body: { name: 'No LFS', lfs_enabled: false } }),
    );
    expect(project.lfs_enabled).toBe(false);
    expect((await batch(project, tokens.maker!, 'upload', [{ oid, size: 1 }])).status).toBe(404);
  });

  it('forks link the parent objects; housekeeping removes only objects no project links', async () => {
    const res = await callHosting(app, tokens.maker!, `/projects/${owner.id}/fork`, {
      method: 'POST',
      body: { path: 'stems-fork', name: 'Stems fork' },
    });
    expect(res.status).toBe(201);
    const fork = (await res.json()) as Project;
    // The fork links the parent's objects in its job, before it reads finished: watch for the first
    // moment it does (every turn of the event loop, up to 60 s: the full suite loads the machine), and
    // the link must be there already.
    const finished = () => app.projects.policy.find(String(fork.id))?.importStatus === 'finished';
    for (const t0 = Date.now(); !finished() && Date.now() - t0 < 60_000;) await new Promise((r) => setImmediate(r));
    expect(finished()).toBe(true);
    expect(app.store.data.lfsLinks.filter((l) => l.projectId === fork.id).map((l) => l.oid)).toEqual([oid]);
    expect(sha256(await download(fork, tokens.maker!, oid, bytes.length))).toBe(oid);

    const lonely = randomBytes(2000);
    const scratch = await readJson<Project>(callHosting(app, tokens.maker!, '/projects', { method: 'POST', body: { name: 'Scratch' } }));
    expect((await upload(scratch, tokens.maker!, lonely)).status).toBe(200);
    const file = (o: string) => path.join(app.dataDir, 'lfs', 'objects', o.slice(0, 2), o.slice(2, 4), o);
    expect(existsSync(file(sha256(lonely)))).toBe(true);
    expect((await callHosting(app, tokens.maker!, `/projects/${scratch.id}`, { method: 'DELETE' })).status).toBe(202);
    expect((await callHosting(app, adminToken, `/projects/${fork.id}/housekeeping`, { method: 'POST' })).status).toBe(201);
    expect(existsSync(file(sha256(lonely)))).toBe(false);
    expect(existsSync(file(oid))).toBe(true);
  }, 90_000);
});

describe('Git LFS objects in project export and import', () => {
  /** POST /projects/import (multipart), then wait for the job; the new project and its import status. */
  async function importArchive(
    archive: Buffer,
    name: string,
  ): Promise<{ project: Project; status: { import_status: string; import_error: string | null } }> {
    const form = new FormData();
    form.append('path', name);
    form.append('file', new Blob([new Uint8Array(archive)]), 'file.tar.gz');
    const res = await app.fetch('/api/v4/projects/import', { method: 'POST', headers: { 'PRIVATE-TOKEN': tokens.maker! }, body: form });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: number };
    await app.jobs.onIdle();
    const status = await readJson<{ import_status: string; import_error: string | null }>(
      callHosting(app, tokens.maker!, `/projects/${id}/import`),
    );
    return { project: await readJson<Project>(callHosting(app, tokens.maker!, `/projects/${id}`)), status };
  }

  it('an export carries lfs-objects/<oid>; its import stores and links them, checked against their oid', async () => {
    const source = await readJson<Project>(callHosting(app, tokens.maker!, '/projects', { method: 'POST', body: { name: 'To export' } }));
    const stem = randomBytes(70_000);
    expect((await upload(source, tokens.maker!, stem)).status).toBe(200);
    expect((await callHosting(app, tokens.maker!, `/projects/${source.id}/export`, { method: 'POST' })).status).toBe(202);
    await app.jobs.onIdle();
    const archive = Buffer.from(await (await callHosting(app, tokens.maker!, `/projects/${source.id}/export/download`)).arrayBuffer());
    const { project, status } = await importArchive(archive, 'imported-stems');
    expect(status.import_status).toBe('finished');
    expect(sha256(await download(project, tokens.maker!, sha256(stem), stem.length))).toBe(sha256(stem));
  });

  it('an archive whose LFS object does not hash to its name fails the import', async () => {
    const file = path.join(app.dataDir, 'tmp', 'forged.tar.gz');
    const claimed = sha256(Buffer.from('the real stem'));
    const mtime = new Date();
    await writeTarGz(file, [
      { path: 'tree/project.json', data: '{"description":"forged"}', mtime },
      { path: `lfs-objects/${claimed}`, data: 'something else', mtime },
    ]);
    const { project, status } = await importArchive(await readFile(file), 'forged');
    expect(status.import_status).toBe('failed');
    expect(status.import_error).toContain(`lfs-objects/${claimed}`);
    const answer = await readJson<BatchAnswer>(batch(project, tokens.maker!, 'download', [{ oid: claimed, size: 14 }]));
    expect(answer.objects[0]!.error!.code).toBe(404);
  });
});

describe('Git LFS locking API', () => {
  let project: Project;
  const locksUrl = () => `/${project.path_with_namespace}.git/info/lfs/locks`;
  const post = (url: string, token: string, body: unknown) =>
    app.fetch(url, { method: 'POST', headers: lfsHeaders(token), body: JSON.stringify(body) });

  beforeAll(async () => {
    project = await readJson<Project>(
      callHosting(app, tokens.maker!, '/projects', { method: 'POST', body: { name: 'Locked', visibility: 'public' } }),
    );
  });

  it('creates, refuses a second lock with 409 and the lock, lists, verifies and unlocks', async () => {
    const created = await post(locksUrl(), tokens.maker!, { path: 'stems/kick.wav', ref: { name: 'refs/heads/main' } });
    expect(created.status).toBe(201);
    const { lock } = (await created.json()) as { lock: { id: string; path: string; owner: { name: string }; locked_at: string } };
    expect(lock).toMatchObject({ path: 'stems/kick.wav', owner: { name: 'maker' } });
    expect(typeof lock.id).toBe('string');

    const twice = await post(locksUrl(), adminToken, { path: 'stems/kick.wav' });
    expect(twice.status).toBe(409);
    expect(await twice.json()).toMatchObject({ lock: { id: lock.id, path: 'stems/kick.wav' }, message: expect.any(String) });

    await post(locksUrl(), adminToken, { path: 'stems/snare.wav' });
    const listed = await readJson<{ locks: { path: string }[] }>(
      app.fetch(`${locksUrl()}?path=stems%2Fkick.wav`, { headers: lfsHeaders(tokens.stranger!) }),
    );
    expect(listed.locks.map((l) => l.path)).toEqual(['stems/kick.wav']);
    const paged = await readJson<{ locks: { path: string }[]; next_cursor?: string }>(
      app.fetch(`${locksUrl()}?limit=1`, { headers: lfsHeaders(tokens.maker!) }),
    );
    expect(paged.locks.map((l) => l.path)).toEqual(['stems/kick.wav']);
    const rest = await readJson<{ locks: { path: string }[] }>(
      app.fetch(`${locksUrl()}?limit=1&cursor=${paged.next_cursor}`, { headers: lfsHeaders(tokens.maker!) }),
    );
    expect(rest.locks.map((l) => l.path)).toEqual(['stems/snare.wav']);

    const verified = await readJson<{ ours: { path: string }[]; theirs: { path: string }[] }>(
      post(`${locksUrl()}/verify`, tokens.maker!, { ref: { name: 'refs/heads/main' } }),
    );
    expect(verified.ours.map((l) => l.path)).toEqual(['stems/kick.wav']);
    expect(verified.theirs.map((l) => l.path)).toEqual(['stems/snare.wav']);

    // A reader of a public project may list but not lock; a non-owner needs force, force needs a maintainer.
    expect((await post(locksUrl(), tokens.stranger!, { path: 'x.wav' })).status).toBe(403);
    expect((await post(`${locksUrl()}/${lock.id}/unlock`, adminToken, {})).status).toBe(403);
    const adminLock = verified.theirs[0] as unknown as { id: string };
    expect((await post(`${locksUrl()}/${adminLock.id}/unlock`, tokens.maker!, { force: true })).status).toBe(200);
    const mine = await post(`${locksUrl()}/${lock.id}/unlock`, tokens.maker!, {});
    expect(mine.status).toBe(200);
    expect(((await mine.json()) as { lock: { id: string } }).lock.id).toBe(lock.id);
    expect((await post(`${locksUrl()}/${lock.id}/unlock`, tokens.maker!, {})).status).toBe(404);
  });
});
