/**
 * Chroma (pitch-class profile) from spectral peaks, in the manner of the HPCP of Gómez, "Tonal description
 * of music audio signals", PhD thesis, UPF 2006, ch. 3 (as Essentia's `HPCP`), rather than librosa's
 * `chroma_stft` filterbank.
 *
 * Why peaks: at 44.1 kHz a 2048-point FFT has 21.5 Hz bins, wider than a semitone below about 370 Hz, so a
 * filterbank that spreads each bin over the pitch classes its centre frequency maps to (librosa's) smears
 * bass notes over several classes and has to down-weight the low octaves. A sinusoid's frequency, though,
 * is known far better than a bin: the parabola through the log magnitudes of a Hann-windowed peak and its
 * two neighbours locates an isolated sinusoid to within 0.02 of a bin (Smith & Serra, "PARSHL", ICMC
 * 1987; measured here over bins 3–200: at most 0.016 bin, i.e. 0.35 Hz or 9 cents at 65 Hz). So each frame
 * contributes its interpolated peaks, and a bass note at 65 Hz lands on its pitch class as surely as a
 * note at 1 kHz (as long as its neighbours are at least about 3 bins away).
 *
 * Per frame (magnitude spectrum |X|, bins 0..N/2):
 * 1. Peaks: local maxima (mag[k] > mag[k−1], mag[k] ≥ mag[k+1]) with fmin ≤ f ≤ fmax, at most
 *    `PEAK_FLOOR_DB` below the frame's largest magnitude in that range (the Hann sidelobes, −31 dB, are
 *    harmless after step 4; the floor just skips noise).
 * 2. Interpolation on ln|X|: offset p = ½(a − c)/(a − 2b + c), frequency (k + p)·sr/N, peak amplitude
 *    A = exp(b − ¼(a − c)p); pitch 69 + 12·log2(f/440) (MIDI, fractional).
 * 3. Harmonics: a peak within 30 cents of 3, 5, 6 or 7 times a lower peak that is at least as strong is
 *    taken for that note's harmonic and skipped. Those harmonics fall on other pitch classes (the fifth,
 *    the major third, the minor seventh), and a rich tone otherwise paints a major third over every root:
 *    on the test progressions with tones of 6 harmonics decaying by 0.8 and the roots tripled, 2–3 of the
 *    12 minor keys read as their parallel major without this step (all 12 with linear weights instead of
 *    step 4). The price: a chord tone that coincides with a louder note's harmonic, e.g. G4 over a loud
 *    C2, is not counted in that frame.
 * 4. Weight w = log(1 + η·A/max) with η = 10 (the logarithmic compression of Müller & Ewert's chroma
 *    toolbox, "Chroma Toolbox: MATLAB implementations for extracting variants of chroma-based audio
 *    features", ISMIR 2011), relative to the frame's largest magnitude: linear for weak peaks, logarithmic
 *    for strong ones, so the loudest note (usually the bass) does not outweigh the rest of the chord.
 *    Each peak adds w to a fine pitch-class histogram of `RESOLUTION` bins per semitone (split linearly
 *    between the two nearest bins; C = 0), and the frame's contributions are divided by their sum (L1
 *    normalisation per frame, so every frame counts alike, as librosa's per-frame normalisation).
 * At the end, the mean histogram gives
 * - the tuning: the circular mean of the histogram's position within the semitone,
 *   δ = arg(Σ_b h_b·e^{2πi·b/R}) / 2π semitones (−0.5..0.5), reported in cents;
 * - 12 classes: c[p] = Σ_b h_b·cos²(π·d) over the fine bins at circular distance |d| < ½ semitone from
 *   p + δ (Gómez's cos² weighting window, one semitone wide), scaled so that the largest is 1.
 */

/** Pitch-class names, C = 0. */
export const PITCH_CLASSES = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'] as const;
export type PitchClass = (typeof PITCH_CLASSES)[number];

/** Fine histogram bins per semitone. */
export const RESOLUTION = 10;
/** Peaks more than this far below the frame's largest peak are ignored. */
export const PEAK_FLOOR_DB = -60;
/** Default analysis range (Hz): from the lowest bass notes a 2048-point FFT resolves at 44.1 kHz to 5 kHz. */
export const CHROMA_FMIN = 60;
export const CHROMA_FMAX = 5000;

export interface ChromaOptions {
  readonly fmin?: number;
  readonly fmax?: number;
}

export interface ChromaResult {
  /** 12 values, C..B, the largest 1 (all 0 when no frame had a peak). */
  readonly chroma: Float64Array;
  /** Deviation of the reference from A4 = 440 Hz, cents (−50..50); 0 when no frame had a peak. */
  readonly tuningCents: number;
  /** Frames that contributed (had at least one peak). */
  readonly frames: number;
  /**
   * Mean Pearson correlation of the 12-class profiles of consecutive contributing frames, 0..1 (negative
   * means count as 0); 0 with fewer than two frames. See `PeakChroma`.
   */
  readonly stability: number;
}

/**
 * Harmonics whose pitch class differs from their fundamental's (the octaves 2, 4, 8 do not matter): a peak
 * within `HARMONIC_TOLERANCE` semitones of h times a lower, at least as strong peak is taken for that
 * peak's harmonic and not counted.
 */
export const HARMONICS = [3, 5, 6, 7] as const;
export const HARMONIC_TOLERANCE = 0.3;
const HARMONIC_SEMITONES = HARMONICS.map((h) => 12 * Math.log2(h));
/** η of the log compression log(1 + η·a/max) of peak amplitudes. */
export const COMPRESSION = 10;

// Hot loops read module-private copies of exported numeric constants: V8 (Node 20) loads an exported
// binding from its module cell as a boxed number, and a `x > C ? x : C` on it then boxes x too (a heap
// allocation per sample); a private `const` is folded into the code.
const RES = RESOLUTION;
const TOLERANCE = HARMONIC_TOLERANCE;
const COMPRESS = COMPRESSION;
const FINE = 12 * RES;

/** Streaming peak chroma: feed magnitude frames with `addFrame`, then `finish`. */
export class PeakChroma {
  private readonly kmin: number;
  private readonly kmax: number;
  private readonly binHz: number;
  private readonly floor: number;
  private readonly sum = new Float64Array(FINE);
  private readonly frameHist = new Float64Array(FINE);
  private frames = 0;
  /** This and the previous contributing frame's 12-class profile, and the running sum of their correlations. */
  private classes = new Float64Array(12);
  private prevClasses = new Float64Array(12);
  private stabilitySum = 0;
  private stabilityPairs = 0;
  /** The current frame's peaks: MIDI pitch (fractional) and linear amplitude. */
  private readonly pitch: Float64Array;
  private readonly amp: Float64Array;

  constructor(sampleRate: number, nFft: number, options: ChromaOptions = {}) {
    this.binHz = sampleRate / nFft;
    const fmax = Math.min(options.fmax ?? CHROMA_FMAX, sampleRate / 2);
    // Peaks need a neighbour on each side.
    this.kmin = Math.max(1, Math.ceil((options.fmin ?? CHROMA_FMIN) / this.binHz));
    this.kmax = Math.min((nFft >> 1) - 1, Math.floor(fmax / this.binHz));
    this.floor = 10 ** (PEAK_FLOOR_DB / 20);
    const maxPeaks = Math.max(1, ((this.kmax - this.kmin) >> 1) + 2);
    this.pitch = new Float64Array(maxPeaks);
    this.amp = new Float64Array(maxPeaks);
  }

  private readonly harmonicPtr = new Int32Array(HARMONICS.length);

  /** Add one frame of magnitudes |X[k]|, k = 0..N/2. Returns false (and adds nothing) when it has no peak. */
  addFrame(mag: Float64Array): boolean {
    const { kmin, kmax, binHz, frameHist, pitch, amp } = this;
    let max = 0;
    for (let k = kmin; k <= kmax; k++) if (mag[k]! > max) max = mag[k]!;
    if (!(max > 0)) return false;
    const threshold = max * this.floor;
    let count = 0;
    for (let k = kmin; k <= kmax; k++) {
      const m = mag[k]!;
      if (m < threshold || m <= mag[k - 1]! || m < mag[k + 1]!) continue;
      const l = mag[k - 1]!;
      const r = mag[k + 1]!;
      let p = 0;
      let lnPeak = Math.log(m);
      if (l > 0 && r > 0) {
        const a = Math.log(l);
        const c = Math.log(r);
        const d = a - 2 * lnPeak + c;
        if (d < 0) {
          p = (0.5 * (a - c)) / d;
          if (p > 0.5) p = 0.5;
          else if (p < -0.5) p = -0.5;
          lnPeak -= 0.25 * (a - c) * p;
        }
      }
      pitch[count] = 69 + 12 * Math.log2(((k + p) * binHz) / 440);
      amp[count] = Math.exp(lnPeak);
      count++;
    }
    // Harmonic check: for each h, the first peak not below (pitch − 12·log2 h − tolerance); targets only
    // grow with j, so each pointer only moves forward.
    const ptr = this.harmonicPtr;
    ptr.fill(0);
    let total = 0;
    for (let j = 0; j < count; j++) {
      const a = amp[j]!;
      const pj = pitch[j]!;
      let harmonic = false;
      for (let hi = 0; hi < HARMONICS.length && !harmonic; hi++) {
        const target = pj - HARMONIC_SEMITONES[hi]!;
        let i = ptr[hi]!;
        while (i < j && pitch[i]! < target - TOLERANCE) i++;
        ptr[hi] = i;
        for (; i < j && pitch[i]! <= target + TOLERANCE; i++) {
          if (amp[i]! >= a) {
            harmonic = true;
            break;
          }
        }
      }
      if (harmonic) continue;
      const w = Math.log(1 + (COMPRESS * a) / max);
      // Position in the fine histogram: semitones above C, times RESOLUTION, mod 120.
      let x = (pitch[j]! % 12) * RES;
      if (x < 0) x += FINE;
      const i0 = Math.floor(x);
      const frac = x - i0;
      const a0 = i0 % FINE;
      const a1 = (i0 + 1) % FINE;
      frameHist[a0] = frameHist[a0]! + w * (1 - frac);
      frameHist[a1] = frameHist[a1]! + w * frac;
      total += w;
    }
    if (!(total > 0)) return false;
    const inv = 1 / total;
    const sum = this.sum;
    const classes = this.classes;
    classes.fill(0);
    for (let b = 0; b < FINE; b++) {
      sum[b] = sum[b]! + frameHist[b]! * inv;
      // Nearest class without the tuning correction (unknown until the end): a half-semitone fold.
      const c = Math.round(b / RES) % 12;
      classes[c] = classes[c]! + frameHist[b]!;
      frameHist[b] = 0;
    }
    if (this.frames > 0) {
      this.stabilitySum += Math.max(0, pearson12(classes, this.prevClasses));
      this.stabilityPairs++;
    }
    this.classes = this.prevClasses;
    this.prevClasses = classes;
    this.frames++;
    return true;
  }

  finish(): ChromaResult {
    const chroma = new Float64Array(12);
    const stability = this.stabilityPairs > 0 ? this.stabilitySum / this.stabilityPairs : 0;
    if (this.frames === 0) return { chroma, tuningCents: 0, frames: 0, stability };
    const h = this.sum;
    let re = 0;
    let im = 0;
    for (let b = 0; b < FINE; b++) {
      const phi = (2 * Math.PI * b) / RES;
      re += h[b]! * Math.cos(phi);
      im += h[b]! * Math.sin(phi);
    }
    const delta = re === 0 && im === 0 ? 0 : Math.atan2(im, re) / (2 * Math.PI);
    for (let b = 0; b < FINE; b++) {
      // Distance in semitones from the tuned grid, folded to the nearest class.
      const s = b / RES - delta;
      const p = Math.round(s);
      const d = s - p;
      if (Math.abs(d) >= 0.5) continue;
      const w = Math.cos(Math.PI * d) ** 2;
      const pc = ((p % 12) + 12) % 12;
      chroma[pc] = chroma[pc]! + w * h[b]!;
    }
    let max = 0;
    for (let i = 0; i < 12; i++) if (chroma[i]! > max) max = chroma[i]!;
    if (max > 0) for (let i = 0; i < 12; i++) chroma[i] = chroma[i]! / max;
    return { chroma, tuningCents: 100 * delta, frames: this.frames, stability };
  }
}

/** Pearson correlation of two 12-vectors; 0 when either is constant. */
function pearson12(a: Float64Array, b: Float64Array): number {
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < 12; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= 12;
  mb /= 12;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < 12; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    sab += x * y;
    saa += x * x;
    sbb += y * y;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : 0;
}
