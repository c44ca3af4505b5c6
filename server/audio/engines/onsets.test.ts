import { describe, expect, it } from 'vitest';
import { MIN_ONSETS_FOR_TEMPO, onsetsEngine, type OnsetsResult } from './onsets.js';
import { BASS_HZ, createOnsetStrength, defaultFrameSize, diffFrames, logFilterbank, pickOnsets } from '../dsp/onset-detection.js';
import { hannMagnitudes } from '../dsp/reference/onset-detection.js';
import { estimateTempo } from '../dsp/tempo.js';
import { createRealFft } from '../dsp/fft.js';
import { hannWindow } from '../dsp/window.js';
import {
  STRAIGHT_PATTERNS,
  click,
  drumLoop,
  drumSound,
  fMeasure,
  mergeOnsets,
  musicLoop,
  type DrumPattern,
} from '../../test-support/drums.js';
import { interleave, seededNoise } from '../../test-support/signals.js';

/** Chunk sizes in frames, cycled: odd sizes, a single frame, sizes around the FFT size, large pipe reads. */
const UNEVEN = [1, 7, 333, 1023, 1024, 1025, 4093, 16384, 3, 65536, 500];

/** Run the engine over per-channel audio, pushing interleaved chunks of the given frame counts (cycled). */
function analyse(channels: readonly Float32Array[], sampleRate: number, chunkFrames: readonly number[] = UNEVEN): OnsetsResult {
  const engine = onsetsEngine.create({ sampleRate, channels: channels.length, channelLayout: null, totalFrames: null }, {});
  const x = interleave(channels);
  const c = channels.length;
  for (let i = 0, k = 0; i < x.length; k++) {
    const frames = chunkFrames[k % chunkFrames.length]!;
    engine.push(x.subarray(i, Math.min(x.length, i + frames * c)));
    i += frames * c;
  }
  return engine.finish();
}

const relError = (est: number, truth: number) => Math.abs(est / truth - 1);

describe('onsets engine on synthesized drum loops', () => {
  const tempos = [70, 85, 96, 110, 124, 128, 140, 150, 174, 180];
  const variations: DrumPattern[] = ['syncopated', 'swing', 'ghost'];
  const cases = tempos.flatMap((bpm, i) => [
    { bpm, pattern: STRAIGHT_PATTERNS[i % STRAIGHT_PATTERNS.length]!, sampleRate: i % 2 ? 48000 : 44100, bars: 8 + 4 * (i % 3) },
    { bpm, pattern: variations[i % variations.length]!, sampleRate: i % 2 ? 44100 : 48000, bars: 16 - 4 * (i % 3) },
  ]);

  it.each(cases)(
    '$bpm BPM $pattern, $sampleRate Hz, $bars bars: F ≥ 0.95 within ±50 ms, tempo within ±2 %',
    ({ bpm, pattern, sampleRate, bars }) => {
      const loop = drumLoop({ bpm, bars, sampleRate, pattern });
      const result = analyse(loop.channels, sampleRate);
      const score = fMeasure(loop.onsets, result.onsets, 0.05);
      expect(score.f).toBeGreaterThanOrEqual(0.95);
      expect(result.tempo_bpm).not.toBeNull();
      // The quarter note, within ±2 %: no octave errors, also with syncopation, swing and ghost notes.
      expect(relError(result.tempo_bpm!, bpm)).toBeLessThanOrEqual(0.02);
      expect(result.onset_count).toBe(result.onsets.length);
      expect(result.duration_s).toBeCloseTo(loop.duration, 3);
    },
  );

  it('gives the same answer whatever the chunk sizes (one chunk, single frames, uneven)', () => {
    const loop = drumLoop({ bpm: 128, bars: 4, sampleRate: 44100, pattern: 'straight16' });
    const whole = analyse(loop.channels, 44100, [loop.channels[0].length]);
    expect(analyse(loop.channels, 44100, [1])).toEqual(whole);
    expect(analyse(loop.channels, 44100)).toEqual(whole);
    expect(analyse(loop.channels, 44100, [511, 513, 2])).toEqual(whole);
    expect(whole.onset_count).toBe(loop.onsets.length);
  });

  it('keeps working on quiet material (the loop at −30 dB)', () => {
    const loop = drumLoop({ bpm: 110, bars: 8, sampleRate: 44100, pattern: 'straight16', gainDb: -30 });
    const result = analyse(loop.channels, 44100);
    expect(fMeasure(loop.onsets, result.onsets).f).toBeGreaterThanOrEqual(0.95);
    expect(relError(result.tempo_bpm!, 110)).toBeLessThanOrEqual(0.02);
  });

  it('mixes any channel count to mono (a 6-channel stream)', () => {
    const loop = drumLoop({ bpm: 124, bars: 4, sampleRate: 48000, pattern: 'straight8' });
    const [l, r] = loop.channels;
    const silent = new Float32Array(l.length);
    const result = analyse([l, r, silent, silent, l, r], 48000);
    expect(fMeasure(loop.onsets, result.onsets).f).toBeGreaterThanOrEqual(0.95);
  });

  it('reports rounded values: onsets to 1 ms, tempo to 0.01 BPM, the rate as onsets per second', () => {
    const loop = drumLoop({ bpm: 140, bars: 4, sampleRate: 44100, pattern: 'straight8' });
    const result = analyse(loop.channels, 44100);
    for (const t of result.onsets) expect(Math.round(t * 1000) / 1000).toBe(t);
    expect(Math.round(result.tempo_bpm! * 100) / 100).toBe(result.tempo_bpm);
    expect(result.onsets).toEqual([...result.onsets].sort((a, b) => a - b));
    expect(result.onset_rate).toBeCloseTo(result.onset_count / result.duration_s, 3);
    expect(result.full_track).toBe(true);
  });
});

describe('onsets engine on grooves with bass and pad (the voices of the benchmark track)', () => {
  // White-noise hats as strong as the snare in the onset envelope and a kick mostly masked by the bass:
  // the envelope is an almost even 8th-note pulse, on which the previous estimator answered 2/3 or 1/2 of
  // the tempo, or twice it (82.67 BPM on the 124 BPM benchmark track).
  const cases = [70, 90, 110, 124, 128, 140, 160, 174, 180].flatMap((bpm, i) =>
    [44100, 48000].map((sampleRate, j) => ({ bpm, sampleRate, bars: 8, bassPulses: (i + j) % 2 ? 2 : 1, leadIn: j ? 0 : 0.5 })),
  );

  it.each(cases)(
    '$bpm BPM, $sampleRate Hz, bass pulsing $bassPulses× per beat: F ≥ 0.95, tempo within ±2 %',
    ({ bpm, sampleRate, bars, bassPulses, leadIn }) => {
      const loop = musicLoop({ bpm, bars, sampleRate, bassPulses, leadIn });
      const result = analyse(loop.channels, sampleRate);
      expect(fMeasure(loop.onsets, result.onsets, 0.05).f).toBeGreaterThanOrEqual(0.95);
      expect(relError(result.tempo_bpm!, bpm)).toBeLessThanOrEqual(0.02);
    },
  );

  it('finds 124 BPM in the benchmark groove looped for 60 s without lead-in, fed in 16384-frame chunks', () => {
    const loop = musicLoop({ bpm: 124, bars: 31, sampleRate: 44100, leadIn: 0, tail: 0 });
    const result = analyse(loop.channels, 44100, [16384]);
    expect(fMeasure(loop.onsets, result.onsets, 0.05).f).toBeGreaterThanOrEqual(0.95);
    expect(relError(result.tempo_bpm!, 124)).toBeLessThanOrEqual(0.02);
  });
});

describe('onsets engine edge cases', () => {
  it('has the engine contract fields', () => {
    expect(onsetsEngine.id).toBe('onsets');
    expect(onsetsEngine.version).toBe('4');
    expect(onsetsEngine.needsTotalFrames).toBe(false);
  });

  it('finds no onsets and no tempo in silence', () => {
    const silence = new Float32Array(10 * 44100);
    expect(analyse([silence, silence], 44100)).toEqual({
      onsets: [],
      onset_count: 0,
      onset_rate: 0,
      tempo_bpm: null,
      tempo_source: null,
      loop_bars: null,
      full_track: true,
      duration_s: 10,
    });
  });

  it('survives an empty stream', () => {
    const engine = onsetsEngine.create({ sampleRate: 48000, channels: 2, channelLayout: 'stereo', totalFrames: 0 }, {});
    engine.push(new Float32Array(0));
    expect(engine.finish()).toEqual({
      onsets: [],
      onset_count: 0,
      onset_rate: 0,
      tempo_bpm: null,
      tempo_source: null,
      loop_bars: null,
      full_track: true,
      duration_s: 0,
    });
  });

  it.each([44100, 48000])('puts a single click at the right time (±10 ms) at %i Hz, with no tempo', (sampleRate) => {
    for (const time of [0.5, 1.2345, 2.0071]) {
      const result = analyse([click(sampleRate, 3, time)], sampleRate);
      expect(result.onset_count).toBe(1);
      expect(Math.abs(result.onsets[0]! - time)).toBeLessThanOrEqual(0.01);
      expect(result.tempo_bpm).toBeNull();
    }
  });

  it(`gives no tempo below ${MIN_ONSETS_FOR_TEMPO} onsets`, () => {
    const sr = 44100;
    const x = new Float32Array(4 * sr);
    for (const t of [0.5, 1.0, 1.5]) x[Math.round(t * sr)] = 0.9;
    const three = analyse([x], sr);
    expect(three.onset_count).toBe(3);
    expect(three.tempo_bpm).toBeNull();
    x[Math.round(2.0 * sr)] = 0.9;
    const four = analyse([x], sr);
    expect(four.onset_count).toBe(4);
    expect(relError(four.tempo_bpm!, 120)).toBeLessThanOrEqual(0.02);
  });
});

describe('onset detection function (dsp)', () => {
  it('applies the Hann window in the frequency domain exactly as hannWindow in the time domain', () => {
    const n = 1024;
    let seed = 7;
    const x = Float64Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1);
    const fft = createRealFft(n);
    const re = new Float64Array(n / 2 + 1);
    const im = new Float64Array(n / 2 + 1);
    fft.forward(x, re, im);
    const mag = new Float64Array(n / 2 + 1);
    hannMagnitudes(re, im, 0, n / 2 + 1, mag);
    const w = hannWindow(n);
    fft.forward(
      x.map((v, i) => v * w[i]!),
      re,
      im,
    );
    for (let k = 0; k <= n / 2; k++) expect(mag[k]).toBeCloseTo(Math.hypot(re[k]!, im[k]!), 9);
  });

  it('uses 1024-sample frames at 44.1 and 48 kHz, hop 512, lag μ = 1, and a log filterbank with peak-1 triangles', () => {
    expect(defaultFrameSize(44100)).toBe(1024);
    expect(defaultFrameSize(48000)).toBe(1024);
    const odf = createOnsetStrength(44100);
    expect(odf.frameSize).toBe(1024);
    expect(odf.hopSize).toBe(512);
    expect(odf.lag).toBe(1);
    expect(diffFrames(hannWindow(2048), 220)).toBe(2); // SuperFlux's own setting: 2048 at 200 fps
    const fb = logFilterbank(1024, 44100, 24, 30, 17000);
    expect(fb.bands).toBe(odf.bands);
    for (let b = 0; b < fb.bands; b++) {
      const w = fb.weights.subarray(fb.offset[b]!, fb.offset[b]! + fb.length[b]!);
      expect(Math.max(...w)).toBe(1);
      expect(Math.min(...w)).toBeGreaterThan(0);
      if (b > 0) expect(fb.start[b]!).toBeGreaterThanOrEqual(fb.start[b - 1]!);
    }
    expect(fb.binEnd).toBeLessThanOrEqual(Math.round((17000 * 1024) / 44100) + 1);
  });

  it('picks local maxima above the moving median, at least 30 ms apart, interpolating between frames', () => {
    const fps = 100;
    const env = new Float32Array(200);
    env[50] = 1; // a clean peak
    env[52] = 0.5; // within 30 ms of it: dropped
    env[100] = 0.6; // split evenly over two frames: the onset lies between them
    env[101] = 0.6;
    env[150] = 0.02; // below δ
    expect(pickOnsets(env, fps)).toEqual([0.5, 1.005]);
    // A steady floor raises the threshold: the same bump on a floor of 0.1 is not an onset.
    const floor = new Float32Array(200).fill(0.1);
    floor[60] = 0.12;
    expect(pickOnsets(floor, fps)).toEqual([]);
  });

  it('estimates the tempo of an impulse train to better than the lag grid', () => {
    const fps = 44100 / 512;
    for (const bpm of [63.3, 97.7, 123.4, 151.1, 187.9]) {
      const env = new Float32Array(Math.round(30 * fps));
      // Each beat's energy split linearly between the two nearest frames.
      for (let t = 0.3; t * fps < env.length - 1; t += 60 / bpm) {
        const p = t * fps;
        const i = Math.floor(p);
        env[i] = env[i]! + (1 - (p - i));
        env[i + 1] = env[i + 1]! + (p - i);
      }
      const est = estimateTempo(env, fps)!;
      expect(relError(est.bpm, bpm)).toBeLessThanOrEqual(0.002);
    }
  });

  it('takes the beat, not three 8ths nor the 8th itself, from an even 8th-note pulse with kick and snare accents', () => {
    // All 8ths equally strong in the envelope (hats as loud as the snare); the accent channels carry the
    // bar: kick (bass) on beats 1 and 3, snare (linear flux) on 2 and 4, hats in between.
    const fps = 44100 / 512;
    for (const bpm of [70, 82, 100, 124, 150, 180]) {
      const n = Math.round(30 * fps);
      const env = new Float32Array(n);
      const linear = new Float32Array(n);
      const bass = new Float32Array(n);
      const eighth = 30 / bpm;
      for (let k = 0; (0.2 + k * eighth) * fps < n - 1; k++) {
        const i = Math.round((0.2 + k * eighth) * fps);
        env[i] = 1;
        const step = k % 4; // 0 kick, 1 hat, 2 snare, 3 hat
        linear[i] = step === 2 ? 1 : step === 0 ? 0.3 : 0.35;
        bass[i] = step === 0 ? 1 : step === 2 ? 0.2 : 0.02;
      }
      const est = estimateTempo(env, fps, {}, { linear, bass })!;
      expect(relError(est.bpm, bpm)).toBeLessThanOrEqual(0.01);
      expect(est.levels[est.levels.length - 1]!.subdivision).toBe(false);
      // A four-on-the-floor kick: bass on every beat, the same answer.
      for (let k = 0; (0.2 + k * eighth) * fps < n - 1; k += 2) bass[Math.round((0.2 + k * eighth) * fps)] = 1;
      expect(relError(estimateTempo(env, fps, {}, { linear, bass })!.bpm, bpm)).toBeLessThanOrEqual(0.01);
    }
  });

  it('finds kicks, not hats, in the bass channel, and weighs rises by amplitude in the linear channel', () => {
    const sr = 44100;
    const noise = seededNoise(5);
    const x = new Float32Array(4 * sr);
    const place = (kind: 'kick' | 'hat', t: number, gain: number) => {
      const s = drumSound(kind, sr, noise);
      const at = Math.round(t * sr);
      for (let i = 0; i < s.length && at + i < x.length; i++) x[at + i] = x[at + i]! + gain * s[i]!;
    };
    place('kick', 0.5, 0.5);
    place('hat', 1.5, 0.5);
    place('hat', 2.5, 0.125); // −12 dB
    const odf = createOnsetStrength(sr);
    expect(() => odf.accents()).toThrow();
    odf.push(x);
    const env = odf.finish();
    const { linear, bass } = odf.accents();
    expect(linear.length).toBe(env.length);
    expect(bass.length).toBe(env.length);
    const peak = (a: Float32Array, t: number) =>
      Math.max(...a.subarray(Math.round(t * odf.frameRate) - 2, Math.round(t * odf.frameRate) + 3));
    expect(peak(bass, 0.5)).toBeGreaterThan(20 * peak(bass, 1.5));
    // A quarter of the amplitude: about a quarter of the linear flux (the two hats are different noise),
    // but well over half of the log flux.
    const linearRatio = peak(linear, 2.5) / peak(linear, 1.5);
    expect(linearRatio).toBeGreaterThan(0.15);
    expect(linearRatio).toBeLessThan(0.35);
    expect(peak(env, 2.5) / peak(env, 1.5)).toBeGreaterThan(0.5);
    // The bass channel is the bands centred at or below BASS_HZ: 3 of them at 44.1 kHz (86, 129, 172 Hz).
    expect(odf.bassBands).toBe(3);
    expect(BASS_HZ).toBe(200);
  });

  it('gives no tempo for an envelope shorter than 2 s or without periodicity', () => {
    expect(estimateTempo(new Float32Array(100), 86)).toBeNull();
    expect(estimateTempo(new Float32Array(2000), 86)).toBeNull();
  });
});

describe('fMeasure (mir_eval onset F-measure)', () => {
  it('scores identical lists 1 and empty lists 0', () => {
    expect(fMeasure([1, 2, 3], [1, 2, 3])).toEqual({ precision: 1, recall: 1, f: 1, matches: 3 });
    expect(fMeasure([], [1]).f).toBe(0);
    expect(fMeasure([1], []).f).toBe(0);
    expect(fMeasure([], []).f).toBe(0);
  });

  it('counts only pairs within the window', () => {
    // 2.06 is 60 ms from 2: two matches of three each way, P = R = F = 2/3.
    const s = fMeasure([1, 2, 3], [1.04, 2.06, 3]);
    expect(s.matches).toBe(2);
    expect(s.precision).toBeCloseTo(2 / 3, 12);
    expect(s.recall).toBeCloseTo(2 / 3, 12);
    expect(s.f).toBeCloseTo(2 / 3, 12);
    // A wider window takes it in.
    expect(fMeasure([1, 2, 3], [1.04, 2.06, 3], 0.07).f).toBe(1);
  });

  it('matches one-to-one: one estimate cannot serve two references', () => {
    // P = 1/1, R = 1/2, F = 2·1·½ / (1 + ½) = 2/3.
    const s = fMeasure([1, 1.03], [1.015]);
    expect(s).toMatchObject({ matches: 1, precision: 1, recall: 0.5 });
    expect(s.f).toBeCloseTo(2 / 3, 12);
  });

  it('finds the maximum matching where closest-pair-first would not', () => {
    // Closest pair first takes 1.07 ↔ 1.04 (30 ms) and strands both 1.00 and 1.11; the maximum matching
    // pairs 1.00 ↔ 1.04 and 1.07 ↔ 1.11 (40 ms each).
    expect(fMeasure([1.0, 1.07], [1.04, 1.11])).toMatchObject({ matches: 2, f: 1 });
    // A chain: every reference reaches two estimates, and only the shifted assignment matches all four.
    expect(fMeasure([0, 0.09, 0.18, 0.27], [0.045, 0.135, 0.225, -0.045]).matches).toBe(4);
  });

  it('does not depend on input order', () => {
    expect(fMeasure([3, 1, 2], [2.01, 0.99, 3.02])).toEqual(fMeasure([1, 2, 3], [0.99, 2.01, 3.02]));
  });

  it('merges reference hits closer than 30 ms into the earlier one', () => {
    expect(mergeOnsets([1, 1.02, 1.05, 2, 2.029, 2.031])).toEqual([1, 1.05, 2, 2.031]);
  });
});
