import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { forgetDecoded } from './decoded-memo.js';
import { openPcmSource } from './pcm-source.js';

/** A 24-bit FLAC of `seconds` of two sines, an ffmpeg that counts its starts, and a reader through it. */
async function setUp(seconds: number, freq = 440) {
  const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-decoded-'));
  const wav = path.join(dir, 'in.wav');
  // 24-bit: a short 16-bit FLAC is decoded in process (pcm-source.ts), and this is about ffmpeg's decodes.
  await writeFile(wav, encodeWav([sine(44_100, seconds, freq, 0.5), sine(44_100, seconds, freq * 1.5, 0.25)], 44_100, 'pcm24'));
  const flac = path.join(dir, 'a.flac');
  execFileSync('ffmpeg', ['-v', 'error', '-i', wav, flac]);
  const starts = path.join(dir, 'starts');
  const counting = path.join(dir, 'ffmpeg');
  await writeFile(counting, `#!/bin/sh\ncase "$*" in *pipe:1*) echo x >> '${starts}';; esac\nexec ffmpeg "$@"\n`);
  await chmod(counting, 0o755);
  /** ffmpeg starts that decoded (probes are not counted). */
  const decodes = async () => (await readFile(starts, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  const read = async (o: { headSeconds?: number; stopAfter?: number } = {}) => {
    const source = await openPcmSource(flac, { kind: 'ffmpeg', path: counting });
    const chunks: Float32Array[] = [];
    for await (const c of source.chunks(o.headSeconds !== undefined ? { headSeconds: o.headSeconds } : {})) {
      chunks.push(c.slice());
      if (o.stopAfter !== undefined && chunks.length >= o.stopAfter) break;
    }
    const out = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) out.set(c, (at += c.length) - c.length);
    return out;
  };
  return { dir, wav, flac, decodes, read };
}

describe('decoded memo', () => {
  afterEach(() => {
    forgetDecoded();
    vi.useRealTimers();
  });

  it('replays a short file decoded whole, sample for sample, without starting ffmpeg again', async () => {
    const t = await setUp(1.5);
    const first = await t.read();
    expect(first.length).toBe(2 * 66_150); // 1.5 s of stereo at 44.1 kHz: the whole file
    expect(await t.decodes()).toBe(1);
    const again = await t.read();
    expect(await t.decodes()).toBe(1);
    expect(again).toEqual(first);
    // A head limit beyond the file's length is the whole file: replayed. One within it: decoded anew, and trimmed.
    expect(await t.read({ headSeconds: 60 })).toEqual(first);
    expect(await t.decodes()).toBe(1);
    const head = await t.read({ headSeconds: 1 });
    expect(await t.decodes()).toBe(2);
    expect(head.length).toBe(2 * 44_100);
    expect(head).toEqual(first.subarray(0, head.length));
  });

  it('hands out copies: changing a replayed chunk does not change the next replay', async () => {
    const t = await setUp(0.5);
    const first = await t.read();
    const source = await openPcmSource(t.flac, { kind: 'ffmpeg', path: path.join(t.dir, 'ffmpeg') });
    for await (const c of source.chunks()) c.fill(0);
    expect(await t.read()).toEqual(first);
    expect(await t.decodes()).toBe(1);
  });

  it('remembers only decodes read to the end, of unchanged files no longer than the limit', async () => {
    const t = await setUp(1);
    await t.read({ stopAfter: 1 }); // the caller stopped early: not the whole file
    await t.read();
    expect(await t.decodes()).toBe(2);
    await t.read();
    expect(await t.decodes()).toBe(2);
    // The same path with other audio: decoded anew.
    const before = await t.read();
    await writeFile(t.wav, encodeWav([sine(44_100, 1, 220, 0.5), sine(44_100, 1, 330, 0.25)], 44_100, 'pcm24'));
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', t.wav, t.flac]);
    await utimes(t.flac, new Date(), new Date(Date.now() + 5000));
    const after = await t.read();
    expect(await t.decodes()).toBe(3);
    expect(after).not.toEqual(before);

    const long = await setUp(30); // 30 s of stereo floats is 10.6 MB, over the 8 MB a file may hold
    await long.read();
    await long.read();
    expect(await long.decodes()).toBe(2);
  });

  it('forgets everything after 10 s without a decode', async () => {
    const t = await setUp(0.5);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await t.read();
    await t.read();
    expect(await t.decodes()).toBe(1);
    vi.advanceTimersByTime(10_001);
    await t.read();
    expect(await t.decodes()).toBe(2);
  });
});
