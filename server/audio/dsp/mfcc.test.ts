import { describe, expect, it } from 'vitest';
import { dctIIOrtho, mfccFrame, powerToDb, slaneyMelFilterbank } from './mfcc.js';
import { applySparseFilterbank } from './reference/mfcc.js';

/** librosa `filters.mel` (htk=False, norm='slaney') written out densely, with its own Slaney formulas. */
function denseSlaneyMel(sr: number, nFft: number, nMels: number, fmin: number, fmax: number): number[][] {
  const fSp = 200 / 3;
  const logStep = Math.log(6.4) / 27;
  const hzToMel = (f: number) => (f >= 1000 ? 15 + Math.log(f / 1000) / logStep : f / fSp);
  const melToHz = (m: number) => (m >= 15 ? 1000 * Math.exp(logStep * (m - 15)) : fSp * m);
  const melF: number[] = [];
  for (let i = 0; i < nMels + 2; i++) melF.push(melToHz(hzToMel(fmin) + ((hzToMel(fmax) - hzToMel(fmin)) * i) / (nMels + 1)));
  const rows: number[][] = [];
  for (let i = 0; i < nMels; i++) {
    const row: number[] = [];
    for (let k = 0; k <= nFft / 2; k++) {
      const f = (k * sr) / nFft;
      const lower = (f - melF[i]!) / (melF[i + 1]! - melF[i]!);
      const upper = (melF[i + 2]! - f) / (melF[i + 2]! - melF[i + 1]!);
      row.push(Math.max(0, Math.min(lower, upper)) * (2 / (melF[i + 2]! - melF[i]!)));
    }
    rows.push(row);
  }
  return rows;
}

describe('Slaney mel filterbank (librosa filters.mel)', () => {
  it.each([
    [44100, 2048, 128],
    [22050, 2048, 128],
    [48000, 2048, 40],
  ])('matches the dense librosa definition at %i Hz, n_fft %i, %i bands', (sr, nFft, nMels) => {
    const fb = slaneyMelFilterbank(sr, nFft, nMels);
    const dense = denseSlaneyMel(sr, nFft, nMels, 0, sr / 2);
    let worst = 0;
    for (let b = 0; b < nMels; b++) {
      for (let k = 0; k <= nFft / 2; k++) {
        const j = k - fb.start[b]!;
        const w = j >= 0 && j < fb.length[b]! ? fb.weights[fb.offset[b]! + j]! : 0;
        worst = Math.max(worst, Math.abs(w - dense[b]![k]!) / (1e-3 + dense[b]![k]!));
      }
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it('puts 1000 Hz at 15 mel and spaces the edges evenly in mel', () => {
    const fb = slaneyMelFilterbank(44100, 2048, 128);
    expect(fb.edges[0]).toBe(0);
    expect(fb.edges[129]).toBeCloseTo(22050, 6);
    // Linear below 1 kHz: the edges there are multiples of the same step in Hz.
    const step = fb.edges[1]!;
    expect(fb.edges[5]! / step).toBeCloseTo(5, 9);
  });

  it('applies sparsely what the dense bank gives', () => {
    const sr = 44100;
    const fb = slaneyMelFilterbank(sr, 2048, 128);
    const dense = denseSlaneyMel(sr, 2048, 128, 0, sr / 2);
    const power = Float64Array.from({ length: 1025 }, (_, k) => 1 + Math.sin(k * 0.37) ** 2 * k);
    const out = new Float64Array(128);
    applySparseFilterbank(fb, power, out);
    for (let b = 0; b < 128; b++) {
      const expected = dense[b]!.reduce((s, w, k) => s + w * power[k]!, 0);
      expect(out[b]).toBeCloseTo(expected, 9);
    }
  });
});

describe('power_to_db and the orthonormal DCT-II', () => {
  it('clamps at amin = 1e-10', () => {
    expect(powerToDb(1)).toBe(0);
    expect(powerToDb(100)).toBeCloseTo(20, 12);
    expect(powerToDb(0)).toBe(-100);
    expect(powerToDb(1e-12)).toBe(-100);
  });

  it('has orthonormal rows', () => {
    const n = 128;
    const m = dctIIOrtho(n, 20);
    for (let a = 0; a < 20; a++) {
      for (let b = 0; b < 20; b++) {
        let s = 0;
        for (let i = 0; i < n; i++) s += m[a * n + i]! * m[b * n + i]!;
        expect(s).toBeCloseTo(a === b ? 1 : 0, 12);
      }
    }
  });

  it('computes c_k = s_k Σ x_n cos(πk(2n+1)/2N) of the clipped dB values', () => {
    const n = 128;
    const db = Float64Array.from({ length: n + 5 }, (_, i) => -40 + 30 * Math.sin(i / 7));
    const floor = -55;
    const out = new Float64Array(13);
    mfccFrame(db, 5, n, floor, dctIIOrtho(n, 13), out, new Float64Array(n));
    for (let k = 0; k < 13; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += Math.max(db[5 + i]!, floor) * Math.cos((Math.PI * k * (2 * i + 1)) / (2 * n));
      s *= k === 0 ? Math.sqrt(1 / n) : Math.sqrt(2 / n);
      expect(out[k]).toBeCloseTo(s, 10);
    }
  });
});
