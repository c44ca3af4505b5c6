/**
 * Building blocks of the per-sample analysis (server/audio/engines/sample-analysis.ts): median-filter HPSS,
 * spectral peak and flatness measures, envelope shape, onset picking and a beat-period estimate. All pure
 * numeric code over preallocated typed arrays.
 *
 * Over 400 lines: small independent building blocks, each documented, used only by the samples engine.
 */

import { createRealFft, type RealFft } from './fft.js';
import { SampleFrameKernels } from './frame-kernels.js';

/** A Float64Array that grows by doubling; `view()` is the filled part. */
export class GrowableArray {
  private data: Float64Array;
  length = 0;

  constructor(initial = 256) {
    this.data = new Float64Array(Math.max(1, initial));
  }

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Median of five values (branch-free: the median of e and the middle pair of a, b, c, d's pairwise extremes). */
export function median5(a: number, b: number, c: number, d: number, e: number): number {
  const f = Math.max(Math.min(a, b), Math.min(c, d));
  const g = Math.min(Math.max(a, b), Math.max(c, d));
  return Math.max(Math.min(e, f), Math.min(Math.max(e, f), g));
}

/**
 * Harmonic/percussive separation by median filtering (Fitzgerald 2010, "Harmonic/percussive separation
 * using median filtering", DAFx-10), reduced to the two energies it separates. Each magnitude bin is
 * compared with the median over time (harmonic estimate: what persists) and the median over frequency
 * (percussive estimate: what is broadband), and the frame's power is split by the soft Wiener mask
 * P²/(H² + P²). The medians span 9 frames and 9 bins, sampled every second one (5 taps: t−4, t−2, t,
 * t+2, t+4), which keeps the filter's reach at a third of the cost, and only every second frame is
 * split (the result is a ratio of sums, so a regular subsample of frames estimates it). Frames arrive one
 * at a time; a frame is split once the four after it have arrived (`flush` pads the end with silent
 * frames, as the start is padded).
 *
 * The rows and the split run in a WebAssembly kernel (dsp/frame-kernels.ts, two bins per SIMD
 * instruction), in the memory of the FFT given (the caller's, whose power spectra it splits: then `push`
 * copies nothing) or of a small one of its own.
 */
export class StreamingHpss {
  readonly bins: number;
  /** Power assigned to the percussive and harmonic parts so far. */
  percussive = 0;
  harmonic = 0;
  private readonly kernels: SampleFrameKernels;
  private readonly fft: RealFft;
  /** Ring of 9 magnitude rows, then one silent row (slot 9) for frames before the start. */
  private readonly mags: Float64Array[];
  private readonly powers: Float64Array[];
  /** A pushed spectrum from outside the kernel's memory is copied here first. */
  private readonly staging: Float64Array;
  /** Frames in the ring so far (real and padding), real frames, and frames split. */
  private pushed = 0;
  private real = 0;
  private done = 0;
  private static readonly K = 9;
  private static readonly HALF = 4;

  /** Workspace bytes an HPSS of `bins` bins takes from its FFT. */
  static workspace(bins: number): number {
    const b = Math.max(9, bins);
    return (2 * StreamingHpss.K + 2) * (8 * b + 16) + 64;
  }

  constructor(bins: number, fft?: RealFft) {
    this.bins = Math.max(9, bins);
    this.fft = fft ?? createRealFft(4, StreamingHpss.workspace(bins));
    this.kernels = new SampleFrameKernels(this.fft);
    const row = () => this.fft.allocate(this.bins);
    this.mags = Array.from({ length: StreamingHpss.K + 1 }, row);
    this.powers = Array.from({ length: StreamingHpss.K }, row);
    this.staging = row();
  }

  /** One frame's power spectrum (the first `bins` values are used). */
  push(power: Float64Array): void {
    const bins = this.bins;
    const slot = this.pushed % StreamingHpss.K;
    let src = power;
    if (power.buffer !== this.fft.buffer) {
      this.staging.set(power.subarray(0, bins));
      src = this.staging;
    }
    this.kernels.hpssRow(src, this.powers[slot]!, this.mags[slot]!, bins);
    this.pushed++;
    this.real++;
    if (this.pushed - 1 - StreamingHpss.HALF >= 0) this.advance();
  }

  /** The next frame is ready: split it if it is an even one (the shares are averages, so every second frame is enough). */
  private advance(): void {
    const frame = this.done++;
    if ((frame & 1) === 0) this.split(frame);
  }

  /** Split the frames still waiting for their successors (the end is padded with silent frames). */
  flush(): void {
    while (this.done < this.real) {
      const slot = this.pushed % StreamingHpss.K;
      this.powers[slot]!.fill(0);
      this.mags[slot]!.fill(0);
      this.pushed++;
      this.advance();
    }
  }

  private split(frame: number): void {
    const K = StreamingHpss.K;
    const row = (f: number) => this.mags[f < 0 ? K : f % K]!;
    const out = this.kernels.hpssSplit(
      [row(frame - 4), row(frame - 2), row(frame), row(frame + 2), row(frame + 4)],
      this.powers[frame % K]!,
      this.bins,
    );
    this.percussive += out[0]!;
    this.harmonic += out[1]!;
  }
}

/**
 * Shape measures of one power spectrum, from one pass of logarithms (each power floored at 100 dB below
 * the frame's strongest bin):
 * - `flatness` of bins [flatLo, hi]: spectral flatness (Wiener entropy), geometric over arithmetic mean,
 *   0 (tonal) .. 1 (white noise);
 * - `tonal` of bins [lo, hi]: the share of their power in spectral peaks — a bin that is a local maximum
 *   and at least 10 dB above the geometric mean of the 17 bins around it counts with its ±2 neighbours
 *   (a Hann window's main lobe). The geometric mean follows the valleys, so dense partials (chords) still
 *   count as peaks: about 1 for sums of stable partials, near 0 for noise;
 * - `power`: the total power of bins [lo, hi].
 */
export class SpectralShape {
  flatness = 0;
  tonal = 0;
  power = 0;
  private readonly logs: Float64Array;
  private readonly prefix: Float64Array;
  private readonly logPrefix: Float64Array;

  constructor(bins: number) {
    this.logs = new Float64Array(bins + 1);
    this.prefix = new Float64Array(bins + 2);
    this.logPrefix = new Float64Array(bins + 2);
  }

  analyse(power: Float64Array, lo: number, flatLo: number, hi: number): void {
    let max = 0;
    for (let k = lo; k <= hi; k++) if (power[k]! > max) max = power[k]!;
    if (!(max > 0)) {
      this.flatness = 0;
      this.tonal = 0;
      this.power = 0;
      return;
    }
    const floor = max * 1e-10;
    const logs = this.logs;
    const prefix = this.prefix;
    const logPrefix = this.logPrefix;
    prefix[lo] = 0;
    logPrefix[lo] = 0;
    for (let k = lo; k <= hi; k++) {
      const p = power[k]!;
      const l = Math.log(p + floor);
      logs[k] = l;
      prefix[k + 1] = prefix[k]! + p;
      logPrefix[k + 1] = logPrefix[k]! + l;
    }
    const total = prefix[hi + 1]!;
    this.power = total;
    const count = hi - flatLo + 1;
    const arith = (prefix[hi + 1]! - prefix[flatLo]!) / count + floor;
    this.flatness = Math.min(1, Math.exp((logPrefix[hi + 1]! - logPrefix[flatLo]!) / count) / arith);
    const tenDb = Math.LN10;
    let peaks = 0;
    // Bins below `counted` are already in a peak (peaks closer than five bins share their flanks).
    let counted = lo;
    for (let k = lo + 2; k <= hi - 2; k++) {
      const p = power[k]!;
      if (p >= power[k - 1]! && p > power[k + 1]!) {
        const a = Math.max(lo, k - 8);
        const b = Math.min(hi, k + 8);
        const meanLog = (logPrefix[b + 1]! - logPrefix[a]!) / (b - a + 1);
        if (logs[k]! - meanLog >= tenDb) {
          const from = Math.max(counted, k - 2);
          peaks += prefix[k + 3]! - prefix[from]!;
          counted = k + 3;
        }
      }
    }
    this.tonal = total > 0 ? peaks / total : 0;
  }
}

/** dB of a power value, floored at −200. */
export const powerDb = (p: number): number => (p > 1e-20 ? 10 * Math.log10(p) : -200);

export interface EnvelopeShape {
  /** Index of the loudest block. */
  readonly peakBlock: number;
  readonly peakDb: number;
  /** First and last block within `activeDb` of the peak. */
  readonly firstActive: number;
  readonly lastActive: number;
  /**
   * Attack of the first event: blocks from the first active block to the first one within 3 dB of the
   * loudest block of the next 2 s — or only up to `eventEnd` when the next event starts sooner and the
   * first had already peaked and fallen 3 dB by then.
   */
  readonly attackBlocks: number;
  /** Blocks from the peak to the first block 15 dB below it (to the end when the level never falls that far). */
  readonly decayBlocks: number;
  /** Fraction of all blocks within 20 dB of the peak. */
  readonly sustain: number;
  /**
   * Mean, over the blocks within 25 dB of the peak, of how far (dB, capped at 30) each lies below the
   * loudest block of the 0.3 s up to it: about 0 for held or rising sounds, large for hits that decay fast.
   */
  readonly meanDropDb: number;
}

/**
 * Shape of a block-power envelope (one value per block of `blockSeconds`). Levels are relative to the
 * loudest block, so the measures do not depend on the level. `eventEnd` (a block index) is where the
 * second event starts, if known.
 */
export function envelopeShape(power: Float64Array, blockSeconds: number, eventEnd = Infinity, activeDb = 30): EnvelopeShape {
  const n = power.length;
  let peakBlock = 0;
  for (let i = 1; i < n; i++) if (power[i]! > power[peakBlock]!) peakBlock = i;
  const peakDb = n > 0 ? powerDb(power[peakBlock]!) : -200;
  const db = new Float64Array(n);
  for (let i = 0; i < n; i++) db[i] = Math.max(powerDb(power[i]!), peakDb - 100);
  let firstActive = 0;
  while (firstActive < n - 1 && db[firstActive]! < peakDb - activeDb) firstActive++;
  let lastActive = n - 1;
  while (lastActive > firstActive && db[lastActive]! < peakDb - activeDb) lastActive--;
  const span = Math.max(1, Math.round(2 / blockSeconds));
  let limit = Math.min(n, firstActive + span);
  // The next event bounds the first only if the first had peaked and fallen 3 dB before it (a rise
  // that merely shows several onsets is one event).
  const end = Math.max(firstActive + 1, Math.min(limit, eventEnd));
  if (end < limit) {
    let top = firstActive;
    for (let i = firstActive; i < end; i++) if (db[i]! > db[top]!) top = i;
    let dip = Infinity;
    for (let i = top; i < end; i++) dip = Math.min(dip, db[i]!);
    if (dip <= db[top]! - 3) limit = end;
  }
  let localMax = -Infinity;
  for (let i = firstActive; i < limit; i++) localMax = Math.max(localMax, db[i]!);
  let attackBlocks = 0;
  while (firstActive + attackBlocks < n - 1 && db[firstActive + attackBlocks]! < localMax - 3) attackBlocks++;
  let fallen = peakBlock;
  while (fallen < n - 1 && db[fallen]! > peakDb - 15) fallen++;
  let loud = 0;
  for (let i = 0; i < n; i++) if (db[i]! >= peakDb - 20) loud++;
  // Sliding maximum over the last 0.3 s (monotonic deque of indices).
  const w = Math.max(1, Math.round(0.3 / blockSeconds));
  const deque = new Int32Array(n);
  let head = 0;
  let tail = 0;
  let drop = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    while (tail > head && db[deque[tail - 1]!]! <= db[i]!) tail--;
    deque[tail++] = i;
    while (deque[head]! <= i - w) head++;
    if (db[i]! >= peakDb - 25) {
      drop += Math.min(30, db[deque[head]!]! - db[i]!);
      count++;
    }
  }
  return {
    peakBlock,
    peakDb,
    firstActive,
    lastActive,
    attackBlocks,
    decayBlocks: fallen - peakBlock,
    sustain: n > 0 ? loud / n : 0,
    meanDropDb: count > 0 ? drop / count : 0,
  };
}

/**
 * Onsets of an onset-strength curve: local maxima over ±`radius` frames that exceed `threshold` and the
 * curve's mean over the surrounding ±`radius·4` frames by `threshold / 2`. Returns frame indices.
 */
export function pickPeaks(curve: Float64Array, threshold: number, radius = 2): number[] {
  const out: number[] = [];
  const n = curve.length;
  for (let i = 0; i < n; i++) {
    const v = curve[i]!;
    if (v < threshold) continue;
    let isMax = true;
    for (let j = Math.max(0, i - radius); j <= Math.min(n - 1, i + radius); j++) {
      if (curve[j]! > v || (curve[j]! === v && j < i)) {
        isMax = false;
        break;
      }
    }
    if (!isMax) continue;
    let mean = 0;
    const a = Math.max(0, i - radius * 4);
    const b = Math.min(n - 1, i + radius * 4);
    for (let j = a; j <= b; j++) mean += curve[j]!;
    mean /= b - a + 1;
    if (v >= mean + threshold / 2) out.push(i);
  }
  return out;
}

export interface BeatPeriod {
  readonly bpm: number;
  /** Normalised autocorrelation of the onset curve at the beat lag, 0..1. */
  readonly strength: number;
}

/**
 * Beat period of an onset-strength curve sampled at `rate` Hz: the lag in [60/maxBpm, 60/minBpm] s with
 * the highest autocorrelation (mean removed, normalised by lag 0), weighted by a log-normal tempo prior
 * centred on 120 BPM (σ one octave) as in Ellis 2007 and librosa. The lag is refined by parabolic
 * interpolation, then by the peaks near 2 and 4 times it where the curve is long enough (a longer lag
 * divides its interpolation error). Null when the curve is flat or shorter than two beats.
 */
export function beatPeriod(curve: Float64Array, rate: number, minBpm = 70, maxBpm = 180): BeatPeriod | null {
  const n = curve.length;
  const lagMin = Math.max(1, Math.floor((60 * rate) / maxBpm));
  const lagMax = Math.ceil((60 * rate) / minBpm);
  if (n < 2 * lagMin + 2) return null;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += curve[i]!;
  mean /= n;
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = curve[i]! - mean;
  const ac = (lag: number) => {
    let s = 0;
    for (let i = 0; i + lag < n; i++) s += x[i]! * x[i + lag]!;
    // Unbiased: a long lag sums fewer products.
    return (s * n) / (n - lag);
  };
  const a0 = ac(0);
  if (!(a0 > 0)) return null;
  const top = Math.min(lagMax + 1, Math.floor(n / 2));
  if (top <= lagMin) return null;
  const values = new Float64Array(top + 2);
  for (let lag = lagMin - 1; lag <= top + 1 && lag < n; lag++) values[lag] = ac(lag) / a0;
  let best = -1;
  let bestScore = -Infinity;
  for (let lag = lagMin; lag <= Math.min(lagMax, top); lag++) {
    const v = values[lag]!;
    if (!(v >= values[lag - 1]! && v >= values[lag + 1]!)) continue;
    const bpm = (60 * rate) / lag;
    const prior = Math.exp(-0.5 * Math.log2(bpm / 120) ** 2);
    const score = v * prior;
    if (score > bestScore) {
      bestScore = score;
      best = lag;
    }
  }
  if (best < 0) return null;
  // A periodic pattern correlates as well at two beats as at one, so the prior alone would halve a
  // fast tempo (174 → 87): take the half lag when it is nearly as strong. Off-beats weaker than the
  // beats (a kick on the beat, a hat between) keep it well below.
  const half = Math.round(best / 2);
  if (half - 1 >= lagMin) {
    let peak = half - 1;
    for (let lag = half; lag <= half + 1; lag++) if (values[lag]! > values[peak]!) peak = lag;
    if (values[peak]! >= 0.8 * values[best]! && values[peak]! >= values[peak - 1]! && values[peak]! >= values[peak + 1]!) best = peak;
  }
  const strength = values[best]!;
  let period = best + parabolicShift(values[best - 1]!, values[best]!, values[best + 1]!);
  for (const mult of [2, 4]) {
    const centre = Math.round(period * mult);
    if (centre + 2 >= n / 2) break;
    let peak = centre;
    let pv = ac(centre);
    for (let lag = centre - 2; lag <= centre + 2; lag++) {
      const v = ac(lag);
      if (v > pv) {
        pv = v;
        peak = lag;
      }
    }
    if (pv / a0 < strength * 0.5) break;
    period = (peak + parabolicShift(ac(peak - 1), pv, ac(peak + 1))) / mult;
  }
  return { bpm: (60 * rate) / period, strength: Math.max(0, Math.min(1, strength)) };
}

/** Offset of a parabola's vertex through (−1, a), (0, b), (1, c), in −0.5..0.5. */
export function parabolicShift(a: number, b: number, c: number): number {
  const den = a - 2 * b + c;
  if (!(den < 0)) return 0;
  return Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / den));
}

/** Linear ramp: 0 at or below `from`, 1 at or above `to` (either direction). */
export function ramp(x: number, from: number, to: number): number {
  const t = (x - from) / (to - from);
  return t <= 0 ? 0 : t >= 1 ? 1 : t;
}
