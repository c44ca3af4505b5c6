/**
 * The JavaScript twins of the features engine's WebAssembly frame kernels (dsp/frame-kernels.ts), with
 * the definitions of dsp/spectral-features.ts: plain (`spectralShape`, `spectralFlatness`,
 * `normalisedFlux`) and fused into two passes (`spectrumPass`, `rolloffFluxPass`). Only tests import
 * them (rule `dsp-reference-is-for-tests`): they check the kernels, and the definitions, against them.
 */
import { FLATNESS_AMIN, ROLL_PERCENT, shapeFromMoments, type ContrastBands } from '../spectral-features.js';

// Hot loops read module-private copies of exported numeric constants: V8 (Node 20) loads an exported
// binding from its module cell as a boxed number, and a `x > C ? x : C` on it then boxes x too (a heap
// allocation per sample); a private `const` is folded into the code.
const AMIN = FLATNESS_AMIN;

/** Σ mag over all bins. */
export function magnitudeSum(mag: Float64Array): number {
  let s = 0;
  for (let k = 0; k < mag.length; k++) s += mag[k]!;
  return s;
}

/**
 * Centroid, bandwidth and roll-off (Hz) of one magnitude frame into out[0..2]; `sum` = Σ mag (from
 * `magnitudeSum`).
 */
export function spectralShape(mag: Float64Array, freqs: Float64Array, sum: number, out: Float64Array, rollPercent = ROLL_PERCENT): void {
  const n = mag.length;
  if (!(sum > 0)) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    return;
  }
  let fs = 0;
  for (let k = 0; k < n; k++) fs += freqs[k]! * mag[k]!;
  const centroid = fs / sum;
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = freqs[k]! - centroid;
    v += mag[k]! * d * d;
  }
  const threshold = rollPercent * sum;
  let cum = 0;
  let k = 0;
  for (; k < n - 1; k++) {
    cum += mag[k]!;
    if (cum >= threshold) break;
  }
  out[0] = centroid;
  out[1] = Math.sqrt(v / sum);
  out[2] = freqs[k]!;
}

/**
 * exp(mean ln P) / mean P over P = max(power, 1e-10). The logarithm is taken of products of 8 values at a
 * time (a value lies between 1e-10 and about 1e8 for full-scale float input, so a product of 8 stays far
 * inside double range), an eighth of the logarithms for the same result to about 1e-15.
 */
export function spectralFlatness(power: Float64Array): number {
  const n = power.length;
  let logSum = 0;
  let sum = 0;
  let k = 0;
  for (; k + 8 <= n; k += 8) {
    let prod = 1;
    for (let j = k; j < k + 8; j++) {
      const p = power[j]! > AMIN ? power[j]! : AMIN;
      prod *= p;
      sum += p;
    }
    logSum += Math.log(prod);
  }
  for (; k < n; k++) {
    const p = power[k]! > AMIN ? power[k]! : AMIN;
    logSum += Math.log(p);
    sum += p;
  }
  return Math.exp(logSum / n) / (sum / n);
}

/**
 * Positive spectral flux between two magnitude frames, each divided by its own sum (see the module doc):
 * 0..1. A previous frame with sum 0 counts as all-zero (flux 1 for any non-silent frame); a current frame
 * with sum 0 gives 0.
 */
export function normalisedFlux(mag: Float64Array, sum: number, prev: Float64Array, prevSum: number): number {
  if (!(sum > 0)) return 0;
  if (!(prevSum > 0)) return 1;
  const a = 1 / sum;
  const b = 1 / prevSum;
  let s = 0;
  for (let k = 0; k < mag.length; k++) {
    const d = mag[k]! * a - prev[k]! * b;
    if (d > 0) s += d;
  }
  return s > 1 ? 1 : s;
}

/**
 * Peak and valley magnitudes of each contrast band: the means of the `count` largest and smallest values,
 * written to peak[at + b] and valley[at + b]. `scratch` needs max(count) values.
 *
 * Each extreme is kept in a small sorted list while the band is scanned, so a bin that does not belong
 * costs one comparison. A spectrum that falls with frequency would make every bin a new minimum when
 * scanned upwards, so the largest values are collected scanning upwards and the smallest scanning
 * downwards: on the usual falling spectra both scans then mostly compare and move on.
 */
export function contrastPeakValley(
  mag: Float64Array,
  cb: ContrastBands,
  peak: Float64Array,
  valley: Float64Array,
  at: number,
  scratch: Float64Array,
): void {
  for (let b = 0; b < cb.bands; b++) {
    const k0 = cb.start[b]!;
    const k1 = cb.end[b]!;
    const q = Math.min(cb.count[b]!, k1 - k0);
    // The q largest, ascending, in scratch[0..q): scratch[0] is the smallest of them.
    let n = 0;
    for (let k = k0; k < k1; k++) {
      const v = mag[k]!;
      if (n < q) {
        let i = n++;
        while (i > 0 && scratch[i - 1]! > v) {
          scratch[i] = scratch[i - 1]!;
          i--;
        }
        scratch[i] = v;
      } else if (v > scratch[0]!) {
        let i = 0;
        while (i < q - 1 && scratch[i + 1]! < v) {
          scratch[i] = scratch[i + 1]!;
          i++;
        }
        scratch[i] = v;
      }
    }
    let hi = 0;
    for (let i = 0; i < q; i++) hi += scratch[i]!;
    // The q smallest, descending, in scratch[0..q): scratch[0] is the largest of them.
    n = 0;
    for (let k = k1 - 1; k >= k0; k--) {
      const v = mag[k]!;
      if (n < q) {
        let i = n++;
        while (i > 0 && scratch[i - 1]! < v) {
          scratch[i] = scratch[i - 1]!;
          i--;
        }
        scratch[i] = v;
      } else if (v < scratch[0]!) {
        let i = 0;
        while (i < q - 1 && scratch[i + 1]! > v) {
          scratch[i] = scratch[i + 1]!;
          i++;
        }
        scratch[i] = v;
      }
    }
    let lo = 0;
    for (let i = 0; i < q; i++) lo += scratch[i]!;
    peak[at + b] = hi / q;
    valley[at + b] = lo / q;
  }
}

/**
 * The per-frame work of the features engine in two passes over the bins (the functions above, fused):
 * `spectrumPass` turns the FFT output into power and magnitude and takes Σ|X|, the centroid, the
 * bandwidth (from the moments: Σ S·f² / Σ S − centroid², the same value to rounding) and the flatness;
 * `rolloffFluxPass` then needs Σ|X| for the roll-off and the flux. Same definitions, same results to
 * about 1e-12 relative (the tests compare them).
 *
 * spectrumPass writes out[0] = Σ mag, out[1] = centroid, out[2] = bandwidth, out[3] = flatness. It runs
 * four bins per step with separate partial sums and four running products for the flatness (a logarithm
 * per 32 bins, of a product of 16 values: between 1e-160 and about 1e128), so the additions and
 * multiplications do not wait on one another.
 */
export function spectrumPass(
  re: Float64Array,
  im: Float64Array,
  freqs: Float64Array,
  power: Float64Array,
  mag: Float64Array,
  out: Float64Array,
): void {
  const n = power.length;
  let sum = 0;
  let m1 = 0;
  let m2 = 0;
  let psum = 0;
  let logSum = 0;
  // Four bins per step, each with its own running product (of 8 values before a logarithm is taken).
  let k = 0;
  while (k + 32 <= n) {
    let p0 = 1;
    let p1 = 1;
    let p2 = 1;
    let p3 = 1;
    for (const end = k + 32; k < end; k += 4) {
      const a = re[k]! * re[k]! + im[k]! * im[k]!;
      const b = re[k + 1]! * re[k + 1]! + im[k + 1]! * im[k + 1]!;
      const c = re[k + 2]! * re[k + 2]! + im[k + 2]! * im[k + 2]!;
      const d = re[k + 3]! * re[k + 3]! + im[k + 3]! * im[k + 3]!;
      power[k] = a;
      power[k + 1] = b;
      power[k + 2] = c;
      power[k + 3] = d;
      const ma = Math.sqrt(a);
      const mb = Math.sqrt(b);
      const mc = Math.sqrt(c);
      const md = Math.sqrt(d);
      mag[k] = ma;
      mag[k + 1] = mb;
      mag[k + 2] = mc;
      mag[k + 3] = md;
      sum += ma + mb + (mc + md);
      const fa = freqs[k]!;
      const fb = freqs[k + 1]!;
      const fc = freqs[k + 2]!;
      const fd = freqs[k + 3]!;
      const xa = ma * fa;
      const xb = mb * fb;
      const xc = mc * fc;
      const xd = md * fd;
      m1 += xa + xb + (xc + xd);
      m2 += xa * fa + xb * fb + (xc * fc + xd * fd);
      const ta = a > AMIN ? a : AMIN;
      const tb = b > AMIN ? b : AMIN;
      const tc = c > AMIN ? c : AMIN;
      const td = d > AMIN ? d : AMIN;
      psum += ta + tb + (tc + td);
      p0 *= ta;
      p1 *= tb;
      p2 *= tc;
      p3 *= td;
    }
    logSum += Math.log(p0 * p1) + Math.log(p2 * p3);
  }
  for (; k < n; k++) {
    const a = re[k]! * re[k]! + im[k]! * im[k]!;
    const m = Math.sqrt(a);
    power[k] = a;
    mag[k] = m;
    const f = freqs[k]!;
    sum += m;
    m1 += m * f;
    m2 += m * f * f;
    const t = a > AMIN ? a : AMIN;
    psum += t;
    logSum += Math.log(t);
  }
  shapeFromMoments(sum, m1, m2, psum, logSum, n, out);
}

/** Roll-off (Hz) into out[0] and flux (0..1) into out[1]; `sum` = Σ mag, `prev`/`prevSum` the previous frame. */
export function rolloffFluxPass(
  mag: Float64Array,
  freqs: Float64Array,
  sum: number,
  prev: Float64Array,
  prevSum: number,
  out: Float64Array,
  rollPercent = ROLL_PERCENT,
): void {
  const n = mag.length;
  if (!(sum > 0)) {
    out[0] = 0;
    out[1] = 0;
    return;
  }
  const threshold = rollPercent * sum;
  let cum = 0;
  let k = 0;
  for (; k < n - 1; k++) {
    cum += mag[k]!;
    if (cum >= threshold) break;
  }
  out[0] = freqs[k]!;
  if (!(prevSum > 0)) {
    out[1] = 1;
    return;
  }
  const a = 1 / sum;
  const b = 1 / prevSum;
  let f0 = 0;
  let f1 = 0;
  let f2 = 0;
  let f3 = 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const d0 = mag[i]! * a - prev[i]! * b;
    const d1 = mag[i + 1]! * a - prev[i + 1]! * b;
    const d2 = mag[i + 2]! * a - prev[i + 2]! * b;
    const d3 = mag[i + 3]! * a - prev[i + 3]! * b;
    f0 += d0 > 0 ? d0 : 0;
    f1 += d1 > 0 ? d1 : 0;
    f2 += d2 > 0 ? d2 : 0;
    f3 += d3 > 0 ? d3 : 0;
  }
  for (; i < n; i++) {
    const d = mag[i]! * a - prev[i]! * b;
    f0 += d > 0 ? d : 0;
  }
  const flux = f0 + f1 + (f2 + f3);
  out[1] = flux > 1 ? 1 : flux;
}
