import { describe, expect, it } from 'vitest';
import { createRealFft } from './fft.js';
import { hannWindow, windowSum } from './window.js';

/** Direct O(n²) DFT: the definition, independent of the fast algorithm. */
function naiveDft(x: readonly number[]): { re: number[]; im: number[] } {
  const n = x.length;
  const re: number[] = [];
  const im: number[] = [];
  for (let k = 0; k <= n / 2; k++) {
    let r = 0;
    let i = 0;
    for (let t = 0; t < n; t++) {
      r += x[t]! * Math.cos((2 * Math.PI * k * t) / n);
      i -= x[t]! * Math.sin((2 * Math.PI * k * t) / n);
    }
    re.push(r);
    im.push(i);
  }
  return { re, im };
}

describe('real FFT', () => {
  // Sizes whose complex half has an odd and an even number of radix-2 stages (a single first stage, or a
  // fused first pass), from the smallest up.
  it.each([4, 8, 16, 32, 64, 128, 1024, 2048])('matches the direct DFT for n = %i', (n) => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const x = Array.from({ length: n }, rand);
    const fft = createRealFft(n);
    const re = new Float64Array(n / 2 + 1);
    const im = new Float64Array(n / 2 + 1);
    fft.forward(Float64Array.from(x), re, im);
    const ref = naiveDft(x);
    for (let k = 0; k <= n / 2; k++) {
      expect(re[k]).toBeCloseTo(ref.re[k]!, 9);
      expect(im[k]).toBeCloseTo(ref.im[k]!, 9);
    }
  });

  it('puts a windowed sine of amplitude A at A·sum(w)/2 in its bin', () => {
    const n = 2048;
    const w = hannWindow(n);
    const k0 = 100;
    const x = Array.from({ length: n }, (_, t) => 0.5 * Math.sin((2 * Math.PI * k0 * t) / n) * w[t]!);
    const re = new Float64Array(n / 2 + 1);
    const im = new Float64Array(n / 2 + 1);
    createRealFft(n).forward(Float64Array.from(x), re, im);
    expect(Math.hypot(re[k0]!, im[k0]!)).toBeCloseTo((0.5 * windowSum(w)) / 2, 6);
  });

  it('gives the same spectra with several sizes alive and interleaved', () => {
    const sizes = [4096, 1024, 256, 8];
    const ffts = sizes.map((n) => createRealFft(n));
    const inputs = sizes.map((n) => Float64Array.from({ length: n }, (_, t) => Math.sin(0.3 * t) + 0.25 * Math.cos(1.7 * t)));
    const first = sizes.map((n, i) => {
      const re = new Float64Array(n / 2 + 1);
      const im = new Float64Array(n / 2 + 1);
      ffts[i]!.forward(inputs[i]!, re, im);
      return [re, im];
    });
    for (let round = 0; round < 3; round++) {
      for (let i = sizes.length - 1; i >= 0; i--) {
        const n = sizes[i]!;
        const re = new Float64Array(n / 2 + 1);
        const im = new Float64Array(n / 2 + 1);
        ffts[i]!.forward(inputs[i]!, re, im);
        expect(re).toEqual(first[i]![0]);
        expect(im).toEqual(first[i]![1]);
      }
    }
    // And the spectrum of the 4096-point input matches the direct DFT at a few bins.
    const ref = naiveDft(Array.from(inputs[0]!));
    for (const k of [0, 1, 195, 1024, 1500, 2048]) {
      expect(first[0]![0]![k]).toBeCloseTo(ref.re[k]!, 7);
      expect(first[0]![1]![k]).toBeCloseTo(ref.im[k]!, 7);
    }
  });

  it('refuses sizes that are not powers of two ≥ 4', () => {
    expect(() => createRealFft(1000)).toThrow(RangeError);
    expect(() => createRealFft(2)).toThrow(RangeError);
    expect(() => createRealFft(0)).toThrow(RangeError);
  });
});
