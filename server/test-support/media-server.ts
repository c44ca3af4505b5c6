import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeWav, sine } from './signals.js';

/** Media files made once per test run, with the frame counts that went into them. */
export interface MediaFixtures {
  readonly dir: string;
  /** 44.1 kHz stereo 16-bit WAV, 2 s. */
  readonly wav: Buffer;
  readonly wavFrames: number;
  /** The same audio as MP3 (LAME, gapless header). */
  readonly mp3: Buffer;
  /** 48 kHz mono 24-bit FLAC, 1.5 s. */
  readonly flac: Buffer;
  readonly flacFrames: number;
  /** The WAV's audio at half the level, as 44.1 kHz stereo FLAC (a page's lossless master). */
  readonly masterFlac: Buffer;
  /** MP4: a video track and a 44.1 kHz stereo AAC track of 1 s. */
  readonly mp4: Buffer;
  readonly png: Buffer;
}

/** Synthesize the fixtures with our WAV encoder and ffmpeg. */
export function makeMediaFixtures(): MediaFixtures {
  const dir = mkdtempSync(path.join(tmpdir(), 'cratehouse-media-'));
  const wavFrames = 88_200;
  const wav = encodeWav([sine(44_100, 2, 440, 0.5), sine(44_100, 2, 660, 0.4)], 44_100);
  writeFileSync(path.join(dir, 'tone.wav'), wav);
  const ff = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
  ff('-i', path.join(dir, 'tone.wav'), '-b:a', '192k', path.join(dir, 'tone.mp3'));
  ff('-i', path.join(dir, 'tone.wav'), '-af', 'volume=0.5', '-c:a', 'flac', path.join(dir, 'master.flac'));
  const flacFrames = 72_000;
  writeFileSync(path.join(dir, 'mono48.wav'), encodeWav([sine(48_000, 1.5, 1000, 0.5)], 48_000, 'pcm24'));
  ff('-i', path.join(dir, 'mono48.wav'), '-c:a', 'flac', '-sample_fmt', 's32', path.join(dir, 'mono48.flac'));
  ff(
    '-f',
    'lavfi',
    '-i',
    'color=c=blue:s=64x64:r=10:d=1',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=300:sample_rate=44100:duration=1',
    '-ac',
    '2',
    '-c:v',
    'mpeg4',
    '-c:a',
    'aac',
    '-shortest',
    path.join(dir, 'clip.mp4'),
  );
  const png = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3c1d1f40000000049454e44ae426082',
    'hex',
  );
  return {
    dir,
    wav,
    wavFrames,
    mp3: readFileSync(path.join(dir, 'tone.mp3')),
    flac: readFileSync(path.join(dir, 'mono48.flac')),
    flacFrames,
    masterFlac: readFileSync(path.join(dir, 'master.flac')),
    mp4: readFileSync(path.join(dir, 'clip.mp4')),
    png,
  };
}

/** A loopback HTTP server with a route table; counts hits per path. */
export interface MediaServer {
  readonly url: string;
  readonly hits: Map<string, number>;
  route(path: string, handler: http.RequestListener): void;
  close(): Promise<void>;
}

/** Start a loopback server; unknown paths answer 404. */
export async function startMediaServer(): Promise<MediaServer> {
  const routes = new Map<string, http.RequestListener>();
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const handler = routes.get(p);
    if (handler) handler(req, res);
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    route: (p, handler) => void routes.set(p, handler),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler that serves bytes with a content type. */
export function serveBytes(body: Buffer, contentType: string, extra: Readonly<Record<string, string>> = {}): http.RequestListener {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': String(body.length), ...extra }).end(body);
  };
}
