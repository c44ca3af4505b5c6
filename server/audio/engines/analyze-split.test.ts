import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { musicLoop } from '../../test-support/drums.js';
import { encodeWav } from '../../test-support/signals.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';

const form = fileForm;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('/analyze in two parts', () => {
  // 36 bars at 124 BPM ≈ 70 s: both heads (30 s and 60 s) inside the file.
  const music = musicLoop({ bpm: 124, bars: 36, sampleRate: 22_050 });
  const wav = encodeWav([...music.channels], 22_050);

  it.each([
    ['a WAV (each part reads the file itself)', 'wav'],
    ['a FLAC (one decode: the first part analyses it whole)', 'flac'],
  ])('gives the dedicated routes’ answers for %s, metering the head once', async (_label, ext) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-split-'));
    let bytes = wav;
    if (ext === 'flac') {
      await writeFile(path.join(dir, 'in.wav'), wav);
      execFileSync('ffmpeg', ['-v', 'error', '-i', path.join(dir, 'in.wav'), path.join(dir, 'out.flac')]);
      bytes = await readFile(path.join(dir, 'out.flac'));
    }
    const user = await app.addUser(`split-${ext}`);
    const headers = { Authorization: `Bearer ${user.token}` };
    const post = async (route: string) => {
      const res = await app.fetch(`/audio/v1${route}`, { method: 'POST', headers, body: form(bytes, `groove.${ext}`) });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    const composite = await post('/analyze');
    const me = (await (await app.fetch('/audio/v1/me', { headers })).json()) as { usage: { audio_seconds: number } };
    expect(me.usage.audio_seconds).toBe(60);
    const [emotion, features, sample] = await Promise.all([post('/analyze/emotion'), post('/features'), post('/analyze/samples')]);
    const strip = ({ source: _s, ...rest }: Record<string, unknown>) => rest;
    expect(composite.emotion).toEqual(strip(emotion));
    expect(composite.features).toEqual(strip(features));
    expect(composite.sample).toEqual(strip(sample));
    expect(composite.source).toEqual(features.source);
    expect((composite.source as { format: string }).format).toBe(ext);
  });
});
