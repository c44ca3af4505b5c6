import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drumLoop, musicLoop } from '../../test-support/drums.js';
import { featuresSchema } from '../engines/features-schema.js';
import { emotionSchema } from './schemas.js';
import { encodeWav } from '../../test-support/signals.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { gradeSchema } from '../engines/grade-schema.js';
import { namingSchema, sampleAnalysisSchema } from '../engines/sample-schema.js';

const auth = { Authorization: 'Bearer admin-token' };
const form = (bytes: Buffer, filename = 'loop.wav') => fileForm(bytes, filename);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
});

/** A 4-bar 124 BPM loop cut to exactly 4 bars, with no lead-in or tail: a clean loop. */
function cleanLoop(): Float32Array[] {
  const loop = drumLoop({ bpm: 124, bars: 4, sampleRate: 44_100, pattern: 'straight8', leadIn: 0, tail: 0 });
  const frames = Math.round(4 * 4 * (60 / 124) * 44_100);
  return loop.channels.map((c) => c.slice(0, frames));
}

describe('/grade over HTTP', () => {
  it('grades a cleanly cut loop highly with no flags, and flags the same loop with DC offset', async () => {
    const clean = cleanLoop();
    const res = await app.fetch('/audio/v1/grade?role=drums', {
      method: 'POST',
      headers: auth,
      body: form(encodeWav(clean, 44_100, 'float32')),
    });
    expect(res.status).toBe(200);
    const body = gradeSchema.parse(await res.json());
    expect(body.flags).toEqual([]);
    expect(['S', 'A']).toContain(body.tier);

    const shifted = clean.map((c) => c.map((v) => v + 0.05));
    const dc = gradeSchema.parse(
      await (
        await app.fetch('/audio/v1/grade?role=drums', { method: 'POST', headers: auth, body: form(encodeWav(shifted, 44_100, 'float32')) })
      ).json(),
    );
    expect(dc.flags.map((f) => f.code)).toContain('dc_offset');
    expect(dc.score).toBeLessThan(body.score);
  });

  it('grades only the head of a 60 s loop: says so, and leaves the seam and bar length out of the score', async () => {
    // 31 bars at 124 BPM = 60 s; the route grades the first 30 s (15.5 bars), so the bar length cannot be judged.
    const sr = 22_050;
    const loop = drumLoop({ bpm: 124, bars: 31, sampleRate: sr, pattern: 'straight8', leadIn: 0, tail: 0 }).channels[0]!.slice(0, 60 * sr);
    const body = gradeSchema.parse(
      await (await app.fetch('/audio/v1/grade?role=drums', { method: 'POST', headers: auth, body: form(encodeWav([loop], sr)) })).json(),
    );
    expect(body.source.duration_s).toBe(60);
    expect(body.graded_s).toBe(30);
    expect(body.duration_s).toBe(60);
    expect(body.sub_scores.bar_consistency).toMatchObject({
      applicable: false,
      score: null,
      reason: 'only the first 30 s of 1:00 were graded',
    });
    expect(body.sub_scores.seam_click).toMatchObject({ applicable: false, score: null });
    // The last sample graded is where the head was cut: only the start's edge is judged.
    expect(body.sub_scores.zero_crossing.end).toMatchObject({
      applicable: false,
      score: null,
      reason: 'only the first 30 s of 1:00 were graded',
    });
    expect(body.sub_scores.zero_crossing.score).toBe(body.sub_scores.zero_crossing.start.score);
    expect(body.weights.bar_consistency).toBe(0);
    expect(body.weights.seam_click).toBe(0);
    expect(body.flags.map((f) => f.code)).not.toContain('not_whole_bars');

    // The same loop cut to its first 2 bars is graded whole: its seam and bars count.
    const short = loop.slice(0, Math.round(2 * 4 * (60 / 124) * sr));
    const whole = gradeSchema.parse(
      await (await app.fetch('/audio/v1/grade?role=drums', { method: 'POST', headers: auth, body: form(encodeWav([short], sr)) })).json(),
    );
    expect(whole.graded_s).toBe(whole.duration_s);
    expect(whole.sub_scores.bar_consistency.applicable).toBe(true);
    expect(whole.sub_scores.zero_crossing.end).toMatchObject({ applicable: true, reason: null });
    expect(whole.sub_scores.bar_consistency.whole_bars).toBe(2);
    expect(whole.weights.bar_consistency).toBeGreaterThan(0);
  });

  it('validates the role hint', async () => {
    const res = await app.fetch(`/audio/v1/grade?role=${'x'.repeat(65)}`, {
      method: 'POST',
      headers: auth,
      body: form(encodeWav(cleanLoop(), 44_100)),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['query', 'role']);
  });
});

describe('/analyze/samples and /naming over HTTP', () => {
  it('measures a sub bass as bass whatever the file is called, and names it from the audio', async () => {
    const sr = 44_100;
    const sub = Float32Array.from(
      { length: sr * 2 },
      (_, i) => 0.7 * Math.sin((2 * Math.PI * 45 * i) / sr) * Math.min(1, (sr * 2 - i) / 2000),
    );
    const wav = encodeWav([sub], sr);
    const res = await app.fetch('/audio/v1/analyze/samples?name=hihat_loop.wav', {
      method: 'POST',
      headers: auth,
      body: form(wav, 'hihat_loop.wav'),
    });
    expect(res.status).toBe(200);
    const body = sampleAnalysisSchema.parse(await res.json());
    expect(body.role).toBe('bass');
    expect(body.name_used).toBe(false);
    expect(body.source.duration_s).toBe(2);

    const named = namingSchema.parse(
      await (await app.fetch('/audio/v1/naming?index=7', { method: 'POST', headers: auth, body: form(wav, 'whatever.wav') })).json(),
    );
    expect(named.name).toMatch(/^07_bass_[a-z0-9-]+$/);
    const again = namingSchema.parse(
      await (await app.fetch('/audio/v1/naming?index=7', { method: 'POST', headers: auth, body: form(wav, 'other-name.wav') })).json(),
    );
    expect(again.name).toBe(named.name);
    const hundred = namingSchema.parse(
      await (await app.fetch('/audio/v1/naming?index=123', { method: 'POST', headers: auth, body: form(wav) })).json(),
    );
    expect(hundred.name.startsWith('123_bass_')).toBe(true);
  });

  it('validates the index', async () => {
    const res = await app.fetch('/audio/v1/naming?index=1000', {
      method: 'POST',
      headers: auth,
      body: form(encodeWav(cleanLoop(), 44_100)),
    });
    expect(res.status).toBe(422);
  });
});

describe('/features, /analyze/emotion and the /analyze composite', () => {
  // 36 bars at 124 BPM ≈ 70 s: longer than both heads, so the clip tier is exercised.
  const music = musicLoop({ bpm: 124, bars: 36, sampleRate: 22_050 });
  const wav = encodeWav([...music.channels], 22_050);
  const post = async (route: string) => {
    const res = await app.fetch(`/audio/v1${route}`, { method: 'POST', headers: auth, body: form(wav, 'groove.wav') });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown> & { source: { duration_s: number } };
  };

  it('reports the whole file’s length while analysing only the head', async () => {
    const features = featuresSchema.parse(await post('/features'));
    expect(features.source.duration_s).toBeCloseTo(music.duration, 2);
    expect(features.duration_analysed_s).toBe(30);
    expect(Math.abs(features.rhythm!.tempo_bpm! - 124)).toBeLessThan(124 * 0.02);
    const noRhythm = featuresSchema.parse(await post('/features?rhythm=false'));
    expect(noRhythm.rhythm).toBeUndefined();
    const emotion = emotionSchema.parse(await post('/analyze/emotion'));
    expect(emotion.duration_analysed_s).toBe(60);
    expect(emotion.model).toEqual({ id: 'transparent', version: '1', trained: false });
    expect(emotion.top).toHaveLength(3);
  });

  it('answers /analyze with parts identical to the dedicated routes, cached as a unit', async () => {
    const [composite, emotion, features, sample] = await Promise.all([
      post('/analyze'),
      post('/analyze/emotion'),
      post('/features'),
      post('/analyze/samples'),
    ]);
    const { source: _s1, ...emotionBody } = emotion;
    const { source: _s2, ...featuresBody } = features;
    const { source: _s3, ...sampleBody } = sample;
    expect(composite.emotion).toEqual(emotionBody);
    expect(composite.features).toEqual(featuresBody);
    expect(composite.sample).toEqual(sampleBody);
    expect(composite.source).toEqual(features.source);
    const again = await app.fetch('/audio/v1/analyze', { method: 'POST', headers: auth, body: form(wav) });
    expect(again.headers.get('x-cache')).toBe('hit');
  });
});
