import { describe, expect, it } from 'vitest';
import { gridFit, inferLoopTempo } from './loop-tempo.js';
import { onsetsEngine, type OnsetsResult } from '../onsets.js';
import { click, drumLoop } from '../../test-support/drums.js';
import { createOnsetStrength } from './onset-detection.js';
import { estimateTempo } from './tempo.js';

/** Onset times of 16-step bars: `steps` in every bar, at `bpm`, plus a constant latency. */
const gridOnsets = (bpm: number, bars: number, steps: readonly number[], latency = 0): number[] =>
  Array.from({ length: bars }, (_, b) => steps.map((s) => (b * 16 + s) * (15 / bpm) + latency)).flat();

/**
 * A house bass line: a 55 Hz note (sine and sawtooth, 3 ms attack, 80 ms decay) on steps 0, 3, 6, 8, 11 and
 * 14 of every 16-step bar; the onsets engine's periodicity reads it at half tempo (62 BPM at 124).
 */
function bassLine(bpm: number, bars: number, sr: number): Float32Array {
  const step = 15 / bpm;
  const x = new Float32Array(Math.round(bars * 16 * step * sr));
  for (let b = 0; b < bars; b++) {
    for (const s of [0, 3, 6, 8, 11, 14]) {
      const start = Math.round((b * 16 + s) * step * sr);
      for (let i = 0; start + i < x.length && i < sr / 2; i++) {
        const t = i / sr;
        const ph = 55 * t;
        x[start + i] = x[start + i]! + 0.4 * (0.7 * Math.sin(2 * Math.PI * ph) + 0.6 * (ph - Math.floor(ph + 0.5))) * Math.min(1, t / 0.003) * Math.exp(-t / 0.08);
      }
    }
  }
  return x;
}

function analyse(channels: readonly Float32Array[], sampleRate: number): OnsetsResult {
  const engine = onsetsEngine.create({ sampleRate, channels: channels.length, channelLayout: null, totalFrames: null }, {});
  const n = channels[0]!.length;
  const x = new Float32Array(n * channels.length);
  for (let i = 0; i < n; i++) for (let c = 0; c < channels.length; c++) x[i * channels.length + c] = channels[c]![i]!;
  engine.push(x);
  return engine.finish();
}

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

describe('the onsets engine on synthesized loops of a known tempo', () => {
  it('a one-bar click loop at 124 BPM (1.9355 s, under the 2 s the periodicity needs) reads 124 BPM from its length', () => {
    const sr = 44100;
    const duration = 240 / 124;
    const x = new Float32Array(Math.round(duration * sr));
    for (let k = 0; k < 8; k++) {
      const c = click(sr, duration, (k * 30) / 124, k % 2 === 0 ? 0.9 : 0.5);
      for (let i = 0; i < x.length; i++) x[i] = x[i]! + c[i]!;
    }
    const r = analyse([x], sr);
    expect(r.tempo_source).toBe('loop_length');
    expect(r.loop_bars).toBe(1);
    expect(r.tempo_bpm).toBeCloseTo(124, 1);
  });

  it('a two-bar break pattern at 170 BPM reads 170 BPM, two whole bars', () => {
    const loop = drumLoop({ bpm: 170, bars: 2, sampleRate: 44100, pattern: 'ghost', leadIn: 0, tail: 0 });
    const r = analyse(loop.channels, 44100);
    expect(r.tempo_source).toBe('loop_length');
    expect(r.loop_bars).toBe(2);
    expect(r.tempo_bpm).toBeCloseTo(170, 1);
  });

  it('a two-bar bass line at 124 BPM, whose onsets pulse at 62 BPM, reads 124 BPM from its length', () => {
    const sr = 44100;
    const x = bassLine(124, 2, sr);
    const r = analyse([x], sr);
    expect(r.tempo_source).toBe('loop_length');
    expect(r.loop_bars).toBe(2);
    expect(r.tempo_bpm).toBeCloseTo(124, 1);
  });

  it('the same pattern cut to 1.7 s (not whole bars) gets no loop-length tempo', () => {
    const loop = drumLoop({ bpm: 124, bars: 1, sampleRate: 44100, pattern: 'straight16', leadIn: 0, tail: 0 });
    const cut = loop.channels.map((c) => c.slice(0, Math.round(1.7 * 44100)));
    const r = analyse(cut, 44100);
    expect(r.tempo_source).not.toBe('loop_length');
    expect(r.tempo_bpm).toBeNull();
  });
});

describe('the periodicity alone on that bass line', () => {
  it('reads half tempo (the failure the loop length corrects)', () => {
    const x = bassLine(124, 2, 44100);
    const odf = createOnsetStrength(44100);
    odf.push(x, 1);
    const env = odf.finish();
    expect(estimateTempo(env, odf.frameRate, {}, odf.accents())!.bpm).toBeCloseTo(62, 0);
  });
});
