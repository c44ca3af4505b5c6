import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { serveBytes, startMediaServer, type MediaServer } from '../../test-support/media-server.js';
import { nginxBinary, startNginx, type TestNginx } from '../../test-support/nginx.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { JobStatus } from '../api-types.js';

const exampleConfig = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/deploy/nginx-cratehouse.conf');

/** Outside CI a machine without nginx skips this file. */
describe.skipIf(!nginxBinary && !process.env.CI)('artifacts behind nginx (X-Accel-Redirect, docs/deploy/nginx-cratehouse.conf)', () => {
  let app: TestApp;
  let media: MediaServer;
  let nginx: TestNginx;
  let front: string;
  let token: string;
  let artifactRef: string;
  let wav: Buffer;

  beforeAll(async () => {
    expect(nginxBinary, 'nginx is not installed (apt-get install nginx-light)').toBeTruthy();
    app = await startTestApp({ accelRedirect: '/_artifacts/' });
    token = (await app.addUser('listener')).token;
    media = await startMediaServer();
    media.route('/loop.wav', serveBytes(encodeWav([sine(44_100, 1, 220, 0.5), sine(44_100, 1, 330, 0.5)], 44_100), 'audio/wav'));
    const res = await app.fetch('/audio/v1/sources', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${media.url}/loop.wav` }),
    });
    const jobId = ((await res.json()) as JobStatus).job_id;
    await app.jobs.onIdle();
    const job = (await (await app.fetch(`/audio/v1/jobs/${jobId}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as JobStatus;
    expect(job.status, job.error ?? '').toBe('done');
    const result = job.result as { artifact_ref: string; content_id: string; name: string };
    artifactRef = result.artifact_ref;
    wav = await readFile(path.join(app.dataDir, 'artifacts', result.content_id, result.name));

    // The shipped example, pointed at this test's server and data dir, inside a minimal nginx.conf.
    const site = (await readFile(exampleConfig, 'utf8'))
      .replace('proxy_pass http://127.0.0.1:8080;', `proxy_pass ${app.url};`)
      .replace('/var/lib/cratehouse/artifacts/', `${path.join(app.dataDir, 'artifacts')}/`);
    nginx = await startNginx(site);
    front = nginx.url;
  }, 60_000);

  afterAll(async () => {
    nginx?.process.kill('SIGTERM');
    await media?.close();
    await app?.close();
  });

  it('the server itself answers with X-Accel-Redirect and no body', async () => {
    const res = await app.fetch(artifactRef, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const [, , , , contentId, name] = artifactRef.split('/');
    expect(res.headers.get('x-accel-redirect')).toBe(`/_artifacts/${contentId}/${name}`);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('nginx streams a byte range of the artifact', async () => {
    const res = await fetch(front + artifactRef, { headers: { Authorization: `Bearer ${token}`, Range: 'bytes=1000-4999' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 1000-4999/${wav.length}`);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('x-accel-redirect')).toBeNull();
    expect(Buffer.from(await res.arrayBuffer()).equals(wav.subarray(1000, 5000))).toBe(true);
  });

  it('what nginx streams is still inert user content: nosniff, sandboxed, inline audio', async () => {
    for (const url of [app.url + artifactRef, front + artifactRef]) {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.headers.get('content-type'), url).toBe('audio/wav');
      expect(res.headers.get('content-disposition'), url).toMatch(/^inline; filename="[^"]+\.wav"/);
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(res.headers.get('content-security-policy'), url).toBe(
        "sandbox allow-same-origin; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      );
      await res.arrayBuffer();
    }
  });

  it('nginx streams the whole artifact', async () => {
    const res = await fetch(front + artifactRef, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(wav)).toBe(true);
  });

  it('the token is still checked, and the internal location is not reachable from outside', async () => {
    expect((await fetch(front + artifactRef)).status).toBe(401);
    const [, , , , contentId, name] = artifactRef.split('/');
    expect((await fetch(`${front}/_artifacts/${contentId}/${name}`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(404);
  });
});
