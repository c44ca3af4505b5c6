import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postAfterContinue } from '../test-support/continue-upload.js';
import { adminToken, startTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * Issue 18 item 9: an upload whose Content-Length already exceeds the limit is refused before its
 * body is read: an immediate 413, no 100 Continue, the connection closed, nothing in tmp/.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ jsDecoder: true, maxUploadBytes: 1024 * 1024, importLimits: { maxBytes: 1024 * 1024, maxEntries: 100 } });
  const created = await app.fetch('/api/v4/projects', {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'tape' }),
  });
  expect(created.status).toBe(201);
});
afterAll(() => app.close());

/** What a client that claims 2 GB, sends a few KB and then waits sees. */
interface OversizedAnswer {
  readonly head: string;
  readonly body: string;
  /** From the end of the request headers to the first byte of the answer. */
  readonly ms: number;
  /** Whether the server closed the connection within the wait. */
  readonly closed: boolean;
}

/** Claim `declared` bytes of multipart body, send 8 KB of it (unless waiting for 100 Continue), wait. */
function sendOversized(
  url: string,
  route: string,
  headers: Readonly<Record<string, string>>,
  options: { readonly expectContinue?: boolean; readonly declared?: number; readonly waitMs?: number } = {},
): Promise<OversizedAnswer> {
  const { port, hostname } = new URL(url);
  const declared = options.declared ?? 2 * 1024 ** 3;
  return new Promise((resolve) => {
    let out = '';
    let closed = false;
    let started = 0;
    let firstByte = -1;
    const socket = net.connect(Number(port), hostname, () => {
      const extra = Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(
        `POST ${route} HTTP/1.1\r\nHost: ${hostname}\r\n${extra}Content-Type: multipart/form-data; boundary=b\r\nContent-Length: ${declared}\r\n${options.expectContinue ? 'Expect: 100-continue\r\n' : ''}\r\n`,
      );
      started = Date.now();
      if (!options.expectContinue)
        socket.write(
          Buffer.concat([
            Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n'),
            Buffer.alloc(8192, 7),
          ]),
        );
    });
    socket.on('data', (d) => {
      if (firstByte < 0) firstByte = Date.now() - started;
      out += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    setTimeout(() => {
      socket.destroy();
      const [head = '', body = ''] = out.split('\r\n\r\n', 2);
      resolve({ head, body, ms: firstByte, closed });
    }, options.waitMs ?? 1500);
  });
}

describe('uploads that declare more than the limit', () => {
  it.each([
    ['an audio analysis', '/audio/v1/loudness', { Authorization: `Bearer ${adminToken}` }],
    ['a project upload', '/api/v4/projects/1/uploads', { 'PRIVATE-TOKEN': adminToken }],
    ['a project import', '/api/v4/projects/import', { 'PRIVATE-TOKEN': adminToken }],
  ] as const)('%s: 413 at once, the connection closed, no 100 Continue, nothing in tmp/', async (_name, route, headers) => {
    for (const expectContinue of [false, true]) {
      const answer = await sendOversized(app.url, route, headers, { expectContinue });
      expect(answer.head).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.head).not.toContain('100 Continue');
      expect(answer.head).toMatch(/\r\nConnection: close/i);
      expect(answer.ms).toBeLessThan(1000);
      expect(answer.closed).toBe(true);
      expect(JSON.parse(answer.body)).toBeTypeOf('object');
      expect(await readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
    }
  });

  it('an unauthenticated upload is refused without inviting or reading its body', async () => {
    const answer = await sendOversized(app.url, '/api/v4/projects/1/uploads', {}, { expectContinue: true, declared: 10_000 });
    expect(answer.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer.head).not.toContain('100 Continue');
    expect(answer.head).toMatch(/\r\nConnection: close/i);
  });

  it.each([
    ['an audio analysis with an unknown token', '/audio/v1/loudness', { Authorization: 'Bearer not-a-token' }, 401],
    ['a project upload without a token', '/api/v4/projects/1/uploads', {}, 401],
  ] as const)('%s, sent whole without Expect (600 KB): the client reads the answer, not a reset', async (_name, route, headers, status) => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(600_000, 1)]), 'a.wav');
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${app.url}${route}`, { method: 'POST', body: form, headers });
      expect(r.status).toBe(status);
      expect(r.headers.get('connection')).not.toBe('close');
      expect(await r.json()).toBeTypeOf('object');
    }
  });

  it('an upload within the limit still gets its 100 Continue and is stored', async () => {
    const payload = Buffer.concat([
      Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="small.bin"\r\n\r\n'),
      Buffer.alloc(1000, 3),
      Buffer.from('\r\n--b--\r\n'),
    ]);
    const status = await postAfterContinue(
      `${app.url}/api/v4/projects/1/uploads`,
      { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'multipart/form-data; boundary=b' },
      payload,
    );
    expect(status).toBe(201);
  });
});
