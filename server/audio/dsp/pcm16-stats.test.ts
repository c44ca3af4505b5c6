import { describe, expect, it } from 'vitest';
import { pcm16Stats, reducePcm16Scalar } from './pcm16-stats.js';

/** A definition with nothing clever in it: min, max and Σ(x/2^15)² in order. */
function direct(x: Int16Array, from: number, to: number): number[] {
  let lo = Infinity;
  let hi = -Infinity;
  let s = 0;
  for (let i = from; i < to; i++) {
    const v = x[i]! / 32768;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
    s += v * v;
  }
  return [lo, hi, s];
}

describe('16-bit min, max and sum of squares', () => {
  let seed = 12345;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed;
  };
  const noise = Int16Array.from({ length: 3_000_001 }, () => (random() >>> 16) - 32768);
  // The extremes, including pairs of −32768 (x₁² + x₂² = 2^31, one past the signed 32-bit range).
  noise.set([-32768, -32768, -32768, -32768, 32767, 32767, -32768, 32767], 1000);

  it.each([
    ['an empty range', 5, 5],
    ['fewer than 8 samples', 3, 10],
    ['the extremes and odd ends', 997, 1013],
    ['a 1 MB chunk', 0, 1 << 19],
    ['more than one kernel call (1.3 M samples each)', 17, 3_000_001],
  ])('equals the scalar loop and the direct definition for %s', (_label, from, to) => {
    const fast = new Float64Array(3);
    const scalar = new Float64Array(3);
    pcm16Stats(noise, from, to, fast);
    reducePcm16Scalar(noise, from, to, scalar);
    expect(Array.from(fast)).toEqual(Array.from(scalar));
    if (to > from) expect(Array.from(fast)).toEqual(direct(noise, from, to).map((v, i) => (i === 2 ? expect.closeTo(v, 6) : v)));
    else expect(Array.from(fast)).toEqual([Infinity, -Infinity, 0]);
  });

  it('sums pairs of −32768 without wrapping', () => {
    const out = new Float64Array(3);
    pcm16Stats(new Int16Array(16).fill(-32768), 0, 16, out);
    expect(Array.from(out)).toEqual([-1, -1, 16]);
  });
});
