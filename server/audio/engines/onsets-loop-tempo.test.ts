import { describe, expect, it } from 'vitest';
import { onsetsEngine, type OnsetsResult } from './onsets.js';
import { createOnsetStrength } from '../dsp/onset-detection.js';
import { estimateTempo } from '../dsp/tempo.js';
import { click, drumLoop } from '../../test-support/drums.js';

// The loop-length tempo (dsp/loop-tempo.ts) through the onsets engine, on synthesized loops whose tempo
// and bar count are known by construction.

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
        x[start + i] =
          x[start + i]! +
          0.4 * (0.7 * Math.sin(2 * Math.PI * ph) + 0.6 * (ph - Math.floor(ph + 0.5))) * Math.min(1, t / 0.003) * Math.exp(-t / 0.08);
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

  it('a drone cut to two bars at 97 BPM to the sample (218227 samples) reads 97 BPM from its length; two samples longer does not', () => {
    const sr = 44100;
    // A sustained 98 Hz sawtooth with four struck accents (a 2 kHz tone burst, 5 ms attack, 60 ms decay) at
    // irregular times that fit no 16th or triplet grid at 97 BPM.
    const drone = (n: number) => {
      const x = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const ph = (98 * i) / sr;
        x[i] = 0.2 * (ph - Math.floor(ph + 0.5));
      }
      for (const at of [0.917, 2.104, 3.123, 3.622]) {
        const start = Math.round(at * sr);
        for (let i = 0; start + i < n && i < sr / 4; i++) {
          const t = i / sr;
          x[start + i] = x[start + i]! + 0.5 * Math.sin(2 * Math.PI * 2000 * t) * Math.min(1, t / 0.005) * Math.exp(-t / 0.06);
        }
      }
      return x;
    };
    const exact = analyse([drone(Math.round((480 * sr) / 97))], sr);
    expect(exact.tempo_source).toBe('loop_length');
    expect(exact.loop_bars).toBe(2);
    expect(exact.tempo_bpm).toBeCloseTo(97, 1);
    expect(analyse([drone(Math.round((480 * sr) / 97) + 2)], sr).tempo_source).not.toBe('loop_length');
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
