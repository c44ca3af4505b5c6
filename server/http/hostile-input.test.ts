import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, startTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * Issue 18 item 6: hostile request shapes on both APIs answer a 4xx JSON body in the API's own
 * shape; never Express's HTML page, a stack trace or a server path.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ jsDecoder: true });
  const created = await app.fetch('/api/v4/projects', {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'tape' }),
  });
  expect(created.status).toBe(201);
});
afterAll(() => app.close());

const audio = { Authorization: `Bearer ${adminToken}` };
const hosting = { 'PRIVATE-TOKEN': adminToken };
const json = { 'Content-Type': 'application/json' };
const deepArray = '['.repeat(10_000) + ']'.repeat(10_000);
const deepObject = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
const deepQuery = (name: string) => `${name}${'[]'.repeat(1000)}=1`;
const deepKeyQuery = (name: string) => `${name}${'[a]'.repeat(1000)}=1`;
const repeated = (pair: string, n: number) => Array.from({ length: n }, () => pair).join('&');
const manyParams = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=1`).join('&');
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

type Shape = 'audio' | 'gitlab';
const cases: readonly (readonly [string, Shape, string, RequestInit])[] = [
  [
    'audio: JSON array nested 10,000 deep',
    'audio',
    '/audio/v1/sources',
    { method: 'POST', headers: { ...audio, ...json }, body: deepArray },
  ],
  [
    'audio: JSON object nested 10,000 deep beside a valid url',
    'audio',
    '/audio/v1/sources',
    { method: 'POST', headers: { ...audio, ...json }, body: `{"url":"https://example.com/a.wav","x":${deepObject}}` },
  ],
  [
    'audio: JSON nested 65 deep',
    'audio',
    '/audio/v1/sources',
    { method: 'POST', headers: { ...audio, ...json }, body: `{"url":${'['.repeat(65)}${']'.repeat(65)}}` },
  ],
  ['audio: invalid JSON', 'audio', '/audio/v1/sources', { method: 'POST', headers: { ...audio, ...json }, body: '{"url": ' }],
  [
    'audio: wrong content type',
    'audio',
    '/audio/v1/sources',
    { method: 'POST', headers: { ...audio, 'Content-Type': 'text/plain' }, body: '{"url":"https://example.com/a.wav"}' },
  ],
  [
    'audio: unknown charset',
    'audio',
    '/audio/v1/sources',
    { method: 'POST', headers: { ...audio, 'Content-Type': 'application/json; charset=klingon' }, body: '{}' },
  ],
  [
    'audio: bad gzip body',
    'audio',
    '/audio/v1/sources',
    { method: 'POST', headers: { ...audio, ...json, 'Content-Encoding': 'gzip' }, body: 'not gzip' },
  ],
  ['audio: bad percent-encoding in a path parameter', 'audio', '/audio/v1/jobs/%E0%A4%A', { headers: audio }],
  ['audio: bad percent-encoding in an unknown path', 'audio', '/audio/v1/%E0%A4%A', { headers: audio }],
  ['audio: query key nested 1000 deep ([])', 'audio', `/audio/v1/waveform?${deepQuery('bins')}`, { method: 'POST', headers: audio }],
  ['audio: query key nested 1000 deep ([a])', 'audio', `/audio/v1/waveform?${deepKeyQuery('bins')}`, { method: 'POST', headers: audio }],
  ['audio: query array index 999999', 'audio', '/audio/v1/waveform?bins[999999]=1', { method: 'POST', headers: audio }],
  ['audio: 3000 repeated query parameters', 'audio', `/audio/v1/waveform?${repeated('bins=1', 3000)}`, { method: 'POST', headers: audio }],
  [
    'gitlab: JSON array nested 10,000 deep',
    'gitlab',
    '/api/v4/projects',
    { method: 'POST', headers: { ...hosting, ...json }, body: deepArray },
  ],
  [
    'gitlab: JSON object nested 10,000 deep beside a valid name',
    'gitlab',
    '/api/v4/projects',
    { method: 'POST', headers: { ...hosting, ...json }, body: `{"name":"deep","x":${deepObject}}` },
  ],
  ['gitlab: invalid JSON', 'gitlab', '/api/v4/projects', { method: 'POST', headers: { ...hosting, ...json }, body: '{"name": ' }],
  [
    'gitlab: unknown content encoding',
    'gitlab',
    '/api/v4/projects',
    { method: 'POST', headers: { ...hosting, ...json, 'Content-Encoding': 'br2' }, body: '{}' },
  ],
  [
    'gitlab: form field nested 1000 deep',
    'gitlab',
    '/api/v4/projects',
    { method: 'POST', headers: { ...hosting, ...form }, body: deepKeyQuery('name') },
  ],
  [
    'gitlab: 5000 form parameters',
    'gitlab',
    '/api/v4/projects',
    { method: 'POST', headers: { ...hosting, ...form }, body: manyParams(5000) },
  ],
  ['gitlab: bad percent-encoding in a path parameter', 'gitlab', '/api/v4/projects/%E0%A4%A', { headers: hosting }],
  ['gitlab: bad percent-encoding in an unknown path', 'gitlab', '/api/v4/%E0%A4%A', { headers: hosting }],
  ['gitlab: query key nested 1000 deep', 'gitlab', `/api/v4/projects?${deepQuery('search')}`, { headers: hosting }],
  ['gitlab: query array index 999999', 'gitlab', '/api/v4/projects?search[999999]=1', { headers: hosting }],
  ['gitlab: 3000 repeated query parameters', 'gitlab', `/api/v4/projects?${repeated('per_page=1', 3000)}`, { headers: hosting }],
  ['root: bad percent-encoding in an upload path', 'gitlab', '/root/tape/uploads/0123456789abcdef0123456789abcdef/%E0%A4%A', {}],
  ['root: bad percent-encoding in a git path', 'gitlab', '/root/%E0%A4%A.git/info/refs?service=git-upload-pack', {}],
];

/** The body is JSON in the API's shape and names nothing of the server's insides. */
function expectSafeJsonError(status: number, contentType: string | null, text: string, shape: Shape): void {
  expect(status, text.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(status, text.slice(0, 300)).toBeLessThan(500);
  expect(contentType ?? '').toMatch(/^application\/json/);
  expect(text).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\/work\/|\/home\/|\/tmp\/|\.ts:\d+|RangeError|TypeError|URIError/);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (shape === 'audio') expect(body).toHaveProperty('detail');
  else expect(Object.keys(body).some((k) => k === 'message' || k === 'error')).toBe(true);
}

describe('hostile requests answer a 4xx JSON body in the API shape', () => {
  it.each(cases)('%s', async (_name, shape, path, init) => {
    const res = await app.fetch(path, init);
    const text = await res.text();
    expectSafeJsonError(res.status, res.headers.get('content-type'), text, shape);
    expect(text).not.toContain(app.dataDir);
  });

  it('a JSON body nested 64 deep still parses (the limit is above anything real)', async () => {
    const res = await app.fetch('/api/v4/projects', {
      method: 'POST',
      headers: { ...hosting, ...json },
      body: `{"name":"nested-ok","x":${'['.repeat(63)}${']'.repeat(63)}}`,
    });
    expect(res.status).toBe(201);
  });
});

/** Send bytes on a raw socket and collect the answer until the server closes (or 3 s pass). */
function rawExchange(text: string): Promise<string> {
  const { port } = new URL(app.url);
  return new Promise((resolve) => {
    let out = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(out));
    setTimeout(() => socket.destroy(), 3000);
  });
}

function split(answer: string): { status: number; contentType: string | null; body: string } {
  const [head = '', body = ''] = answer.split('\r\n\r\n', 2);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  const contentType = /\r\ncontent-type: ([^\r]+)/i.exec(head)?.[1] ?? null;
  return { status, contentType, body };
}

describe('what Node refuses before the app answers JSON too', () => {
  it.each([
    ['audio: a 20 KB header', 'audio', `GET /audio/v1/healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['gitlab: a 20 KB header', 'gitlab', `GET /api/v4/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['audio: 5000 query parameters (a 40 KB URL)', 'audio', `POST /audio/v1/waveform?${manyParams(5000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['gitlab: 5000 query parameters (a 40 KB URL)', 'gitlab', `GET /api/v4/projects?${manyParams(5000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['gitlab: a malformed request line', 'gitlab', 'GET /api/v4/version HTTP/9\r\n\r\n'],
  ] as const)('%s', async (_name, shape, request) => {
    const answer = split(await rawExchange(request));
    expectSafeJsonError(answer.status, answer.contentType, answer.body, shape);
  });
});
