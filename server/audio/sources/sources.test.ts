import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundTransport, signWebhook, webhookHeaders } from '../../queue/webhooks.js';
import { makeMediaFixtures, serveBytes, startMediaServer, type MediaFixtures, type MediaServer } from '../../test-support/media-server.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { JobStatus, SourceDescriptor } from '../api-types.js';
import { downloadWithYtDlp, resolveYtDlp, YtDlpUnsupportedError } from './yt-dlp.js';
import { sourceDescriptorSchema } from '../http/schemas.js';

/** What ffmpeg (not our code) reads from a WAV: rate, channels and the exact number of frames. */
function decodeWithFfmpeg(file: string): { sampleRate: number; channels: number; frames: number } {
  const info = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'a:0', '-show_streams', '-of', 'json', file]).toString(),
  ) as { streams: { sample_rate: string; channels: number }[] };
  const stream = info.streams[0]!;
  const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'f32le', '-'], { maxBuffer: 1 << 28 });
  return { sampleRate: Number(stream.sample_rate), channels: stream.channels, frames: pcm.length / 4 / stream.channels };
}

/** Frames ffmpeg decodes from a file (the reference length of a lossy source). */
function framesOf(file: string): number {
  return decodeWithFfmpeg(file).frames;
}

let fixtures: MediaFixtures;
let media: MediaServer;
let app: TestApp;
let token: string;
let otherToken: string;
const hooks: { body: string; headers: http.IncomingHttpHeaders }[] = [];
let hookServer: http.Server;
let hookUrl: string;
let hookFailuresLeft = 0;

const auth = (t = token) => ({ Authorization: `Bearer ${t}` });
const postSource = (body: unknown, t = token) =>
  app.fetch('/audio/v1/sources', {
    method: 'POST',
    headers: { ...auth(t), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

async function waitForJob(id: string, t = token, timeoutMs = 30_000): Promise<JobStatus> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = (await (await app.fetch(`/audio/v1/jobs/${id}`, { headers: auth(t) })).json()) as JobStatus;
    if (job.status === 'done' || job.status === 'error') return job;
    if (Date.now() > until) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function fetchSource(url: string): Promise<JobStatus> {
  const res = await postSource({ url });
  expect(res.status).toBe(202);
  const job = (await res.json()) as JobStatus;
  return waitForJob(job.job_id);
}

function descriptor(job: JobStatus): SourceDescriptor {
  expect(job.status, job.error ?? '').toBe('done');
  return sourceDescriptorSchema.parse(job.result);
}

function artifactFile(d: SourceDescriptor): string {
  return path.join(app.dataDir, 'artifacts', d.content_id, d.name);
}

/** A page with several candidates: the FLAC is lossless, so it beats the higher-bitrate MP3s. */
const pageHtml = (base: string) => `<!doctype html><html><head><title>Night Drive (demo)</title>
<meta property="og:audio" content="${base}/media/og-preview.mp3"><meta property="og:audio:type" content="audio/mpeg"></head>
<body><audio controls><source src="/media/low.mp3" type="audio/mpeg" data-bitrate="128"><source src="/media/high.mp3" type="audio/mpeg" data-bitrate="320">
<source src="media/master.flac" type="audio/flac"></audio></body></html>`;

beforeAll(async () => {
  fixtures = makeMediaFixtures();
  media = await startMediaServer();
  media.route('/a.wav', serveBytes(fixtures.wav, 'audio/wav'));
  media.route('/same-audio-elsewhere', serveBytes(fixtures.wav, 'application/octet-stream'));
  media.route('/mislabelled.txt', serveBytes(fixtures.wav, 'text/plain'));
  media.route('/tone.mp3', serveBytes(fixtures.mp3, 'audio/mpeg'));
  media.route('/mono48.flac', serveBytes(fixtures.flac, 'audio/flac'));
  media.route('/clip.mp4', serveBytes(fixtures.mp4, 'video/mp4'));
  media.route('/picture.png', serveBytes(fixtures.png, 'image/png'));
  media.route('/page.html', (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(pageHtml(media.url)));
  media.route('/media/low.mp3', serveBytes(fixtures.mp3, 'audio/mpeg'));
  media.route('/media/high.mp3', serveBytes(fixtures.mp3, 'audio/mpeg'));
  media.route('/media/og-preview.mp3', serveBytes(fixtures.mp3, 'audio/mpeg'));
  media.route('/media/master.flac', serveBytes(fixtures.masterFlac, 'audio/flac'));
  media.route('/empty-page.html', (_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body><p>No audio here</p></body></html>'),
  );
  for (let i = 1; i <= 9; i++) {
    media.route(`/hop/${i}`, (_req, res) => res.writeHead(302, { Location: i === 1 ? '/a.wav' : `/hop/${i - 1}` }).end());
  }
  // A WAV header, then one byte every 50 ms, forever.
  media.route('/endless.wav', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'audio/wav' });
    res.write(fixtures.wav.subarray(0, 1024));
    const timer = setInterval(() => res.write(Buffer.alloc(1)), 50);
    req.socket.on('close', () => clearInterval(timer));
  });

  hookServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      hooks.push({ body, headers: req.headers });
      if (hookFailuresLeft > 0) {
        hookFailuresLeft--;
        res.writeHead(500).end();
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;

  app = await startTestApp({
    jobConcurrency: 2,
    webhookTransport: outboundTransport(true),
    webhookOptions: { backoffMs: 50 },
    sources: { timeoutS: 20 },
  });
  token = (await app.addUser('producer')).token;
  otherToken = (await app.addUser('stranger')).token;
}, 60_000);

afterAll(async () => {
  await app.close();
  await media.close();
  await new Promise<void>((r) => hookServer.close(() => r()));
});

describe('POST /audio/v1/sources: direct media', () => {
  it('fetches a WAV into a 44.1 kHz WAV artifact with every sample kept', async () => {
    const job = await fetchSource(`${media.url}/a.wav`);
    const d = descriptor(job);
    expect(job.type).toBe('source');
    expect(job.progress).toBe(1);
    expect(d).toMatchObject({
      url: `${media.url}/a.wav`,
      final_url: `${media.url}/a.wav`,
      via: 'direct',
      media_type: 'audio/wav',
      sample_rate: 44_100,
      channels: 2,
      frames: fixtures.wavFrames,
      bits_per_sample: 16,
      name: 'a.wav',
    });
    expect(d.duration_s).toBeCloseTo(2, 9);
    expect(job.result_ref).toBe(d.artifact_ref);
    expect(d.artifact_ref).toBe(`/audio/v1/artifacts/${d.content_id}/a.wav`);
    const bytes = await readFile(artifactFile(d));
    expect(d.bytes).toBe(bytes.length);
    expect(d.content_id).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(decodeWithFfmpeg(artifactFile(d))).toEqual({ sampleRate: 44_100, channels: 2, frames: fixtures.wavFrames });
    // 16-bit in, 16-bit out at the same rate: the samples are the source's, bit for bit.
    const pcm = (f: string) => execFileSync('ffmpeg', ['-v', 'error', '-i', f, '-f', 's16le', '-']);
    expect(pcm(artifactFile(d)).equals(pcm(path.join(fixtures.dir, 'tone.wav')))).toBe(true);
  });

  it('converts an MP3 with the length its gapless header states (within one frame)', async () => {
    const d = descriptor(await fetchSource(`${media.url}/tone.mp3`));
    const decoded = decodeWithFfmpeg(artifactFile(d));
    expect(decoded.sampleRate).toBe(44_100);
    expect(decoded.channels).toBe(2);
    expect(Math.abs(decoded.frames - framesOf(path.join(fixtures.dir, 'tone.mp3')))).toBeLessThanOrEqual(1);
    expect(Math.abs(decoded.frames - fixtures.wavFrames)).toBeLessThanOrEqual(1);
    expect(d).toMatchObject({ via: 'direct', media_type: 'audio/mpeg', source_codec: 'mp3', bits_per_sample: 16 });
  });

  it('resamples a 48 kHz mono 24-bit FLAC to 44.1 kHz, mono and 24-bit kept', async () => {
    const d = descriptor(await fetchSource(`${media.url}/mono48.flac`));
    const decoded = decodeWithFfmpeg(artifactFile(d));
    expect(decoded.sampleRate).toBe(44_100);
    expect(decoded.channels).toBe(1);
    expect(Math.abs(decoded.frames - (fixtures.flacFrames * 44_100) / 48_000)).toBeLessThanOrEqual(1);
    expect(d).toMatchObject({
      channels: 1,
      source_sample_rate: 48_000,
      source_codec: 'flac',
      bits_per_sample: 24,
      media_type: 'audio/flac',
    });
  });

  it('keeps the audio track of an MP4 video', async () => {
    const d = descriptor(await fetchSource(`${media.url}/clip.mp4`));
    const decoded = decodeWithFfmpeg(artifactFile(d));
    expect(decoded).toMatchObject({ sampleRate: 44_100, channels: 2 });
    expect(Math.abs(decoded.frames - framesOf(path.join(fixtures.dir, 'clip.mp4')))).toBeLessThanOrEqual(1);
    expect(d).toMatchObject({ media_type: 'video/mp4', source_codec: 'aac' });
  });

  it('recognises media by its bytes when the Content-Type is wrong', async () => {
    const d = descriptor(await fetchSource(`${media.url}/mislabelled.txt`));
    expect(d.media_type).toBe('audio/wav');
    expect(d.frames).toBe(fixtures.wavFrames);
  });

  it('follows a redirect chain and reports the final URL', async () => {
    const d = descriptor(await fetchSource(`${media.url}/hop/3`));
    expect(d.url).toBe(`${media.url}/hop/3`);
    expect(d.final_url).toBe(`${media.url}/a.wav`);
  });
});

describe('POST /audio/v1/sources: pages', () => {
  it('picks the best candidate of a page: lossless before higher-bitrate lossy', async () => {
    const before = media.hits.get('/media/high.mp3') ?? 0;
    const d = descriptor(await fetchSource(`${media.url}/page.html`));
    expect(d).toMatchObject({
      via: 'page',
      final_url: `${media.url}/media/master.flac`,
      channels: 2,
      frames: fixtures.wavFrames,
      media_type: 'audio/flac',
      name: 'Night-Drive-(demo).wav',
    });
    expect(media.hits.get('/media/high.mp3') ?? 0).toBe(before);
  });

  it('says so when a page has no media on it', async () => {
    const job = await fetchSource(`${media.url}/empty-page.html`);
    expect(job.status).toBe('error');
    expect(job.error).toContain('web page without audio or video');
  });
});

describe('POST /audio/v1/sources: failures end in error with a sentence', () => {
  it('a 404', async () => {
    const job = await fetchSource(`${media.url}/nothing-here.wav`);
    expect(job).toMatchObject({ status: 'error', result: null });
    expect(job.error).toBe(`${media.url}/nothing-here.wav answered HTTP 404 Not Found`);
  });

  it('a file that is not audio', async () => {
    const job = await fetchSource(`${media.url}/picture.png`);
    expect(job.error).toBe(`${media.url}/picture.png is not audio, video or a web page (it serves image/png)`);
  });

  it('too many redirects', async () => {
    const job = await fetchSource(`${media.url}/hop/9`);
    expect(job.error).toMatch(/Too many redirects \(more than 5\)/);
  });

  it('leaves no temp folder behind after any of them', async () => {
    await app.jobs.onIdle();
    expect((await readdir(path.join(app.dataDir, 'tmp'))).filter((f) => f.startsWith('source-'))).toEqual([]);
  });
});

describe('content addressing', () => {
  it('answers a URL fetched before with a job born done, without downloading again', async () => {
    const url = `${media.url}/a.wav`;
    const first = descriptor(await fetchSource(url));
    const hits = media.hits.get('/a.wav');
    const res = await postSource({ url });
    expect(res.status).toBe(202);
    const job = (await res.json()) as JobStatus;
    expect(job).toMatchObject({ status: 'done', progress: 1, result_ref: first.artifact_ref });
    expect(job.result).toMatchObject({ content_id: first.content_id, name: first.name });
    expect(media.hits.get('/a.wav')).toBe(hits);
  });

  it('stores the same audio fetched from two URLs once', async () => {
    const a = descriptor(await fetchSource(`${media.url}/a.wav`));
    const b = descriptor(await fetchSource(`${media.url}/same-audio-elsewhere`));
    expect(b.content_id).toBe(a.content_id);
    expect(b.name).toBe(a.name);
    expect(await readdir(path.join(app.dataDir, 'artifacts', a.content_id))).toEqual([a.name]);
  });

  it('fetches again when the artifact is gone', async () => {
    const url = `${media.url}/clip.mp4`;
    const d = descriptor(await fetchSource(url));
    await import('node:fs/promises').then((fs) => fs.rm(path.join(app.dataDir, 'artifacts', d.content_id), { recursive: true }));
    const res = await postSource({ url });
    const job = (await res.json()) as JobStatus;
    expect(job.status).not.toBe('done');
    expect(descriptor(await waitForJob(job.job_id)).content_id).toBe(d.content_id);
  });
});

describe('cancellation and limits', () => {
  it('DELETE stops a download at its next checkpoint and leaves no partial artifact', async () => {
    const artifactsBefore = await readdir(path.join(app.dataDir, 'artifacts'));
    const res = await postSource({ url: `${media.url}/endless.wav` });
    const job = (await res.json()) as JobStatus;
    for (
      let i = 0;
      i < 100 && ((await (await app.fetch(`/audio/v1/jobs/${job.job_id}`, { headers: auth() })).json()) as JobStatus).status !== 'running';
      i++
    )
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    const cancelled = await app.fetch(`/audio/v1/jobs/${job.job_id}`, { method: 'DELETE', headers: auth() });
    expect(cancelled.status).toBe(200);
    const final = await waitForJob(job.job_id, token, 5000);
    expect(final).toMatchObject({ status: 'error', error: 'cancelled' });
    expect(await readdir(path.join(app.dataDir, 'artifacts'))).toEqual(artifactsBefore);
    expect((await readdir(path.join(app.dataDir, 'tmp'))).filter((f) => f.startsWith('source-'))).toEqual([]);
  });

  it('gives up on an endless stream at the time limit, and on a body over the size limit', async () => {
    const limited = await startTestApp({ sources: { timeoutS: 1, maxBytes: 100 * 1024 } });
    try {
      const t = (await limited.addUser('limited')).token;
      const submit = async (url: string) => {
        const res = await limited.fetch('/audio/v1/sources', {
          method: 'POST',
          headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url }),
        });
        const id = ((await res.json()) as JobStatus).job_id;
        await limited.jobs.onIdle();
        return (await (await limited.fetch(`/audio/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${t}` } })).json()) as JobStatus;
      };
      const slow = await submit(`${media.url}/endless.wav`);
      expect(slow.error).toBe(`Gave up on ${media.url}/endless.wav after 1 s (the source time limit, CRATEHOUSE_SOURCE_TIMEOUT_S)`);
      const big = await submit(`${media.url}/a.wav`);
      expect(big.error).toBe(`${media.url}/a.wav is larger than the 100 kB source limit (CRATEHOUSE_MAX_SOURCE_MB)`);
      expect(await readdir(path.join(limited.dataDir, 'artifacts'))).toEqual([]);
    } finally {
      await limited.close();
    }
  });

  it('refuses loopback destinations unless private addresses are allowed', async () => {
    const strict = await startTestApp({ sources: { allowPrivate: false } });
    try {
      const t = (await strict.addUser('strict')).token;
      const res = await strict.fetch('/audio/v1/sources', {
        method: 'POST',
        headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${media.url}/a.wav` }),
      });
      const id = ((await res.json()) as JobStatus).job_id;
      await strict.jobs.onIdle();
      const job = (await (await strict.fetch(`/audio/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${t}` } })).json()) as JobStatus;
      expect(job.status).toBe('error');
      expect(job.error).toContain('Refusing to connect to 127.0.0.1');
      expect(job.error).toContain('private, loopback, link-local and metadata addresses are not allowed');
    } finally {
      await strict.close();
    }
  });
});

describe('validation (422 HTTPValidationError)', () => {
  it.each([
    [{}, ['body', 'url'], 'missing'],
    [{ url: 'ftp://example.com/a.wav' }, ['body', 'url'], 'value_error'],
    [{ url: 'not a url' }, ['body', 'url'], 'value_error'],
    [{ url: 42 }, ['body', 'url'], 'string_type'],
    [{ url: 'https://example.com/a.wav', priority: 'high' }, ['body', 'priority'], 'int_parsing'],
    [{ url: 'https://example.com/a.wav', priority: 1.5 }, ['body', 'priority'], 'int_from_float'],
    [{ url: 'https://example.com/a.wav', webhook_url: 'file:///etc/passwd' }, ['body', 'webhook_url'], 'value_error'],
  ])('%j → %j %s', async (body, loc, type) => {
    const res = await postSource(body);
    expect(res.status).toBe(422);
    const detail = ((await res.json()) as { detail: { loc: unknown[]; type: string }[] }).detail;
    expect(detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('a body that is not JSON', async () => {
    const res = await app.fetch('/audio/v1/sources', {
      method: 'POST',
      headers: { ...auth(), 'Content-Type': 'application/json' },
      body: '{"url":',
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
  });

  it('no token', async () => {
    const res = await app.fetch('/audio/v1/sources', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${media.url}/a.wav` }),
    });
    expect(res.status).toBe(401);
  });
});

describe('GET /audio/v1/artifacts/{content_id}/{name}', () => {
  let d: SourceDescriptor;
  let bytes: Buffer;
  beforeAll(async () => {
    d = descriptor(await fetchSource(`${media.url}/a.wav`));
    bytes = await readFile(artifactFile(d));
  });

  it('streams the whole file with its type, length, ETag and Accept-Ranges', async () => {
    const res = await app.fetch(d.artifact_ref, { headers: auth() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('etag')).toBeTruthy();
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect(res.headers.get('etag')).toBe(`"${d.content_id}"`);
    // fetch() adds Cache-Control: no-cache to conditional requests, so ask with node:http.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http
        .get(app.url + d.artifact_ref, { headers: { ...auth(), 'If-None-Match': `"${d.content_id}"` } }, (r) => {
          r.resume();
          resolve(r.statusCode);
        })
        .on('error', reject);
    });
    expect(status).toBe(304);
  });

  it('is served as inert user content: inline audio, nosniff, sandboxed', async () => {
    for (const headers of [auth(), { ...auth(), Range: 'bytes=0-99' }]) {
      const res = await app.fetch(d.artifact_ref, { headers });
      expect(res.headers.get('content-type')).toBe('audio/wav');
      expect(res.headers.get('content-disposition')).toBe(
        `inline; filename="${d.artifact_ref.split('/').at(-1)}"; filename*=UTF-8''${d.artifact_ref.split('/').at(-1)}`,
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe(
        "sandbox allow-same-origin; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      );
      await res.arrayBuffer();
    }
  });

  it.each([
    ['bytes=100-199', 100, 199],
    ['bytes=0-0', 0, 0],
    ['bytes=-500', -1, -1],
    ['bytes=176000-', 176_000, -1],
  ])('%s returns exactly those bytes (206)', async (range, from, to) => {
    const res = await app.fetch(d.artifact_ref, { headers: { ...auth(), Range: range } });
    expect(res.status).toBe(206);
    const start = from === -1 ? bytes.length - 500 : from;
    const end = to === -1 ? bytes.length - 1 : to;
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${bytes.length}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it('answers 416 for a range past the end', async () => {
    const res = await app.fetch(d.artifact_ref, { headers: { ...auth(), Range: `bytes=${bytes.length + 10}-` } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
  });

  it('is open to any authenticated tenant holding the reference, and to no one without a token', async () => {
    expect((await app.fetch(d.artifact_ref, { headers: auth(otherToken) })).status).toBe(200);
    expect((await app.fetch(d.artifact_ref)).status).toBe(401);
  });

  it('404 for an unknown artifact; names that try to leave the folder are refused', async () => {
    expect((await app.fetch(`/audio/v1/artifacts/${'0'.repeat(64)}/a.wav`, { headers: auth() })).status).toBe(404);
    expect((await app.fetch(`/audio/v1/artifacts/${d.content_id}/other.wav`, { headers: auth() })).status).toBe(404);
    for (const name of ['..%2F..%2Fdb.json', '%2E%2E', '.hidden', '..', 'a%2Fb.wav', '%2Fetc%2Fpasswd']) {
      const res = await app.fetch(`/audio/v1/artifacts/${d.content_id}/${name}`, { headers: auth() });
      expect([404, 422], name).toContain(res.status);
      expect(res.headers.get('content-type'), name).toContain('application/json');
    }
    const badId = await app.fetch('/audio/v1/artifacts/..%2F..%2Ftmp/a.wav', { headers: auth() });
    expect(badId.status).toBe(422);
  });
});

describe('tenants', () => {
  it('another tenant cannot see or cancel a job (404)', async () => {
    const res = await postSource({ url: `${media.url}/a.wav` });
    const job = (await res.json()) as JobStatus;
    expect((await app.fetch(`/audio/v1/jobs/${job.job_id}`, { headers: auth(otherToken) })).status).toBe(404);
    expect((await app.fetch(`/audio/v1/jobs/${job.job_id}`, { method: 'DELETE', headers: auth(otherToken) })).status).toBe(404);
    expect((await app.fetch(`/audio/v1/jobs/${job.job_id}`, { headers: auth() })).status).toBe(200);
  });
});

describe('webhooks', () => {
  const secretOf = async (t: string) =>
    ((await (await app.fetch('/audio/v1/me', { headers: auth(t) })).json()) as { tenant: { webhook_secret: string } }).tenant
      .webhook_secret;
  const deliveriesFor = (jobId: string) => hooks.filter((h) => (JSON.parse(h.body) as JobStatus).job_id === jobId);

  it('POSTs the final JobStatus once, signed with the tenant secret', async () => {
    const res = await postSource({ url: `${media.url}/tone.mp3`, webhook_url: hookUrl, priority: 5 });
    const job = (await res.json()) as JobStatus;
    const final = await waitForJob(job.job_id);
    await waitUntil(() => deliveriesFor(job.job_id).length > 0);
    await new Promise((r) => setTimeout(r, 300));
    const deliveries = deliveriesFor(job.job_id);
    expect(deliveries).toHaveLength(1);
    const { body, headers } = deliveries[0]!;
    expect(JSON.parse(body)).toEqual(final);
    const signature = signWebhook(await secretOf(token), String(headers[webhookHeaders.timestamp.toLowerCase()]), body);
    expect(headers[webhookHeaders.signature.toLowerCase()]).toBe(signature);
    expect(signWebhook(await secretOf(otherToken), String(headers[webhookHeaders.timestamp.toLowerCase()]), body)).not.toBe(signature);
  });

  it('retries after a failed delivery, with the same delivery id', async () => {
    hookFailuresLeft = 1;
    const res = await postSource({ url: `${media.url}/a.wav`, webhook_url: hookUrl });
    const job = (await res.json()) as JobStatus;
    await waitUntil(() => deliveriesFor(job.job_id).length >= 2);
    await new Promise((r) => setTimeout(r, 300));
    const deliveries = deliveriesFor(job.job_id);
    expect(deliveries).toHaveLength(2);
    const id = (h: (typeof deliveries)[number]) => h.headers[webhookHeaders.delivery.toLowerCase()];
    expect(id(deliveries[0]!)).toBe(id(deliveries[1]!));
    expect(JSON.parse(deliveries[1]!.body)).toMatchObject({ job_id: job.job_id, status: 'done' });
  });
});

describe('yt-dlp', () => {
  it('is used for pages it supports, and the page candidates are the fallback', async () => {
    // A stand-in yt-dlp: "supports" URLs containing /watch/, refuses the rest as real yt-dlp does.
    const script = path.join(fixtures.dir, 'fake-yt-dlp');
    await writeFile(
      script,
      `#!/bin/sh
if [ "$1" = "--version" ]; then echo 2023.03.04; exit 0; fi
for last; do :; done
case "$last" in
  */watch/*) ;;
  *) echo "ERROR: No suitable extractor found for URL $last" >&2; exit 1 ;;
esac
out=""; prev=""
for a in "$@"; do if [ "$prev" = "-o" ]; then out="$a"; fi; prev="$a"; done
cp "${path.join(fixtures.dir, 'tone.mp3')}" "$(echo "$out" | sed 's/%(ext)s/mp3/')"
echo "PROGRESS 100 200 NA"
echo "TITLE Live at the Warehouse"
`,
    );
    await chmod(script, 0o755);
    media.route('/watch/123', (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>player</body></html>'));
    const withYtDlp = await startTestApp({ sources: { ytdlpPath: script } });
    try {
      const t = (await withYtDlp.addUser('ytdlp')).token;
      const run = async (url: string) => {
        const res = await withYtDlp.fetch('/audio/v1/sources', {
          method: 'POST',
          headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url }),
        });
        const id = ((await res.json()) as JobStatus).job_id;
        await withYtDlp.jobs.onIdle();
        return (await (await withYtDlp.fetch(`/audio/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${t}` } })).json()) as JobStatus;
      };
      const supported = descriptor(await run(`${media.url}/watch/123`));
      expect(supported).toMatchObject({
        via: 'yt-dlp',
        name: 'Live-at-the-Warehouse.wav',
        source_codec: 'mp3',
        final_url: `${media.url}/watch/123`,
      });
      const fallback = descriptor(await run(`${media.url}/page.html`));
      expect(fallback).toMatchObject({ via: 'page', final_url: `${media.url}/media/master.flac` });
    } finally {
      await withYtDlp.close();
    }
  });
});

describe.skipIf(!hasRealYtDlp())('the installed yt-dlp', () => {
  it('accepts our arguments, and a page it has no extractor for falls back to the page candidates', async () => {
    const withYtDlp = await startTestApp({ sources: { ytdlpPath: null } });
    try {
      const t = (await withYtDlp.addUser('real-ytdlp')).token;
      const res = await withYtDlp.fetch('/audio/v1/sources', {
        method: 'POST',
        headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${media.url}/page.html` }),
      });
      const id = ((await res.json()) as JobStatus).job_id;
      await withYtDlp.jobs.onIdle();
      const job = (await (
        await withYtDlp.fetch(`/audio/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${t}` } })
      ).json()) as JobStatus;
      expect(descriptor(job)).toMatchObject({ via: 'page', final_url: `${media.url}/media/master.flac` });
      // Bad arguments would fail differently: it must be "no extractor", nothing else.
      const ytdlp = await resolveYtDlp(null);
      const attempt = downloadWithYtDlp({
        ytdlp: ytdlp!,
        url: `${media.url}/page.html`,
        dir: fixtures.dir,
        prefix: 'probe',
        maxBytes: 1e6,
        signal: new AbortController().signal,
        onProgress: () => undefined,
      });
      await expect(attempt).rejects.toBeInstanceOf(YtDlpUnsupportedError);
    } finally {
      await withYtDlp.close();
    }
  }, 90_000); // yt-dlp (Python, every extractor loaded) starts twice: 10–30 s each while the full suite loads two cores
});

function hasRealYtDlp(): boolean {
  try {
    execFileSync('yt-dlp', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
