import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, fileForm, startTestApp, type TestApp } from '../test-support/test-app.js';
import { contentDispositionOf } from './serve-user-content.js';

// What a browser is told about uploaded bytes decides whether they can run as script on the GUI's
// origin. The expected values are written out here, not taken from the module under test.
const sandboxPolicy = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'";
// Audio and video keep their origin (Chromium fetches a media document's file in CORS mode), still without script.
const mediaPolicy = "sandbox allow-same-origin; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'";

let app: TestApp;
let projectPath = '';
let projectId = 0;
const auth = { 'PRIVATE-TOKEN': adminToken };

beforeAll(async () => {
  app = await startTestApp({ jsDecoder: true });
  const res = await app.fetch('/api/v4/projects', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Content Probe', visibility: 'private' }),
  });
  const project = (await res.json()) as { id: number; path_with_namespace: string };
  projectId = project.id;
  projectPath = project.path_with_namespace;
});

afterAll(async () => {
  await app.close();
});

/** Upload `bytes` as `filename` to the project and fetch it back at its served URL. */
async function uploadAndFetch(filename: string, bytes: Buffer | string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await app.fetch(`/api/v4/projects/${projectId}/uploads`, {
    method: 'POST',
    headers: auth,
    body: fileForm(Buffer.from(bytes), filename),
  });
  expect(res.status).toBe(201);
  const { full_path } = (await res.json()) as { full_path: string };
  expect(full_path.startsWith(`/${projectPath}/uploads/`)).toBe(true);
  return app.fetch(full_path, { headers: { ...auth, ...headers } });
}

const html = '<!doctype html><script>document.title = "pwned"</script>';
const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';

describe('project uploads are served as inert user content', () => {
  it.each([
    ['page.html', html],
    ['page.htm', html],
    ['drawing.svg', svg],
    ['DRAWING.SVG', svg],
    ['page.xhtml', html],
    ['feed.xml', '<?xml version="1.0"?><x/>'],
    ['script.js', 'alert(1)'],
    ['sheet.pdf', '%PDF-1.4 /JavaScript'],
    ['notes.txt', 'kick drum notes'],
    ['README', 'no extension'],
  ])('%s: an octet-stream attachment, sandboxed, nosniff', async (name, body) => {
    const res = await uploadAndFetch(name, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(sandboxPolicy);
    expect(await res.text()).toBe(body);
  });

  it.each([
    ['cover.png', 'image/png', sandboxPolicy],
    ['cover.PNG', 'image/png', sandboxPolicy],
    ['photo.jpg', 'image/jpeg', sandboxPolicy],
    ['photo.jpeg', 'image/jpeg', sandboxPolicy],
    ['anim.gif', 'image/gif', sandboxPolicy],
    ['still.webp', 'image/webp', sandboxPolicy],
    ['loop.wav', 'audio/wav', mediaPolicy],
    ['loop.mp3', 'audio/mpeg', mediaPolicy],
    ['loop.flac', 'audio/flac', mediaPolicy],
    ['loop.ogg', 'audio/ogg', mediaPolicy],
    ['clip.mp4', 'video/mp4', mediaPolicy],
  ])('%s: inline as %s, still sandboxed and nosniff', async (name, type, policy) => {
    const res = await uploadAndFetch(name, 'not really media: the bytes never choose the type');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${name}"; filename*=UTF-8''${name}`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(policy);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
  });

  it('HTML named as an image is still only ever an image to the browser', async () => {
    const res = await uploadAndFetch('trick.png', html);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(sandboxPolicy);
  });

  it('answers byte ranges, as a media element asks for them', async () => {
    const res = await uploadAndFetch('loop.wav', '0123456789', { Range: 'bytes=2-5' });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await res.text()).toBe('2345');
    expect(res.headers.get('content-security-policy')).toBe(mediaPolicy);
  });

  it('an upload whose file is gone is the JSON 404, not a crash', async () => {
    const res = await uploadAndFetch('gone.png', 'x');
    const url = new URL(res.url).pathname;
    const { rm } = await import('node:fs/promises');
    const { default: path } = await import('node:path');
    const secret = url.split('/').at(-2)!;
    await rm(path.join(app.projects.uploadsDirOf(projectId), secret, 'gone.png'));
    const again = await app.fetch(url, { headers: auth });
    expect(again.status).toBe(404);
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(again.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('contentDispositionOf', () => {
  it.each([
    ['attachment', 'plain.txt', `attachment; filename="plain.txt"; filename*=UTF-8''plain.txt`],
    ['inline', 'a "quoted" name.png', `inline; filename="a _quoted_ name.png"; filename*=UTF-8''a%20%22quoted%22%20name.png`],
    [
      'attachment',
      'naïve\r\nX-Evil: 1.txt',
      `attachment; filename="na_ve__X-Evil: 1.txt"; filename*=UTF-8''na%C3%AFve%0D%0AX-Evil%3A%201.txt`,
    ],
    ['attachment', "it's (1)*.bin", `attachment; filename="it's (1)*.bin"; filename*=UTF-8''it%27s%20%281%29%2A.bin`],
  ] as const)('%s %j', (kind, name, expected) => {
    expect(contentDispositionOf(kind, name)).toBe(expected);
  });
});
