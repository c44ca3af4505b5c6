import { describe, expect, it } from 'vitest';
import { createSimilarityIndex } from './similarity-index.js';

const v = (...xs: number[]) => Float32Array.from(xs);

/** Five points of the plane whose distances from (0.1, 0) are worked out by hand below. */
function plane() {
  const index = createSimilarityIndex(2);
  index.add(10, v(0, 0)); // 0.1
  index.add(11, v(1, 0)); // 0.9
  index.add(12, v(0, 2)); // √(0.01 + 4) = 2.00250
  index.add(13, v(3, 3)); // √(8.41 + 9) = 4.17253
  index.add(14, v(-1, -1)); // √(1.21 + 1) = 1.48661
  return index;
}

/** A plainly written brute force: every distance, sorted (an independent reference). */
function bruteForce(points: readonly Float32Array[], q: Float32Array, k: number) {
  return points
    .map((p, id) => ({ id, distance: Math.sqrt(p.reduce((s, x, j) => s + (x - q[j]!) ** 2, 0)) }))
    .sort((a, b) => a.distance - b.distance || a.id - b.id)
    .slice(0, k);
}

describe('similarity index', () => {
  it('answers the nearest vectors in order with their Euclidean distances', () => {
    const got = plane().nearest(v(0.1, 0), 5);
    expect(got.map((h) => h.id)).toEqual([10, 11, 14, 12, 13]);
    const want = [0.1, 0.9, 1.48661, 2.0025, 4.17253];
    got.forEach((h, i) => expect(h.distance).toBeCloseTo(want[i]!, 4));
  });

  it('gives at most k, all of them when k exceeds the size, none for k = 0 or an empty index', () => {
    const index = plane();
    expect(index.nearest(v(0.1, 0), 2).map((h) => h.id)).toEqual([10, 11]);
    expect(index.nearest(v(0.1, 0), 50)).toHaveLength(5);
    expect(index.nearest(v(0.1, 0), 0)).toEqual([]);
    expect(createSimilarityIndex(2).nearest(v(0, 0), 5)).toEqual([]);
  });

  it('skips what accept refuses, and asks only about vectors that would enter the answer', () => {
    const index = plane();
    expect(index.nearest(v(0.1, 0), 2, (id) => id !== 10 && id !== 11).map((h) => h.id)).toEqual([14, 12]);
    const asked: number[] = [];
    const got = index.nearest(v(0.1, 0), 1, (id) => {
      asked.push(id);
      return id !== 10 && id !== 11;
    });
    expect(got.map((h) => h.id)).toEqual([14]);
    // In insertion order: 10 and 11 refused, 12 taken (2.00), 13 (4.17) farther than that, 14 (1.49) nearer.
    expect(asked).toEqual([10, 11, 12, 14]);
  });

  it('replaces the vector of an id added again, and forgets removed ids', () => {
    const index = plane();
    index.add(13, v(0.1, 0.05)); // now 0.05 from the query
    expect(index.size).toBe(5);
    expect(index.nearest(v(0.1, 0), 1)[0]).toEqual({ id: 13, distance: expect.closeTo(0.05, 6) });
    index.remove(10); // a middle slot: the last vector moves into it
    index.remove(99); // unknown: nothing happens
    expect(index.size).toBe(4);
    expect(index.nearest(v(0.1, 0), 5).map((h) => h.id)).toEqual([13, 11, 14, 12]);
    expect(index.nearest(v(-1, -1), 1)[0]).toEqual({ id: 14, distance: 0 });
  });

  it('breaks distance ties by the smaller id', () => {
    const index = createSimilarityIndex(1);
    index.add(7, v(1));
    index.add(3, v(-1));
    index.add(5, v(1));
    expect(index.nearest(v(0), 2).map((h) => h.id)).toEqual([3, 5]);
  });

  it('refuses vectors of the wrong length or with non-finite numbers, and bad k', () => {
    const index = createSimilarityIndex(3);
    expect(() => index.add(1, v(1, 2))).toThrow(RangeError);
    expect(() => index.add(1, v(1, Number.NaN, 2))).toThrow(RangeError);
    expect(() => index.nearest(v(1, 2, 3, 4), 1)).toThrow(RangeError);
    expect(() => index.nearest(v(1, 2, 3), -1)).toThrow(RangeError);
    expect(() => createSimilarityIndex(0)).toThrow(RangeError);
  });

  it('agrees with a brute-force search on random vectors, through growth and removals', () => {
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const dim = 24;
    const points = Array.from({ length: 3000 }, () => Float32Array.from({ length: dim }, rand));
    const index = createSimilarityIndex(dim);
    points.forEach((p, id) => index.add(id, p));
    const removed = new Set([0, 17, 2999, 1500]);
    for (const id of removed) index.remove(id);
    const kept = points.map((p, id) => (removed.has(id) ? Float32Array.from({ length: dim }, () => 1e6) : p));
    for (let q = 0; q < 25; q++) {
      const query = Float32Array.from({ length: dim }, rand);
      const got = index.nearest(query, 7);
      const want = bruteForce(kept, query, 7);
      expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
      got.forEach((h, i) => expect(h.distance).toBeCloseTo(want[i]!.distance, 4));
    }
  });
});
