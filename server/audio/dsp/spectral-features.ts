/**
 * Per-frame spectral features with the definitions of librosa 0.11 `feature/spectral.py` (see the audio
 * standards, part A.4). Each function takes one frame of an STFT: `mag` = |X[k]| (librosa's magnitude
 * spectrogram, S with power = 1) or `power` = |X[k]|², for bins k = 0..nFft/2 at frequencies k·sr/nFft.
 * Nothing here allocates; callers pass preallocated outputs.
 *
 * - centroid  = Σ f_k·S_k / Σ S_k (0 for an all-zero frame, as librosa's normalize leaves it at zero);
 * - bandwidth = (Σ Ŝ_k·(f_k − centroid)²)^½ with Ŝ = S / Σ S (p = 2);
 * - rolloff   = the smallest f_k whose cumulative Σ_{j≤k} S_j ≥ 0.85·Σ S (0 Hz for an all-zero frame);
 * - flatness  = exp(mean ln P) / mean P with P = max(|X|², 1e-10) (0..1);
 * - contrast  = for 7 bands (edges 0, 200, 400, …, 6400 Hz, then up to Nyquist), the mean of the highest
 *   and of the lowest round(0.02·n) magnitudes (at least one; n counts the band's bins as librosa does),
 *   the "peak" and the "valley"; the caller converts them with power_to_db (including its global top_db
 *   clip) and subtracts. librosa applies power_to_db to these *magnitude* means, so contrast in "dB" is
 *   10·log10(peak/valley) of magnitudes; we keep that for compatibility.
 * - flux (ours; librosa has none): Σ_k max(0, S_k/ΣS − S'_k/ΣS') between consecutive frames, the
 *   total-variation distance of the L1-normalised magnitude spectra, 0..1 (0: the spectrum's shape did not
 *   change; 1: all its energy is in new places). Independent of level.
 * - zero-crossing rate: sign changes per sample, with librosa's `zero_crossings` conventions (|x| ≤ 1e-10
 *   counts as 0, and 0 counts as positive).
 */

/** Centre frequency (Hz) of each bin 0..nFft/2. */
export function binFrequencies(sampleRate: number, nFft: number): Float64Array {
  const f = new Float64Array((nFft >> 1) + 1);
  for (let k = 0; k < f.length; k++) f[k] = (k * sampleRate) / nFft;
  return f;
}

/** Σ mag over all bins. */
export function magnitudeSum(mag: Float64Array): number {
  let s = 0;
  for (let k = 0; k < mag.length; k++) s += mag[k]!;
  return s;
}

/** librosa's default roll-off fraction. */
export const ROLL_PERCENT = 0.85;

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

/** librosa `spectral_flatness` amin. */
export const FLATNESS_AMIN = 1e-10;
// Hot loops read module-private copies of exported numeric constants: V8 (Node 20) loads an exported
// binding from its module cell as a boxed number, and a `x > C ? x : C` on it then boxes x too (a heap
// allocation per sample); a private `const` is folded into the code.
const AMIN = FLATNESS_AMIN;

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

/** The sub-bands of librosa's `spectral_contrast` for one FFT size. */
export interface ContrastBands {
  readonly bands: number;
  /** Band b takes bins start[b] .. end[b] − 1 (librosa's sub_band, after its last bin is dropped). */
  readonly start: Int32Array;
  readonly end: Int32Array;
  /** round-half-even(0.02·n), at least 1: how many bins make the peak and the valley. */
  readonly count: Int32Array;
  /** Lower edge of each band (Hz): 0, fmin, 2·fmin, … */
  readonly lowHz: Float64Array;
}

/** librosa's `spectral_contrast` defaults. */
export const CONTRAST_FMIN = 200;
export const CONTRAST_BANDS = 6;
export const CONTRAST_QUANTILE = 0.02;

/** numpy's `rint`: round half to even. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * librosa: octa = [0, fmin·2^0, …, fmin·2^nBands]; band k holds the bins with octa[k] ≤ f ≤ octa[k+1], plus
 * the bin below for k > 0, plus every bin above for the last band; the quantile count is taken of that
 * set, then its last bin is dropped except in the last band. Throws when a band edge reaches Nyquist.
 */
export function contrastBands(sampleRate: number, nFft: number, fmin = CONTRAST_FMIN, nBands = CONTRAST_BANDS, quantile = CONTRAST_QUANTILE): ContrastBands {
  const freqs = binFrequencies(sampleRate, nFft);
  const nBins = freqs.length;
  const octa = new Float64Array(nBands + 2);
  for (let i = 1; i < nBands + 2; i++) octa[i] = fmin * 2 ** (i - 1);
  if (octa[nBands]! >= sampleRate / 2) throw new RangeError('contrast band exceeds Nyquist');
  const start = new Int32Array(nBands + 1);
  const end = new Int32Array(nBands + 1);
  const count = new Int32Array(nBands + 1);
  for (let k = 0; k <= nBands; k++) {
    let first = -1;
    let last = -1;
    for (let i = 0; i < nBins; i++) {
      if (freqs[i]! >= octa[k]! && freqs[i]! <= octa[k + 1]!) {
        if (first < 0) first = i;
        last = i;
      }
    }
    if (first < 0) throw new RangeError(`contrast band ${k} holds no FFT bin`);
    if (k > 0) first -= 1;
    if (k === nBands) last = nBins - 1;
    count[k] = Math.max(1, roundHalfEven(quantile * (last - first + 1)));
    start[k] = first;
    end[k] = k < nBands ? last : last + 1;
  }
  return { bands: nBands + 1, start, end, count, lowHz: octa.slice(0, nBands + 1) };
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
export function contrastPeakValley(mag: Float64Array, cb: ContrastBands, peak: Float64Array, valley: Float64Array, at: number, scratch: Float64Array): void {
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
export function spectrumPass(re: Float64Array, im: Float64Array, freqs: Float64Array, power: Float64Array, mag: Float64Array, out: Float64Array): void {
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

/**
 * `spectrumPass`'s results from its sums over n bins: Σ mag, Σ mag·f, Σ mag·f², Σ max(power, amin) and
 * Σ ln max(power, amin) give out[0] = Σ mag, out[1] = centroid, out[2] = bandwidth, out[3] = flatness.
 */
export function shapeFromMoments(sum: number, m1: number, m2: number, psum: number, logSum: number, n: number, out: Float64Array): void {
  out[0] = sum;
  if (sum > 0) {
    const c = m1 / sum;
    const v = m2 / sum - c * c;
    out[1] = c;
    out[2] = v > 0 ? Math.sqrt(v) : 0;
  } else {
    out[1] = 0;
    out[2] = 0;
  }
  out[3] = Math.exp(logSum / n) / (psum / n);
}

/** Roll-off (Hz) into out[0] and flux (0..1) into out[1]; `sum` = Σ mag, `prev`/`prevSum` the previous frame. */
export function rolloffFluxPass(mag: Float64Array, freqs: Float64Array, sum: number, prev: Float64Array, prevSum: number, out: Float64Array, rollPercent = ROLL_PERCENT): void {
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

/** Streaming zero-crossing counter over a mono signal (see the module doc for the conventions). */
export class ZeroCrossingCounter {
  crossings = 0;
  samples = 0;
  private prevNegative: boolean | null = null;

  /** Count the sign changes in x[from..to), continuing from the previous span. */
  push(x: Float64Array, from: number, to: number): void {
    if (to <= from) return;
    let prev = this.prevNegative;
    let c = this.crossings;
    for (let i = from; i < to; i++) {
      const neg = x[i]! < -1e-10;
      if (prev !== null && neg !== prev) c++;
      prev = neg;
    }
    this.prevNegative = prev;
    this.crossings = c;
    this.samples += to - from;
  }

  /** Sign changes per sample (crossings / samples), 0..1; 0 for fewer than two samples. */
  rate(): number {
    return this.samples > 1 ? this.crossings / this.samples : 0;
  }
}
