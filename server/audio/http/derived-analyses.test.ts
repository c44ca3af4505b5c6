import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, seededNoise } from '../../test-support/signals.js';
import { adminToken, fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';

const rate = 44_100;
const auth = { Authorization: `Bearer ${adminToken}` };

/**
 * `seconds` of a stereo test track with something for every analysis to measure: a decaying noise
 * hit every 0.5 s over a pitch that steps every 2 s, a little wider on the right.
 */
function track(seconds: number, seed: number): Buffer {
  const n = Math.round(seconds * rate);
  const noise = seededNoise(seed);
  const left = new Float32Array(n);
  const right = new Float32Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    phase += (2 * Math.PI * (110 * 2 ** ((Math.floor(t / 2) % 5) / 12))) / rate;
    const hit = Math.exp(-(t % 0.5) / 0.04) * noise();
    left[i] = 0.3 * Math.sin(phase) + 0.4 * hit;
    right[i] = 0.3 * Math.sin(phase) + 0.35 * hit + 0.05 * noise();
  }
  return encodeWav([left, right], rate);
}

/** The routes /analyze contains, with the queries the derivation answers. */
const contained = ['/naming?index=7', '/features', '/analyze/samples', '/analyze/emotion'];

async function post(app: TestApp, route: string, bytes: Buffer): Promise<unknown> {
  const res = await app.fetch(`/audio/v1${route}`, { method: 'POST', headers: auth, body: fileForm(bytes, 'track.wav') });
  expect(res.status, route).toBe(200);
  return res.json();
}

async function meteredSeconds(app: TestApp): Promise<number> {
  const res = await app.fetch('/audio/v1/me', { headers: auth });
  return ((await res.json()) as { usage: { audio_seconds: number } }).usage.audio_seconds;
}

// Two servers: on `own` each route runs its own engine (nothing else was asked of the file), on
// `derived` /analyze is asked first and the same requests are answered from it.
let own: TestApp;
let derived: TestApp;
beforeAll(async () => {
  [own, derived] = await Promise.all([startTestApp(), startTestApp()]);
}, 120_000);
afterAll(() => Promise.all([own.close(), derived.close()]));

describe('answers derived from /analyze', () => {
  it.each([
    { seconds: 70, derivedRoutes: contained },
    { seconds: 12, derivedRoutes: contained },
    // A length of 30–60 s: a clip route's source could differ from /analyze's, so only the emotion
    // (the same 60 s head) is derived.
    { seconds: 45, derivedRoutes: ['/analyze/emotion'] },
  ])(
    'equal the routes’ own answers for a $seconds s file, and cost no pass over the audio',
    async ({ seconds, derivedRoutes }) => {
      const bytes = track(seconds, seconds);
      const expected = [];
      for (const route of contained) expected.push(await post(own, route, bytes));

      await post(derived, '/analyze', bytes);
      const before = await meteredSeconds(derived);
      const answers = [];
      for (const route of contained) answers.push(await post(derived, route, bytes));
      expect(answers).toEqual(expected);
      // Only the routes that ran their own engine analysed audio: each its first 30 s.
      const ran = contained.filter((r) => !derivedRoutes.includes(r)).length;
      expect(await meteredSeconds(derived)).toBeCloseTo(before + ran * Math.min(30, seconds), 3);
    },
    120_000,
  );

  it('runs the route’s own engine when the query asks for something /analyze does not hold', async () => {
    const bytes = track(70, 3);
    const expected = await post(own, '/features?rhythm=false', bytes);
    await post(derived, '/analyze', bytes);
    const before = await meteredSeconds(derived);
    expect(await post(derived, '/features?rhythm=false', bytes)).toEqual(expected);
    expect(await meteredSeconds(derived)).toBeCloseTo(before + 30, 3);
  }, 120_000);
});
