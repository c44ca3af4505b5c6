import { describe, expect, it } from 'vitest';
import {
  barEnvelopes,
  barSimilarity,
  clamp01,
  concordance,
  correlationOf,
  edgeAudibility,
  edgeScore,
  HopEnvelope,
  lowPassBiquad,
  measureEdge,
  measureSeam,
  rampDown,
  rampUp,
  refineBeatPeriod,
  seamScore,
  STEPS_PER_BAR,
} from './grade-math.js';

/** |H(e^{jω})|² of a biquad at f Hz, evaluated from its transfer function (independent of any filter loop). */
function powerGain(q: { b0: number; b1: number; b2: number; a1: number; a2: number }, f: number, fs: number): number {
  const w = (2 * Math.PI * f) / fs;
  const re = (c0: number, c1: number, c2: number) => c0 + c1 * Math.cos(w) + c2 * Math.cos(2 * w);
  const im = (c1: number, c2: number) => -(c1 * Math.sin(w) + c2 * Math.sin(2 * w));
  return (re(q.b0, q.b1, q.b2) ** 2 + im(q.b1, q.b2) ** 2) / (re(1, q.a1, q.a2) ** 2 + im(q.a1, q.a2) ** 2);
}

/** Deterministic jitter in [−1, 1) (an LCG), for onset lists. */
function jitter(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

describe('score curves', () => {
  it('clamp and ramps', () => {
    expect([-1, 0, 0.3, 1, 2].map(clamp01)).toEqual([0, 0, 0.3, 1, 1]);
    expect(rampDown(5, 5, 45)).toBe(1);
    expect(rampDown(25, 5, 45)).toBe(0.5);
    expect(rampDown(50, 5, 45)).toBe(0);
    expect(rampUp(-0.3, -0.3, 0.7)).toBe(0);
    expect(rampUp(0.2, -0.3, 0.7)).toBeCloseTo(0.5, 12);
    expect(rampUp(1, -0.3, 0.7)).toBe(1);
  });

  it('edge audibility: 0 at −60 dBFS and below, 1 at −40 dBFS and above, linear in dB', () => {
    expect(edgeAudibility(0)).toBe(0);
    expect(edgeAudibility(0.001)).toBeCloseTo(0, 12);
    expect(edgeAudibility(10 ** (-50 / 20))).toBeCloseTo(0.5, 12);
    expect(edgeAudibility(0.01)).toBeCloseTo(1, 12);
    expect(edgeAudibility(-0.5)).toBe(1);
    expect(edgeAudibility(-(10 ** (-50 / 20)))).toBeCloseTo(0.5, 12);
  });
});

describe('lowPassBiquad (4th-order Linkwitz–Riley as two sections)', () => {
  it('passes DC, is −3 dB per section (−6 dB for two) at the cutoff, and falls 24 dB/octave above', () => {
    for (const fs of [44100, 48000, 96000]) {
      const q = lowPassBiquad(120, fs);
      expect(powerGain(q, 0, fs)).toBeCloseTo(1, 10);
      expect(10 * Math.log10(powerGain(q, 120, fs))).toBeCloseTo(-3.0103, 3);
      // Two sections, one octave apart well above the cutoff: ≈ 24 dB more attenuation.
      const lr4 = (f: number) => 2 * 10 * Math.log10(powerGain(q, f, fs));
      expect(lr4(960) - lr4(1920)).toBeGreaterThan(23);
      expect(lr4(960) - lr4(1920)).toBeLessThan(25);
    }
  });

  it('rejects a cutoff outside (0, fs/2)', () => {
    expect(() => lowPassBiquad(0, 44100)).toThrow(RangeError);
    expect(() => lowPassBiquad(30000, 44100)).toThrow(RangeError);
  });
});

describe('seam', () => {
  it('measures the jump and the RMS step on each side (hand-computed)', () => {
    // Stereo; channel 1 is channel 0 negated.
    const head = Float32Array.from([0.5, -0.5, 0.25, -0.25, 0, 0]); // frames 0.5, 0.25, 0
    const tail = Float32Array.from([0.125, -0.125, 0, 0]); // frames 0.125, 0
    const m = measureSeam(head, tail, 2, 0, 8);
    expect(m.jump).toBe(0.5);
    expect(m.startStep).toBeCloseTo(0.25, 12); // differences −0.25, −0.25
    expect(m.endStep).toBeCloseTo(0.125, 12); // difference −0.125
    expect(measureSeam(head, tail, 2, 1, 8)).toEqual(m);
    // Ratio 2 → no loss; ratio 16 → full loss when the jump is audible.
    expect(seamScore({ jump: 0.5, startStep: 0.25, endStep: 0 })).toEqual({ score: 1, ratio: 2 });
    expect(seamScore({ jump: 0.5, startStep: 0.5 / 16, endStep: 0 }).score).toBeCloseTo(0, 12);
    expect(seamScore({ jump: 0.5, startStep: 0.5 / 4, endStep: 0 }).score).toBeCloseTo(2 / 3, 12); // one doubling of three
    // A jump from silence into silence is infinite in ratio but capped, and under −60 dBFS it never counts.
    expect(seamScore({ jump: 0.1, startStep: 0, endStep: 0 })).toEqual({ score: 0, ratio: 1e6 });
    expect(seamScore({ jump: 0.0009, startStep: 0, endStep: 0 }).score).toBe(1);
    expect(seamScore({ jump: 0, startStep: 0, endStep: 0 })).toEqual({ score: 1, ratio: 0 });
  });

  it('empty edges measure nothing', () => {
    expect(measureSeam(new Float32Array(0), new Float32Array(0), 1, 0, 8)).toEqual({ jump: 0, startStep: 0, endStep: 0 });
  });
});

describe('edges and zero crossings', () => {
  it('finds the local peak, the relative level and the distance to the nearest sign change', () => {
    const x = Float32Array.from([0.25, 0.5, 0.125, -0.5, 1]); // mono
    const start = measureEdge(x, 1, 0, true, 4);
    expect(start).toEqual({ value: 0.25, localPeak: 0.5, relative: 0.5, crossingDistance: 3 });
    const end = measureEdge(x, 1, 0, false, 3);
    expect(end).toEqual({ value: 1, localPeak: 1, relative: 1, crossingDistance: 1 });
    expect(edgeScore(end)).toBe(0);
    expect(edgeScore(start)).toBeCloseTo(0.5, 12);
    const zero = measureEdge(Float32Array.from([0, 0.3]), 1, 0, true, 2);
    expect(zero.crossingDistance).toBe(0);
    expect(edgeScore(zero)).toBe(1);
    expect(measureEdge(Float32Array.from([0.2, 0.3, 0.4]), 1, 0, true, 3).crossingDistance).toBeNull();
  });
});

describe('HopEnvelope', () => {
  it('merges adjacent hops in pairs when full, doubling the hop, and keeps the sums exact', () => {
    const env = new HopEnvelope(2, 4, 10);
    for (let h = 0; h < 4; h++) env.push([h + 1, 10 * (h + 1)]);
    // Full at 4: merged to 2 hops of 20 frames.
    expect(env.count).toBe(2);
    expect(env.hopFrames).toBe(20);
    expect(Array.from(env.data.subarray(0, 4))).toEqual([3, 30, 7, 70]);
    env.push([5, 50]);
    env.push([6, 60]);
    expect(env.count).toBe(2);
    expect(env.hopFrames).toBe(40);
    expect(Array.from(env.data.subarray(0, 4))).toEqual([10, 100, 11, 110]);
  });

  it('grows its storage up to the capacity and no further', () => {
    const env = new HopEnvelope(3, 4096, 1);
    for (let h = 0; h < 3000; h++) env.push([h, 1, 0]);
    expect(env.count).toBe(3000);
    expect(env.data[2999 * 3]).toBe(2999);
    for (let h = 3000; h < 4096; h++) env.push([h, 1, 0]);
    expect(env.count).toBe(2048);
    expect(env.hopFrames).toBe(2);
    expect(env.data.length).toBe(4096 * 3);
    expect(env.data[3]).toBe(2 + 3);
    expect(env.data[4]).toBe(2);
  });

  it('rejects an odd capacity', () => {
    expect(() => new HopEnvelope(1, 3, 10)).toThrow(RangeError);
  });
});

describe('refineBeatPeriod', () => {
  /** Onsets of a 16th grid at `bpm` for `bars` bars (16 steps each, `keep` selects steps), ±`jitterMs` jitter. */
  function gridOnsets(bpm: number, bars: number, keep: (step: number) => boolean, jitterMs: number, offset = 0.012, swing = 0): number[] {
    const rnd = jitter(bpm * 31 + bars);
    const step = 60 / bpm / 4;
    const out: number[] = [];
    for (let s = 0; s < bars * 16; s++) {
      if (!keep(s % 16)) continue;
      const sw = s % 2 === 1 ? swing * step : 0;
      out.push(offset + s * step + sw + (rnd() * jitterMs) / 1000);
    }
    return out;
  }

  it.each([
    { bpm: 124, bars: 4, coarse: 1.02 },
    { bpm: 90, bars: 4, coarse: 0.98 },
    { bpm: 174, bars: 8, coarse: 1.015 },
  ])('recovers $bpm BPM from a coarse tempo off by ×$coarse (16ths with ±5 ms jitter)', ({ bpm, bars, coarse }) => {
    const onsets = gridOnsets(bpm, bars, () => true, 5);
    const r = refineBeatPeriod(onsets, (60 / bpm) * coarse)!;
    expect(r).not.toBeNull();
    expect(r.subdivision).toBe(4);
    // A bar's worth of error over the loop stays under 2 ms.
    expect(Math.abs(r.beat - 60 / bpm) * 4 * bars * 1000).toBeLessThan(2);
    expect(r.onsetsUsed).toBe(onsets.length);
  });

  it('reports the standard error of the beat: residuals ±2 ms orthogonal to the fit give s·4/√42', () => {
    // 16ths at 120 BPM (0.125 s), m = 0..7, offsets +d −d −d +d +d −d −d +d: they sum to 0 and Σ m·e = 0, so the
    // least-squares line is the grid itself, every residual is ±d, s² = 8d²/(8 − 2), Σ(m − m̄)² = 42, and the
    // beat (4 steps) has the standard error 4·s/√42.
    const d = 0.002;
    const e = [1, -1, -1, 1, 1, -1, -1, 1];
    const onsets = e.map((sign, m) => 0.01 + m * 0.125 + sign * d);
    const r = refineBeatPeriod(onsets, 0.5 * 1.01)!;
    expect(r.beat).toBeCloseTo(0.5, 9);
    expect(r.beatStdError).toBeCloseTo((4 * Math.sqrt((8 * d * d) / 6)) / Math.sqrt(42), 9);
  });

  it('is not biased by swing (offsets that repeat every beat)', () => {
    const onsets = gridOnsets(140, 4, () => true, 2, 0.004, 0.24);
    const r = refineBeatPeriod(onsets, (60 / 140) * 1.01)!;
    expect(Math.abs(r.beat - 60 / 140) * 16 * 1000).toBeLessThan(2);
  });

  it('fits 8th notes on the 8th or 16th grid and triplets on the triplet grid', () => {
    const eighths = gridOnsets(100, 4, (s) => s % 2 === 0, 3);
    const r = refineBeatPeriod(eighths, 0.6 * 1.01)!;
    expect(Math.abs(r.beat - 0.6)).toBeLessThan(0.0002);
    const triplets: number[] = [];
    for (let k = 0; k < 48; k++) triplets.push(0.01 + (k * 0.5) / 3);
    const t = refineBeatPeriod(triplets, 0.5 * 0.99)!;
    expect(t.subdivision).toBe(3);
    expect(t.beat).toBeCloseTo(0.5, 6);
  });

  it('gives up on too few onsets or onsets without a grid', () => {
    expect(refineBeatPeriod([0, 0.5, 1], 0.5)).toBeNull();
    const rnd = jitter(7);
    const random = Array.from({ length: 60 }, () => (rnd() + 1) * 4).sort((a, b) => a - b);
    expect(refineBeatPeriod(random, 0.5)).toBeNull();
  });
});

describe('bar similarity', () => {
  it('concordance: 1 for identical or equally flat envelopes, lowered by a level difference, negative for opposite shapes', () => {
    const a = [0, -10, -20, -10, 0, -30];
    expect(concordance(a, a)).toBeCloseTo(1, 12);
    expect(concordance([-20, -20, -20], [-20, -20, -20])).toBeCloseTo(1, 12);
    expect(concordance([-20, -20.2, -19.8], [-20.1, -19.9, -20])).toBeGreaterThan(0.95);
    expect(
      concordance(
        a,
        a.map((v) => v - 6),
      ),
    ).toBeLessThan(0.9);
    expect(
      concordance(
        a,
        a.map((v) => -30 - v),
      ),
    ).toBeLessThan(0);
  });

  it('identical bars are alike, changed bars are not; fewer than two bars give null', () => {
    const hop = 100;
    const barFrames = STEPS_PER_BAR * 4 * hop; // 4 hops per step
    const pattern = (bar: number, h: number) => (h % 16 === 0 ? 1 : h % 16 < 4 ? 0.1 : bar === 2 && h % 32 === 8 ? 1 : 0.001);
    const env = new HopEnvelope(1, 1024, hop);
    for (let bar = 0; bar < 3; bar++) for (let h = 0; h < barFrames / hop; h++) env.push([pattern(bar === 2 ? 2 : 0, h) * hop]);
    const bars = barEnvelopes(env, barFrames, 3);
    expect(bars).toHaveLength(3);
    expect(bars[0]![0]).toHaveLength(STEPS_PER_BAR);
    // Step 0 covers hops 0..3: (1 + 0.1·3)/4 of full power per frame.
    expect(bars[0]![0]![0]).toBeCloseTo(10 * Math.log10(1.3 / 4 + 1e-8), 9);
    expect(barSimilarity(bars.slice(0, 2))).toBeCloseTo(1, 9);
    expect(barSimilarity(bars)!).toBeLessThan(0.9);
    expect(barSimilarity(bars.slice(0, 1))).toBeNull();
  });

  it('barEnvelopes splits hops pro rata at fractional step boundaries', () => {
    const env = new HopEnvelope(1, 64, 10);
    for (let h = 0; h < 40; h++) env.push([h < 20 ? 10 : 0]); // power 1 per frame for 200 frames, then silence
    // One bar of 400 frames: 16 steps of 25 frames; step 7 spans frames 175..200 (all power 1), step 8 silence.
    const [bar] = barEnvelopes(env, 400, 1);
    expect(bar![0]![7]).toBeCloseTo(10 * Math.log10(1 + 1e-8), 9);
    expect(bar![0]![8]).toBeCloseTo(-80, 6);
  });
});

describe('correlationOf', () => {
  it('is the normalised cross term, null without energy', () => {
    expect(correlationOf(4, 9, 6)).toBe(1);
    expect(correlationOf(4, 9, -6)).toBe(-1);
    expect(correlationOf(4, 9, 3)).toBeCloseTo(0.5, 12);
    expect(correlationOf(0, 9, 0)).toBeNull();
  });
});
