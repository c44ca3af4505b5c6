import { describe, expect, it } from 'vitest';
import { beatStrength, melFluxEnvelope, pulseClarity, smoothEnvelope } from './rhythm-features.js';

const FRAME_RATE = 44100 / 512;

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** An onset envelope with a unit impulse every `period` frames (rounded) over `frames` frames. */
function pulses(frames: number, period: number, phase = 3): Float64Array {
  const env = new Float64Array(frames);
  for (let t = phase; Math.round(t) < frames; t += period) env[Math.round(t)] = 1;
  return env;
}

describe('mel-flux onset strength (librosa onset_strength)', () => {
  it('is the mean positive rise over bands of the clipped dB values', () => {
    const nMels = 4;
    // Frame 0: all −90 (clipped to −80); frame 1: rises of 10, 0, 20 and a fall; frame 2: all fall.
    const db = Float64Array.from([-90, -90, -90, -90, -70, -80, -60, -85, -100, -100, -100, -100]);
    const out = new Float64Array(3);
    melFluxEnvelope(db, 3, nMels, -80, out);
    expect(out[0]).toBe(0);
    expect(out[1]).toBeCloseTo((10 + 0 + 20 + 0) / 4, 12);
    expect(out[2]).toBe(0);
  });
});

describe('pulse clarity', () => {
  it('is close to 1 for a strictly periodic pulse, at its period', () => {
    const period = (60 * FRAME_RATE) / 120; // 43.07 frames
    const result = pulseClarity(smoothEnvelope(pulses(2584, period)), FRAME_RATE)!;
    expect(result.clarity).toBeGreaterThan(0.8);
    expect(Math.abs(result.lag - period)).toBeLessThanOrEqual(1);
  });

  it('is near 0 for a random envelope', () => {
    const r = rng(9);
    const env = Float64Array.from({ length: 2584 }, () => r());
    expect(pulseClarity(smoothEnvelope(env), FRAME_RATE)!.clarity).toBeLessThan(0.15);
  });

  it('is null for a constant or too short envelope', () => {
    expect(pulseClarity(new Float64Array(500).fill(1), FRAME_RATE)).toBeNull();
    expect(pulseClarity(new Float64Array(20), FRAME_RATE)).toBeNull();
  });
});

describe('beat strength', () => {
  it('is the grid mean over the overall mean: about the period for unit pulses, 1 for a constant', () => {
    const period = (60 * FRAME_RATE) / 100;
    const env = pulses(2000, period, 10);
    // Every grid point holds a pulse; the mean of the envelope is (number of pulses)/frames.
    const count = env.reduce((s, v) => s + v, 0);
    expect(beatStrength(env, FRAME_RATE, 100)).toBeCloseTo(1 / (count / 2000), 1);
    expect(beatStrength(new Float64Array(2000).fill(0.2), FRAME_RATE, 100)).toBeCloseTo(1, 12);
  });

  it('is null without signal', () => {
    expect(beatStrength(new Float64Array(100), FRAME_RATE, 120)).toBeNull();
    expect(beatStrength(new Float64Array(0), FRAME_RATE, 120)).toBeNull();
  });
});
