import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { exactFramesFromHeader, parseFfmpegProbe, probeWithFfmpeg } from './probe.js';

describe('probe', () => {
  it('reads the exact frame count of a FLAC from STREAMINFO, and nothing from other formats', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-probe-'));
    const wav = path.join(dir, 'in.wav');
    await writeFile(wav, encodeWav([sine(48_000, 60_345 / 48_000, 440, 0.5)], 48_000)); // 60,345 frames
    const flac = path.join(dir, 'out.flac');
    execFileSync('ffmpeg', ['-v', 'error', '-i', wav, flac]);
    expect(await exactFramesFromHeader(flac, 48_000)).toBe(60_345);
    expect(await exactFramesFromHeader(flac, 44_100)).toBeNull(); // rate mismatch: do not trust it
    expect(await exactFramesFromHeader(wav, 48_000)).toBeNull();
  });

  it('parses ffmpeg’s input report and refuses input without audio', () => {
    const report =
      "Input #0, wav, from 'x.wav':\n  Duration: 00:00:20.50, bitrate: 1536 kb/s\n  Stream #0:0: Audio: pcm_s16le ([1][0][0][0] / 0x0001), 48000 Hz, 5.0, s16, 1536 kb/s\n";
    expect(parseFfmpegProbe(report)).toEqual({
      container: 'wav',
      codec: 'pcm_s16le',
      sampleRate: 48_000,
      channels: 5,
      channelLayout: '5.0',
      durationS: 20.5,
    });
    expect(() => parseFfmpegProbe('x.txt: Invalid data found when processing input\n')).toThrow(
      /could not be decoded as audio \(invalid data found/,
    );
  });

  it('probes an unchanged file once, and again when it changes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-probe-'));
    const wav = path.join(dir, 'in.wav');
    await writeFile(wav, encodeWav([sine(48_000, 0.5, 440, 0.5)], 48_000));
    const flac = path.join(dir, 'a.flac');
    execFileSync('ffmpeg', ['-v', 'error', '-i', wav, flac]);
    // An ffmpeg that counts its starts, then runs the real one.
    const starts = path.join(dir, 'starts');
    const counting = path.join(dir, 'ffmpeg');
    await writeFile(counting, `#!/bin/sh\necho x >> '${starts}'\nexec ffmpeg "$@"\n`);
    await chmod(counting, 0o755);
    const count = async () => (await readFile(starts, 'utf8')).split('\n').filter(Boolean).length;

    const first = await probeWithFfmpeg(counting, flac);
    expect(first).toMatchObject({ container: 'flac', sampleRate: 48_000, channels: 1, exactFrames: 24_000 });
    expect(await probeWithFfmpeg(counting, flac)).toEqual(first);
    expect(await count()).toBe(1);
    // The same path with other content (a stereo file at another rate): probed anew.
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', wav, '-ac', '2', '-ar', '44100', flac]);
    await utimes(flac, new Date(), new Date(Date.now() + 5000));
    expect(await probeWithFfmpeg(counting, flac)).toMatchObject({ sampleRate: 44_100, channels: 2 });
    expect(await count()).toBe(2);
  });
});
