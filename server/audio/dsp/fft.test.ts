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
  it.each([4, 8, 64, 1024])('matches the direct DFT for n = %i', (n) => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const x = Array.from({ length: n }, rand);
    const fft = createRealFft(n);
    const re = new Float64Array(n / 2 + 1);
    const im = new Float64Array(n / 2 + 1);
    fft.forward(x, re, im);
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
    createRealFft(n).forward(x, re, im);
    expect(Math.hypot(re[k0]!, im[k0]!)).toBeCloseTo((0.5 * windowSum(w)) / 2, 6);
  });

  it('refuses sizes that are not powers of two', () => {
    expect(() => createRealFft(1000)).toThrow(RangeError);
  });
});
