import { describe, expect, it } from 'vitest';
import { envelopeFeatures, percentile, RmsEnvelope } from './envelope.js';

describe('RMS envelope', () => {
  it('gives the RMS of each 10 ms block and a final partial block, in any spans', () => {
    const sr = 1000; // 10-sample blocks
    const x = Float64Array.from({ length: 35 }, (_, i) => (i < 10 ? 1 : i < 20 ? -2 : 3));
    const whole = new RmsEnvelope(sr);
    whole.push(x, 0, x.length);
    const a = whole.finish();
    expect([...a.env]).toEqual([1, 2, 3, 3]);
    expect(a.lastBlockSamples).toBe(5);
    const parts = new RmsEnvelope(sr);
    for (let i = 0; i < x.length; i += 3) parts.push(x, i, Math.min(x.length, i + 3));
    expect(parts.finish()).toEqual(a);
  });

  it('grows beyond its initial capacity', () => {
    const e = new RmsEnvelope(1000);
    const x = new Float64Array(10_000).fill(0.5);
    e.push(x, 0, x.length);
    const { env } = e.finish();
    expect(env.length).toBe(1000);
    expect(env.every((v) => v === 0.5)).toBe(true);
  });
});

describe('envelope descriptors', () => {
  it('percentile interpolates linearly like numpy', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([1, 2, 3, 4], 95)).toBeCloseTo(3.85, 12);
    expect(percentile([1, 2, 3, 4], 10)).toBeCloseTo(1.3, 12);
    expect(percentile([7], 10)).toBe(7);
  });

  it('reads a piecewise-linear ADSR envelope sampled at block centres', () => {
    // 1 ms blocks of an amplitude envelope: attack 50 ms, decay 100 ms to 0.5, sustain 500 ms, release 100 ms.
    const blockS = 0.001;
    const amp = (t: number) =>
      t < 0.05 ? t / 0.05 : t < 0.15 ? 1 - (0.5 * (t - 0.05)) / 0.1 : t < 0.65 ? 0.5 : t < 0.75 ? 0.5 * (1 - (t - 0.65) / 0.1) : 0;
    const env = Float64Array.from({ length: 800 }, (_, i) => amp((i + 0.5) * blockS));
    const f = envelopeFeatures(env, blockS)!;
    expect(f.attackS).toBeCloseTo(0.04, 3);
    expect(f.sustainLevel).toBeCloseTo(0.5, 2);
    // 90 % of the way from 1 to 0.5: 0.55, reached 90 ms after the peak.
    expect(f.decayS).toBeCloseTo(0.09, 2);
    expect(f.peakTimeS).toBeCloseTo(0.05, 2);
    // Σ t·a / Σ a of the same samples.
    let num = 0;
    let den = 0;
    env.forEach((a, i) => {
      num += (i + 0.5) * blockS * a;
      den += a;
    });
    expect(f.temporalCentroidS).toBeCloseTo(num / den, 12);
  });

  it('a flat envelope: no attack, no decay, sustain 1, dynamic range 0', () => {
    const f = envelopeFeatures(new Float64Array(100).fill(0.3), 0.01)!;
    expect(f.attackS).toBe(0);
    expect(f.decayS).toBe(0);
    expect(f.sustainLevel).toBe(1);
    expect(f.dynamicRangeDb).toBeCloseTo(0, 12);
    expect(f.temporalCentroidS).toBeCloseTo(0.5, 12);
  });

  it('dynamic range: 95th − 10th percentile of the block levels in dB, silent blocks left out', () => {
    // Half the blocks at 0 dB, half at −20 dB, plus digital silence.
    const env = Float64Array.from({ length: 300 }, (_, i) => (i < 100 ? 1 : i < 200 ? 0.1 : 0));
    const f = envelopeFeatures(env, 0.01)!;
    expect(f.dynamicRangeDb).toBeCloseTo(20, 9);
  });

  it('is null for an all-zero envelope', () => {
    expect(envelopeFeatures(new Float64Array(10), 0.01)).toBeNull();
    expect(envelopeFeatures(new Float64Array(0), 0.01)).toBeNull();
  });
});
