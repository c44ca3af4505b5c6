import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { convertToWav } from './convert-to-wav.js';

it('an aborted conversion kills ffmpeg at once, mid-stream', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-convert-'));
  const fifo = path.join(dir, 'input.wav');
  execFileSync('mkfifo', [fifo]);
  const wav = encodeWav([sine(48_000, 60, 440, 0.5)], 48_000);
  // Feed the header and a little audio, then stall: ffmpeg waits for more, as on a slow disk.
  const feeder = createWriteStream(fifo);
  feeder.write(wav.subarray(0, 200_000));
  const controller = new AbortController();
  const started = Date.now();
  const conversion = convertToWav({
    ffmpegPath: 'ffmpeg',
    input: fifo,
    output: path.join(dir, 'out.wav'),
    probe: {
      container: 'wav',
      codec: 'pcm_s16le',
      sampleRate: 48_000,
      channels: 1,
      channelLayout: 'mono',
      durationS: 60,
      bitsPerSample: 16,
    },
    soxr: false,
    signal: controller.signal,
    onProgress: () => undefined,
  });
  setTimeout(() => controller.abort(), 300);
  await expect(conversion).rejects.toMatchObject({ name: 'AbortError' });
  expect(Date.now() - started).toBeLessThan(5000);
  feeder.destroy();
  // No ffmpeg is left converting this file.
  expect(spawnSync('pgrep', ['-f', fifo]).stdout.toString().trim()).toBe('');
});
