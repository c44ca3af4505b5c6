import { describe, expect, it } from 'vitest';
import { TRAINING_ONLY_LIBRARIES } from './sets.js';
import { planSynthSub, SYNTH_SUB_LIBRARY } from './synth-sub.js';

describe('synth-sub, the training-only sub/808/kick set', () => {
  it('is the same every time, both roles, 0.05–6 s of audio within full scale, never a single 2 s tone', () => {
    const a = planSynthSub();
    const b = planSynthSub();
    expect(a.map((i) => i.key)).toEqual(b.map((i) => i.key));
    a.forEach((item, i) => expect(Buffer.from(item.samples.buffer).equals(Buffer.from(b[i]!.samples.buffer))).toBe(true));
    expect(a.filter((i) => i.role === 'bass').length).toBe(52);
    expect(a.filter((i) => i.role === 'percs').length).toBe(52);
    for (const item of a) {
      const seconds = item.samples.length / 44_100;
      expect(seconds).toBeGreaterThanOrEqual(0.05);
      expect(seconds).toBeLessThanOrEqual(6);
      // Not the regression tests' own signal (one 2 s sub sine); the multi-note lines may last 2 s.
      if (!item.key.startsWith('sub-line')) expect(Math.abs(seconds - 2)).toBeGreaterThan(1e-3);
      expect(item.samples.reduce((m, v) => Math.max(m, Math.abs(v)), 0)).toBeLessThanOrEqual(1.05);
    }
  });

  it('is listed as training-only, so no evaluation holds it out', () => {
    expect(TRAINING_ONLY_LIBRARIES).toContain(SYNTH_SUB_LIBRARY);
  });
});
