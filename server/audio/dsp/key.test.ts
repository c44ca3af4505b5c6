import { describe, expect, it } from 'vitest';
import {
  estimateKey,
  judgeKey,
  keyCorrelations,
  MIN_KEY_CORRELATION,
  MIN_TONAL_STABILITY,
  pearson,
  TEMPERLEY_MAJOR,
  TEMPERLEY_MINOR,
} from './key.js';
import { PITCH_CLASSES } from './chroma.js';

const rotate = (profile: readonly number[], tonic: number) => Array.from({ length: 12 }, (_, pc) => profile[(pc - tonic + 12) % 12]!);

describe('Krumhansl–Schmuckler key estimation', () => {
  it('pearson: 1 for proportional vectors, −1 for reversed, 0 for a constant', () => {
    const a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    expect(
      pearson(
        a,
        a.map((x) => 3 * x + 1),
      ),
    ).toBeCloseTo(1, 12);
    expect(
      pearson(
        a,
        a.map((x) => -x),
      ),
    ).toBeCloseTo(-1, 12);
    expect(pearson(a, new Array(12).fill(2))).toBe(0);
  });

  it.each(Array.from({ length: 24 }, (_, i) => ({ tonic: i % 12, mode: i < 12 ? ('major' as const) : ('minor' as const) })))(
    'a profile rotated to $tonic $mode is that key with correlation 1 and confidence 1',
    ({ tonic, mode }) => {
      const chroma = rotate(mode === 'major' ? TEMPERLEY_MAJOR : TEMPERLEY_MINOR, tonic);
      const key = estimateKey(chroma)!;
      expect(key.best.key).toBe(PITCH_CLASSES[tonic]);
      expect(key.best.mode).toBe(mode);
      expect(key.best.correlation).toBeCloseTo(1, 12);
      expect(key.confidence).toBeCloseTo(1, 12);
      expect(key.runnerUp.correlation).toBeLessThan(1);
    },
  );

  it('ranks all 24 keys and takes the runner-up from the ranking', () => {
    // A C major triad: C major first; the runner-up is a close relative.
    const chroma = [1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0];
    const ranked = keyCorrelations(chroma);
    expect(ranked).toHaveLength(24);
    expect(ranked[0]).toMatchObject({ key: 'C', mode: 'major' });
    const key = estimateKey(chroma)!;
    expect(key.runnerUp).toEqual(ranked[1]);
    expect(key.confidence).toBeCloseTo((ranked[0]!.correlation - ranked[1]!.correlation) / (1 - ranked[1]!.correlation), 12);
  });

  // Pitch-class counts of the chord tones: Am (A C E), Dm (D F A), E (E G♯ B) or Em (E G B), Am.
  const counts = (chords: readonly (readonly number[])[]) => {
    const c = new Array<number>(12).fill(0);
    for (const p of chords.flat()) c[p % 12]!++;
    return c;
  };
  const harmonicMinor = counts([
    [9, 0, 4],
    [2, 5, 9],
    [4, 8, 11],
    [9, 0, 4],
  ]);
  const naturalMinor = counts([
    [9, 0, 4],
    [2, 5, 9],
    [4, 7, 11],
    [9, 0, 4],
  ]);
  const aMinor = (c: number[]) => keyCorrelations(c).find((k) => k.key === 'A' && k.mode === 'minor')!.correlation;

  it('a held A-minor i–iv–V–i with G♯ is A minor, fitting better than with G♮ (the profile models harmonic minor)', () => {
    const key = estimateKey(harmonicMinor)!;
    expect(key.best).toMatchObject({ key: 'A', mode: 'minor' });
    expect(judgeKey(key, 0.9).key).toMatchObject({ key: 'A', mode: 'minor' });
    // Krumhansl–Kessler's probe-tone minor profile rates ♭7 above the leading tone: 0.914 with G♯, 0.926 with G.
    expect(aMinor(harmonicMinor)).toBeGreaterThan(aMinor(naturalMinor) + 0.03);
    // And the parallel major (the confusion of bench/RESULTS.md) stays far behind.
    const aMajor = keyCorrelations(harmonicMinor).find((k) => k.key === 'A' && k.mode === 'major')!.correlation;
    expect(aMinor(harmonicMinor) - aMajor).toBeGreaterThan(0.3);
  });

  it('has no key for a flat or empty chroma', () => {
    expect(estimateKey(new Array(12).fill(0.5))).toBeNull();
    expect(estimateKey(new Array(12).fill(0))).toBeNull();
  });
});

describe('judgeKey: a key only with stable pitch content and a clear fit', () => {
  const cMajor = estimateKey(rotate(TEMPERLEY_MAJOR, 0))!;
  it('answers the profile key when the frames are stable', () => {
    expect(judgeKey(cMajor, 0.9)).toEqual({ key: cMajor.best, reason: null });
  });
  it('no_pitched_content below the stability threshold or without a profile', () => {
    expect(judgeKey(cMajor, MIN_TONAL_STABILITY - 0.01)).toEqual({ key: null, reason: 'no_pitched_content' });
    expect(judgeKey(null, 1)).toEqual({ key: null, reason: 'no_pitched_content' });
  });
  it('low_confidence for one pitch class (its major and minor key tie) and for a poor fit', () => {
    const single = estimateKey([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])!;
    expect(single.best.correlation).toBeLessThan(MIN_KEY_CORRELATION);
    expect(judgeKey(single, 1)).toEqual({ key: null, reason: 'low_confidence' });
    // A chromatic-cluster profile: every class alike but one.
    const poor = estimateKey([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.5])!;
    expect(judgeKey(poor, 1).reason).toBe('low_confidence');
  });
});
