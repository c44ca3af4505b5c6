import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveBytes, startMediaServer, type MediaServer } from '../../test-support/media-server.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { JobStatus } from '../api-types.js';
import { probeWithFfmpeg } from './probe.js';

// Inputs that make ffmpeg open other files by name. Without the allow-list ffmpeg decodes them and the
// answer is the analysis of a file the client never sent (a 3.25 s tone outside the data dir).
const auth = { Authorization: 'Bearer admin-token' };
const outside = mkdtempSync(path.join(tmpdir(), 'cratehouse-outside-'));
const secretSeconds = 3.25;
const secretMp3 = path.join(outside, 'secret.mp3');
const secretTs = path.join(outside, 'secret.ts');

const hls = (segment: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:${secretSeconds},\n${segment}\n#EXT-X-ENDLIST\n`;

let app: TestApp;
let media: MediaServer;

beforeAll(async () => {
  const ff = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
  ff('-f', 'lavfi', '-i', `sine=frequency=1234:sample_rate=22050:duration=${secretSeconds}`, secretMp3);
  ff('-f', 'lavfi', '-i', `sine=frequency=1234:sample_rate=22050:duration=${secretSeconds}`, '-c:a', 'aac', '-f', 'mpegts', secretTs);
  app = await startTestApp();
  media = await startMediaServer();
});
afterAll(async () => {
  await app?.close();
  await media?.close();
});

describe('inputs that reference other files', () => {
  it('the fixtures really are decodable by a plain ffmpeg (so a refusal below is our doing)', () => {
    const playlist = path.join(outside, 'check.m3u8');
    writeFileSync(playlist, hls(secretMp3));
    const report = execFileSync('ffmpeg', ['-hide_banner', '-nostdin', '-i', playlist, '-f', 'null', '-'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(report).toBeDefined(); // exit 0: ffmpeg decoded the secret through the playlist
  });

  for (const [label, body] of [
    ['an HLS playlist naming an MP3 outside the data dir', () => hls(secretMp3)],
    ['an HLS playlist naming an MPEG-TS segment by file: URL', () => hls(`file:${secretTs}`)],
    ['an ffconcat list naming a file next to the upload', () => 'ffconcat version 1.0\nfile neighbour.mp3\n'],
  ] as const) {
    for (const route of ['/loudness', '/waveform?bins=10', '/analyze']) {
      it(`${label} on ${route} is a 415 in the audio API's shape`, async () => {
        // A neighbour in tmp/ (where uploads land): a relative ffconcat entry resolves there.
        execFileSync('cp', [secretMp3, path.join(app.dataDir, 'tmp', 'neighbour.mp3')]);
        const res = await app.fetch(`/audio/v1${route}`, {
          method: 'POST',
          headers: auth,
          body: fileForm(Buffer.from(body()), 'list.m3u8'),
        });
        const text = await res.text();
        expect(res.status, text).toBe(415);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const detail = (JSON.parse(text) as { detail: string }).detail;
        expect(detail).toMatch(/format is refused/);
        expect(text).not.toContain(String(secretSeconds));
      });
    }
  }

  it('an image sequence pattern is not read as one (a PNG upload is refused, not decoded)', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3c1d1f40000000049454e44ae426082',
      'hex',
    );
    const res = await app.fetch('/audio/v1/loudness', { method: 'POST', headers: auth, body: fileForm(png, 'frame-%03d.png') });
    expect(res.status).toBe(415);
  });

  it('the probe itself refuses a playlist by name, before any decode', async () => {
    const file = path.join(outside, 'probe-me');
    writeFileSync(file, hls(secretMp3));
    await expect(probeWithFfmpeg('ffmpeg', file)).rejects.toMatchObject({
      kind: 'unsupported-media',
      message: expect.stringMatching(/hls format is refused/) as unknown,
    });
  });

  it('a source job whose URL serves such a playlist ends in error, and no artifact is stored', async () => {
    media.route('/live.m3u8', serveBytes(Buffer.from(hls(secretMp3)), 'audio/x-mpegurl'));
    media.route('/list.ffconcat', serveBytes(Buffer.from(`ffconcat version 1.0\nfile ${path.basename(secretMp3)}\n`), 'audio/mpeg'));
    for (const name of ['/live.m3u8', '/list.ffconcat']) {
      const res = await app.fetch('/audio/v1/sources', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${media.url}${name}` }),
      });
      expect(res.status).toBe(202);
      let job = (await res.json()) as JobStatus;
      const until = Date.now() + 20_000;
      while (job.status !== 'done' && job.status !== 'error' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        job = (await (await app.fetch(`/audio/v1/jobs/${job.job_id}`, { headers: auth })).json()) as JobStatus;
      }
      expect(job.status, JSON.stringify(job)).toBe('error');
      expect(job.error).toMatch(/format is refused/);
    }
    expect(readdirSync(path.join(app.dataDir, 'artifacts'))).toEqual([]);
  });
});
