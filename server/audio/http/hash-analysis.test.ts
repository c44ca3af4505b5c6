import { createHash } from 'node:crypto';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbToAmp, encodeWav, sine } from '../../test-support/signals.js';
import { adminToken, fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { sourceJobType } from '../sources/source-job.js';

const rate = 44_100;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** 1 kHz at −20 dBFS in both channels: −20.0 LUFS (BS.1770-4). */
const tone = encodeWav([sine(rate, 2, 1000, dbToAmp(-20)), sine(rate, 2, 1000, dbToAmp(-20))], rate);
const heldFor = 'No audio with this sha256 is held for you: send the file';

let app: TestApp;
let mia: { token: string };
let leo: { token: string };
const auth = (token = adminToken) => ({ Authorization: `Bearer ${token}` });

async function addToLibrary(bytes: Buffer, name: string, token = adminToken): Promise<{ status: number; id: number }> {
  const res = await app.fetch('/audio/v1/library/items', { method: 'POST', headers: auth(token), body: fileForm(bytes, name) });
  return { status: res.status, id: ((await res.json()) as { id: number }).id };
}

beforeAll(async () => {
  app = await startTestApp();
  mia = await app.addUser('mia');
  leo = await app.addUser('leo');
  await addToLibrary(tone, 'tone.wav');
  await app.library.whenIdle();
}, 120_000);
afterAll(() => app.close());

describe('analysis by hash (?sha256= with an empty body)', () => {
  it('analyses audio in the caller’s library without an upload, as an upload would be answered', async () => {
    const res = await app.fetch(`/audio/v1/loudness?sha256=${sha(tone)}`, { method: 'POST', headers: auth() });
    expect(res.status).toBe(200);
    // The library's summary analysed /loudness for this tenant already: a hit.
    expect(res.headers.get('x-cache')).toBe('hit');
    const body = (await res.json()) as { integrated_lufs: number; source: { duration_s: number } };
    expect(body.integrated_lufs).toBeCloseTo(-20, 0);
    expect(body.source.duration_s).toBeCloseTo(2, 3);
    // Upper-case hex is the same hash; route parameters still apply.
    const wave = await app.fetch(`/audio/v1/waveform?bins=10&sha256=${sha(tone).toUpperCase()}`, { method: 'POST', headers: auth() });
    expect(wave.status).toBe(200);
    expect(((await wave.json()) as { min_max: unknown[] }).min_max).toHaveLength(10);
    const grade = await app.fetch(`/audio/v1/grade?sha256=${sha(tone)}`, { method: 'POST', headers: auth() });
    expect(grade.status).toBe(200);
    expect(grade.headers.get('x-cache')).toBe('hit');
  });

  it('answers another tenant exactly as for audio nobody holds', async () => {
    const other = await app.fetch(`/audio/v1/loudness?sha256=${sha(tone)}`, { method: 'POST', headers: auth(mia.token) });
    const unknown = await app.fetch(`/audio/v1/loudness?sha256=${'0'.repeat(64)}`, { method: 'POST', headers: auth(mia.token) });
    expect(other.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await other.json()).toEqual({ detail: heldFor });
    expect(await unknown.json()).toEqual({ detail: heldFor });
  });

  it('refuses a malformed hash, or a hash with a body, with 422', async () => {
    for (const q of ['abc', 'g'.repeat(64), '0'.repeat(63), `${'0'.repeat(64)}&sha256=${'1'.repeat(64)}`]) {
      const res = await app.fetch(`/audio/v1/onsets?sha256=${q}`, { method: 'POST', headers: auth() });
      expect(res.status, q).toBe(422);
      expect(((await res.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(['query', 'sha256']);
    }
    const withBody = await app.fetch(`/audio/v1/loudness?sha256=${sha(tone)}`, {
      method: 'POST',
      headers: auth(),
      body: fileForm(tone, 't.wav'),
    });
    expect(withBody.status).toBe(422);
  });

  it('analyses a source artifact only for the tenant that fetched it, and the library links its bytes', async () => {
    const bytes = encodeWav([sine(rate, 1, 440, 0.25)], rate);
    const contentId = sha(bytes);
    const dir = path.join(app.dataDir, 'artifacts', contentId);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'fetched.wav'), bytes);
    await app.jobs.submitDone(
      { type: sourceJobType, tenant: 'mia', params: { url: 'https://example.com/a.wav' } },
      { result: { content_id: contentId, artifact_ref: `/audio/v1/artifacts/${contentId}/fetched.wav` }, resultRef: null },
    );
    const mine = await app.fetch(`/audio/v1/onsets?sha256=${contentId}`, { method: 'POST', headers: auth(mia.token) });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('x-cache')).toBe('miss');
    const theirs = await app.fetch(`/audio/v1/onsets?sha256=${contentId}`, { method: 'POST', headers: auth(leo.token) });
    expect(theirs.status).toBe(404);
    // Kept in the library, the same bytes are a hard link of the artifact (one copy on disk).
    const added = await addToLibrary(bytes, 'fetched.wav', mia.token);
    expect(added.status).toBe(201);
    const held = path.join(app.dataDir, 'content', contentId.slice(0, 2), contentId.slice(2, 4), contentId);
    expect((await stat(held)).ino).toBe((await stat(path.join(dir, 'fetched.wav'))).ino);
    // Removing the item leaves the artifact alone.
    expect((await app.fetch(`/audio/v1/library/items/${added.id}`, { method: 'DELETE', headers: auth(mia.token) })).status).toBe(204);
    expect((await stat(path.join(dir, 'fetched.wav'))).size).toBe(bytes.length);
  });

  it('links a Git LFS object with the same bytes instead of copying it, and never deletes it', async () => {
    const bytes = encodeWav([sine(rate, 1, 550, 0.25)], rate);
    const oid = sha(bytes);
    const lfs = path.join(app.dataDir, 'lfs', 'objects', oid.slice(0, 2), oid.slice(2, 4), oid);
    await mkdir(path.dirname(lfs), { recursive: true });
    await writeFile(lfs, bytes);
    const added = await addToLibrary(bytes, 'from-project.wav', leo.token);
    expect(added.status).toBe(201);
    const held = path.join(app.dataDir, 'content', oid.slice(0, 2), oid.slice(2, 4), oid);
    expect((await stat(held)).ino).toBe((await stat(lfs)).ino);
    expect((await app.fetch(`/audio/v1/library/items/${added.id}`, { method: 'DELETE', headers: auth(leo.token) })).status).toBe(204);
    await expect(stat(held)).rejects.toThrow();
    expect((await stat(lfs)).size).toBe(bytes.length);
  });
});
