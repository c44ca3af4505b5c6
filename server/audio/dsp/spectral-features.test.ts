import { describe, expect, it } from 'vitest';
import {
  contrastPeakValley,
  magnitudeSum,
  normalisedFlux,
  rolloffFluxPass,
  spectralFlatness,
  spectralShape,
  spectrumPass,
} from './reference/spectral-features.js';
import { binFrequencies, contrastBands, roundHalfEven, ZeroCrossingCounter } from './spectral-features.js';

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SR = 44100;
const N = 2048;
const freqs = binFrequencies(SR, N);

describe('single-frame spectral features', () => {
  it('a single non-zero bin: centroid and roll-off at its frequency, bandwidth 0', () => {
    const mag = new Float64Array(1025);
    mag[93] = 5;
    const out = new Float64Array(3);
    spectralShape(mag, freqs, magnitudeSum(mag), out);
    expect(out[0]).toBeCloseTo(freqs[93]!, 9);
    expect(out[1]).toBeCloseTo(0, 9);
    expect(out[2]).toBe(freqs[93]);
  });

  it('two equal bins: centroid halfway, bandwidth half the distance, roll-off at the upper bin', () => {
    const mag = new Float64Array(1025);
    mag[10] = 1;
    mag[30] = 1;
    const out = new Float64Array(3);
    spectralShape(mag, freqs, 2, out);
    expect(out[0]).toBeCloseTo(freqs[20]!, 9);
    expect(out[1]).toBeCloseTo(freqs[10]!, 9);
    // Cumulative 0.5 at bin 10 < 0.85·2, reaches 2 at bin 30.
    expect(out[2]).toBe(freqs[30]);
  });

  it('an all-zero frame gives 0 Hz everywhere and flatness 1 (librosa)', () => {
    const mag = new Float64Array(1025);
    const out = new Float64Array(3);
    spectralShape(mag, freqs, 0, out);
    expect([...out]).toEqual([0, 0, 0]);
    expect(spectralFlatness(new Float64Array(1025))).toBeCloseTo(1, 12);
  });

  it('flatness: exp(mean ln P)/mean P with P ≥ 1e-10', () => {
    const r = rng(3);
    const power = Float64Array.from({ length: 1025 }, () => (r() < 0.1 ? 0 : r() * 1e4));
    const clamped = [...power].map((p) => Math.max(p, 1e-10));
    const expected = Math.exp(clamped.reduce((s, p) => s + Math.log(p), 0) / 1025) / (clamped.reduce((s, p) => s + p, 0) / 1025);
    expect(spectralFlatness(power)).toBeCloseTo(expected, 12);
    expect(spectralFlatness(new Float64Array(1025).fill(7))).toBeCloseTo(1, 12);
  });

  it('flux: the positive part of the change of the normalised spectra, 0..1', () => {
    const a = new Float64Array(1025);
    const b = new Float64Array(1025);
    a[10] = 2;
    b[10] = 1;
    b[20] = 1;
    // Normalised: a = δ10, b = ½δ10 + ½δ20: the rise is ½ at bin 20.
    expect(normalisedFlux(b, 2, a, 2)).toBeCloseTo(0.5, 12);
    expect(normalisedFlux(a, 2, a, 2)).toBe(0);
    expect(normalisedFlux(a, 2, b, 0)).toBe(1);
    expect(normalisedFlux(b, 0, a, 2)).toBe(0);
  });

  it('the fused passes equal the separate definitions', () => {
    const r = rng(11);
    const re = Float64Array.from({ length: 1025 }, () => (r() - 0.5) * 300);
    const im = Float64Array.from({ length: 1025 }, () => (r() - 0.5) * 300);
    im[0] = 0;
    im[1024] = 0;
    const power = new Float64Array(1025);
    const mag = new Float64Array(1025);
    const out = new Float64Array(4);
    spectrumPass(re, im, freqs, power, mag, out);
    const refMag = Float64Array.from(re, (x, k) => Math.hypot(x, im[k]!));
    const refPower = Float64Array.from(refMag, (m) => m * m);
    const shape = new Float64Array(3);
    spectralShape(refMag, freqs, magnitudeSum(refMag), shape);
    expect(out[0]).toBeCloseTo(magnitudeSum(refMag), 6);
    expect(out[1]! / shape[0]!).toBeCloseTo(1, 12);
    expect(out[2]! / shape[1]!).toBeCloseTo(1, 9);
    expect(out[3]! / spectralFlatness(refPower)).toBeCloseTo(1, 12);

    const prev = Float64Array.from({ length: 1025 }, () => r());
    const prevSum = magnitudeSum(prev);
    const rf = new Float64Array(2);
    rolloffFluxPass(mag, freqs, out[0]!, prev, prevSum, rf);
    expect(rf[0]).toBe(shape[2]);
    expect(rf[1]).toBeCloseTo(normalisedFlux(refMag, magnitudeSum(refMag), prev, prevSum), 12);
  });
});

describe('spectral contrast (librosa spectral_contrast)', () => {
  /** librosa's band selection written with boolean masks over the bins, as in spectral.py. */
  function referenceBands(sr: number, nFft: number, fmin = 200, nBands = 6, quantile = 0.02) {
    const f = binFrequencies(sr, nFft);
    const octa = [0, ...Array.from({ length: nBands + 1 }, (_, i) => fmin * 2 ** i)];
    const bands: { bins: number[]; idx: number }[] = [];
    for (let k = 0; k <= nBands; k++) {
      const current = [...f].map((x) => x >= octa[k]! && x <= octa[k + 1]!);
      const first = current.indexOf(true);
      const last = current.lastIndexOf(true);
      if (k > 0) current[first - 1] = true;
      if (k === nBands) for (let i = last + 1; i < current.length; i++) current[i] = true;
      let bins = current.flatMap((c, i) => (c ? [i] : []));
      const idx = Math.max(1, roundHalfEven(quantile * bins.length));
      if (k < nBands) bins = bins.slice(0, -1);
      bands.push({ bins, idx });
    }
    return bands;
  }

  it.each([44100, 48000, 22050])('selects librosa’s bins and quantile counts at %i Hz', (sr) => {
    const cb = contrastBands(sr, 2048);
    const ref = referenceBands(sr, 2048);
    expect(cb.bands).toBe(7);
    ref.forEach((band, b) => {
      expect(cb.start[b]).toBe(band.bins[0]);
      expect(cb.end[b]).toBe(band.bins[band.bins.length - 1]! + 1);
      expect(band.bins.length).toBe(cb.end[b]! - cb.start[b]!);
      expect(cb.count[b]).toBe(band.idx);
    });
  });

  it('at 44.1 kHz: band 0 is bins 0–8, the last band runs from 6.4 kHz to Nyquist with 15-bin extremes', () => {
    const cb = contrastBands(44100, 2048);
    expect([cb.start[0], cb.end[0], cb.count[0]]).toEqual([0, 9, 1]);
    expect(cb.end[6]).toBe(1025);
    expect(cb.count[6]).toBe(roundHalfEven(0.02 * (1025 - cb.start[6]!)));
  });

  it('peak and valley are the means of the sorted extremes, whatever the order of the bins', () => {
    const cb = contrastBands(44100, 2048);
    const r = rng(5);
    const shapes = [
      Float64Array.from({ length: 1025 }, () => r()),
      Float64Array.from({ length: 1025 }, (_, k) => 1 / (k + 1)), // falling
      Float64Array.from({ length: 1025 }, (_, k) => k), // rising
      Float64Array.from({ length: 1025 }, (_, k) => Math.round(r() * 3) + (k % 7 === 0 ? 5 : 0)), // ties
    ];
    for (const mag of shapes) {
      const peak = new Float64Array(7);
      const valley = new Float64Array(7);
      contrastPeakValley(mag, cb, peak, valley, 0, new Float64Array(64));
      for (let b = 0; b < 7; b++) {
        const sorted = [...mag.subarray(cb.start[b], cb.end[b])].sort((x, y) => x - y);
        const q = cb.count[b]!;
        const lo = sorted.slice(0, q).reduce((s, x) => s + x, 0) / q;
        const hi = sorted.slice(-q).reduce((s, x) => s + x, 0) / q;
        expect(peak[b]).toBeCloseTo(hi, 12);
        expect(valley[b]).toBeCloseTo(lo, 12);
      }
    }
  });

  it('rounds the quantile count half to even, as numpy.rint', () => {
    expect([0.5, 1.5, 2.5, 3.5, 2.4, 2.6, 7].map(roundHalfEven)).toEqual([0, 2, 2, 4, 2, 3, 7]);
    expect(roundHalfEven(0.02 * 25)).toBe(0);
    expect(roundHalfEven(0.02 * 125)).toBe(2);
  });

  it('refuses bands beyond Nyquist, as librosa', () => {
    expect(() => contrastBands(11025, 2048)).toThrow(RangeError);
    expect(contrastBands(11025, 2048, 200, 5).bands).toBe(6);
  });
});

describe('zero-crossing counter', () => {
  it('counts 2f crossings per second of a sine, the same in any spans', () => {
    const x = Float64Array.from({ length: 44100 }, (_, i) => Math.sin((2 * Math.PI * 1000 * i) / 44100 + 0.1));
    let expected = 0;
    for (let i = 1; i < x.length; i++) if (x[i]! < 0 !== x[i - 1]! < 0) expected++;
    expect(Math.abs(expected - 2000)).toBeLessThanOrEqual(1);
    const whole = new ZeroCrossingCounter();
    whole.push(x, 0, x.length);
    expect(whole.crossings).toBe(expected);
    const parts = new ZeroCrossingCounter();
    for (let i = 0; i < x.length; i += 7) parts.push(x, i, Math.min(x.length, i + 7));
    expect(parts.crossings).toBe(expected);
    expect(parts.rate()).toBeCloseTo(expected / 44100, 12);
  });

  it('treats |x| ≤ 1e-10 as zero and zero as positive (librosa zero_crossings)', () => {
    const c = new ZeroCrossingCounter();
    c.push(Float64Array.from([1, 0, -1e-11, 1e-11, -1, 0, -2]), 0, 7);
    // signs: + + + + − + −
    expect(c.crossings).toBe(3);
  });
});
