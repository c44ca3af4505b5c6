/**
 * Key estimation by the Krumhansl–Schmuckler algorithm (Krumhansl, "Cognitive foundations of musical
 * pitch", 1990, ch. 4): the Pearson correlation between a 12-bin pitch-class profile and the
 * Krumhansl–Kessler probe-tone profiles rotated to each of the 12 tonics, in major and in minor; the
 * highest correlation wins. The profiles (C = index 0) are those of Essentia's `key.cpp` ("krumhansl").
 */
import { PITCH_CLASSES, type PitchClass } from './chroma.js';

export const KRUMHANSL_MAJOR = [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88] as const;
export const KRUMHANSL_MINOR = [6.33, 2.68, 3.52, 5.38, 2.6, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17] as const;

export type Mode = 'major' | 'minor';

export interface KeyCandidate {
  /** Tonic pitch class, 0 = C. */
  readonly tonic: number;
  readonly key: PitchClass;
  readonly mode: Mode;
  /** Pearson correlation with the rotated profile, −1..1. */
  readonly correlation: number;
}

export interface KeyEstimate {
  readonly best: KeyCandidate;
  readonly runnerUp: KeyCandidate;
  /**
   * (r₁ − r₂) / (1 − r₂), clamped to 0..1, with r₁ and r₂ the correlations of the best and the second key:
   * the share of the headroom above the runner-up that the winner takes. 0: a tie; 1: a perfect match of
   * the profile. Close relatives (the relative or parallel key, the keys a fifth away) share most pitch
   * classes, so their correlations are always close to the winner's. Measured: 0.15–0.9 on the
   * synthesized I–IV–V–I and i–iv–V–i progressions of the tests (all correct), about 0.4 on a loop of
   * drums, bass and an A minor pad, about 0.1 on drums alone; below about 0.05 the choice between the two
   * is a coin toss.
   */
  readonly confidence: number;
}

/** Pearson correlation of two 12-vectors; 0 when either is constant. */
export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    sab += x * y;
    saa += x * x;
    sbb += y * y;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : 0;
}

/** All 24 keys with their correlations, best first (major before minor, then by tonic, on ties). */
export function keyCorrelations(chroma: ArrayLike<number>): KeyCandidate[] {
  if (chroma.length !== 12) throw new RangeError('chroma must have 12 values');
  const out: KeyCandidate[] = [];
  const rotated = new Float64Array(12);
  for (const mode of ['major', 'minor'] as const) {
    const profile = mode === 'major' ? KRUMHANSL_MAJOR : KRUMHANSL_MINOR;
    for (let tonic = 0; tonic < 12; tonic++) {
      for (let pc = 0; pc < 12; pc++) rotated[pc] = profile[(pc - tonic + 12) % 12]!;
      out.push({ tonic, key: PITCH_CLASSES[tonic]!, mode, correlation: pearson(chroma, rotated) });
    }
  }
  return out.sort((x, y) => y.correlation - x.correlation);
}

/** The best key, the runner-up and the confidence; null when the chroma is constant (no tonal content). */
export function estimateKey(chroma: ArrayLike<number>): KeyEstimate | null {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < chroma.length; i++) {
    min = Math.min(min, chroma[i]!);
    max = Math.max(max, chroma[i]!);
  }
  if (!(max > 0) || max - min <= 1e-9 * max) return null;
  const ranked = keyCorrelations(chroma);
  const best = ranked[0]!;
  const runnerUp = ranked[1]!;
  const headroom = 1 - runnerUp.correlation;
  const confidence = headroom > 0 ? Math.min(1, Math.max(0, (best.correlation - runnerUp.correlation) / headroom)) : 0;
  return { best, runnerUp, confidence };
}
