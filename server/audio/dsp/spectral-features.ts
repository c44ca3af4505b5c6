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

/** librosa's default roll-off fraction. */
export const ROLL_PERCENT = 0.85;

/** librosa `spectral_flatness` amin. */
export const FLATNESS_AMIN = 1e-10;

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
export function contrastBands(
  sampleRate: number,
  nFft: number,
  fmin = CONTRAST_FMIN,
  nBands = CONTRAST_BANDS,
  quantile = CONTRAST_QUANTILE,
): ContrastBands {
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
 * The spectrum pass's results (FrameKernels.spectrumPass, and `spectrumPass` in reference/) from its sums
 * over n bins: Σ mag, Σ mag·f, Σ mag·f², Σ max(power, amin) and Σ ln max(power, amin) give out[0] = Σ mag, out[1] = centroid, out[2] = bandwidth, out[3] = flatness.
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
