/**
 * Key estimation by the Krumhansl–Schmuckler algorithm (Krumhansl, "Cognitive foundations of musical
 * pitch", 1990, ch. 4): the Pearson correlation between a 12-bin pitch-class profile and a key profile
 * rotated to each of the 12 tonics, in major and in minor; the highest correlation wins.
 *
 * The profiles are Temperley's, counted on the Kostka–Payne harmony textbook corpus (Temperley, "Music and
 * Probability", MIT Press 2007, table 6.1; Essentia's `key.cpp` "temperley2005"), not Krumhansl–Kessler's
 * probe-tone ratings. Why: the probe-tone minor profile rates the natural-minor ♭7 (3.34) above the
 * raised leading tone (3.17) and the major third of the key (2.60) nearly as high as the ♭6 (3.98), so
 * a harmonic-minor i–iv–V–i, whose V carries the raised leading tone, correlates only 0.68–0.77 with its
 * own key and often better with the parallel major (bench/RESULTS.md: 9 of 144 rendered minor progressions
 * read as the parallel major, 19 withheld). The corpus profile counts what minor-key music plays: the
 * leading tone (0.330) well above ♭7 (0.133), the major third of the key nearly absent (0.049), and
 * near-zero weights off the scale, so a progression fits its key clearly and a single chord less so.
 */
import { PITCH_CLASSES, type PitchClass } from './chroma.js';

/** Temperley (2007) Kostka–Payne major profile, C = index 0: the share of segments containing each degree. */
export const TEMPERLEY_MAJOR = [0.748, 0.06, 0.488, 0.082, 0.67, 0.46, 0.096, 0.715, 0.104, 0.366, 0.057, 0.4] as const;
/** Temperley (2007) Kostka–Payne minor profile (C minor), with the raised leading tone B above B♭. */
export const TEMPERLEY_MINOR = [0.712, 0.084, 0.474, 0.618, 0.049, 0.46, 0.105, 0.747, 0.404, 0.067, 0.133, 0.33] as const;
/** Krumhansl–Kessler probe-tone profiles (Essentia's "krumhansl"), kept for comparison in the tests. */
export const KRUMHANSL_MAJOR = [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88] as const;
export const KRUMHANSL_MINOR = [6.33, 2.68, 3.52, 5.38, 2.6, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17] as const;

/** A major and a minor key profile, tonic C at index 0. */
export interface KeyProfiles {
  readonly major: readonly number[];
  readonly minor: readonly number[];
}
export const TEMPERLEY_PROFILES: KeyProfiles = { major: TEMPERLEY_MAJOR, minor: TEMPERLEY_MINOR };
export const KRUMHANSL_PROFILES: KeyProfiles = { major: KRUMHANSL_MAJOR, minor: KRUMHANSL_MINOR };

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
   * classes, so their correlations are always close to the winner's. A C major triad alone: 0.57 (C major
   * over E minor); one pitch class alone: about 0.04 (several keys fit it alike).
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
export function keyCorrelations(chroma: ArrayLike<number>, profiles: KeyProfiles = TEMPERLEY_PROFILES): KeyCandidate[] {
  if (chroma.length !== 12) throw new RangeError('chroma must have 12 values');
  const out: KeyCandidate[] = [];
  const rotated = new Float64Array(12);
  for (const mode of ['major', 'minor'] as const) {
    const profile = profiles[mode];
    for (let tonic = 0; tonic < 12; tonic++) {
      for (let pc = 0; pc < 12; pc++) rotated[pc] = profile[(pc - tonic + 12) % 12]!;
      out.push({ tonic, key: PITCH_CLASSES[tonic]!, mode, correlation: pearson(chroma, rotated) });
    }
  }
  return out.sort((x, y) => y.correlation - x.correlation);
}

/** The best key, the runner-up and the confidence; null when the chroma is constant (no tonal content). */
export function estimateKey(chroma: ArrayLike<number>, profiles: KeyProfiles = TEMPERLEY_PROFILES): KeyEstimate | null {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < chroma.length; i++) {
    min = Math.min(min, chroma[i]!);
    max = Math.max(max, chroma[i]!);
  }
  if (!(max > 0) || max - min <= 1e-9 * max) return null;
  const ranked = keyCorrelations(chroma, profiles);
  const best = ranked[0]!;
  const runnerUp = ranked[1]!;
  const headroom = 1 - runnerUp.correlation;
  const confidence = headroom > 0 ? Math.min(1, Math.max(0, (best.correlation - runnerUp.correlation) / headroom)) : 0;
  return { best, runnerUp, confidence };
}

/** Why a key is withheld: no stable pitch content, or a pitch-class profile no key fits clearly. */
export type KeyReason = 'no_pitched_content' | 'low_confidence';

/**
 * Thresholds of `judgeKey`, fitted by `npm run fit:key` (eval/key/fit-key-thresholds.ts) on the calibration
 * sets only: the hydrogen-drumkits kick, snare, clap, hat and cymbal one-shots and the I–IV–V–I /
 * i–iv–V–i progressions rendered from the FluidR3 and TimGM6mb sound fonts (sonic-pi-samples, the GM drum
 * renders and the MuseScore General progressions are held out; figures in bench/RESULTS.md). The fit
 * takes the most progressions right while at least 96 % of the calibration drums stay null (one point
 * above the 95 % target, as a margin for unseen kits); see the script for the tie-breaks.
 * - MIN_TONAL_STABILITY: noise has frame profiles that do not repeat (2 s of white noise 0.30, drums 0.07–0.9,
 *   median 0.5); held chords 0.9. Below it nothing is held long enough to be a pitch.
 * - MIN_KEY_CORRELATION: the best of 24 correlations of a random profile is high by chance; below it the
 *   profile fits no key well enough.
 * - MIN_KEY_CONFIDENCE: a near tie with the runner-up (a single pitch class fits its major and minor key
 *   alike, margin ≈ 0) is a coin toss.
 */
export interface KeyThresholds {
  readonly minTonalStability: number;
  readonly minKeyCorrelation: number;
  readonly minKeyConfidence: number;
}
export const MIN_TONAL_STABILITY = 0.35;
export const MIN_KEY_CORRELATION = 0.7;
export const MIN_KEY_CONFIDENCE = 0.02;
export const KEY_THRESHOLDS: KeyThresholds = {
  minTonalStability: MIN_TONAL_STABILITY,
  minKeyCorrelation: MIN_KEY_CORRELATION,
  minKeyConfidence: MIN_KEY_CONFIDENCE,
};

/**
 * The key to answer, or the reason there is none: `no_pitched_content` without a profile (silence, a flat
 * chroma) or when the frame profiles are not stable (`stability` < MIN_TONAL_STABILITY, see PeakChroma);
 * `low_confidence` when the best key fits the profile poorly (r₁ < MIN_KEY_CORRELATION) or barely beats the
 * runner-up (confidence < MIN_KEY_CONFIDENCE), as for one note or one pitch class alone.
 */
export function judgeKey(
  estimate: KeyEstimate | null,
  stability: number,
  thresholds: KeyThresholds = KEY_THRESHOLDS,
): { key: KeyCandidate | null; reason: KeyReason | null } {
  if (!estimate || !(stability >= thresholds.minTonalStability)) return { key: null, reason: 'no_pitched_content' };
  if (estimate.best.correlation < thresholds.minKeyCorrelation || estimate.confidence < thresholds.minKeyConfidence)
    return { key: null, reason: 'low_confidence' };
  return { key: estimate.best, reason: null };
}
