import { describe, expect, it } from 'vitest';
import {
  createPartials,
  evenHarmonicShare,
  findPartials,
  fitStiffString,
  harmonicCentroid,
  harmonicIrregularity,
  HarmonicTimbre,
  tristimulus,
} from './harmonic-timbre.js';

const SR = 22_050;
const N = 2048;

/** Σ amp(h)·sin(2π f_h t + φ_h) over partials h = 1..count below 0.45·SR, with fixed, unrelated phases. */
function partialSeries(freq: (h: number) => number, amp: (h: number) => number, count: number, n = N): Float64Array {
  const out = new Float64Array(n);
  for (let h = 1; h <= count; h++) {
    const f = freq(h);
    if (f >= 0.45 * SR) break;
    const a = amp(h);
    if (a === 0) continue;
    const phase = (h * 2.3) % (2 * Math.PI);
    for (let i = 0; i < n; i++) out[i] = out[i]! + a * Math.sin((2 * Math.PI * f * i) / SR + phase);
  }
  return out;
}

/** The summary of one frame. */
function summarise(x: Float64Array, f0: number) {
  const t = new HarmonicTimbre(N, SR);
  t.addSignalFrame(x, f0, 1);
  return t.finish()!;
}

/** The analytic answers for amplitudes a_h, h = 1..H (independent of the code: plain sums of the definitions). */
function expected(a: readonly number[]) {
  const sum = a.reduce((s, x) => s + x, 0);
  const sq = a.reduce((s, x) => s + x * x, 0);
  const above = a.slice(1).reduce((s, x) => s + x * x, 0);
  const even = a.filter((_, i) => (i + 1) % 2 === 0).reduce((s, x) => s + x * x, 0);
  let irr = 0;
  for (let i = 0; i + 1 < a.length; i++) irr += (a[i]! - a[i + 1]!) ** 2;
  return {
    t1: a[0]! / sum,
    t2: (a[1]! + a[2]! + a[3]!) / sum,
    t3: a.slice(4).reduce((s, x) => s + x, 0) / sum,
    even: even / above,
    centroid: a.reduce((s, x, i) => s + (i + 1) * x, 0) / sum,
    irregularity: irr / sq,
  };
}

describe('harmonic timbre (Timbre Toolbox descriptors)', () => {
  it('reads a sawtooth (partials 1/h) at its analytic tristimulus, even share, centroid and irregularity', () => {
    const f0 = 220;
    const x = partialSeries(
      (h) => h * f0,
      (h) => 1 / h,
      20,
    );
    const a = Array.from({ length: 20 }, (_, i) => 1 / (i + 1));
    const want = expected(a);
    const got = summarise(x, f0);
    expect(got.tristimulus[0]).toBeCloseTo(want.t1, 2);
    expect(got.tristimulus[1]).toBeCloseTo(want.t2, 2);
    expect(got.tristimulus[2]).toBeCloseTo(want.t3, 2);
    expect(got.evenHarmonicShare).toBeCloseTo(want.even, 2);
    expect(got.harmonicCentroid).toBeCloseTo(want.centroid, 1);
    expect(got.irregularity).toBeCloseTo(want.irregularity, 2);
    expect(Math.abs(got.inharmonicity!)).toBeLessThan(2e-5);
    expect(got.noisiness).toBeLessThan(0.02);
  });

  it('finds no even partials in a square wave (odd partials 1/h only) and a sawtooth-like share in a sawtooth', () => {
    const f0 = 196;
    const square = summarise(
      partialSeries(
        (h) => h * f0,
        (h) => (h % 2 === 1 ? 1 / h : 0),
        20,
      ),
      f0,
    );
    expect(square.evenHarmonicShare).toBeLessThan(0.001);
    // Odd partials 1/h: T1 = 1 / (1 + 1/3 + … + 1/19), the even ones absent.
    const odd = Array.from({ length: 20 }, (_, i) => ((i + 1) % 2 === 1 ? 1 / (i + 1) : 0));
    expect(square.tristimulus[0]).toBeCloseTo(expected(odd).t1, 2);
  });

  it('measures the inharmonicity B of a stiff-string partial series f_h = h·F·√(1 + B·h²)', () => {
    for (const b of [1e-4, 4e-4, 1e-3]) {
      const F = 130.81; // C3
      const freq = (h: number) => h * F * Math.sqrt(1 + b * h * h);
      // YIN hears the string a little sharp; the search starts from the first partial's frequency.
      const got = summarise(
        partialSeries(freq, (h) => 1 / h, 20),
        freq(1),
      );
      expect(got.inharmonicity! / b, `B = ${b}`).toBeGreaterThan(0.9);
      expect(got.inharmonicity! / b, `B = ${b}`).toBeLessThan(1.1);
    }
  });

  it('calls white noise noisy and a harmonic tone clean', () => {
    let s = 12345;
    const noise = Float64Array.from({ length: N }, () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 31 - 1;
    });
    expect(summarise(noise, 200).noisiness).toBeGreaterThan(0.6);
    expect(
      summarise(
        partialSeries(
          (h) => h * 200,
          (h) => 1 / h,
          10,
        ),
        200,
      ).noisiness,
    ).toBeLessThan(0.02);
  });

  it('computes each descriptor from given amplitudes as its definition says', () => {
    const a = [1, 0.5, 0.25, 0, 0.125];
    const want = expected(a);
    const [t1, t2, t3] = tristimulus(a, a.length);
    expect([t1, t2, t3]).toEqual([want.t1, want.t2, want.t3].map((v) => expect.closeTo(v, 12) as number));
    expect(evenHarmonicShare(a, a.length)).toBeCloseTo(want.even, 12);
    expect(harmonicCentroid(a, a.length)).toBeCloseTo(want.centroid, 12);
    expect(harmonicIrregularity(a, a.length)).toBeCloseTo(want.irregularity, 12);
    expect(evenHarmonicShare([1], 1)).toBeNull();
    expect(harmonicCentroid([0, 0], 2)).toBeNull();
  });

  it('fits B exactly on exact stiff-string frequencies, and finds no partials without an f0', () => {
    const p = createPartials();
    const b = 5e-4;
    p.count = 10;
    for (let h = 1; h <= 10; h++) {
      p.amps[h - 1] = 1 / h;
      p.freqs[h - 1] = h * 100 * Math.sqrt(1 + b * h * h);
    }
    const fit = fitStiffString(p)!;
    expect(fit.b).toBeCloseTo(b, 9);
    expect(fit.f).toBeCloseTo(100, 6);
    expect(findPartials(new Float64Array(N + 1), SR / (2 * N), 0, SR / 2, createPartials())).toBe(0);
  });

  it('reports nothing when no frame was given', () => {
    expect(new HarmonicTimbre(N, SR).finish()).toBeNull();
  });
});
