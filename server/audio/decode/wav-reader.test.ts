import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeWav, seededNoise } from '../../test-support/signals.js';
import { readWavChunks, readWavInfo } from './wav-reader.js';

/** ffmpeg's own float32 decode of a file: the reference the direct reader must equal bit for bit. */
function ffmpegDecode(file: string): Float32Array {
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'f32le', '-acodec', 'pcm_f32le', 'pipe:1'], { maxBuffer: 1 << 28 });
  return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
}

/** Byte-for-byte equality of two sample arrays (fast, and exact: no tolerance). */
function sameBits(a: Float32Array, b: Float32Array): boolean {
  return (
    a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength))
  );
}

async function readAll(file: string): Promise<Float32Array> {
  const info = await readWavInfo(file);
  if (!info) throw new Error('not a readable WAV');
  const parts: Float32Array[] = [];
  // Each chunk is only valid until the next is requested: copy.
  for await (const c of readWavChunks(file, info)) parts.push(c.slice());
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe('direct WAV reader', () => {
  const noise = seededNoise(3);
  const channels = [
    Float32Array.from({ length: 300_001 }, () => noise() * 0.99),
    Float32Array.from({ length: 300_001 }, () => noise() * 0.5),
  ];

  it.each(['pcm16', 'pcm24', 'float32'] as const)('equals ffmpeg’s decode of %s exactly', async (format) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-wav-'));
    const file = path.join(dir, `x-${format}.wav`);
    await writeFile(file, encodeWav(channels, 48_000, format));
    const info = await readWavInfo(file);
    expect(info).toMatchObject({ sampleRate: 48_000, channels: 2, frames: 300_001 });
    expect(sameBits(await readAll(file), ffmpegDecode(file))).toBe(true);
  });

  it.each([
    ['u8', 'pcm_u8'],
    ['s32', 'pcm_s32le'],
  ])('equals ffmpeg’s decode of %s written by ffmpeg (extensible header)', async (_label, codec) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-wav-'));
    const src = path.join(dir, 'src.wav');
    await writeFile(src, encodeWav(channels, 44_100, 'float32'));
    const file = path.join(dir, 'out.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-i', src, '-c:a', codec, file]);
    expect(sameBits(await readAll(file), ffmpegDecode(file))).toBe(true);
  });

  it('reads the channel mask of a 5.1 WAVE_FORMAT_EXTENSIBLE file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-wav-'));
    const file = path.join(dir, 'surround.wav');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=1000:duration=1',
      '-af',
      'pan=5.1|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0',
      '-c:a',
      'pcm_s16le',
      file,
    ]);
    expect(await readWavInfo(file)).toMatchObject({ channels: 6, channelLayout: 'FL+FR+FC+LFE+BL+BR' });
  });

  it.each([
    ['0', 0],
    ['0xFFFFFFFF', 0xffffffff],
  ])('reads to the end of the file when the data size is %s, as ffmpeg does', async (_label, size) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-wav-'));
    const wav = encodeWav(channels, 44_100, 'pcm16');
    wav.writeUInt32LE(size, 40);
    const file = path.join(dir, 'streamed.wav');
    await writeFile(file, wav);
    expect((await readWavInfo(file))?.frames).toBe(300_001);
    expect(sameBits(await readAll(file), ffmpegDecode(file))).toBe(true);
  });

  it('clamps a truncated data chunk to the whole frames present and refuses non-PCM', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-wav-'));
    const full = encodeWav(channels, 44_100, 'pcm16');
    const cut = path.join(dir, 'cut.wav');
    await writeFile(cut, full.subarray(0, 44 + 4 * 1000 + 3));
    expect((await readWavInfo(cut))?.frames).toBe(1000);
    const notWav = path.join(dir, 'x.wav');
    await writeFile(notWav, Buffer.from('RIFF....WAVEjunk'));
    expect(await readWavInfo(notWav)).toBeNull();
  });
});
