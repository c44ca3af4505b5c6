import { describe, expect, it } from 'vitest';
import { onsetStrengths, thinOnsets } from './onset-thinning';

const view = { duration: 10, totalPx: 1000, scrollPx: 0, viewPx: 1000, minGapPx: 6 };

describe('thinOnsets', () => {
  it('keeps every onset when they are farther apart than the gap', () => {
    // 100 px per second: onsets 0.1 s apart are 10 px apart.
    const onsets = [1, 1.1, 1.2, 1.3];
    expect(thinOnsets(onsets, [1, 1, 1, 1], view)).toEqual(onsets);
  });

  it('keeps the strongest of onsets closer than the gap', () => {
    // 1.00, 1.02 and 1.04 s are 0, 2 and 4 px from each other: only the strongest (1.02) is drawn.
    expect(thinOnsets([1, 1.02, 1.04], [0.2, 0.9, 0.5], view)).toEqual([1.02]);
  });

  it('lets a weaker onset back in once it is a gap away from every kept one', () => {
    // At 1.00 (strong), 1.04 (4 px: dropped) and 1.06 (6 px: kept).
    expect(thinOnsets([1, 1.04, 1.06], [1, 0.8, 0.1], view)).toEqual([1, 1.06]);
  });

  it('draws at most one mark per gap on a dense long file', () => {
    // 4 766 onsets evenly over 21 minutes at 1 000 px: 0.21 px apart, so at most ceil(1000 / 6) marks.
    const duration = 21 * 60;
    const onsets = Array.from({ length: 4766 }, (_, i) => (i + 0.5) * (duration / 4766));
    const strengths = onsets.map((_, i) => (i * 7919) % 101);
    const kept = thinOnsets(onsets, strengths, { ...view, duration });
    expect(kept.length).toBeLessThanOrEqual(Math.ceil(1000 / 6));
    expect(kept.length).toBeGreaterThan(1000 / 12);
    const xs = kept.map((t) => Math.round((t / duration) * 1000));
    for (let i = 1; i < xs.length; i++) expect((xs[i] ?? 0) - (xs[i - 1] ?? 0)).toBeGreaterThanOrEqual(6);
  });

  it('shows more marks when zoomed in, and only the visible ones', () => {
    const onsets = [1, 1.02, 1.04, 5];
    // Zoomed 10×: 1 000 px per second, the first three are 20 px apart; the view is 0.9–1.9 s.
    const zoomed = { ...view, totalPx: 10_000, scrollPx: 900, viewPx: 1000 };
    expect(thinOnsets(onsets, [0.2, 0.9, 0.5, 1], zoomed)).toEqual([1, 1.02, 1.04]);
  });

  it('prefers the earlier onset on equal strength', () => {
    expect(thinOnsets([2, 2.01], [0.5, 0.5], view)).toEqual([2]);
  });

  it('draws nothing without a duration or a view', () => {
    expect(thinOnsets([1], [1], { ...view, duration: 0 })).toEqual([]);
    expect(thinOnsets([1], [1], { ...view, viewPx: 0 })).toEqual([]);
  });
});

describe('onsetStrengths', () => {
  it('is the rise of the RMS level across each onset', () => {
    // 10 bins over 10 s: silence, then a step to 0.8 at 5 s, then a step to 0.9 at 8 s.
    const rms = [0, 0, 0, 0, 0, 0.8, 0.8, 0.8, 0.9, 0.9];
    const strengths = onsetStrengths([5.2, 8.5, 2.5], rms, 10);
    expect(strengths[0]).toBeCloseTo(0.8, 6);
    expect(strengths[1]).toBeCloseTo(0.1, 6);
    expect(strengths[2]).toBe(0);
  });

  it('is zero for a falling level and for no bins', () => {
    expect(Array.from(onsetStrengths([5.5], [1, 1, 1, 1, 1, 0.2, 0.1, 0, 0, 0], 10))).toEqual([0]);
    expect(Array.from(onsetStrengths([1], [], 10))).toEqual([0]);
  });
});
