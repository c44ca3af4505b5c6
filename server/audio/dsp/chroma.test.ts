import { describe, expect, it } from 'vitest';
import { PeakChroma, PITCH_CLASSES } from './chroma.js';
import { createRealFft } from './fft.js';
import { hannWindow } from './window.js';

const SR = 44100;
const N = 2048;

/** Magnitude frames (hop 512) of a signal, as the features engine takes them. */
function frames(x: Float64Array): Float64Array[] {
  const fft = createRealFft(N);
  const w = hannWindow(N);
  const buf = new Float64Array(N);
  const re = new Float64Array(N / 2 + 1);
  const im = new Float64Array(N / 2 + 1);
  const out: Float64Array[] = [];
  for (let start = 0; start + N <= x.length; start += 512) {
    for (let i = 0; i < N; i++) buf[i] = x[start + i]! * w[i]!;
    fft.forward(buf, re, im);
    out.push(Float64Array.from(re, (r, k) => Math.hypot(r, im[k]!)));
  }
  return out;
}

/** A harmonic tone: partials h·f with amplitudes amp(h). */
function tone(freq: number, seconds: number, amp: (h: number) => number, harmonics = 6): Float64Array {
  const n = Math.round(seconds * SR);
  const x = new Float64Array(n);
  for (let h = 1; h <= harmonics; h++) {
    const a = amp(h);
    for (let i = 0; i < n; i++) x[i] = x[i]! + a * Math.sin((2 * Math.PI * freq * h * i) / SR);
  }
  return x;
}

function chromaOf(x: Float64Array) {
  const c = new PeakChroma(SR, N);
  for (const f of frames(x)) c.addFrame(f);
  return c.finish();
}

const argmax = (a: ArrayLike<number>) => {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i]! > a[best]!) best = i;
  return best;
};

describe('peak chroma', () => {
  it.each(Array.from({ length: 24 }, (_, i) => 36 + i * 2))('a harmonic tone at MIDI %i lands on its pitch class', (midi) => {
    const f = 440 * 2 ** ((midi - 69) / 12);
    const { chroma, tuningCents } = chromaOf(tone(f, 0.5, (h) => 0.3 * 0.6 ** (h - 1)));
    expect(PITCH_CLASSES[argmax(chroma)]).toBe(PITCH_CLASSES[midi % 12]);
    expect(chroma[midi % 12]).toBe(1);
    expect(Math.abs(tuningCents)).toBeLessThan(5);
  });

  it('measures a detuned reference and folds the classes around it', () => {
    // A4 at +30 cents (446.4 Hz) and a C5 tuned the same way.
    const k = 2 ** (30 / 1200);
    const x = tone(440 * k, 1, (h) => 0.2 / h);
    const y = tone(523.25 * k, 1, (h) => 0.2 / h);
    for (let i = 0; i < x.length; i++) x[i] = x[i]! + y[i]!;
    const { chroma, tuningCents } = chromaOf(x);
    expect(tuningCents).toBeGreaterThan(25);
    expect(tuningCents).toBeLessThan(35);
    expect(chroma[9]).toBeGreaterThan(0.8);
    expect(chroma[0]).toBeGreaterThan(0.8);
    expect(chroma[10]!).toBeLessThan(0.1); // A# is 70 cents away
  });

  it('does not count the 3rd and 5th harmonics of a rich tone as the fifth and the major third', () => {
    // C3 with 8 harmonics decaying slowly: partials 3 (G) and 5 (E) are strong.
    const { chroma } = chromaOf(tone(130.81, 1, (h) => 0.3 * 0.85 ** (h - 1), 8));
    expect(argmax(chroma)).toBe(0);
    expect(chroma[4]!).toBeLessThan(0.05); // E
    expect(chroma[7]!).toBeLessThan(0.05); // G
  });

  it('gives nothing for silence', () => {
    const c = new PeakChroma(SR, N);
    expect(c.addFrame(new Float64Array(N / 2 + 1))).toBe(false);
    const r = c.finish();
    expect(r.frames).toBe(0);
    expect([...r.chroma]).toEqual(new Array(12).fill(0));
    expect(r.tuningCents).toBe(0);
  });
});
