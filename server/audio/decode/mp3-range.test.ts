import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, seededNoise } from '../../test-support/signals.js';
import { decodeMp3Range, RangeMismatch } from './mp3-range.js';
import { readMp3Info } from './probe.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-mp3-range-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Busy material for the encoder (noise bursts, chords, clicks): frames borrow from the bit reservoir. */
function music(sampleRate: number, seconds: number, channel: number): Float32Array {
  const noise = seededNoise(11 + channel);
  const out = new Float32Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < out.length; i++) {
    const t = i / sampleRate;
    const beat = t % 0.5;
    const chord =
      0.15 * (Math.sin(2 * Math.PI * 220 * t) + Math.sin(2 * Math.PI * 277.2 * t + channel) + Math.sin(2 * Math.PI * 329.6 * t));
    out[i] = chord * (0.5 + 0.5 * Math.sin(2 * Math.PI * 0.25 * t)) + (beat < 0.05 ? 0.6 * noise() * (1 - beat / 0.05) : 0.02 * noise());
  }
  return out;
}

/** ffmpeg's decode of the whole file, as raw f32le bytes. */
function decodeWhole(file: string): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'f32le', '-'], { maxBuffer: 1 << 30 });
}

async function collect(chunks: AsyncIterable<Float32Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  return Buffer.concat(parts);
}

async function encodeMp3(name: string, sampleRate: number, channels: number, seconds: number, encoder: readonly string[]): Promise<string> {
  const wav = path.join(dir, `${name}.wav`);
  await writeFile(
    wav,
    encodeWav(
      Array.from({ length: channels }, (_, c) => music(sampleRate, seconds, c)),
      sampleRate,
    ),
  );
  const mp3 = path.join(dir, `${name}.mp3`);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', wav, ...encoder, mp3]);
  return mp3;
}

describe('decoding an MP3 in independent ranges', () => {
  it.each([
    ['CBR 256 kbit/s stereo 44.1 kHz (MPEG-1)', 44_100, 2, ['-b:a', '256k']],
    ['VBR V4 stereo 48 kHz', 48_000, 2, ['-q:a', '4']],
    ['32 kbit/s mono 22.05 kHz (MPEG-2: the reservoir spans several frames)', 22_050, 1, ['-b:a', '32k']],
    ['8 kbit/s mono 8 kHz (MPEG-2.5)', 8_000, 1, ['-b:a', '8k']],
  ] as const)('gives exactly ffmpeg’s whole-file samples, range by range: %s', async (label, sampleRate, channels, encoder) => {
    const file = await encodeMp3(label.split(' ')[0]!.replace(/\W/g, '') + sampleRate, sampleRate, channels, 40, encoder);
    const whole = decodeWhole(file);
    const info = await readMp3Info(file);
    expect(info).not.toBeNull();
    const total = info!.frames;
    // The tags state the length the decode has, to the sample.
    expect(total * channels * 4).toBe(whole.length);
    // Arbitrary split points, one close to the start (no room to prime: decoding starts at the first frame).
    for (const cuts of [
      [0, 700, total],
      [0, 123_457, Math.floor(total * 0.7) + 3, total],
    ]) {
      const parts = await Promise.all(cuts.slice(1).map((to, i) => collect(decodeMp3Range('ffmpeg', file, info!, cuts[i]!, to))));
      const joined = Buffer.concat(parts);
      expect(joined.length).toBe(whole.length);
      expect(joined.equals(whole)).toBe(true);
    }
  });

  it('refuses a file that lacks frames its tag counts (RangeMismatch), so the caller decodes it whole', async () => {
    const file = await encodeMp3('full', 44_100, 2, 30, ['-b:a', '128k']);
    const bytes = await readFile(file);
    const cut = path.join(dir, 'cut.mp3');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.8)));
    const info = (await readMp3Info(cut))!;
    await expect(collect(decodeMp3Range('ffmpeg', cut, info, 500_000, info.frames))).rejects.toBeInstanceOf(RangeMismatch);
    await expect(collect(decodeMp3Range('ffmpeg', cut, info, 0, info.frames))).rejects.toBeInstanceOf(RangeMismatch);
    // A range that ends before the cut is still exact.
    const whole = decodeWhole(cut);
    const head = await collect(decodeMp3Range('ffmpeg', cut, info, 100_000, 300_000));
    expect(head.equals(whole.subarray(100_000 * 8, 300_000 * 8))).toBe(true);
  });
});
