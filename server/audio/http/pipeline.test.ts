import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, seededNoise, sine } from '../../test-support/signals.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { ResultCache } from '../analysis/cache.js';
import { drumLoop, fMeasure } from '../../test-support/drums.js';
import { loudnessSchema, onsetsSchema, spectrumSchema, waveformSchema } from './schemas.js';

const auth = { Authorization: 'Bearer admin-token' };

const form = (bytes: Buffer, filename = 'clip.wav', field = 'file') => fileForm(bytes, filename, field);

/** What ffmpeg reads back from 16-bit PCM: int16 / 32768 (independent of our encoder's float input). */
function pcm16Values(wav: Buffer, channels: number): Float32Array[] {
  const frames = (wav.length - 44) / (2 * channels);
  const out = Array.from({ length: channels }, () => new Float32Array(frames));
  for (let i = 0; i < frames; i++) for (let c = 0; c < channels; c++) out[c]![i] = wav.readInt16LE(44 + (i * channels + c) * 2) / 32768;
  return out;
}

const sr = 44_100;
const noise = seededNoise(99);
const left = Float32Array.from({ length: sr * 3 + 17 }, () => noise() * 0.7);
const right = Float32Array.from({ length: sr * 3 + 17 }, (_, i) => 0.4 * Math.sin(i / 20));
const wav = encodeWav([left, right], sr, 'pcm16');

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('analysis pipeline over HTTP', () => {
  it('answers /waveform with exact bins of the decoded samples, a source block, and X-Cache miss then hit', async () => {
    const first = await app.fetch('/audio/v1/waveform?bins=333', { method: 'POST', headers: auth, body: form(wav) });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('miss');
    const body = waveformSchema.strict().parse(await first.json());
    expect(body.source).toEqual({
      duration_s: Math.round(((sr * 3 + 17) / sr) * 1000) / 1000,
      sample_rate: 44_100,
      channels: 2,
      format: 'wav',
    });
    const decoded = pcm16Values(wav, 2);
    const n = decoded[0]!.length;
    for (const i of [0, 1, 100, 332]) {
      const a = Math.floor((i * n) / 333);
      const b = Math.floor(((i + 1) * n) / 333);
      let lo = Infinity;
      let hi = -Infinity;
      for (const ch of decoded)
        for (let t = a; t < b; t++) {
          lo = Math.min(lo, ch[t]!);
          hi = Math.max(hi, ch[t]!);
        }
      expect(body.min_max[i]).toEqual([lo, hi]);
    }
    const second = await app.fetch('/audio/v1/waveform?bins=333', { method: 'POST', headers: auth, body: form(wav) });
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(await second.json()).toEqual(body);
    // Other parameters are another cache entry.
    const other = await app.fetch('/audio/v1/waveform?bins=10', { method: 'POST', headers: auth, body: form(wav) });
    expect(other.headers.get('x-cache')).toBe('miss');
    expect(((await other.json()) as { bins: number }).bins).toBe(10);
  });

  it('places a tone in the right band over HTTP and validates against the published schema', async () => {
    const tone = encodeWav([sine(sr, 2, 1000, 0.5)], sr, 'pcm16');
    const res = await app.fetch('/audio/v1/spectrum?bands=32&frames=8&mel=false', { method: 'POST', headers: auth, body: form(tone) });
    expect(res.status).toBe(200);
    const body = spectrumSchema.strict().parse(await res.json());
    expect(body.data).toHaveLength(8);
    expect(body.source.channels).toBe(1);
    const loudest = body.data[3]!.indexOf(Math.max(...body.data[3]!));
    const nearest = body.band_hz.reduce(
      (best, f, i) => (Math.abs(Math.log(f / 1000)) < Math.abs(Math.log(body.band_hz[best]! / 1000)) ? i : best),
      0,
    );
    expect(loudest).toBe(nearest);
  });

  it('decodes MP3 through ffmpeg with the exact length counted and reports the format', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-mp3-'));
    await writeFile(path.join(dir, 'in.wav'), encodeWav([sine(sr, 5, 440, 0.5), sine(sr, 5, 660, 0.5)], sr));
    execFileSync('ffmpeg', ['-v', 'error', '-i', path.join(dir, 'in.wav'), '-b:a', '192k', path.join(dir, 'out.mp3')]);
    const mp3 = await readFile(path.join(dir, 'out.mp3'));
    const res = await app.fetch('/audio/v1/waveform?bins=50', { method: 'POST', headers: auth, body: form(mp3, 'song.mp3') });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { source: { format: string; duration_s: number }; frames: number };
    expect(body.source.format).toBe('mp3');
    // LAME's gapless header lets ffmpeg return exactly the 5 s that went in.
    expect(body.source.duration_s).toBeCloseTo(5, 1);
    expect(body.frames / sr).toBeCloseTo(body.source.duration_s, 2);
  });

  it('reduces a long tagged MP3 decoded in parallel ranges to the exact bins of ffmpeg’s whole decode, and a truncated one too', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-mp3-'));
    const n = seededNoise(5);
    const tone = (f: number) =>
      Float32Array.from(
        { length: sr * 40 },
        (_, i) => 0.4 * Math.sin((2 * Math.PI * f * i) / sr) * (1 + Math.sin(i / sr)) * 0.5 + (i % 22_050 < 900 ? 0.5 * n() : 0),
      );
    await writeFile(path.join(dir, 'in.wav'), encodeWav([tone(220), tone(330)], sr));
    execFileSync('ffmpeg', ['-v', 'error', '-i', path.join(dir, 'in.wav'), '-b:a', '192k', path.join(dir, 'long.mp3')]);
    const mp3 = await readFile(path.join(dir, 'long.mp3'));
    await writeFile(path.join(dir, 'cut.mp3'), mp3.subarray(0, Math.floor(mp3.length * 0.75)));
    for (const name of ['long.mp3', 'cut.mp3']) {
      const decoded = execFileSync('ffmpeg', ['-v', 'error', '-i', path.join(dir, name), '-f', 'f32le', '-'], { maxBuffer: 1 << 28 });
      const samples = new Float32Array(decoded.buffer, decoded.byteOffset, decoded.length / 4);
      const frames = samples.length / 2;
      const bins = 777;
      const res = await app.fetch(`/audio/v1/waveform?bins=${bins}`, {
        method: 'POST',
        headers: auth,
        body: form(await readFile(path.join(dir, name)), name),
      });
      expect(res.status).toBe(200);
      const body = waveformSchema.parse(await res.json());
      expect(body.frames).toBe(frames);
      for (let b = 0; b < bins; b++) {
        const from = Math.floor((b * frames) / bins) * 2;
        const to = Math.floor(((b + 1) * frames) / bins) * 2;
        let lo = Infinity;
        let hi = -Infinity;
        let sq = 0;
        for (let k = from; k < to; k++) {
          lo = Math.min(lo, samples[k]!);
          hi = Math.max(hi, samples[k]!);
          sq += samples[k]! ** 2;
        }
        expect(body.min_max[b]).toEqual([lo, hi]);
        expect(Math.abs(body.rms[b]! - Math.sqrt(sq / (to - from)))).toBeLessThan(2e-6);
      }
    }
  });

  it('meters bytes uploaded and seconds analysed for the tenant', async () => {
    const dj = await app.addUser('meter-dj');
    const clip = encodeWav([sine(sr, 2, 300, 0.3)], sr);
    await app.fetch('/audio/v1/waveform?bins=20', { method: 'POST', headers: { Authorization: `Bearer ${dj.token}` }, body: form(clip) });
    const me = (await (await app.fetch('/audio/v1/me', { headers: { Authorization: `Bearer ${dj.token}` } })).json()) as {
      usage: { bytes_uploaded: number; audio_seconds: number; requests: Record<string, number> };
    };
    expect(me.usage.bytes_uploaded).toBe(clip.length);
    expect(me.usage.audio_seconds).toBe(2);
    expect(me.usage.requests['POST /audio/v1/waveform']).toBe(1);
  });

  it('leaves no temp files behind, after success or failure', async () => {
    expect(await readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
  });
});

describe('analysis pipeline errors', () => {
  it('rejects a request without a token before reading the upload', async () => {
    const res = await app.fetch('/audio/v1/waveform', { method: 'POST', body: form(wav) });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Not authenticated' });
  });

  it('answers a missing file with the spec’s 422 body', async () => {
    const fd = new FormData();
    fd.append('other', 'x');
    for (const body of [fd, undefined]) {
      const res = await app.fetch('/audio/v1/loudness', { method: 'POST', headers: auth, body });
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual({ detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }] });
    }
  });

  it.each([
    ['bins=0', 'greater_than_equal'],
    ['bins=4001', 'less_than_equal'],
    ['bins=abc', 'int_parsing'],
    ['bins=2.5', 'int_from_float'],
  ])('answers /waveform?%s with 422 %s at loc [query, bins]', async (query, type) => {
    const res = await app.fetch(`/audio/v1/waveform?${query}`, { method: 'POST', headers: auth, body: form(wav) });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; type: string }[] };
    expect(body.detail).toHaveLength(1);
    expect(body.detail[0]).toMatchObject({ loc: ['query', 'bins'], type });
  });

  it('validates spectrum bounds and the mel boolean', async () => {
    for (const [query, loc] of [
      ['bands=3', 'bands'],
      ['bands=513', 'bands'],
      ['frames=0', 'frames'],
      ['frames=4001', 'frames'],
      ['mel=sometimes', 'mel'],
    ] as const) {
      const res = await app.fetch(`/audio/v1/spectrum?${query}`, { method: 'POST', headers: auth, body: form(wav) });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['query', loc]);
    }
  });

  it.each([
    ['random bytes', Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256)), 'noise.wav'],
    ['a text file', Buffer.from('this is not audio\n'.repeat(100)), 'notes.txt'],
    ['a truncated WAV header', wav.subarray(0, 30), 'cut.wav'],
  ])('answers %s with a clear 415 and removes the temp file', async (_label, bytes, name) => {
    const res = await app.fetch('/audio/v1/loudness', { method: 'POST', headers: auth, body: form(bytes, name) });
    expect(res.status).toBe(415);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toMatch(/could not be decoded|no audio stream/);
    expect(await readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
  });

  it('answers an upload over the limit with 413 and keeps nothing', async () => {
    const small = await startTestApp({ maxUploadBytes: 100_000 });
    try {
      const res = await small.fetch('/audio/v1/waveform', { method: 'POST', headers: auth, body: form(wav) });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ detail: 'Upload is larger than the limit of 98 KiB' });
      expect(await readdir(path.join(small.dataDir, 'tmp'))).toEqual([]);
      // The server is fine afterwards.
      expect((await small.fetch('/audio/v1/healthz')).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('result cache', () => {
  it('survives a restart: a new cache over the same folder finds the entry', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-cache-'));
    await new ResultCache(dir).set('ab'.repeat(32), { answer: 42 });
    expect(await new ResultCache(dir).get('ab'.repeat(32))).toEqual({ answer: 42 });
    expect(await new ResultCache(dir).get('cd'.repeat(32))).toBeUndefined();
  });
});

describe('pure-JS decoder fallback (no ffmpeg)', () => {
  it.each([
    ['wav', [] as string[]],
    ['flac', ['-c:a', 'flac']],
    ['mp3', ['-b:a', '192k']],
    ['ogg', ['-c:a', 'libvorbis', '-q:a', '5']],
  ])('decodes %s', async (ext, args) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-js-'));
    const input = path.join(dir, 'in.wav');
    await writeFile(input, encodeWav([sine(sr, 2, 440, 0.5), sine(sr, 2, 660, 0.5)], sr));
    const file = ext === 'wav' ? input : path.join(dir, `out.${ext}`);
    if (ext !== 'wav') execFileSync('ffmpeg', ['-v', 'error', '-i', input, ...args, file]);
    const js = await startTestApp({ jsDecoder: true });
    try {
      const res = await js.fetch('/audio/v1/waveform?bins=4', {
        method: 'POST',
        headers: auth,
        body: form(await readFile(file), `clip.${ext}`),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        source: { duration_s: number; sample_rate: number; channels: number };
        min_max: [number, number][];
      };
      expect(body.source.sample_rate).toBe(44_100);
      expect(body.source.channels).toBe(2);
      expect(body.source.duration_s).toBeGreaterThan(1.95);
      expect(body.source.duration_s).toBeLessThan(2.1);
      // A 0.5-amplitude sine: every bin's peaks are near ±0.5 whatever the codec.
      for (const [lo, hi] of body.min_max) {
        expect(hi).toBeGreaterThan(0.45);
        expect(lo).toBeLessThan(-0.45);
      }
    } finally {
      await js.close();
    }
  });
});

describe('loudness over HTTP', () => {
  it('reads EBU Tech 3341 case 1 (stereo 1 kHz at −23 dBFS, 20 s, 48 kHz, 24-bit) as −23.0 LUFS', async () => {
    const tone = sine(48_000, 20, 1000, 10 ** (-23 / 20));
    const res = await app.fetch('/audio/v1/loudness', {
      method: 'POST',
      headers: auth,
      body: form(encodeWav([tone, tone], 48_000, 'pcm24')),
    });
    expect(res.status).toBe(200);
    const body = loudnessSchema.strict().parse(await res.json());
    expect(Math.abs(body.integrated_lufs! + 23)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(body.max_momentary_lufs! + 23)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(body.max_short_term_lufs! + 23)).toBeLessThanOrEqual(0.1);
    expect(body.approximate).toBe(false);
    expect(body.gain_to_target_db.streaming! - 9).toBeCloseTo(0, 1);
    expect(body.gain_to_target_db.club! - 14).toBeCloseTo(0, 1);
    expect(body.source).toEqual({ duration_s: 20, sample_rate: 48_000, channels: 2, format: 'wav' });
  });
});

describe('onsets over HTTP', () => {
  it('finds the hits and tempo of a 124 BPM drum loop, full track', async () => {
    const loop = drumLoop({ bpm: 124, bars: 8, sampleRate: 44_100, pattern: 'straight8' });
    const res = await app.fetch('/audio/v1/onsets', {
      method: 'POST',
      headers: auth,
      body: form(encodeWav([...loop.channels], 44_100, 'pcm16')),
    });
    expect(res.status).toBe(200);
    const body = onsetsSchema.strict().parse(await res.json());
    expect(body.full_track).toBe(true);
    expect(fMeasure(loop.onsets, body.onsets).f).toBeGreaterThanOrEqual(0.95);
    expect(Math.abs(body.tempo_bpm! - 124) / 124).toBeLessThanOrEqual(0.02);
    expect(body.onset_rate).toBeCloseTo(body.onset_count / body.source.duration_s, 2);
  });
});

describe('/separate', () => {
  it('answers 503 with Retry-After and a body naming the missing backend, without reading the upload', async () => {
    const res = await app.fetch('/audio/v1/separate', { method: 'POST', headers: auth, body: form(wav) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('3600');
    expect(await res.json()).toEqual({
      detail: 'Stem separation needs a compute backend (a GPU separation worker), and none is connected to this server. Try again later.',
      status: 'pending',
      code: 'compute_pending',
      backend: { kind: 'stem-separation', connected: false, needs: 'a GPU separation worker' },
      retry_after_s: 3600,
    });
    expect((await app.fetch('/audio/v1/separate', { method: 'POST' })).status).toBe(401);
  });
});
