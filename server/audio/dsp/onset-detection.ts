/**
 * Streaming onset detection: the SuperFlux onset strength of Böck & Widmer, "Maximum filter vibrato
 * suppression for onset detection", DAFx-13 (2013), and the peak picking of Böck, Krebs & Schedl,
 * "Evaluating the online capability of onset detection methods", ISMIR 2012 (as in madmom and librosa
 * `util.peak_pick`), with the moving-median threshold of Bello et al. 2005 (see `pickOnsets`).
 *
 * Onset strength, per frame n (the steps of SuperFlux; parameters below):
 * 1. STFT of the mono signal: periodic Hann window of N samples, frames centred on sample n·hop (zero
 *    padding of N/2 before the first and after the last sample, librosa's `center=True`).
 * 2. Magnitude spectrum |X|, mapped through a triangular filterbank with log-spaced centres (B bands per
 *    octave between fmin and fmax; centres that land on the same FFT bin are merged, as madmom's
 *    `LogarithmicFilterbank(unique_filters=True)`; filters are not area-normalised): Y(n, b).
 * 3. Log compression L(n, b) = log10(1 + λ·Y(n, b)).
 * 4. SF*(n) = Σ_b H(L(n, b) − Lmax(n − μ, b)), with Lmax(m, b) = max(L(m, b−1), L(m, b), L(m, b+1)) the
 *    maximum filter over 3 bands and H(x) = max(x, 0). The lag μ is the number of hops after which the
 *    window overlap drops below half (madmom `diff_ratio = 0.5`), at least 1: μ = 1 here.
 * The envelope stores SF*(n) divided by the band count (a mean per band, as librosa's flux), so thresholds
 * do not depend on how many bands the sample rate allows.
 * Two accent channels are kept alongside it for the tempo estimator (`AccentEnvelopes`: the same flux on
 * linear magnitudes, and the flux of the bass bands alone).
 *
 * Parameters (ours; the paper used N = 2048 at 200 frames per second):
 * - N = the power of two nearest 23 ms: 1024 at 44.1 and 48 kHz. Half of SuperFlux's 46 ms: drum onsets
 *   need time rather than frequency resolution, and a 1024-point FFT costs half of a 2048-point one.
 * - hop = N/2 = 512 (11.6 ms at 44.1 kHz, 10.7 ms at 48 kHz; librosa's hop). The run time is per frame
 *   (the FFT, 1.5 µs per 1024-point frame on the development machine, was half of it before it moved to
 *   WebAssembly), and 512 makes 14 % fewer
 *   frames than a 10 ms hop of 441; the coarser grid costs no accuracy because peak times are
 *   interpolated (on the test loops, onsets come out within ±6 ms of the truth, about 1 ms early on
 *   average, at both hops).
 * - B = 24 bands per octave, fmin = 30 Hz, fmax = min(17 kHz, Nyquist), as SuperFlux. Magnitudes are
 *   those of the unscaled FFT of float samples (a full-scale sine peaks near N/4).
 * - λ = 10 (SuperFlux: 1). The log only compresses above λ·Y ≈ 1, so with λ = 1 quiet material loses its
 *   onsets: on the test loops F stays ≥ 0.97 with λ = 10 down to −30 dB of gain (about 0.9 at −40 dB),
 *   while with λ = 1 it drops to 0.67 at −30 dB. A larger λ (100) starts to pick up noise.
 *
 * Over 400 lines because the streaming detector, its per-frame state and the peak picking that reads
 * that state are one algorithm; the JavaScript reference twins are in dsp/reference/.
 */
import { createRealFft, type RealFft } from './fft.js';
import { FrameKernels, frameKernelWorkspace, type PlacedFilterbank } from './frame-kernels.js';
import { hannWindow } from './window.js';

export interface OnsetStrengthOptions {
  /** A power of two (default `defaultFrameSize`). */
  readonly frameSize?: number;
  /** Default frameSize / 2. */
  readonly hopSize?: number;
  readonly bandsPerOctave?: number;
  readonly fmin?: number;
  readonly fmax?: number;
  readonly lambda?: number;
  /** Upper edge of the bass channel, Hz (default `BASS_HZ`): bands whose centre lies at or below it. */
  readonly bassHz?: number;
}

/**
 * Top of the bass channel, Hz: kick drums (fundamentals 50–150 Hz), bass notes, and the body of a snare or
 * tom just below it: the 3 lowest bands at 44.1 and 48 kHz (centres 86–188 Hz).
 */
export const BASS_HZ = 200;

/** A streaming onset-strength function: push samples in order, then `finish` for the envelope. */
export interface OnsetStrengthStream {
  readonly sampleRate: number;
  readonly frameSize: number;
  readonly hopSize: number;
  /** Frames per second (sampleRate / hopSize). Frame n is centred on time n / frameRate. */
  readonly frameRate: number;
  readonly bands: number;
  /** μ, the frame lag of the difference. */
  readonly lag: number;
  /** The bands of the bass channel: the lowest `bassBands` (at least 1). */
  readonly bassBands: number;
  /** Append samples; with `channels` > 1 they are interleaved and mixed to mono (the mean of the channels). */
  push(samples: Float32Array, channels?: number): void;
  /** Flush the last frames (zero padding of N/2) and return the envelope, one value per frame. */
  finish(): Float32Array;
  /** After `finish`: the two accent channels of the same frames (see `AccentEnvelopes`). */
  accents(): AccentEnvelopes;
  /**
   * An independent copy of the stream as it is now (before `finish`): finishing the copy gives exactly
   * what this stream would give if it ended here, while this one goes on.
   */
  fork(): OnsetStrengthStream;
}

/**
 * Two more onset envelopes, computed alongside the SuperFlux one from the same band values, for the tempo
 * estimator's choice of metrical level (dsp/tempo.ts). Both are one value per frame, like the envelope.
 * - `linear`: the same flux on the linear band magnitudes instead of their logarithms,
 *   Σ_b H(Y(n, b) − Ymax(n − μ, b)) / bands, which is close to the classic L1 spectral flux over FFT bins
 *   (the peak-1 triangles overlap to about 1 per bin). Without the compression a rise counts by its
 *   amplitude: a hat at −12 dB counts a quarter as much (the log flux only drops by a fraction), and a
 *   white-noise hat at half a snare's amplitude half as much, where in the log domain a hat over silent high
 *   bands can come close to the snare. Like the spectral flux it weighs frequencies linearly, so bright
 *   sounds weigh more than their loudness would suggest.
 * - `bass`: the SuperFlux sum over the bands centred at or below `BASS_HZ` only (mean log10 rise per band):
 *   kicks and bass notes, nearly none of a hi-hat.
 */
export interface AccentEnvelopes {
  readonly linear: Float32Array;
  readonly bass: Float32Array;
}

/** Default frame size: the power of two nearest 23 ms. */
export function defaultFrameSize(sampleRate: number): number {
  return 2 ** Math.max(2, Math.round(Math.log2(sampleRate * 0.0232)));
}

/** A triangular log-frequency filterbank in compressed-row form: band b covers bins start[b] .. start[b]+length[b]-1. */
export interface LogFilterbank {
  readonly bands: number;
  readonly start: Int32Array;
  readonly length: Int32Array;
  /** Weights, band after band (offset[b] is where band b's weights begin). */
  readonly offset: Int32Array;
  readonly weights: Float64Array;
  /** The highest bin any band uses, plus one. */
  readonly binEnd: number;
}

/**
 * madmom's `LogarithmicFilterbank`: centres fmin·2^(k/B) up to fmax, rounded to FFT bins and made unique;
 * band i rises linearly from bin c[i−1] to c[i] and falls to c[i+1] (peak 1, not area-normalised).
 */
export function logFilterbank(frameSize: number, sampleRate: number, bandsPerOctave: number, fmin: number, fmax: number): LogFilterbank {
  const nyquistBin = frameSize / 2;
  const binOf = (f: number) => Math.round((f * frameSize) / sampleRate);
  const centres: number[] = [];
  for (let k = 0; ; k++) {
    const f = fmin * 2 ** (k / bandsPerOctave);
    if (f > fmax) break;
    const bin = Math.min(nyquistBin, binOf(f));
    if (centres.length === 0 || bin > centres[centres.length - 1]!) centres.push(bin);
  }
  if (centres.length < 3) throw new RangeError('filterbank needs at least 3 distinct bins');
  const bands = centres.length - 2;
  const start = new Int32Array(bands);
  const length = new Int32Array(bands);
  const offset = new Int32Array(bands);
  const weights: number[] = [];
  for (let b = 0; b < bands; b++) {
    const lo = centres[b]!;
    const mid = centres[b + 1]!;
    const hi = centres[b + 2]!;
    // Bins strictly inside (lo, hi) get the triangle's value; the centre always gets 1.
    const first = mid - lo > 1 ? lo + 1 : mid;
    const last = hi - mid > 1 ? hi - 1 : mid;
    start[b] = first;
    length[b] = last - first + 1;
    offset[b] = weights.length;
    for (let k = first; k <= last; k++) weights.push(k <= mid ? (k - lo) / (mid - lo) : (hi - k) / (hi - mid));
  }
  const binEnd = start[bands - 1]! + length[bands - 1]!;
  return { bands, start, length, offset, weights: Float64Array.from(weights), binEnd };
}

/** Bands whose centre (the bin of weight 1) is at or below `bin`. */
function countBandsUpTo(fb: LogFilterbank, bin: number): number {
  let count = 0;
  for (let b = 0; b < fb.bands; b++) {
    let peak = fb.start[b]!;
    for (let k = 0; k < fb.length[b]!; k++) if (fb.weights[fb.offset[b]! + k] === 1) peak = fb.start[b]! + k;
    if (peak > bin) break;
    count++;
  }
  return count;
}

/** madmom's `_diff_frames`: hops until the window overlap falls below `ratio` of its peak, at least 1. */
export function diffFrames(window: Float64Array, hopSize: number, ratio = 0.5): number {
  let peak = 0;
  for (let i = 0; i < window.length; i++) peak = Math.max(peak, window[i]!);
  let first = 0;
  while (first < window.length && window[first]! <= ratio * peak) first++;
  return Math.max(1, Math.round((window.length / 2 - first) / hopSize));
}

/** Create a streaming SuperFlux onset-strength function for mono (or interleaved, mixed) input. */
export function createOnsetStrength(sampleRate: number, options: OnsetStrengthOptions = {}): OnsetStrengthStream {
  return new SuperFlux(sampleRate, options, 0);
}

/** Frame and hop size of a stream with these options. */
export function onsetFrameGeometry(
  sampleRate: number,
  options: OnsetStrengthOptions = {},
): { readonly frameSize: number; readonly hopSize: number } {
  const frameSize = options.frameSize ?? defaultFrameSize(sampleRate);
  return { frameSize, hopSize: options.hopSize ?? frameSize / 2 };
}

/** Frames a stream has computed, before `finish`, once it has been fed `samples` samples from the start. */
export function completeFrames(samples: number, frameSize: number, hopSize: number): number {
  return samples + frameSize / 2 < frameSize ? 0 : Math.floor((samples - frameSize / 2) / hopSize) + 1;
}

/** An onset-strength stream that starts at a later frame (see `createOnsetStrengthFrom`). */
export interface OnsetStrengthTail extends OnsetStrengthStream {
  /** The first frame whose values it gives. */
  readonly firstFrame: number;
  /** The sample (of the whole stream) to feed it from. */
  readonly startSample: number;
}

/**
 * An onset-strength stream for the part of a signal from frame `first` on, so that two threads can share
 * one envelope: fed the samples from its `startSample` on, it computes the μ frames before `first` only
 * for their maximum filter (the next frame's reference) and then gives, for frames first, first + 1, …,
 * exactly the values (envelope and accents) a stream fed from sample 0 gives, since a frame depends on
 * nothing but its own samples and the μ frames before it. Index 0 of its envelope is frame `first`.
 */
export function createOnsetStrengthFrom(sampleRate: number, first: number, options: OnsetStrengthOptions = {}): OnsetStrengthTail {
  return new SuperFlux(sampleRate, options, first);
}

/**
 * The streaming state. Hot loops run over preallocated Float64Arrays; nothing is allocated per frame
 * except when the envelope doubles its capacity.
 *
 * The periodic Hann window is applied in the frequency domain (`hannMagnitudes`, dsp/reference/): w[t] = ½ − ¼·e^{2πit/N}
 * − ¼·e^{−2πit/N}, so DFT(x·w)[k] = ½X[k] − ¼X[k−1] − ¼X[k+1] (Harris, "On the use of windows for harmonic
 * analysis with the discrete Fourier transform", Proc. IEEE 66(1), 1978). This is the spectrum of the frame
 * multiplied by `hannWindow(N)` (to rounding; the tests compare the two), for a few operations per used bin
 * instead of N multiplies per frame, and the frame buffer goes to the FFT as it is.
 */
class SuperFlux implements OnsetStrengthTail {
  readonly firstFrame: number;
  readonly startSample: number;
  readonly sampleRate: number;
  readonly frameSize: number;
  readonly hopSize: number;
  readonly frameRate: number;
  readonly bands: number;
  readonly lag: number;
  readonly bassBands: number;
  private readonly lambda: number;
  private readonly fb: LogFilterbank;
  private readonly fft: RealFft;
  private readonly kernels: FrameKernels;
  private readonly placedBank: PlacedFilterbank;
  /** The current frame's samples (the FFT's input); after each frame the last N − hop move to the front. */
  private readonly buf: Float64Array;
  private readonly mag: Float64Array;
  /** This frame's band values 1 + λ·Y (the log is taken lazily, see computeFrame). */
  private readonly lin: Float64Array;
  /** Max-filtered band values of the last μ frames (a ring of μ rows); 1 (log 0) before the first frame. */
  private readonly history: Float64Array;
  private readonly zeros: Float32Array;
  private historyRow = 0;
  /** Samples in `buf`; a frame is computed when it reaches N. */
  private fill: number;
  private env = new Float32Array(1024);
  private linear = new Float32Array(1024);
  private bass = new Float32Array(1024);
  private frames = 0;
  /** Frames still to compute for the history alone (a stream that starts at a later frame). */
  private warmUp: number;
  private finished = false;

  constructor(
    sampleRate: number,
    private readonly options: OnsetStrengthOptions,
    first: number,
  ) {
    const { frameSize: n, hopSize: hop } = onsetFrameGeometry(sampleRate, options);
    if (!(hop >= 1 && hop <= n && Number.isInteger(hop))) throw new RangeError('hop must be an integer between 1 and the frame size');
    this.sampleRate = sampleRate;
    this.frameSize = n;
    this.hopSize = hop;
    this.frameRate = sampleRate / hop;
    this.lambda = options.lambda ?? 10;
    this.fb = logFilterbank(
      n,
      sampleRate,
      options.bandsPerOctave ?? 24,
      options.fmin ?? 30,
      Math.min(options.fmax ?? 17000, sampleRate / 2),
    );
    this.bands = this.fb.bands;
    this.bassBands = Math.max(1, countBandsUpTo(this.fb, ((options.bassHz ?? BASS_HZ) * n) / sampleRate));
    this.lag = diffFrames(hannWindow(n), hop);
    // The frame is the FFT's own input (the transform leaves it as it is), and the magnitudes and band
    // values are computed in its WebAssembly kernel (dsp/frame-kernels.ts).
    this.fft = createRealFft(n, frameKernelWorkspace(n / 2 + 1 + this.bands, 2, undefined, this.fb)); // checks that n is a power of two
    this.kernels = new FrameKernels(this.fft);
    this.placedBank = this.kernels.placeFilterbank(this.fb);
    this.buf = this.fft.input;
    this.mag = this.fft.allocate(n / 2 + 1);
    this.lin = this.fft.allocate(this.bands);
    this.history = new Float64Array(this.lag * this.bands).fill(1);
    // Centred frames: frame 0 has N/2 zeros before the first sample. A later start begins μ frames
    // early with a full window of samples.
    this.firstFrame = first;
    this.warmUp = first > 0 ? this.lag : 0;
    this.startSample = first > 0 ? (first - this.lag) * hop - n / 2 : 0;
    if (first < 0 || !Number.isInteger(first) || this.startSample < 0) throw new RangeError(`cannot start at frame ${first}`);
    this.fill = first > 0 ? 0 : n / 2;
    this.zeros = new Float32Array(n / 2);
  }

  push(samples: Float32Array, channels = 1): void {
    if (this.finished) throw new Error('onset strength already finished');
    if (samples.length % channels !== 0) throw new RangeError('chunk length is not a multiple of the channel count');
    this.write(samples, channels, samples.length / channels);
  }

  finish(): Float32Array {
    if (!this.finished) {
      // N/2 zeros after the last sample: the last frame is centred at or before it.
      this.write(this.zeros, 1, this.frameSize / 2);
      this.finished = true;
    }
    return this.env.slice(0, this.frames);
  }

  accents(): AccentEnvelopes {
    if (!this.finished) throw new Error('accents() needs finish() first');
    return { linear: this.linear.slice(0, this.frames), bass: this.bass.slice(0, this.frames) };
  }

  fork(): OnsetStrengthStream {
    if (this.finished) throw new Error('cannot fork a finished onset strength');
    const copy = new SuperFlux(this.sampleRate, this.options, this.firstFrame);
    copy.warmUp = this.warmUp;
    copy.buf.set(this.buf);
    copy.history.set(this.history);
    copy.historyRow = this.historyRow;
    copy.fill = this.fill;
    copy.env = this.env.slice();
    copy.linear = this.linear.slice();
    copy.bass = this.bass.slice();
    copy.frames = this.frames;
    return copy;
  }

  /** Append `count` mono samples mixed from `src` (interleaved with `channels`). */
  private write(src: Float32Array, channels: number, count: number): void {
    const buf = this.buf;
    const n = this.frameSize;
    let f = 0;
    while (f < count) {
      let pos = this.fill;
      const take = Math.min(count - f, n - pos);
      if (channels === 1) {
        for (let i = 0; i < take; i++) buf[pos++] = src[f++]!;
      } else if (channels === 2) {
        for (let i = 0, s = 2 * f; i < take; i++, s += 2) buf[pos++] = (src[s]! + src[s + 1]!) * 0.5;
        f += take;
      } else {
        const scale = 1 / channels;
        for (let i = 0; i < take; i++, f++) {
          let sum = 0;
          for (let c = 0, s = f * channels; c < channels; c++, s++) sum += src[s]!;
          buf[pos++] = sum * scale;
        }
      }
      this.fill = pos;
      if (pos === n) {
        this.computeFrame();
        buf.copyWithin(0, this.hopSize, n);
        this.fill = n - this.hopSize;
      }
    }
  }

  private computeFrame(): void {
    const { fft, mag, lin, history, fb, lambda } = this;
    const bands = this.bands;
    fft.transform();
    // Band values in linear form, v = 1 + λ·Y (`hannMagnitudes`, then each band's weighted sum, in the
    // kernel). Since log is monotonic, max-filtering the logs equals the log of the max-filtered values,
    // and L − Lmax = log(v / vmax): only bands that rise need a logarithm.
    this.kernels.superFluxBands(mag, fb.start[0]!, fb.binEnd, this.placedBank, lambda, lin);
    // Flux against the max-filtered frame μ hops back, which sits in the row about to be overwritten.
    const base = this.historyRow * bands;
    // The bass bands come first: their sum is the bass channel. `rise` is the linear flux (times λ).
    const bassBands = this.bassBands;
    let flux = 0;
    let rise = 0;
    for (let b = 0; b < bassBands; b++) {
      const v = lin[b]!;
      const ref = history[base + b]!;
      if (v > ref) {
        flux += Math.log(v / ref);
        rise += v - ref;
      }
    }
    const bassFlux = flux;
    for (let b = bassBands; b < bands; b++) {
      const v = lin[b]!;
      const ref = history[base + b]!;
      if (v > ref) {
        flux += Math.log(v / ref);
        rise += v - ref;
      }
    }
    // Store this frame's max filter (size 3 over bands) in its place.
    const last = bands - 1;
    let prev = lin[0]!;
    let cur = prev;
    for (let b = 0; b < bands; b++) {
      const next = b < last ? lin[b + 1]! : cur;
      let m = prev > cur ? prev : cur;
      if (next > m) m = next;
      history[base + b] = m;
      prev = cur;
      cur = next;
    }
    this.historyRow = this.historyRow + 1 === this.lag ? 0 : this.historyRow + 1;
    if (this.warmUp > 0) {
      this.warmUp--;
      return;
    }
    if (this.frames === this.env.length) {
      this.env = grow(this.env);
      this.linear = grow(this.linear);
      this.bass = grow(this.bass);
    }
    const f = this.frames++;
    this.env[f] = (flux * Math.LOG10E) / bands; // mean log10 rise per band
    this.linear[f] = rise / (lambda * bands);
    this.bass[f] = (bassFlux * Math.LOG10E) / bassBands;
  }
}

function grow(a: Float32Array<ArrayBuffer>): Float32Array<ArrayBuffer> {
  const out = new Float32Array(a.length * 2);
  out.set(a);
  return out;
}

export interface PeakPickOptions {
  /** Seconds before / after a frame in which it must be the maximum (defaults 30 ms / 30 ms). */
  readonly preMax?: number;
  readonly postMax?: number;
  /** Seconds before / after a frame whose median sets the adaptive threshold (defaults 100 ms / 70 ms). */
  readonly preAvg?: number;
  readonly postAvg?: number;
  /** Fixed part of the threshold (envelope units: mean log10 flux per band; default `DEFAULT_DELTA`). */
  readonly delta?: number;
  /** Weight of the moving median in the threshold (default 1). */
  readonly medianWeight?: number;
  /** Minimum distance between onsets, seconds (default 30 ms, rounded up to frames); the earlier one is kept. */
  readonly wait?: number;
  /** Subtracted from every onset time, seconds (default `ONSET_LATENCY`). */
  readonly latency?: number;
}

/** Default fixed threshold, in mean log10 flux per band (a 2 dB rise in every band is 0.1). */
export const DEFAULT_DELTA = 0.03;

/**
 * Time correction for our defaults, seconds. None is needed: frames are centred, and on the synthesized
 * drum loops of the tests the interpolated peaks land within ±6 ms of the true onsets, about 1 ms early on
 * average (the flux peaks in the first frame whose window holds the attack near its middle).
 */
export const ONSET_LATENCY = 0;

/**
 * Peak picking (Böck, Krebs & Schedl 2012; librosa `util.peak_pick`), with the moving-median adaptive
 * threshold of Bello et al., "A tutorial on onset detection in music signals", IEEE TSAP 13(5), 2005,
 * §IV-B, in place of the moving mean. Frame n is an onset when
 * 1. env[n] = max(env[n − preMax .. n + postMax]),
 * 2. env[n] ≥ δ + w·median(env[n − preAvg .. n + postAvg]),
 * 3. n is at least `wait` after the previous onset (rounded up to whole frames).
 * A moving mean would be dominated by a loud onset just before (a snare lifts a 170 ms mean by a sixth of
 * its peak) and hide the softer hit that follows it; the median follows the floor between onsets.
 * The time of each peak is refined by a parabola through env[n−1..n+1] (vertex clamped to ±½ frame) and
 * reported as (n + p) / frameRate − latency: frames are centred, so no other compensation is needed.
 * Returns onset times in seconds, ascending.
 */
export function pickOnsets(env: Float32Array, frameRate: number, options: PeakPickOptions = {}): number[] {
  const frames = (s: number) => Math.round(s * frameRate);
  const preMax = frames(options.preMax ?? 0.03);
  const postMax = frames(options.postMax ?? 0.03);
  const preAvg = frames(options.preAvg ?? 0.1);
  const postAvg = frames(options.postAvg ?? 0.07);
  const wait = Math.ceil((options.wait ?? 0.03) * frameRate - 1e-9);
  const delta = options.delta ?? DEFAULT_DELTA;
  const medianWeight = options.medianWeight ?? 1;
  const latency = options.latency ?? ONSET_LATENCY;
  const len = env.length;
  const scratch = new Float64Array(preAvg + postAvg + 1);
  const out: number[] = [];
  let lastOnset = -Infinity;
  for (let i = 0; i < len; i++) {
    const v = env[i]!;
    if (v < delta || i - lastOnset < wait) continue;
    let isMax = true;
    for (let j = Math.max(0, i - preMax), j1 = Math.min(len - 1, i + postMax); j <= j1; j++) {
      if (env[j]! > v) {
        isMax = false;
        break;
      }
    }
    if (!isMax) continue;
    if (v < delta + medianWeight * windowMedian(env, Math.max(0, i - preAvg), Math.min(len, i + postAvg + 1), scratch)) continue;
    lastOnset = i;
    let p = 0;
    if (i > 0 && i < len - 1) {
      const l = env[i - 1]!;
      const r = env[i + 1]!;
      const denom = l - 2 * v + r;
      if (denom < 0) p = Math.max(-0.5, Math.min(0.5, (0.5 * (l - r)) / denom));
    }
    out.push(Math.max(0, (i + p) / frameRate - latency));
  }
  return out;
}

/** Median of env[from..to) (the mean of the two middle values for an even count); `scratch` holds ≥ to − from. */
function windowMedian(env: Float32Array, from: number, to: number, scratch: Float64Array): number {
  const count = to - from;
  // Insertion sort: the window is a couple of dozen values and this runs only at candidate peaks.
  for (let i = 0; i < count; i++) {
    const x = env[from + i]!;
    let j = i - 1;
    while (j >= 0 && scratch[j]! > x) {
      scratch[j + 1] = scratch[j]!;
      j--;
    }
    scratch[j + 1] = x;
  }
  const mid = count >> 1;
  return count % 2 === 1 ? scratch[mid]! : 0.5 * (scratch[mid - 1]! + scratch[mid]!);
}
