/**
 * Harmonic timbre descriptors of one pitched frame, from its power spectrum and its f0, with the
 * definitions of Peeters, Giordano, Susini, Misdariis & McAdams 2011, "The Timbre Toolbox: extracting audio
 * descriptors from musical signals" (JASA 130(5)) and Peeters 2004, "A large set of audio features for
 * sound description" (CUIDADO project report), over the amplitudes a_h and frequencies f_h of partials
 * h = 1..H:
 *
 * - tristimulus (Pollard & Jansson 1982, "A tristimulus method for the specification of musical timbre",
 *   Acustica 51): T1 = a_1/Σa, T2 = (a_2 + a_3 + a_4)/Σa, T3 = Σ_{h≥5} a_h/Σa (sum 1);
 * - even-harmonic share: Σ_{h even} a_h² / Σ_{h≥2} a_h², 0..1 (the Timbre Toolbox's odd-to-even ratio
 *   turned into a bounded share, the fundamental left out: 0 for a square wave, whose even partials are
 *   absent, about 0.66 for a sawtooth);
 * - harmonic centroid: Σ h·a_h / Σ a_h, in harmonic ranks (brightness independent of the pitch);
 * - harmonic spectral deviation, Jensen's irregularity (Jensen 1999, "Timbre models of musical sounds",
 *   PhD thesis, DIKU): Σ_{h<H} (a_h − a_{h+1})² / Σ a_h²;
 * - inharmonicity coefficient B of a stiff string, f_h = h·F·√(1 + B·h²) (Fletcher 1964, "Normal vibration
 *   frequencies of a stiff piano string", JASA 36(1)): the least-squares line (f_h/h)² = F² + F²B·h² over
 *   the partials found, weighted by a_h², B = slope/intercept (0 for a harmonic series);
 * - noisiness (Peeters 2004): the share of the frame's energy outside the partials' main lobes, 0..1.
 *
 * Partials are searched in turn, each within ±30 % of f0 around where the partials found so far predict it
 * (h times the first partial until three stand within 60 dB of the strongest, then the stiff-string fit of
 * those), as the highest bin with parabolic interpolation
 * of its log power; a partial weaker than 60 dB below the strongest counts as absent (amplitude 0). No I/O;
 * nothing allocates per frame (`HarmonicTimbre` keeps fixed scratch).
 */
import { createRealFft, type RealFft } from './fft.js';
import { parabolicShift } from './role-features.js';
import { hannWindow } from './window.js';

/** Partials searched at most. */
export const MAX_PARTIALS = 20;
/** A partial more than this far (dB) below the frame's strongest is treated as absent. */
const ABSENT_DB = 60;
/** Half-width of the search window around a predicted partial, as a fraction of f0. */
const SEARCH = 0.3;

/** The partials of one frame: amplitudes (√power) and frequencies, Hz, of h = 1..count (index h − 1). */
export interface Partials {
  readonly amps: Float64Array;
  readonly freqs: Float64Array;
  count: number;
}

/** Scratch for `findPartials` (MAX_PARTIALS long). */
export function createPartials(): Partials {
  return { amps: new Float64Array(MAX_PARTIALS), freqs: new Float64Array(MAX_PARTIALS), count: 0 };
}

/** The strongest bin of power[lo..hi] (inclusive) and its parabolic-interpolated frequency (bins) and power. */
function peakIn(power: ArrayLike<number>, lo: number, hi: number): { bin: number; power: number } {
  let best = lo;
  for (let k = lo + 1; k <= hi; k++) if (power[k]! > power[best]!) best = k;
  const p = power[best]!;
  if (best <= 0 || best >= power.length - 1 || !(p > 0)) return { bin: best, power: p };
  const a = Math.log(power[best - 1]! + 1e-30);
  const b = Math.log(p);
  const c = Math.log(power[best + 1]! + 1e-30);
  const shift = parabolicShift(a, b, c);
  if (shift === 0) return { bin: best, power: p };
  return { bin: best + shift, power: Math.exp(b - 0.25 * (a - c) * shift) };
}

/**
 * Find partials 1..MAX_PARTIALS of `f0` (Hz) in `power` (|X_k|² of bins k·binHz), below `maxHz`, into `out`.
 * Returns out.count (0 when f0 is not usable).
 */
export function findPartials(power: ArrayLike<number>, binHz: number, f0: number, maxHz: number, out: Partials): number {
  out.count = 0;
  const top = power.length - 1;
  if (!(f0 > 0) || !(binHz > 0) || f0 * (1 + SEARCH) > maxHz) return 0;
  let strongest = 0;
  for (let h = 1; h <= MAX_PARTIALS; h++) {
    const predicted = predictPartial(out, h, f0, strongest);
    if (!Number.isFinite(predicted)) break;
    const lo = Math.max(1, Math.ceil((predicted - SEARCH * f0) / binHz));
    const hi = Math.min(top, Math.floor((predicted + SEARCH * f0) / binHz));
    if (predicted + SEARCH * f0 > maxHz || hi <= lo) break;
    const peak = peakIn(power, lo, hi);
    const amp = Math.sqrt(Math.max(0, peak.power));
    if (amp > strongest) strongest = amp;
    out.amps[h - 1] = amp;
    out.freqs[h - 1] = peak.bin * binHz;
    out.count = h;
  }
  // Partials far below the strongest are leakage or noise: absent.
  const floor = strongest * 10 ** (-ABSENT_DB / 20);
  for (let i = 0; i < out.count; i++) if (out.amps[i]! < floor) out.amps[i] = 0;
  return out.count;
}

/**
 * Where partial h should be: h times the first partial found, or, once three partials stand within 60 dB
 * of the strongest so far, where the stiff-string fit of those puts it.
 */
function predictPartial(p: Partials, h: number, f0: number, strongest: number): number {
  const base = p.count > 0 && p.amps[0]! > 0 ? p.freqs[0]! : f0;
  const floor = strongest * 10 ** (-ABSENT_DB / 20);
  let present = 0;
  for (let i = 0; i < p.count; i++) if (p.amps[i]! >= floor) present++;
  if (present < 3) return h * base;
  const fit = fitStiffString(p, floor);
  // A fit wilder than any string (B beyond ±0.01) is noise: fall back to the harmonic guess.
  return fit && Math.abs(fit.b) < 0.01 ? h * fit.f * Math.sqrt(1 + fit.b * h * h) : h * base;
}

/** The stiff-string fit (f_h/h)² = F² (1 + B h²) over the partials above `minAmp`, weighted by a_h²; undefined with fewer than two. */
export function fitStiffString(p: Partials, minAmp = 0): { readonly f: number; readonly b: number } | undefined {
  let sw = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  let n = 0;
  for (let i = 0; i < p.count; i++) {
    const a = p.amps[i]!;
    if (!(a > 0) || a < minAmp) continue;
    const h = i + 1;
    const w = a * a;
    const x = h * h;
    const y = (p.freqs[i]! / h) ** 2;
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
    n++;
  }
  if (n < 2) return undefined;
  const den = sw * sxx - sx * sx;
  if (!(Math.abs(den) > 1e-12 * sw * sxx)) return undefined;
  const slope = (sw * sxy - sx * sy) / den;
  const intercept = (sy - slope * sx) / sw;
  if (!(intercept > 0)) return undefined;
  return { f: Math.sqrt(intercept), b: slope / intercept };
}

/** Tristimulus [T1, T2, T3] of the partials' amplitudes (zeros for no energy). */
export function tristimulus(amps: ArrayLike<number>, count: number): [number, number, number] {
  let total = 0;
  for (let i = 0; i < count; i++) total += amps[i]!;
  if (!(total > 0)) return [0, 0, 0];
  let t2 = 0;
  let t3 = 0;
  for (let i = 1; i < count; i++) {
    if (i <= 3) t2 += amps[i]!;
    else t3 += amps[i]!;
  }
  return [amps[0]! / total, t2 / total, t3 / total];
}

/** Σ even a_h² / Σ_{h≥2} a_h², 0..1; null without partials above the fundamental. */
export function evenHarmonicShare(amps: ArrayLike<number>, count: number): number | null {
  let even = 0;
  let all = 0;
  for (let i = 1; i < count; i++) {
    const e = amps[i]! * amps[i]!;
    all += e;
    if ((i + 1) % 2 === 0) even += e;
  }
  return all > 0 ? even / all : null;
}

/** Σ h·a_h / Σ a_h, harmonic ranks; null without energy. */
export function harmonicCentroid(amps: ArrayLike<number>, count: number): number | null {
  let num = 0;
  let den = 0;
  for (let i = 0; i < count; i++) {
    num += (i + 1) * amps[i]!;
    den += amps[i]!;
  }
  return den > 0 ? num / den : null;
}

/** Jensen's irregularity Σ_{h<H} (a_h − a_{h+1})² / Σ a_h²; null without energy. */
export function harmonicIrregularity(amps: ArrayLike<number>, count: number): number | null {
  let num = 0;
  let den = 0;
  for (let i = 0; i < count; i++) {
    den += amps[i]! * amps[i]!;
    if (i + 1 < count) num += (amps[i]! - amps[i + 1]!) ** 2;
  }
  return den > 0 ? num / den : null;
}

/** Share of Σ power outside ±`halfWidthHz` of each present partial, 0..1; null for a silent frame. */
export function noisiness(power: ArrayLike<number>, binHz: number, p: Partials, halfWidthHz: number): number | null {
  let total = 0;
  for (let k = 1; k < power.length; k++) total += power[k]!;
  if (!(total > 0)) return null;
  let harmonic = 0;
  let lastHi = 0;
  for (let i = 0; i < p.count; i++) {
    if (!(p.amps[i]! > 0)) continue;
    const lo = Math.max(lastHi + 1, Math.ceil((p.freqs[i]! - halfWidthHz) / binHz));
    const hi = Math.min(power.length - 1, Math.floor((p.freqs[i]! + halfWidthHz) / binHz));
    for (let k = lo; k <= hi; k++) harmonic += power[k]!;
    if (hi > lastHi) lastHi = hi;
  }
  return Math.max(0, Math.min(1, 1 - harmonic / total));
}

/** What `HarmonicTimbre` reports: energy-weighted means over the frames given (null when none was usable). */
export interface HarmonicTimbreSummary {
  readonly tristimulus: readonly [number, number, number];
  readonly evenHarmonicShare: number;
  readonly harmonicCentroid: number;
  readonly irregularity: number;
  /** Median of the frames' B (frames with at least four partials present). */
  readonly inharmonicity: number | null;
  readonly noisiness: number;
}

/**
 * Accumulates the descriptors over pitched frames of `frameSize` samples at `sampleRate`, weighted by each
 * frame's energy. Each frame is Hann-windowed (sidelobes 31 dB down, so an absent even partial of a square
 * wave is not filled by its neighbours' leakage) and zero-padded to twice its length (bins of
 * sampleRate/2N Hz); partials are searched up to 90 % of Nyquist.
 */
export class HarmonicTimbre {
  private readonly partials = createPartials();
  private readonly sums = new Float64Array(7);
  private weight = 0;
  private readonly bs: number[] = [];
  private readonly fft: RealFft;
  private readonly window: Float64Array;
  private readonly power: Float64Array;
  private readonly binHz: number;
  private readonly maxHz: number;
  /** Half-width of the Hann window's main lobe, Hz (2 bins of the unpadded frame). */
  private readonly lobeHz: number;

  constructor(
    private readonly frameSize: number,
    sampleRate: number,
  ) {
    this.fft = createRealFft(2 * frameSize);
    this.window = hannWindow(frameSize);
    this.power = new Float64Array(frameSize + 1);
    this.binHz = sampleRate / (2 * frameSize);
    this.maxHz = 0.45 * sampleRate;
    this.lobeHz = (2 * sampleRate) / frameSize;
  }

  /** Add one frame of samples (frameSize long, read only) with its f0 (Hz) and weight (its energy). */
  addSignalFrame(frame: ArrayLike<number>, f0: number, weight: number): void {
    if (!(weight > 0) || !(f0 > 0)) return;
    const n = this.frameSize;
    const input = this.fft.input;
    for (let i = 0; i < n; i++) input[i] = frame[i]! * this.window[i]!;
    input.fill(0, n, 2 * n);
    this.fft.transform();
    const { re, im } = this.fft;
    for (let k = 0; k <= n; k++) this.power[k] = re[k]! * re[k]! + im[k]! * im[k]!;
    this.addFrame(this.power, f0, weight);
  }

  /** Add one frame's power spectrum (bins of sampleRate/2N Hz, as `addSignalFrame` makes) with its f0 (Hz) and weight. */
  private addFrame(power: ArrayLike<number>, f0: number, weight: number): void {
    const p = this.partials;
    if (!(weight > 0) || findPartials(power, this.binHz, f0, this.maxHz, p) < 2) return;
    const even = evenHarmonicShare(p.amps, p.count);
    const centroid = harmonicCentroid(p.amps, p.count);
    const irregular = harmonicIrregularity(p.amps, p.count);
    const noise = noisiness(power, this.binHz, p, this.lobeHz);
    if (even === null || centroid === null || irregular === null || noise === null) return;
    const [t1, t2, t3] = tristimulus(p.amps, p.count);
    const s = this.sums;
    s[0] = s[0]! + weight * t1;
    s[1] = s[1]! + weight * t2;
    s[2] = s[2]! + weight * t3;
    s[3] = s[3]! + weight * even;
    s[4] = s[4]! + weight * centroid;
    s[5] = s[5]! + weight * irregular;
    s[6] = s[6]! + weight * noise;
    this.weight += weight;
    let present = 0;
    for (let i = 0; i < p.count; i++) if (p.amps[i]! > 0) present++;
    const fit = present >= 4 ? fitStiffString(p) : undefined;
    if (fit) this.bs.push(fit.b);
  }

  /** The weighted means, or null when no frame was usable. */
  finish(): HarmonicTimbreSummary | null {
    if (!(this.weight > 0)) return null;
    const s = this.sums.map((x) => x / this.weight);
    const bs = [...this.bs].sort((a, b) => a - b);
    return {
      tristimulus: [s[0]!, s[1]!, s[2]!],
      evenHarmonicShare: s[3]!,
      harmonicCentroid: s[4]!,
      irregularity: s[5]!,
      inharmonicity: bs.length ? bs[bs.length >> 1]! : null,
      noisiness: s[6]!,
    };
  }
}
