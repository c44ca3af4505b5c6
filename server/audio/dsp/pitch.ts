/**
 * Fundamental frequency by YIN (de Cheveigné & Kawahara 2002, "YIN, a fundamental frequency estimator for
 * speech and music", JASA 111(4)), with the difference function computed through the autocorrelation
 * (Wiener–Khinchin, one FFT of the zero-padded frame and one of its power spectrum) instead of the O(N·τ)
 * direct sum.
 *
 * For a frame x[0..N−1] and lag τ the difference function is taken over the overlap of the frame with its
 * shifted self ("type II" autocorrelation, as McLeod & Wyvill 2005):
 *   d(τ) = Σ_{j=0}^{N−1−τ} (x_j − x_{j+τ})² = E[0, N−τ) + E[τ, N) − 2·r(τ),
 * rescaled by N/(N − τ) so that a longer lag, which sums fewer terms, is not favoured. Lags run up to N/2,
 * so every sum covers at least half the frame. Then YIN's steps 3–5:
 *   d′(0) = 1, d′(τ) = d(τ)·τ / Σ_{j=1..τ} d(j) (cumulative mean normalisation);
 *   the first τ in range with d′(τ) < threshold, walked down to its local minimum (else the global minimum);
 *   parabolic interpolation of d′ around it.
 * d′ at the chosen lag is YIN's aperiodicity: 0 for a perfectly periodic frame, about 1 for noise.
 *
 * The power spectrum computed on the way (the frame, mean removed, zero-padded to 2N, no window: bins of
 * sampleRate/2N Hz) stays readable through `powerSpectrum()` until the next frame.
 */
import { createRealFft, type RealFft } from './fft.js';

/** YIN's absolute threshold (the paper uses 0.1–0.15). */
export const YIN_THRESHOLD = 0.15;

export interface PitchEstimate {
  /** Fundamental frequency in Hz (of the best lag, even when unvoiced); 0 for a silent frame. */
  f0: number;
  /** d′ at the chosen lag, 0..~1: 0 perfectly periodic, ≥ 0.3 practically noise. */
  aperiodicity: number;
  /** Σ x² of the frame (after removing its mean). */
  energy: number;
}

/** A reusable YIN analyser for frames of `frameSize` samples (a power of two) at `sampleRate`. */
export class Yin {
  readonly frameSize: number;
  readonly sampleRate: number;
  private readonly tauMin: number;
  private readonly tauMax: number;
  private readonly threshold: number;
  private readonly fft: RealFft;
  /** The FFT's input (the frame, then its power spectrum); its output is read in place. */
  private readonly buf: Float64Array;
  private readonly prefix: Float64Array;
  private readonly dn: Float64Array;

  constructor(frameSize: number, sampleRate: number, fMin = 30, fMax = 2000, threshold = YIN_THRESHOLD) {
    this.frameSize = frameSize;
    this.sampleRate = sampleRate;
    this.threshold = threshold;
    this.tauMax = Math.min(frameSize >> 1, Math.ceil(sampleRate / fMin));
    this.tauMin = Math.max(2, Math.floor(sampleRate / fMax));
    const m = frameSize * 2;
    this.fft = createRealFft(m);
    this.buf = this.fft.input;
    this.prefix = new Float64Array(frameSize + 1);
    this.dn = new Float64Array(this.tauMax + 2);
  }

  /**
   * Power spectrum |X_k|², k = 0..frameSize, of the last analysed frame (mean removed, zero-padded to
   * 2·frameSize, rectangular window; bin k is k·sampleRate/(2·frameSize) Hz). A view, valid until the next
   * `analyse`.
   */
  powerSpectrum(): Float64Array {
    return this.buf.subarray(0, this.frameSize + 1);
  }

  /** Analyse `frame` (length frameSize; read only) into `out`. */
  analyse(frame: ArrayLike<number>, out: PitchEstimate): PitchEstimate {
    const n = this.frameSize;
    const m = 2 * n;
    const buf = this.buf;
    const re = this.fft.re;
    const im = this.fft.im;
    let mean = 0;
    for (let i = 0; i < n; i++) mean += frame[i]!;
    mean /= n;
    const prefix = this.prefix;
    prefix[0] = 0;
    for (let i = 0; i < n; i++) {
      const v = frame[i]! - mean;
      buf[i] = v;
      prefix[i + 1] = prefix[i]! + v * v;
    }
    buf.fill(0, n, m);
    const energy = prefix[n]!;
    out.energy = energy;
    if (!(energy > 1e-20)) {
      buf.fill(0, 0, n + 1);
      out.f0 = 0;
      out.aperiodicity = 1;
      return out;
    }
    // Autocorrelation: the power spectrum is real and even, so its forward transform equals m times its
    // inverse one: r(τ) = Re FFT(|X|²)[τ] / m.
    this.fft.transform();
    for (let k = 0; k <= n; k++) buf[k] = re[k]! * re[k]! + im[k]! * im[k]!;
    for (let k = 1; k < n; k++) buf[m - k] = buf[k]!;
    this.fft.transform();
    const inv = 1 / m;
    const dn = this.dn;
    const tauMax = this.tauMax;
    dn[0] = 1;
    let running = 0;
    for (let tau = 1; tau <= tauMax + 1 && tau < n; tau++) {
      const r = re[tau]! * inv;
      const d = Math.max(0, (prefix[n - tau]! + (energy - prefix[tau]!) - 2 * r) * (n / (n - tau)));
      running += d;
      dn[tau] = running > 0 ? (d * tau) / running : 1;
    }
    const last = Math.min(tauMax, n - 2);
    let tau = -1;
    for (let t = this.tauMin; t <= last; t++) {
      if (dn[t]! < this.threshold) {
        while (t + 1 <= last && dn[t + 1]! < dn[t]!) t++;
        tau = t;
        break;
      }
    }
    if (tau < 0) {
      tau = this.tauMin;
      for (let t = this.tauMin + 1; t <= last; t++) if (dn[t]! < dn[tau]!) tau = t;
    }
    // Parabolic interpolation of d′ around the minimum.
    let shift = 0;
    let value = dn[tau]!;
    if (tau > 1 && tau + 1 <= tauMax + 1) {
      const a = dn[tau - 1]!;
      const b = dn[tau]!;
      const c = dn[tau + 1]!;
      const den = a - 2 * b + c;
      if (den > 0) {
        shift = Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / den));
        value = b - 0.25 * (a - c) * shift;
      }
    }
    out.f0 = this.sampleRate / (tau + shift);
    out.aperiodicity = Math.max(0, value);
    return out;
  }
}

/** MIDI note number (A4 = 440 Hz = 69), fractional. */
export function hzToMidi(f: number): number {
  return 69 + 12 * Math.log2(f / 440);
}

/** Hz of a (fractional) MIDI note number. */
export function midiToHz(m: number): number {
  return 440 * 2 ** ((m - 69) / 12);
}

const NOTE_NAMES = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'] as const;

/** Scientific pitch notation of the nearest equal-tempered note (C4 = MIDI 60, sharps): 110 Hz → "A2". */
export function noteName(f: number): string {
  const m = Math.round(hzToMidi(f));
  return `${NOTE_NAMES[((m % 12) + 12) % 12]!}${Math.floor(m / 12) - 1}`;
}
