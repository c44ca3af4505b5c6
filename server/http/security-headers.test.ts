import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, startTestApp, type TestApp } from '../test-support/test-app.js';

// Headers every response carries, written out here rather than imported from the module under test.
const inertPolicy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox";

let app: TestApp;
let rendererDir = '';
let projectPath = '';

beforeAll(async () => {
  // A stand-in for the built renderer: the app shell, a module script and a worker script.
  rendererDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-renderer-'));
  await mkdir(path.join(rendererDir, 'assets'));
  await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><script type="module" src="/assets/index.js"></script>');
  await writeFile(path.join(rendererDir, 'assets', 'index.js'), 'console.log(1);');
  await writeFile(path.join(rendererDir, 'assets', 'spectrogram-worker.js'), 'onmessage = () => {};');
  app = await startTestApp({ jsDecoder: true, rendererDir });
  const res = await app.fetch('/api/v4/projects', {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Header Probe' }),
  });
  projectPath = ((await res.json()) as { path_with_namespace: string }).path_with_namespace;
});

afterAll(async () => {
  await app.close();
  await rm(rendererDir, { recursive: true, force: true });
});

describe('every answer of both APIs is nosniff and inert, errors included', () => {
  const bearer = { Authorization: `Bearer ${adminToken}` };
  const cases: readonly { name: string; path: string; init?: RequestInit; status: number }[] = [
    { name: 'audio: health', path: '/audio/v1/healthz', status: 200 },
    { name: 'audio: no token', path: '/audio/v1/me', status: 401 },
    { name: 'audio: unknown route', path: '/audio/v1/no-such-route', init: { headers: bearer }, status: 404 },
    { name: 'audio: wrong method', path: '/audio/v1/me', init: { method: 'DELETE', headers: bearer }, status: 405 },
    {
      name: 'audio: body that is not JSON',
      path: '/audio/v1/sources',
      init: { method: 'POST', headers: { ...bearer, 'Content-Type': 'application/json' }, body: '{"url":' },
      status: 422,
    },
    { name: 'audio: unknown job', path: '/audio/v1/jobs/nope', init: { headers: bearer }, status: 404 },
    { name: 'audio: unknown artifact', path: `/audio/v1/artifacts/${'0'.repeat(64)}/a.wav`, init: { headers: bearer }, status: 404 },
    { name: 'hosting: a list', path: '/api/v4/projects', status: 200 },
    { name: 'hosting: bad token', path: '/api/v4/user', init: { headers: { 'PRIVATE-TOKEN': 'wrong' } }, status: 401 },
    { name: 'hosting: unknown project', path: '/api/v4/projects/999999', init: { headers: { 'PRIVATE-TOKEN': adminToken } }, status: 404 },
    { name: 'hosting: unknown route', path: '/api/v4/no-such-route', status: 404 },
    { name: 'hosting: v3', path: '/api/v3/projects', status: 410 },
    { name: 'git: anonymous info/refs', path: '/root/header-probe.git/info/refs?service=git-upload-pack', status: 401 },
    {
      name: 'git: unknown repository',
      path: '/root/nothing-here.git/info/refs?service=git-upload-pack',
      init: { headers: { Authorization: `Basic ${Buffer.from(`root:${adminToken}`).toString('base64')}` } },
      status: 404,
    },
    {
      name: 'uploads: unknown upload',
      path: `/root/header-probe/uploads/${'a'.repeat(32)}/x.png`,
      init: { headers: { Accept: 'application/json' } },
      status: 404,
    },
    { name: 'root: not found', path: '/no/such/thing.json', init: { headers: { Accept: 'application/json' } }, status: 404 },
  ];
  it.each(cases)('$name → $status', async ({ path: url, init, status }) => {
    const res = await app.fetch(url, init);
    expect(res.status).toBe(status);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(inertPolicy);
    await res.arrayBuffer();
  });

  it('the git path used is the project created above', () => {
    expect(projectPath).toBe('root/header-probe');
  });
});

describe('the GUI runs under its own policy', () => {
  const directives = (policy: string | null) =>
    new Map(
      (policy ?? '')
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );

  it.each([
    ['/', 'text/html'],
    ['/index.html', 'text/html'],
    ['/projects/root/header-probe', 'text/html'],
    ['/assets/index.js', 'javascript'],
    ['/assets/spectrogram-worker.js', 'javascript'],
  ])('%s', async (url, type) => {
    const res = await app.fetch(url, { headers: { Accept: 'text/html,*/*' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain(type);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const policy = directives(res.headers.get('content-security-policy'));
    // Script only from the server itself: no inline script, no eval, no other host.
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    // The waveform plays the dropped file from a blob: URL, and the spectrogram runs in a worker.
    expect(policy.get('media-src')).toEqual(["'self'", 'blob:']);
    expect(policy.get('worker-src')).toEqual(["'self'"]);
    expect(policy.has('sandbox')).toBe(false);
    await res.arrayBuffer();
  });
});
