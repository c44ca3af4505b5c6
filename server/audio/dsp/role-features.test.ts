import { describe, expect, it } from 'vitest';
import { createRealFft } from './fft.js';
import {
  GrowableArray,
  SpectralShape,
  StreamingHpss,
  beatPeriod,
  envelopeShape,
  median5,
  parabolicShift,
  pickPeaks,
  ramp,
} from './role-features.js';
import { hannWindow } from './window.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

/** Power spectra (Hann, n = 2048, hop 1024) of a signal, one per frame. */
function spectra(x: Float64Array, n = 2048): Float64Array[] {
  const fft = createRealFft(n);
  const w = hannWindow(n);
  const frame = new Float64Array(n);
  const re = new Float64Array(n / 2 + 1);
  const im = new Float64Array(n / 2 + 1);
  const out: Float64Array[] = [];
  for (let start = 0; start + n <= x.length; start += n / 2) {
    for (let i = 0; i < n; i++) frame[i] = x[start + i]! * w[i]!;
    fft.forward(frame, re, im);
    out.push(Float64Array.from({ length: n / 2 + 1 }, (_, k) => re[k]! ** 2 + im[k]! ** 2));
  }
  return out;
}

describe('median5', () => {
  it('is the middle value of every ordering', () => {
    const rand = lcg(4);
    for (let t = 0; t < 2000; t++) {
      const v = Array.from({ length: 5 }, () => Math.round(rand() * 4) + 0);
      const sorted = [...v].sort((a, b) => a - b);
      expect(median5(v[0]!, v[1]!, v[2]!, v[3]!, v[4]!) + 0).toBe(sorted[2]! + 0);
    }
  });
});

describe('StreamingHpss', () => {
  const sr = 44_100;
  const hpssShare = (x: Float64Array) => {
    const h = new StreamingHpss(512);
    for (const p of spectra(x)) h.push(p);
    h.flush();
    return h.percussive / (h.percussive + h.harmonic);
  };

  it('calls a steady tone harmonic', () => {
    const x = Float64Array.from(
      { length: sr * 2 },
      (_, i) => Math.sin((2 * Math.PI * 440 * i) / sr) + 0.5 * Math.sin((2 * Math.PI * 880 * i) / sr),
    );
    expect(hpssShare(x)).toBeLessThan(0.05);
  });

  it('calls a train of clicks percussive', () => {
    const x = new Float64Array(sr * 2);
    for (let t = 0; t < x.length; t += 11_025) x[t] = 1;
    expect(hpssShare(x)).toBeGreaterThan(0.9);
  });

  it('splits steady white noise about evenly', () => {
    const rand = lcg(7);
    const share = hpssShare(Float64Array.from({ length: sr * 2 }, () => rand()));
    expect(share).toBeGreaterThan(0.35);
    expect(share).toBeLessThan(0.65);
  });

  it('handles clips shorter than its kernel', () => {
    const h = new StreamingHpss(64);
    h.push(Float64Array.from({ length: 64 }, () => 1));
    h.flush();
    expect(h.percussive + h.harmonic).toBeCloseTo(64, 9);
  });
});

describe('SpectralShape', () => {
  it('measures a sum of partials as tonal and flat noise as noise', () => {
    const sr = 44_100;
    const shape = new SpectralShape(1025);
    const tone = Float64Array.from({ length: 4096 }, (_, i) => {
      let v = 0;
      for (const f of [261.6, 329.6, 392, 523.3, 659.3, 784]) v += Math.sin((2 * Math.PI * f * i) / sr);
      return v;
    });
    shape.analyse(spectra(tone)[1]!, 2, 5, 743);
    expect(shape.tonal).toBeGreaterThan(0.95);
    expect(shape.flatness).toBeLessThan(0.01);
    const rand = lcg(11);
    shape.analyse(spectra(Float64Array.from({ length: 4096 }, () => rand()))[1]!, 2, 5, 743);
    expect(shape.tonal).toBeLessThan(0.1);
    // White noise: the flatness of exponentially distributed powers is e^−γ ≈ 0.56.
    expect(shape.flatness).toBeGreaterThan(0.45);
    expect(shape.flatness).toBeLessThan(0.65);
  });
});

describe('envelopeShape', () => {
  const block = 0.005;

  it('measures the attack of a linear swell and the hold of a plateau', () => {
    // 1 s linear rise in amplitude, 2 s hold: the level is within 3 dB of the top from amplitude 0.708 on.
    const power = Float64Array.from({ length: 600 }, (_, i) => Math.min(1, i / 200) ** 2);
    const env = envelopeShape(power, block);
    expect(env.attackBlocks * block).toBeGreaterThan(0.65);
    expect(env.attackBlocks * block).toBeLessThan(0.75);
    expect(env.meanDropDb).toBeLessThan(0.5);
    expect(env.sustain).toBeGreaterThan(0.9);
  });

  it('measures a fast exponential decay as a large drop', () => {
    // 100 ms time constant: 8.7 dB per 100 ms.
    const power = Float64Array.from({ length: 200 }, (_, i) => Math.exp((-2 * i * block) / 0.1));
    const env = envelopeShape(power, block);
    expect(env.attackBlocks).toBe(0);
    expect(env.meanDropDb).toBeGreaterThan(8);
    // 15 dB below the peak after 0.1·15/8.69 ≈ 0.173 s.
    expect(env.decayBlocks * block).toBeCloseTo(0.175, 2);
  });

  it('ends the attack at the first event when it decays before the next one', () => {
    // A hit at 0 (−6 dB) decaying, then a louder hit at 0.3 s.
    const power = Float64Array.from({ length: 200 }, (_, i) => (i < 60 ? 0.25 * Math.exp(-i / 5) : Math.exp(-(i - 60) / 5)));
    expect(envelopeShape(power, block).attackBlocks).toBeGreaterThan(50);
    expect(envelopeShape(power, block, 58).attackBlocks).toBe(0);
  });
});

describe('beatPeriod', () => {
  it.each([90, 120, 128, 150])('finds %i BPM in a pulse train', (bpm) => {
    const rate = 200;
    const curve = new Float64Array(rate * 12);
    for (let t = 0; t < 12; t += 60 / bpm) curve[Math.round(t * rate)] = 1;
    const beat = beatPeriod(curve, rate)!;
    expect(beat.bpm).toBeCloseTo(bpm, 0);
    expect(beat.strength).toBeGreaterThan(0.5);
  });

  it('may answer half of a fast tempo (the prior prefers ~120 BPM), which keeps a whole number of beats whole', () => {
    const rate = 200;
    const curve = new Float64Array(rate * 12);
    for (let t = 0; t < 12; t += 60 / 174) curve[Math.round(t * rate)] = 1;
    const bpm = beatPeriod(curve, rate)!.bpm;
    expect([87, 174].some((b) => Math.abs(bpm - b) < 0.5)).toBe(true);
  });

  it('answers null for a curve shorter than two beats or flat', () => {
    expect(beatPeriod(new Float64Array(100), 200)).toBeNull();
    expect(beatPeriod(new Float64Array(2000), 200)).toBeNull();
  });
});

describe('small helpers', () => {
  it('pickPeaks finds isolated maxima above the threshold', () => {
    const curve = new Float64Array(100);
    curve[10] = 5;
    curve[11] = 4;
    curve[50] = 6;
    curve[80] = 1;
    expect(pickPeaks(curve, 3)).toEqual([10, 50]);
  });

  it('ramp, parabolicShift and GrowableArray', () => {
    expect(ramp(5, 0, 10)).toBe(0.5);
    expect(ramp(-1, 0, 10)).toBe(0);
    expect(ramp(0.2, 0.5, 0.1)).toBeCloseTo(0.75, 12);
    expect(parabolicShift(0, 1, 0)).toBeCloseTo(0, 12);
    expect(parabolicShift(0.5, 1, 0)).toBeLessThan(0);
    const g = new GrowableArray(2);
    for (let i = 0; i < 10; i++) g.push(i);
    expect(Array.from(g.view())).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
