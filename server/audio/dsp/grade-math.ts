/**
 * Pure measurements behind the loop/one-shot grade (server/audio/engines/grade.ts): the seam at the wrap, the
 * zero-crossing cleanliness of the ends, a Linkwitz–Riley low pass for the bass band, a bounded per-hop
 * energy envelope, the refinement of a coarse tempo from onset times, bar-to-bar similarity, and the
 * score curves. Every function here works on plain arrays; nothing streams and nothing allocates per sample.
 *
 * Over 400 lines: a set of small independent measurements, each documented with its formula; they
 * are together because only the grade uses them.
 */
import type { Biquad } from './k-weighting.js';

/** Clamp to [0, 1]. */
export const clamp01 = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x);

/** 1 at or below `good`, 0 at or above `bad`, linear in between (`good` < `bad`). */
export function rampDown(x: number, good: number, bad: number): number {
  return clamp01((bad - x) / (bad - good));
}

/** 0 at or below `bad`, 1 at or above `good`, linear in between (`bad` < `good`). */
export function rampUp(x: number, bad: number, good: number): number {
  return clamp01((x - bad) / (good - bad));
}

/** 20·log10|x|, −Infinity for 0. */
export const ampToDb = (x: number): number => 20 * Math.log10(Math.abs(x));

/**
 * How audible a discontinuity or edge of linear size |amp| is on its own, 0..1: 0 at or below −60 dBFS, 1 at or
 * above −40 dBFS, linear in dB in between. Scales the edge penalties so that tiny edges never count.
 */
export function edgeAudibility(amp: number): number {
  if (amp === 0 || !Number.isFinite(amp)) return 0;
  return rampUp(ampToDb(amp), -60, -40);
}

/**
 * RBJ cookbook second-order low pass at `cutoff` Hz (a0 normalised to 1). Two cascaded sections with
 * Q = 1/√2 form a 4th-order Linkwitz–Riley low pass (−6 dB at the cutoff, −24 dB/octave above it).
 */
export function lowPassBiquad(cutoff: number, sampleRate: number, q = Math.SQRT1_2): Biquad {
  if (!(cutoff > 0 && cutoff < sampleRate / 2))
    throw new RangeError(`low-pass cutoff must lie in (0, ${sampleRate / 2}) Hz, got ${cutoff}`);
  const w0 = (2 * Math.PI * cutoff) / sampleRate;
  const cos = Math.cos(w0);
  const alpha = Math.sin(w0) / (2 * q);
  const a0 = 1 + alpha;
  return { b0: (1 - cos) / 2 / a0, b1: (1 - cos) / a0, b2: (1 - cos) / 2 / a0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0 };
}

/** The seam of one channel: the jump at the wrap and the typical sample-to-sample step beside it. */
export interface SeamMeasure {
  /** |x[0] − x[N−1]|. */
  readonly jump: number;
  /** RMS of the first `window` sample-to-sample differences after the start. */
  readonly startStep: number;
  /** RMS of the last `window` sample-to-sample differences before the end. */
  readonly endStep: number;
}

/**
 * Seam of channel `c`: `head` holds the first frames and `tail` the last frames of the clip (interleaved,
 * `channels` per frame, in time order; they may overlap for short clips). `window` differences are used on
 * each side (fewer when a side holds fewer frames).
 */
export function measureSeam(head: Float32Array, tail: Float32Array, channels: number, c: number, window: number): SeamMeasure {
  const headFrames = head.length / channels;
  const tailFrames = tail.length / channels;
  if (headFrames === 0 || tailFrames === 0) return { jump: 0, startStep: 0, endStep: 0 };
  const first = head[c]!;
  const last = tail[(tailFrames - 1) * channels + c]!;
  const rmsStep = (x: Float32Array, from: number, to: number): number => {
    // Differences x[i] − x[i−1] for frames i in [from, to).
    let s = 0;
    let n = 0;
    for (let i = Math.max(from, 1); i < to; i++, n++) {
      const d = x[i * channels + c]! - x[(i - 1) * channels + c]!;
      s += d * d;
    }
    return n === 0 ? 0 : Math.sqrt(s / n);
  };
  const wHead = Math.min(window, headFrames - 1);
  const wTail = Math.min(window, tailFrames - 1);
  return { jump: Math.abs(first - last), startStep: rmsStep(head, 1, wHead + 1), endStep: rmsStep(tail, tailFrames - wTail, tailFrames) };
}

/** Seam click ratio below which the wrap is as smooth as the signal beside it. */
export const SEAM_RATIO_GOOD = 2;
/** Seam click ratio at and above which the wrap is a plain click. */
export const SEAM_RATIO_BAD = 16;

/**
 * Score 0..1 of a seam: ratio = jump / max(startStep, endStep), the jump in units of the signal's own
 * step on the rougher side (a wrap into a transient is masked by it). Score falls from 1 at ratio 2 to 0
 * at ratio 16, log-linearly (one third per doubling), and the loss is scaled by `edgeAudibility(jump)`, so
 * jumps under −60 dBFS never count. Returns the ratio too (capped at 1e6 so that it stays finite).
 */
export function seamScore(m: SeamMeasure): { readonly score: number; readonly ratio: number } {
  const step = Math.max(m.startStep, m.endStep);
  const ratio = m.jump === 0 ? 0 : step > 0 ? Math.min(1e6, m.jump / step) : 1e6;
  const loss = ratio <= SEAM_RATIO_GOOD ? 0 : clamp01(Math.log2(ratio / SEAM_RATIO_GOOD) / Math.log2(SEAM_RATIO_BAD / SEAM_RATIO_GOOD));
  return { score: 1 - loss * edgeAudibility(m.jump), ratio };
}

/** One end of one channel: how far its edge sample sits from zero. */
export interface EdgeMeasure {
  /** The edge sample (x[0] for the start, x[N−1] for the end). */
  readonly value: number;
  /** Peak |x| over the `window` frames at that end (≥ |value|). */
  readonly localPeak: number;
  /** |value| / localPeak, 0..1 (0 when the window is silent): 0 at a zero crossing, 1 at a peak. */
  readonly relative: number;
  /** Frames from the edge to the nearest sign change (or exact zero) within the window; null if none. */
  readonly crossingDistance: number | null;
}

/**
 * Edge of channel `c` of `frames` (interleaved, time order). `atStart` measures frame 0 and the frames after
 * it, otherwise the last frame and the frames before it. `window` frames are examined.
 */
export function measureEdge(frames: Float32Array, channels: number, c: number, atStart: boolean, window: number): EdgeMeasure {
  const n = frames.length / channels;
  if (n === 0) return { value: 0, localPeak: 0, relative: 0, crossingDistance: null };
  const w = Math.min(window, n);
  const at = (k: number): number => frames[(atStart ? k : n - 1 - k) * channels + c]!;
  const value = at(0);
  let peak = 0;
  let crossing: number | null = value === 0 ? 0 : null;
  for (let k = 0; k < w; k++) {
    const v = at(k);
    const a = Math.abs(v);
    if (a > peak) peak = a;
    if (crossing === null && k > 0 && (v === 0 || v > 0 !== at(k - 1) > 0)) crossing = k;
  }
  return { value, localPeak: peak, relative: peak > 0 ? Math.abs(value) / peak : 0, crossingDistance: crossing };
}

/**
 * Score 0..1 of an edge: 1 − relative · edgeAudibility(|value|). An edge on a zero crossing (relative ≈ 0)
 * or under −60 dBFS scores 1; a cut at the crest of a waveform louder than −40 dBFS scores 0.
 */
export function edgeScore(m: EdgeMeasure): number {
  return 1 - m.relative * edgeAudibility(m.value);
}

/**
 * A per-hop envelope of `bands` energies whose memory is bounded: once `capacity` hops are stored, adjacent
 * pairs are merged (summed) and the hop doubles, so any length fits in `capacity` × `bands` doubles (the
 * storage grows by doubling up to that). The values are sums over the frames of each hop (not means), so
 * merging is exact.
 */
export class HopEnvelope {
  readonly bands: number;
  readonly capacity: number;
  /** Frames per stored hop (doubles on each merge). */
  hopFrames: number;
  /** Stored hops. */
  count = 0;
  private store: Float64Array;

  constructor(bands: number, capacity: number, hopFrames: number) {
    if (!(Number.isInteger(capacity) && capacity >= 2 && capacity % 2 === 0))
      throw new RangeError(`envelope capacity must be an even integer ≥ 2, got ${capacity}`);
    this.bands = bands;
    this.capacity = capacity;
    this.hopFrames = hopFrames;
    this.store = new Float64Array(Math.min(capacity, 1024) * bands);
  }

  /** Hop-major values: data[h · bands + b] for h < count. */
  get data(): Float64Array {
    return this.store;
  }

  /**
   * Store one hop of `hopFrames` frames (read `hopFrames` before accumulating each hop: when this push fills
   * the capacity, the stored hops are merged in pairs and the next hop is twice as long).
   */
  push(values: ArrayLike<number>): void {
    const { bands } = this;
    if ((this.count + 1) * bands > this.store.length) {
      const grown = new Float64Array(Math.min(this.capacity, 2 * (this.store.length / bands)) * bands);
      grown.set(this.store);
      this.store = grown;
    }
    const o = this.count * bands;
    for (let b = 0; b < bands; b++) this.store[o + b] = values[b]!;
    if (++this.count === this.capacity) this.merge();
  }

  private merge(): void {
    const { bands, store } = this;
    const half = this.count >> 1;
    for (let h = 0; h < half; h++) {
      for (let b = 0; b < bands; b++) store[h * bands + b] = store[2 * h * bands + b]! + store[(2 * h + 1) * bands + b]!;
    }
    store.fill(0, half * bands);
    this.count = half;
    this.hopFrames *= 2;
  }
}

/** A tempo refined from onset times on a metrical grid. */
export interface RefinedBeat {
  /** Beat period, seconds. */
  readonly beat: number;
  /** Grid level used: 4 = 16ths, 3 = 8th triplets, 2 = 8ths, 1 = beats. */
  readonly subdivision: number;
  /** Phase coherence of the onsets on that grid, 0..1 (mean resultant length). */
  readonly coherence: number;
  /** Onsets within a fifth of a grid step of the fitted grid, used by the fit. */
  readonly onsetsUsed: number;
  /** RMS residual of the fit, seconds. */
  readonly residual: number;
  /** Standard error of `beat` from the least-squares fit, seconds (ordinary least squares: s / √Σ(m − m̄)²). */
  readonly beatStdError: number;
}

/** Relative search range around the coarse tempo (the onsets engine is within ±2 % on straight 4/4). */
export const TEMPO_SEARCH = 0.04;
/** A grid whose phase coherence is under this is not trusted. */
export const MIN_COHERENCE = 0.35;

/** |Σ exp(2πi·t/P)| / K and the grid phase (seconds, in [0, P)). */
function resultant(onsets: readonly number[], period: number): { r: number; phase: number } {
  let re = 0;
  let im = 0;
  const w = (2 * Math.PI) / period;
  for (const t of onsets) {
    re += Math.cos(w * t);
    im += Math.sin(w * t);
  }
  const angle = Math.atan2(im, re);
  return { r: Math.hypot(re, im) / onsets.length, phase: ((angle < 0 ? angle + 2 * Math.PI : angle) / w) % period };
}

/**
 * Refine a coarse beat period (seconds) from onset times: for each grid level (16ths, 8th triplets, 8ths,
 * beats) the grid period within ±`TEMPO_SEARCH` of the coarse one that maximises the onsets' phase coherence
 * is found (a scan at an eighth of the peak width, P²/span, then a parabolic step); the most coherent level
 * wins, and a least-squares line through (grid index, onset time) of the onsets near the grid gives the
 * period. Systematic offsets inside the bar (swing, flams) repeat every bar and do not bias the slope.
 * Returns null with fewer than 4 onsets, an onset span under two grid steps, or coherence under
 * `MIN_COHERENCE`.
 */
export function refineBeatPeriod(onsets: readonly number[], coarseBeat: number): RefinedBeat | null {
  if (onsets.length < 4 || !(coarseBeat > 0)) return null;
  const span = onsets[onsets.length - 1]! - onsets[0]!;
  let best: { sub: number; period: number; r: number; phase: number } | null = null;
  for (const sub of [4, 3, 2, 1]) {
    const p0 = coarseBeat / sub;
    if (span < 2 * p0) continue;
    const step = (p0 * p0) / (8 * span);
    const lo = p0 * (1 - TEMPO_SEARCH);
    const steps = Math.min(4000, Math.ceil((2 * TEMPO_SEARCH * p0) / step));
    const dp = (2 * TEMPO_SEARCH * p0) / steps;
    let bi = 0;
    let br = -1;
    const rs = new Float64Array(steps + 1);
    for (let i = 0; i <= steps; i++) {
      rs[i] = resultant(onsets, lo + i * dp).r;
      if (rs[i]! > br) {
        br = rs[i]!;
        bi = i;
      }
    }
    let p = lo + bi * dp;
    if (bi > 0 && bi < steps) {
      const a = rs[bi - 1]!;
      const c = rs[bi + 1]!;
      const den = a - 2 * br + c;
      if (den < 0) p += (0.5 * (a - c) * dp) / den;
    }
    const res = resultant(onsets, p);
    if (!best || res.r > best.r + 1e-9) best = { sub, period: p, r: res.r, phase: res.phase };
  }
  if (!best || best.r < MIN_COHERENCE) return null;
  // Least squares t = a + b·m over the onsets near the grid, twice (the second pass on the refitted grid).
  let period = best.period;
  let phase = best.phase;
  let used = 0;
  let residual = 0;
  let stdError = 0;
  for (let pass = 0; pass < 2; pass++) {
    let n = 0,
      sm = 0,
      st = 0,
      smm = 0,
      smt = 0;
    const ms: number[] = [];
    const ts: number[] = [];
    for (const t of onsets) {
      const m = Math.round((t - phase) / period);
      if (Math.abs(t - phase - m * period) > 0.2 * period) continue;
      ms.push(m);
      ts.push(t);
      n++;
      sm += m;
      st += t;
      smm += m * m;
      smt += m * t;
    }
    const den = n * smm - sm * sm;
    if (n < 4 || den <= 0) return null;
    const b = (n * smt - sm * st) / den;
    const a = (st - b * sm) / n;
    if (!(b > 0)) return null;
    let ss = 0;
    for (let k = 0; k < n; k++) ss += (ts[k]! - a - b * ms[k]!) ** 2;
    period = b;
    phase = a;
    used = n;
    residual = Math.sqrt(ss / n);
    // s² = SS / (n − 2) and Σ(m − m̄)² = den / n; an exact fit of 4+ onsets has 0.
    stdError = n > 2 ? Math.sqrt(ss / (n - 2) / (den / n)) : Infinity;
  }
  const beat = period * best.sub;
  if (Math.abs(beat / coarseBeat - 1) > TEMPO_SEARCH * 1.5) return null;
  return { beat, subdivision: best.sub, coherence: best.r, onsetsUsed: used, residual, beatStdError: stdError * best.sub };
}

/** Steps per bar in the bar envelopes (16ths in 4/4). */
export const STEPS_PER_BAR = 16;
/** Energy floor of the step envelopes (mean power per frame, −80 dBFS). */
const STEP_FLOOR = 1e-8;
/** Agreement floor of `concordance`, dB: envelopes flatter than this count as alike when their levels agree. */
export const CONCORDANCE_FLOOR_DB = 1.5;

/**
 * Lin's concordance correlation of two equal-length vectors with a floor: (2·cov + 2f²) / (var_a + var_b +
 * (mean_a − mean_b)² + 2f²), f = `CONCORDANCE_FLOOR_DB`. Identical vectors give 1; unlike a Pearson
 * correlation, two flat envelopes at the same level also give about 1, and a level difference lowers it.
 * Range −1..1.
 */
export function concordance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  let ma = 0,
    mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let va = 0,
    vb = 0,
    cov = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i]! - ma;
    const db = b[i]! - mb;
    va += da * da;
    vb += db * db;
    cov += da * db;
  }
  va /= n;
  vb /= n;
  cov /= n;
  const f2 = CONCORDANCE_FLOOR_DB * CONCORDANCE_FLOOR_DB;
  return (2 * cov + 2 * f2) / (va + vb + (ma - mb) ** 2 + 2 * f2);
}

/**
 * Per-bar step envelopes from a hop envelope: for bar i and band b, `STEPS_PER_BAR` values of
 * 10·log10(mean energy per frame over the step), the steps cut at fractional hop positions (the energy of a
 * partly covered hop counted pro rata). Bars start at frame 0 and last `barFrames` frames; `bars` bars are
 * taken. Returns env[i][b] arrays.
 */
export function barEnvelopes(env: HopEnvelope, barFrames: number, bars: number): Float64Array[][] {
  const { bands, hopFrames, count, data } = env;
  // prefix[b][h] = Σ energies of hops < h.
  const prefix: Float64Array[] = [];
  for (let b = 0; b < bands; b++) {
    const p = new Float64Array(count + 1);
    for (let h = 0; h < count; h++) p[h + 1] = p[h]! + data[h * bands + b]!;
    prefix.push(p);
  }
  const cumulative = (b: number, frame: number): number => {
    const pos = Math.min(count, Math.max(0, frame / hopFrames));
    const h = Math.floor(pos);
    const p = prefix[b]!;
    return h >= count ? p[count]! : p[h]! + (pos - h) * data[h * bands + b]!;
  };
  const out: Float64Array[][] = [];
  for (let i = 0; i < bars; i++) {
    const bar: Float64Array[] = [];
    for (let b = 0; b < bands; b++) {
      const v = new Float64Array(STEPS_PER_BAR);
      for (let s = 0; s < STEPS_PER_BAR; s++) {
        const f0 = (i + s / STEPS_PER_BAR) * barFrames;
        const f1 = (i + (s + 1) / STEPS_PER_BAR) * barFrames;
        const e = (cumulative(b, f1) - cumulative(b, f0)) / (f1 - f0);
        v[s] = 10 * Math.log10(e + STEP_FLOOR);
      }
      bar.push(v);
    }
    out.push(bar);
  }
  return out;
}

/** Steps more than this below the louder bar's loudest step (per band) are raised to that level. */
export const SIMILARITY_RANGE_DB = 30;

/**
 * Bar-to-bar similarity: the mean, over consecutive bar pairs and bands, of the `concordance` of their step
 * envelopes (dB), each pair's values floored at `SIMILARITY_RANGE_DB` under its loudest step (near-silent
 * steps carry only decay tails and a hit's leading edge, whose dB values are noise). Null with fewer than
 * two bars.
 */
export function barSimilarity(bars: readonly (readonly Float64Array[])[]): number | null {
  if (bars.length < 2) return null;
  let sum = 0;
  let n = 0;
  for (let i = 0; i + 1 < bars.length; i++) {
    const a = bars[i]!;
    const b = bars[i + 1]!;
    for (let k = 0; k < a.length; k++, n++) {
      const x = a[k]!;
      const y = b[k]!;
      let top = -Infinity;
      for (let s = 0; s < x.length; s++) top = Math.max(top, x[s]!, y[s]!);
      const floor = top - SIMILARITY_RANGE_DB;
      sum += concordance(
        x.map((v) => Math.max(v, floor)),
        y.map((v) => Math.max(v, floor)),
      );
    }
  }
  return n === 0 ? null : sum / n;
}

/** Pearson correlation from sums of squares and products; null when either side has no energy. */
export function correlationOf(sxx: number, syy: number, sxy: number): number | null {
  if (!(sxx > 0 && syy > 0)) return null;
  const r = sxy / Math.sqrt(sxx * syy);
  return r > 1 ? 1 : r < -1 ? -1 : r;
}
