import { describe, expect, it } from 'vitest';
import { gridFit, inferLoopTempo } from './loop-tempo.js';

/** Onset times of 16-step bars: `steps` in every bar, at `bpm`, plus a constant latency. */
const gridOnsets = (bpm: number, bars: number, steps: readonly number[], latency = 0): number[] =>
  Array.from({ length: bars }, (_, b) => steps.map((s) => (b * 16 + s) * (15 / bpm) + latency)).flat();

describe('inferLoopTempo on onset lists with a known answer', () => {
  it('reads a one-bar loop at 124 BPM from its length (1.9355 s), with no detected tempo', () => {
    const duration = 240 / 124;
    const t = inferLoopTempo({ onsets: gridOnsets(124, 1, [0, 2, 4, 6, 8, 10, 12, 14], 0.004), duration, detectedBpm: null });
    expect(t).toEqual({ bpm: 240 / duration, source: 'loop_length', bars: 1, grid: '16th', fit: 1 });
    expect(t!.bpm).toBeCloseTo(124, 9);
  });

  it('takes 124 BPM, not the detected 62, for two bars of a bass line (62 is below the preferred range)', () => {
    const duration = 480 / 124;
    const t = inferLoopTempo({ onsets: gridOnsets(124, 2, [0, 3, 6, 8, 11, 14]), duration, detectedBpm: 62.1 });
    expect(t?.source).toBe('loop_length');
    expect(t?.bars).toBe(2);
    expect(t!.bpm).toBeCloseTo(124, 9);
  });

  it('follows the detected tempo between two candidates in the preferred range, else takes the faster', () => {
    // 2 bars at 170 BPM = 1 bar at 85: both in 70–180.
    const duration = 480 / 170;
    const onsets = gridOnsets(170, 2, [0, 4, 7, 10, 12]);
    expect(inferLoopTempo({ onsets, duration, detectedBpm: 85.4 })?.bars).toBe(1);
    expect(inferLoopTempo({ onsets, duration, detectedBpm: 169 })?.bars).toBe(2);
    expect(inferLoopTempo({ onsets, duration, detectedBpm: null })?.bars).toBe(2);
  });

  it('fits a shuffle on the 8th-triplet grid', () => {
    const duration = 240 / 96;
    const onsets = [0, 1, 2, 3].flatMap((beat) => [beat, beat + 2 / 3].map((b) => b * (60 / 96)));
    expect(inferLoopTempo({ onsets, duration, detectedBpm: null })).toMatchObject({ source: 'loop_length', bars: 1, grid: '8th_triplet' });
  });

  it('keeps the detected tempo when the length is not whole bars of the onsets grid', () => {
    // 124 BPM 8th notes for 2.3 s: 240·B/2.3 = 104.3 or 208.7 BPM, whose 16th grids the onsets miss.
    const onsets = gridOnsets(124, 2, [0, 2, 4, 6, 8, 10, 12, 14]).filter((t) => t < 2.3);
    expect(inferLoopTempo({ onsets, duration: 2.3, detectedBpm: 123.8 })).toEqual({ bpm: 123.8, source: 'onsets', bars: null, grid: null, fit: null });
    expect(inferLoopTempo({ onsets, duration: 2.3, detectedBpm: null })).toBeNull();
  });

  it('refuses a length whose grid disagrees with the detected pulse, and too few onsets', () => {
    // 1 bar at 120 BPM fits its grid, but the onsets' pulse reads 100 BPM (not an octave of 120).
    const onsets = gridOnsets(120, 1, [0, 4, 8, 12]);
    expect(inferLoopTempo({ onsets, duration: 2, detectedBpm: 100 })?.source).toBe('onsets');
    expect(inferLoopTempo({ onsets: onsets.slice(0, 3), duration: 2, detectedBpm: null })).toBeNull();
  });

  it('gridFit counts the strength on the grid, whatever the phase', () => {
    expect(gridFit([0.05, 0.15, 0.25, 0.35], [1, 1, 1, 1], 0.1)).toBe(1);
    // An onset half a step off the grid of the others: its strength is the share off the grid.
    expect(gridFit([0.05, 0.15, 0.25, 0.35, 0.1], [1, 1, 1, 1, 2], 0.1)).toBeCloseTo(4 / 6, 9);
  });
});

