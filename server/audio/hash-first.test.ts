import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../test-support/signals.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';

/** A multipart POST that waits for 100 Continue before sending its body (as curl does for large files). */
function postExpectContinue(url: string, token: string, file: Buffer, sha: string): Promise<{ status: number; body: unknown; cache: string | null; sentBody: boolean }> {
  const boundary = 'cratehouse-test-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
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
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), cache: res.headers['x-cache'] as string | null, sentBody }));
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
    // Their upload matched cached content, so the analysis itself is still a hit.
    expect(res.cache).toBe('hit');
  });

  it('refuses a hash that does not match the upload, and a malformed hash before the body', async () => {
    const liar = await app.addUser('hash-liar');
    const wrong = await postExpectContinue(`${app.url}/audio/v1/loudness`, liar.token, wav, 'ab'.repeat(32));
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ detail: [{ loc: ['header', 'x-content-sha256'], msg: 'Does not match the sha256 of the uploaded file', type: 'value_error', input: 'ab'.repeat(32) }] });
    const malformed = await postExpectContinue(`${app.url}/audio/v1/loudness`, liar.token, wav, 'nope');
    expect(malformed).toMatchObject({ status: 422, sentBody: false });
  });

  it('still sends 100 Continue for ordinary uploads that expect it', async () => {
    const boundary = 'b';
    const payload = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.wav"\r\n\r\n`), wav, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${app.url}/audio/v1/waveform?bins=5`, { method: 'POST', headers: { Authorization: 'Bearer admin-token', 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': payload.length, Expect: '100-continue' } });
      req.on('continue', () => req.end(payload));
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(200);
  });
});
