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
    expect(inferLoopTempo({ onsets, duration: 2.3, detectedBpm: 123.8 })).toEqual({
      bpm: 123.8,
      source: 'onsets',
      bars: null,
      grid: null,
      fit: null,
    });
    expect(inferLoopTempo({ onsets, duration: 2.3, detectedBpm: null })).toBeNull();
  });

  it('refuses a length whose grid disagrees with the detected pulse, and too few onsets', () => {
    // 1 bar at 120 BPM fits its grid, but the onsets' pulse reads 100 BPM (not an octave of 120).
    const onsets = gridOnsets(120, 1, [0, 4, 8, 12]);
    expect(inferLoopTempo({ onsets, duration: 2, detectedBpm: 100 })?.source).toBe('onsets');
    expect(inferLoopTempo({ onsets: onsets.slice(0, 3), duration: 2, detectedBpm: null })).toBeNull();
  });

  it('reads a drone of two bars at 97 BPM from its sample-exact length, with onsets on no grid and a pulse at 120', () => {
    // 2 bars at 97 BPM at 44.1 kHz: round(480·44100/97) = 218227 samples. Four irregular swells, the last
    // in the second half; the detected pulse (120, 9.9 of its beats) would veto a grid candidate.
    const sampleRate = 44100;
    const duration = Math.round((480 * sampleRate) / 97) / sampleRate;
    const onsets = [0.917, 2.104, 3.123, 3.622];
    const t = inferLoopTempo({ onsets, duration, detectedBpm: 120, sampleRate });
    expect(t).toMatchObject({ source: 'loop_length', bars: 2, grid: 'exact_length', fit: null });
    expect(t!.bpm).toBeCloseTo(97, 2);
    // Without the sample rate (or two samples longer) the length is no evidence: the detected pulse stands.
    expect(inferLoopTempo({ onsets, duration, detectedBpm: 120 })?.source).toBe('onsets');
    expect(inferLoopTempo({ onsets, duration: duration + 2 / sampleRate, detectedBpm: 120, sampleRate })?.source).toBe('onsets');
  });

  it('gives no exact-length tempo to a one-shot or to a round length', () => {
    const sampleRate = 44100;
    const duration = Math.round((240 * sampleRate) / 97) / sampleRate; // 1 bar at 97 BPM, sample-exact
    // A hit and its decay: the onsets are all in the first half.
    expect(inferLoopTempo({ onsets: [0.05, 0.21, 0.4], duration, detectedBpm: null, sampleRate })).toBeNull();
    // The same with an event in the second half is a loop of that length.
    expect(inferLoopTempo({ onsets: [0.05, 0.21, 1.6], duration, detectedBpm: null, sampleRate })).toMatchObject({
      bars: 1,
      grid: 'exact_length',
    });
    // 4.000 s is 2 bars at 120 BPM to the sample, but a round length says nothing about a tempo.
    expect(inferLoopTempo({ onsets: [0.7, 1.9, 3.1], duration: 4, detectedBpm: null, sampleRate })).toBeNull();
    expect(
      inferLoopTempo({
        onsets: [0.7, 1.9, 3.1],
        duration: Math.round((480 * sampleRate) / 121) / sampleRate,
        detectedBpm: null,
        sampleRate,
      })?.bars,
    ).toBe(2);
  });

  it('gridFit counts the strength on the grid, whatever the phase', () => {
    expect(gridFit([0.05, 0.15, 0.25, 0.35], [1, 1, 1, 1], 0.1)).toBe(1);
    // An onset half a step off the grid of the others: its strength is the share off the grid.
    expect(gridFit([0.05, 0.15, 0.25, 0.35, 0.1], [1, 1, 1, 1, 2], 0.1)).toBeCloseTo(4 / 6, 9);
  });
});
