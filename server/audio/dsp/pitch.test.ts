import { describe, expect, it } from 'vitest';
import { Yin, hzToMidi, midiToHz, noteName, type PitchEstimate } from './pitch.js';

/** A harmonic tone: partials 1..count at amplitude 1/h, random-ish fixed phases. */
function harmonicTone(n: number, sampleRate: number, f0: number, count = 8): Float64Array {
  const out = new Float64Array(n);
  for (let h = 1; h <= count && h * f0 < sampleRate / 2; h++) {
    const phase = (h * 1.7) % (2 * Math.PI);
    for (let i = 0; i < n; i++) out[i] = out[i]! + Math.sin((2 * Math.PI * h * f0 * i) / sampleRate + phase) / h;
  }
  return out;
}

function lcgNoise(n: number, seed: number): Float64Array {
  let s = seed >>> 0;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

const fresh = (): PitchEstimate => ({ f0: 0, aperiodicity: 1, energy: 0 });

describe('YIN pitch', () => {
  it.each([32.7, 55, 110, 220, 440, 880, 1500])('finds the f0 of a harmonic tone at %f Hz within 0.3 %', (f0) => {
    const sr = 22_050;
    const yin = new Yin(2048, sr, 30, 2000);
    const est = yin.analyse(harmonicTone(2048, sr, f0), fresh());
    expect(Math.abs(est.f0 - f0) / f0).toBeLessThan(0.003);
    expect(est.aperiodicity).toBeLessThan(0.05);
  });

  it('finds the fundamental of a tone whose fundamental is missing (partials 2..6 of 100 Hz)', () => {
    const sr = 22_050;
    const x = new Float64Array(2048);
    for (let h = 2; h <= 6; h++) for (let i = 0; i < x.length; i++) x[i] = x[i]! + Math.sin((2 * Math.PI * 100 * h * i) / sr);
    const est = new Yin(2048, sr).analyse(x, fresh());
    expect(est.f0).toBeCloseTo(100, 0);
  });

  it('calls white noise aperiodic and silence silent', () => {
    const yin = new Yin(2048, 22_050);
    expect(yin.analyse(lcgNoise(2048, 9), fresh()).aperiodicity).toBeGreaterThan(0.5);
    const silent = yin.analyse(new Float64Array(2048), fresh());
    expect(silent.f0).toBe(0);
    expect(silent.energy).toBe(0);
  });

  it('reuses its buffers: the same frame twice gives the same answer', () => {
    const yin = new Yin(2048, 22_050);
    const x = harmonicTone(2048, 22_050, 196);
    const a = { ...yin.analyse(x, fresh()) };
    yin.analyse(lcgNoise(2048, 3), fresh());
    expect(yin.analyse(x, fresh())).toEqual(a);
  });
});

describe('note names', () => {
  it('uses scientific pitch notation with A4 = 440 Hz', () => {
    expect(noteName(110)).toBe('A2');
    expect(noteName(440)).toBe('A4');
    expect(noteName(261.63)).toBe('C4');
    expect(noteName(27.5)).toBe('A0');
    expect(noteName(466.16)).toBe('A#4');
    expect(noteName(32.7)).toBe('C1');
    // Nearest note: 45 cents above A2 is still A2, 55 cents above is A#2.
    expect(noteName(110 * 2 ** (45 / 1200))).toBe('A2');
    expect(noteName(110 * 2 ** (55 / 1200))).toBe('A#2');
  });

  it('converts between Hz and MIDI numbers', () => {
    expect(hzToMidi(440)).toBe(69);
    expect(hzToMidi(110)).toBeCloseTo(45, 12);
    expect(midiToHz(60)).toBeCloseTo(261.6256, 3);
    expect(midiToHz(hzToMidi(123.4))).toBeCloseTo(123.4, 9);
  });
});
