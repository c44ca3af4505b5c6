import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drumLoop } from '../test-support/drums.js';
import { encodeWav } from '../test-support/signals.js';
import { startTestApp, type TestApp } from '../test-support/test-app.js';
import { gradeSchema } from './grade-schema.js';

const auth = { Authorization: 'Bearer admin-token' };
const form = (bytes: Buffer, filename = 'loop.wav') => {
  const fd = new FormData();
  fd.append('file', new Blob([new Uint8Array(bytes)]), filename);
  return fd;
};

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
    const res = await app.fetch('/audio/v1/grade?role=drums', { method: 'POST', headers: auth, body: form(encodeWav(clean, 44_100, 'float32')) });
    expect(res.status).toBe(200);
    const body = gradeSchema.parse(await res.json());
    expect(body.flags).toEqual([]);
    expect(['S', 'A']).toContain(body.tier);

    const shifted = clean.map((c) => c.map((v) => v + 0.05));
    const dc = gradeSchema.parse(await (await app.fetch('/audio/v1/grade?role=drums', { method: 'POST', headers: auth, body: form(encodeWav(shifted, 44_100, 'float32')) })).json());
    expect(dc.flags.map((f) => f.code)).toContain('dc_offset');
    expect(dc.score).toBeLessThan(body.score);
  });

  it('validates the role hint', async () => {
    const res = await app.fetch(`/audio/v1/grade?role=${'x'.repeat(65)}`, { method: 'POST', headers: auth, body: form(encodeWav(cleanLoop(), 44_100)) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['query', 'role']);
  });
});
