import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, readJson } from '../../test-support/hosting-client.js';
import { encodeWav, sine } from '../../test-support/signals.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { waitFor } from '../../test-support/wait-for.js';
import type { Project } from '../api-types.js';

const rate = 44_100;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let app: TestApp;
let token: string;
const auth = () => ({ Authorization: `Bearer ${token}` });
const basic = () => ({ Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}` });
const lfsFile = (oid: string) => path.join(app.dataDir, 'lfs', 'objects', oid.slice(0, 2), oid.slice(2, 4), oid);
const contentFile = (oid: string) => path.join(app.dataDir, 'content', oid.slice(0, 2), oid.slice(2, 4), oid);

/**
 * Add to the library and wait until its analyses are done: the upload's temp file, a third link to the
 * bytes while the summary analyses still read it, is removed only then.
 */
async function addToLibrary(bytes: Buffer, name: string): Promise<number> {
  const res = await app.fetch('/audio/v1/library/items', { method: 'POST', headers: auth(), body: fileForm(bytes, name) });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: number };
  await app.library.whenIdle();
  await waitFor(async () => (await readdir(path.join(app.dataDir, 'tmp'))).every((f) => !f.startsWith('upload-')));
  return id;
}

/** The batch API's answer for one object of the project. */
async function batch(project: Project, operation: 'upload' | 'download', bytes: Buffer) {
  const res = await app.fetch(`${new URL(project.http_url_to_repo).pathname}/info/lfs/objects/batch`, {
    method: 'POST',
    headers: { ...basic(), 'Content-Type': 'application/vnd.git-lfs+json', Accept: 'application/vnd.git-lfs+json' },
    body: JSON.stringify({ operation, objects: [{ oid: sha(bytes), size: bytes.length }] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { objects: { actions?: Record<string, { href: string; header: Record<string, string> }> }[] }).objects[0]!;
}

/** Upload as git-lfs does (the bytes are sent and checked: holding them elsewhere grants nothing). */
async function uploadLfs(project: Project, bytes: Buffer): Promise<void> {
  const upload = (await batch(project, 'upload', bytes)).actions!.upload!;
  expect((await fetch(upload.href, { method: 'PUT', headers: upload.header, body: bytes })).status).toBe(200);
}

/** The sha256 of the object as the project serves it. */
async function downloadedSha(project: Project, bytes: Buffer): Promise<string> {
  const download = (await batch(project, 'download', bytes)).actions!.download!;
  const res = await fetch(download.href, { headers: download.header });
  expect(res.status).toBe(200);
  return sha(Buffer.from(await res.arrayBuffer()));
}

const newProject = (name: string) => readJson<Project>(callHosting(app, token, '/projects', { method: 'POST', body: { name } }));

beforeAll(async () => {
  app = await startTestApp();
  token = (await app.addUser('mixer')).token;
}, 60_000);
afterAll(() => app?.close());

describe('bytes held once across the library and Git LFS (hard links)', () => {
  it('an LFS upload of bytes the library holds shares their inode; removing the library item leaves the object whole', async () => {
    const bytes = encodeWav([sine(rate, 1, 330, 0.3)], rate);
    const oid = sha(bytes);
    const item = await addToLibrary(bytes, 'bass.wav');
    const project = await newProject('Shared Bass');
    await uploadLfs(project, bytes);
    const held = await stat(contentFile(oid));
    const object = await stat(lfsFile(oid));
    expect(object.ino).toBe(held.ino);
    expect(object.nlink).toBe(2);

    expect((await app.fetch(`/audio/v1/library/items/${item}`, { method: 'DELETE', headers: auth() })).status).toBe(204);
    await expect(stat(contentFile(oid))).rejects.toThrow();
    expect((await stat(lfsFile(oid))).nlink).toBe(1);
    expect(await downloadedSha(project, bytes)).toBe(oid);
  });

  it('a library upload of an LFS object’s bytes shares the inode; the object swept by housekeeping leaves the item whole', async () => {
    const bytes = encodeWav([sine(rate, 1, 660, 0.3)], rate);
    const oid = sha(bytes);
    const project = await newProject('Shared Lead');
    await uploadLfs(project, bytes);
    const item = await addToLibrary(bytes, 'lead.wav');
    expect((await stat(contentFile(oid))).ino).toBe((await stat(lfsFile(oid))).ino);
    // The same bytes uploaded again by another project keep the shared inode (not replaced by a new copy).
    const other = await newProject('Second Lead');
    await uploadLfs(other, bytes);
    expect((await stat(lfsFile(oid))).ino).toBe((await stat(contentFile(oid))).ino);

    // Both projects go; housekeeping of a third sweeps the unreferenced object.
    for (const p of [project, other]) expect((await callHosting(app, token, `/projects/${p.id}`, { method: 'DELETE' })).status).toBe(202);
    const third = await newProject('Sweeper');
    expect((await callHosting(app, token, `/projects/${third.id}/housekeeping`, { method: 'POST' })).status).toBe(201);
    await expect
      .poll(() =>
        stat(lfsFile(oid)).then(
          () => true,
          () => false,
        ),
      )
      .toBe(false);
    const res = await app.fetch(`/audio/v1/library/items/${item}/audio`, { headers: auth() });
    expect(res.status).toBe(200);
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(oid);
  });
});
