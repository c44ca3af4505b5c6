/**
 * Mel spectrum and MFCC as librosa 0.11 defines them (`filters.mel`, `feature.melspectrogram`,
 * `power_to_db`, `feature.mfcc`; see docs of the audio standards, part A.4):
 * - the mel bank has `nMels` triangles on Slaney's mel scale (`htk=False`) between fmin and fmax: nMels + 2
 *   points evenly spaced in mel, converted to Hz; each triangle is linear in Hz, evaluated at the FFT bin
 *   centres k·sr/nFft, and scaled by 2 / (f[i+2] − f[i]) (Slaney's equal-area norm);
 * - the mel spectrum is the bank applied to the power spectrum |X|² (melspectrogram's power = 2);
 * - dB is 10·log10(max(S, 1e-10)) (ref 1, amin 1e-10), clipped from below at (max − 80 dB) where the max is
 *   over the whole spectrogram (top_db = 80) — the caller applies that clip, since it needs every frame;
 * - MFCC c_k = s_k·Σ_n S_dB[n]·cos(πk(2n + 1)/(2N)), the orthonormal DCT-II (s_0 = √(1/N), s_k = √(2/N)).
 * Everything is float64; librosa's mel bank is float32, which moves results by about 1e-7 relative.
 */
import { hzToMel, melToHz } from './bands.js';

/** A sparse filterbank over FFT bins 0..nFft/2: band b covers bins start[b] .. start[b] + length[b] − 1. */
export interface SparseFilterbank {
  readonly bands: number;
  readonly start: Int32Array;
  readonly length: Int32Array;
  /** Weights of band b at weights[offset[b] + j] for bin start[b] + j. */
  readonly offset: Int32Array;
  readonly weights: Float64Array;
  /** Band edge frequencies (Hz): band b's triangle spans edges[b]..edges[b + 2] and peaks at edges[b + 1]. */
  readonly edges: Float64Array;
}

/** librosa `filters.mel(sr, n_fft, n_mels, fmin, fmax, htk=False, norm='slaney')` as a sparse bank. */
export function slaneyMelFilterbank(sampleRate: number, nFft: number, nMels = 128, fmin = 0, fmax = sampleRate / 2): SparseFilterbank {
  const nBins = (nFft >> 1) + 1;
  const lo = hzToMel(fmin);
  const hi = hzToMel(fmax);
  const edges = new Float64Array(nMels + 2);
  for (let i = 0; i < nMels + 2; i++) edges[i] = melToHz(lo + ((hi - lo) * i) / (nMels + 1));
  const start = new Int32Array(nMels);
  const length = new Int32Array(nMels);
  const offset = new Int32Array(nMels);
  const weights: number[] = [];
  for (let b = 0; b < nMels; b++) {
    const f0 = edges[b]!;
    const f1 = edges[b + 1]!;
    const f2 = edges[b + 2]!;
    const norm = 2 / (f2 - f0);
    // The non-zero weights of a triangle are contiguous bins.
    const w = (k: number) => Math.max(0, Math.min(((k * sampleRate) / nFft - f0) / (f1 - f0), (f2 - (k * sampleRate) / nFft) / (f2 - f1)));
    let first = Math.max(0, Math.floor((f0 * nFft) / sampleRate));
    while (first < nBins && w(first) === 0 && (first * sampleRate) / nFft < f2) first++;
    let last = first;
    while (last + 1 < nBins && w(last + 1) > 0) last++;
    offset[b] = weights.length;
    // A triangle narrower than a bin may have no weight at all (librosa warns and leaves the row empty).
    const empty = first >= nBins || w(first) === 0;
    start[b] = empty ? 0 : first;
    length[b] = empty ? 0 : last - first + 1;
    if (!empty) for (let k = first; k <= last; k++) weights.push(w(k) * norm);
  }
  return { bands: nMels, start, length, offset, weights: Float64Array.from(weights), edges };
}

/** librosa `power_to_db` amin. */
export const POWER_DB_AMIN = 1e-10;
// Hot loops read module-private copies of exported numeric constants: V8 (Node 20) loads an exported
// binding from its module cell as a boxed number, and a `x > C ? x : C` on it then boxes x too (a heap
// allocation per sample); a private `const` is folded into the code.
const AMIN = POWER_DB_AMIN;
/** librosa `power_to_db` top_db. */
export const TOP_DB = 80;

/** 10·log10(max(p, 1e-10)), without the top_db clip. */
export function powerToDb(p: number): number {
  return 10 * Math.log10(p > AMIN ? p : AMIN);
}

/**
 * dst[at + i] = powerToDb(src[i]) for i < count, returning the largest of them (−∞ for none). One call per
 * frame instead of one per band: a call that V8 does not inline boxes its double argument on the heap.
 */
export function powersToDb(src: Float64Array, dst: Float64Array, at: number, count: number): number {
  let max = -Infinity;
  for (let i = 0; i < count; i++) {
    const p = src[i]!;
    const db = 10 * Math.log10(p > AMIN ? p : AMIN);
    dst[at + i] = db;
    if (db > max) max = db;
  }
  return max;
}

/** Orthonormal DCT-II basis, nOut rows of nIn values: row k is s_k·cos(πk(2n + 1)/(2·nIn)). */
export function dctIIOrtho(nIn: number, nOut: number): Float64Array {
  const m = new Float64Array(nOut * nIn);
  for (let k = 0; k < nOut; k++) {
    const s = k === 0 ? Math.sqrt(1 / nIn) : Math.sqrt(2 / nIn);
    for (let n = 0; n < nIn; n++) m[k * nIn + n] = s * Math.cos((Math.PI * k * (2 * n + 1)) / (2 * nIn));
  }
  return m;
}

/**
 * MFCCs of one frame of dB mel values: out[k] = Σ_n basis[k][n]·max(melDb[from + n], floor), for a basis
 * from `dctIIOrtho`. `scratch` holds nMels values. Row k of the DCT-II basis is symmetric (k even) or
 * antisymmetric (k odd) about its middle, so each coefficient is a dot product of half the length with
 * x_n + x_{N−1−n} or x_n − x_{N−1−n}.
 */
export function mfccFrame(
  melDb: Float64Array,
  from: number,
  nMels: number,
  floor: number,
  basis: Float64Array,
  out: Float64Array,
  scratch: Float64Array,
): void {
  const nOut = out.length;
  if (nMels % 2 !== 0) {
    for (let k = 0; k < nOut; k++) {
      let s = 0;
      for (let n = 0; n < nMels; n++) {
        const v = melDb[from + n]!;
        s += basis[k * nMels + n]! * (v > floor ? v : floor);
      }
      out[k] = s;
    }
    return;
  }
  const half = nMels >> 1;
  // scratch[0..half): sums, scratch[half..nMels): differences.
  for (let n = 0; n < half; n++) {
    const a0 = melDb[from + n]!;
    const b0 = melDb[from + nMels - 1 - n]!;
    const a = a0 > floor ? a0 : floor;
    const b = b0 > floor ? b0 : floor;
    scratch[n] = a + b;
    scratch[half + n] = a - b;
  }
  for (let k = 0; k < nOut; k++) {
    const row = k * nMels;
    const src = k % 2 === 0 ? 0 : half;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let n = 0;
    for (; n + 4 <= half; n += 4) {
      s0 += basis[row + n]! * scratch[src + n]!;
      s1 += basis[row + n + 1]! * scratch[src + n + 1]!;
      s2 += basis[row + n + 2]! * scratch[src + n + 2]!;
      s3 += basis[row + n + 3]! * scratch[src + n + 3]!;
    }
    for (; n < half; n++) s0 += basis[row + n]! * scratch[src + n]!;
    out[k] = s0 + s1 + (s2 + s3);
  }
}
