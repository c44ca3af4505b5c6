import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { forgetDecoded } from './decoded-memo.js';
import { decodeWithFfmpeg } from './ffmpeg-decode.js';
import { openPcmSource } from './pcm-source.js';

async function collect(chunks: AsyncIterable<Float32Array>): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const c of chunks) parts.push(c.slice());
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
}

/** Length and first differing index of two sample arrays (a diff of 176,400 numbers would take minutes to print). */
function comparison(actual: Float32Array, expected: Float32Array): { readonly length: number; readonly firstDifference: number } {
  const n = Math.min(actual.length, expected.length);
  let first = -1;
  for (let i = 0; i < n && first < 0; i++) if (!Object.is(actual[i], expected[i])) first = i;
  return { length: actual.length, firstDifference: first };
}

const same = (expected: Float32Array) => ({ length: expected.length, firstDifference: -1 });

/** A directory with an ffmpeg that counts the decodes it starts, and a FLAC encoder from a WAV. */
async function setUp() {
  const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-flac-'));
  const starts = path.join(dir, 'starts');
  const ffmpeg = path.join(dir, 'ffmpeg');
  await writeFile(ffmpeg, `#!/bin/sh\ncase "$*" in *pipe:1*) echo x >> '${starts}';; esac\nexec ffmpeg "$@"\n`);
  await chmod(ffmpeg, 0o755);
  const decodes = async () => (await readFile(starts, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  const flacOf = async (name: string, channels: readonly Float32Array[], format: 'pcm16' | 'pcm24' = 'pcm16') => {
    const wav = path.join(dir, `${name}.wav`);
    await writeFile(wav, encodeWav(channels, 44_100, format));
    const flac = path.join(dir, `${name}.flac`);
    execFileSync('ffmpeg', ['-v', 'error', '-i', wav, flac]);
    return flac;
  };
  return { dir, ffmpeg, decodes, flacOf };
}

/** ffmpeg's own decode of a file (what the in-process decode must equal). */
const ffmpegSamples = (file: string, channels: number) =>
  collect(decodeWithFfmpeg('ffmpeg', file, { sampleRate: 44_100, channels, demuxer: 'flac' }));

describe('FLAC decoded in process', () => {
  afterEach(() => forgetDecoded());

  it('gives ffmpeg’s samples exactly for a short 16-bit file, full scale included, without starting ffmpeg', async () => {
    const t = await setUp();
    const left = sine(44_100, 2, 440, 0.8);
    const right = sine(44_100, 2, 97, 0.3);
    // Both full-scale integers: −32768 and +32767 (the in-process decoder scales by 1/32767, ffmpeg by 1/32768).
    left[100] = -1;
    left[101] = 32_767 / 32_768;
    const stereo = await t.flacOf('stereo', [left, right]);
    const mono = await t.flacOf('mono', [right]);
    for (const [file, channels] of [
      [stereo, 2],
      [mono, 1],
    ] as const) {
      const source = await openPcmSource(file, { kind: 'ffmpeg', path: t.ffmpeg });
      expect(source).toMatchObject({ container: 'flac', durationS: 2, format: { sampleRate: 44_100, channels, totalFrames: 88_200 } });
      const expected = await ffmpegSamples(file, channels);
      expect(comparison(await collect(source.chunks()), expected)).toEqual(same(expected));
    }
    expect(await t.decodes()).toBe(0);
  });

  it('leaves ffmpeg what it could decode differently: 24-bit, long files, and a head within the file', async () => {
    const t = await setUp();
    const deep = await t.flacOf('deep', [sine(44_100, 1, 440, 0.5)], 'pcm24');
    const deepExpected = await ffmpegSamples(deep, 1);
    expect(comparison(await collect((await openPcmSource(deep, { kind: 'ffmpeg', path: t.ffmpeg })).chunks()), deepExpected)).toEqual(
      same(deepExpected),
    );
    expect(await t.decodes()).toBe(1);
    const long = await t.flacOf('long', [sine(44_100, 31, 440, 0.5)]);
    await collect((await openPcmSource(long, { kind: 'ffmpeg', path: t.ffmpeg })).chunks());
    expect(await t.decodes()).toBe(2);
    const short = await t.flacOf('short', [sine(44_100, 2, 440, 0.5)]);
    const head = await collect((await openPcmSource(short, { kind: 'ffmpeg', path: t.ffmpeg })).chunks({ headSeconds: 1 }));
    expect(await t.decodes()).toBe(3);
    expect(head.length).toBe(44_100);
  });

  it('hands a FLAC the in-process decoder cannot read to ffmpeg, and answers what ffmpeg makes of it', async () => {
    const t = await setUp();
    const good = await readFile(await t.flacOf('good', [sine(44_100, 1, 440, 0.5)]));
    // The same STREAMINFO, then noise where the frames were.
    const broken = Buffer.from(good);
    for (let i = 200; i < broken.length; i++) broken[i] = (i * 7919) & 0xff;
    const file = path.join(t.dir, 'broken.flac');
    await writeFile(file, broken);
    const source = await openPcmSource(file, { kind: 'ffmpeg', path: t.ffmpeg });
    const expected = await ffmpegSamples(file, 1);
    expect(comparison(await collect(source.chunks()), expected)).toEqual(same(expected));
    expect(await t.decodes()).toBe(1);
  });

  it('trusts no STREAMINFO length: a file claiming 30 s that holds 1 s is left to ffmpeg', async () => {
    const t = await setUp();
    const bytes = Buffer.from(await readFile(await t.flacOf('liar', [sine(44_100, 1, 440, 0.5)])));
    // Total samples: the low 32 bits of STREAMINFO's 36-bit field, at byte 8 + 14.
    bytes.writeUInt32BE(30 * 44_100, 8 + 14);
    const file = path.join(t.dir, 'liar-30s.flac');
    await writeFile(file, bytes);
    const source = await openPcmSource(file, { kind: 'ffmpeg', path: t.ffmpeg });
    expect(source.format.totalFrames).toBe(30 * 44_100); // what the header says, before decoding
    const expected = await ffmpegSamples(file, 1);
    expect(comparison(await collect(source.chunks()), expected)).toEqual(same(expected));
    expect(await t.decodes()).toBe(1);
  });

  it('answers a decoder that cannot start with 503 unavailable, not a crashed thread', async () => {
    const t = await setUp();
    const file = await t.flacOf('any', [sine(44_100, 1, 440, 0.5)]);
    await expect(
      collect(decodeWithFfmpeg(path.join(t.dir, 'no-such-ffmpeg'), file, { sampleRate: 44_100, channels: 1, demuxer: 'flac' })),
    ).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
