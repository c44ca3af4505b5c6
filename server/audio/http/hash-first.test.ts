import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postAfterContinue } from '../../test-support/continue-upload.js';
import { encodeWav, sine } from '../../test-support/signals.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ResultCache } from '../analysis/cache.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A multipart POST that waits for 100 Continue before sending its body (as curl does for large files). */
function postExpectContinue(
  url: string,
  token: string,
  file: Buffer,
  sha: string,
): Promise<{ status: number; body: unknown; cache: string | null; sentBody: boolean }> {
  const boundary = 'cratehouse-test-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const payload = Buffer.concat([head, file, tail]);
  return new Promise((resolve, reject) => {
    let sentBody = false;
    const req = http.request(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': payload.length,
        Expect: '100-continue',
        'X-Content-SHA256': sha,
      },
    });
    req.on('continue', () => {
      sentBody = true;
      req.end(payload);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()),
          cache: res.headers['x-cache'] as string | null,
          sentBody,
        }),
      );
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

const wav = encodeWav([sine(44_100, 3, 500, 0.4)], 44_100);
const sha = createHash('sha256').update(wav).digest('hex');
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('hash-first repeated uploads', () => {
  it('answers a repeat of the tenant’s own content from the cache without receiving the body', async () => {
    const producer = await app.addUser('hash-producer');
    const first = await postExpectContinue(`${app.url}/audio/v1/loudness`, producer.token, wav, sha);
    expect(first).toMatchObject({ status: 200, cache: 'miss', sentBody: true });
    const again = await postExpectContinue(`${app.url}/audio/v1/loudness`, producer.token, wav, sha);
    expect(again).toMatchObject({ status: 200, cache: 'hit', sentBody: false });
    expect(again.body).toEqual(first.body);
  });

  it('never answers another tenant by hash alone: they must upload the content', async () => {
    const other = await app.addUser('hash-other');
    const res = await postExpectContinue(`${app.url}/audio/v1/loudness`, other.token, wav, sha);
    expect(res.status).toBe(200);
    expect(res.sentBody).toBe(true);
    // Their upload matched cached content: the analysis is shared, but it is their first answer.
    expect(res.cache).toBe('miss');
  });

  it('refuses a hash that does not match the upload, and a malformed hash before the body', async () => {
    const liar = await app.addUser('hash-liar');
    const wrong = await postExpectContinue(`${app.url}/audio/v1/loudness`, liar.token, wav, 'ab'.repeat(32));
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({
      detail: [
        {
          loc: ['header', 'x-content-sha256'],
          msg: 'Does not match the sha256 of the uploaded file',
          type: 'value_error',
          input: 'ab'.repeat(32),
        },
      ],
    });
    const malformed = await postExpectContinue(`${app.url}/audio/v1/loudness`, liar.token, wav, 'nope');
    expect(malformed).toMatchObject({ status: 422, sentBody: false });
  });

  it('still sends 100 Continue for ordinary uploads that expect it', async () => {
    const boundary = 'b';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.wav"\r\n\r\n`),
      wav,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const status = await postAfterContinue(
      `${app.url}/audio/v1/waveform?bins=5`,
      { Authorization: 'Bearer admin-token', 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      payload,
    );
    expect(status).toBe(200);
  });
});

/** Issue 18 item 10: X-Cache and the hash-first protocol never tell a tenant what another tenant analysed. */
describe('cache answers across tenants', () => {
  const clip = encodeWav([sine(44_100, 2, 700, 0.3)], 44_100);
  const clipSha = createHash('sha256').update(clip).digest('hex');
  const upload = async (token: string, route: string) => {
    const res = await fetch(`${app.url}${route}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: fileForm(clip, 'clip.wav'),
    });
    return { status: res.status, cache: res.headers.get('x-cache'), body: (await res.json()) as unknown };
  };

  it("answers another tenant's first upload of analysed content as a miss (the same result), then hits", async () => {
    const a = await app.addUser('tenant-a', { tenant: 'studio-a' });
    const b = await app.addUser('tenant-b', { tenant: 'studio-b' });
    const b2 = await app.addUser('tenant-b2', { tenant: 'studio-b' });
    const first = await upload(a.token, '/audio/v1/waveform?bins=7');
    expect(first).toMatchObject({ status: 200, cache: 'miss' });
    const fromB = await upload(b.token, '/audio/v1/waveform?bins=7');
    expect(fromB).toMatchObject({ status: 200, cache: 'miss' });
    expect(fromB.body).toEqual(first.body);
    expect(await upload(b.token, '/audio/v1/waveform?bins=7')).toMatchObject({ status: 200, cache: 'hit' });
    // A tenant is the unit: a teammate in B's tenant shares B's history.
    expect(await upload(b2.token, '/audio/v1/waveform?bins=7')).toMatchObject({ status: 200, cache: 'hit' });
    expect(await upload(a.token, '/audio/v1/waveform?bins=7')).toMatchObject({ status: 200, cache: 'hit' });
  });

  it('asks a tenant that never uploaded the audio for the body, even when the hash is cached', async () => {
    const a = await app.addUser('hash-a', { tenant: 'hash-studio-a' });
    const c = await app.addUser('hash-c', { tenant: 'hash-studio-c' });
    expect(await upload(a.token, '/audio/v1/waveform?bins=9')).toMatchObject({ status: 200, cache: 'miss' });
    expect(await upload(a.token, '/audio/v1/loudness')).toMatchObject({ status: 200, cache: 'miss' });
    const hashOnly = await postExpectContinue(`${app.url}/audio/v1/waveform?bins=9`, c.token, clip, clipSha);
    expect(hashOnly).toMatchObject({ status: 200, cache: 'miss', sentBody: true });
    // Having uploaded the audio for /waveform does not reveal who computed /loudness of it.
    const otherRoute = await postExpectContinue(`${app.url}/audio/v1/loudness`, c.token, clip, clipSha);
    expect(otherRoute).toMatchObject({ status: 200, cache: 'miss', sentBody: true });
    // Its own answers are now repeats: by hash alone, without the body.
    const again = await postExpectContinue(`${app.url}/audio/v1/waveform?bins=9`, c.token, clip, clipSha);
    expect(again).toMatchObject({ status: 200, cache: 'hit', sentBody: false });
    expect(again.body).toEqual(hashOnly.body);
  });

  it('remembers who has seen an answer across restarts (on disk, next to the entries)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-seen-'));
    const before = new ResultCache(dir);
    await before.set('ab'.repeat(32), { result: 1 });
    await before.markSeen('studio-a', 'ab'.repeat(32));
    const after = new ResultCache(dir);
    expect(await after.hasSeen('studio-a', 'ab'.repeat(32))).toBe(true);
    expect(await after.hasSeen('studio-b', 'ab'.repeat(32))).toBe(false);
    expect(await after.hasSeen('studio-a', 'cd'.repeat(32))).toBe(false);
  });
});
