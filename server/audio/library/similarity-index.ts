/**
 * Nearest neighbours over feature vectors (feature-vector.ts) by Euclidean distance. Exact, not
 * approximate: every vector lives in one growing Float32Array (no object per item), a query scans it
 * once, and a vector's sum stops as soon as it passes the current k-th best distance (most of a
 * library is far from any query, so most sums stop after a few components; the vector's heavily
 * weighted components come first). The k best are kept in two
 * small preallocated arrays, and `accept` is asked only about a vector that would enter them, so a
 * filter costs one call per candidate and allocates nothing per item. Removal moves the last vector
 * into the freed slot. Pure: no I/O.
 */

/** Nearest neighbours of feature vectors. */
export interface SimilarityIndex {
  /** Add a vector under an id (replacing that id's vector if it has one). */
  add(id: number, vector: Float32Array): void;
  /** Forget an id (nothing happens for an unknown one). */
  remove(id: number): void;
  /** The k nearest vectors that `accept` lets through, nearest first (ties by smaller id). */
  nearest(vector: Float32Array, k: number, accept?: (id: number) => boolean): readonly { readonly id: number; readonly distance: number }[];
  /** Vectors held. */
  readonly size: number;
}

/** An empty index for vectors of `dimensions` numbers. */
export function createSimilarityIndex(dimensions: number): SimilarityIndex {
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new RangeError(`dimensions must be a positive integer, not ${dimensions}`);
  return new FlatIndex(dimensions);
}

class FlatIndex implements SimilarityIndex {
  private data = new Float32Array(0);
  private ids = new Float64Array(0);
  private readonly slotOf = new Map<number, number>();
  private count = 0;

  constructor(private readonly dim: number) {}

  get size(): number {
    return this.count;
  }

  add(id: number, vector: Float32Array): void {
    this.check(vector);
    if (!Number.isSafeInteger(id)) throw new RangeError(`id must be an integer, not ${id}`);
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      if (this.count === this.ids.length) this.grow();
      slot = this.count++;
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    this.data.set(vector, slot * this.dim);
  }

  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    const last = --this.count;
    if (slot !== last) {
      const movedId = this.ids[last]!;
      this.data.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.ids[slot] = movedId;
      this.slotOf.set(movedId, slot);
    }
  }

  nearest(vector: Float32Array, k: number, accept?: (id: number) => boolean): { id: number; distance: number }[] {
    this.check(vector);
    if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, not ${k}`);
    const want = Math.min(k, this.count);
    if (want === 0) return [];
    // The best so far, sorted by squared distance (then id): insertion into k slots.
    const bestD = new Float64Array(want).fill(Number.POSITIVE_INFINITY);
    const bestId = new Float64Array(want).fill(Number.POSITIVE_INFINITY);
    let filled = 0;
    const { data, ids, dim } = this;
    const dim4 = dim - (dim % 4);
    for (let slot = 0, base = 0; slot < this.count; slot++, base += dim) {
      const bound = bestD[want - 1]!;
      // Four components between checks of the bound: a branch per component costs more than it saves.
      let sum = 0;
      let j = 0;
      for (; j < dim4 && sum <= bound; j += 4) {
        const d0 = data[base + j]! - vector[j]!;
        const d1 = data[base + j + 1]! - vector[j + 1]!;
        const d2 = data[base + j + 2]! - vector[j + 2]!;
        const d3 = data[base + j + 3]! - vector[j + 3]!;
        sum += d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3;
      }
      if (sum > bound) continue;
      for (; j < dim; j++) {
        const d = data[base + j]! - vector[j]!;
        sum += d * d;
      }
      if (sum > bound) continue;
      const id = ids[slot]!;
      if (sum === bound && id > bestId[want - 1]!) continue;
      if (accept && !accept(id)) continue;
      let p = filled < want ? filled++ : want - 1;
      while (p > 0 && (bestD[p - 1]! > sum || (bestD[p - 1] === sum && bestId[p - 1]! > id))) {
        bestD[p] = bestD[p - 1]!;
        bestId[p] = bestId[p - 1]!;
        p--;
      }
      bestD[p] = sum;
      bestId[p] = id;
    }
    const out: { id: number; distance: number }[] = [];
    for (let i = 0; i < filled; i++) out.push({ id: bestId[i]!, distance: Math.sqrt(bestD[i]!) });
    return out;
  }

  private check(vector: Float32Array): void {
    if (!(vector instanceof Float32Array) || vector.length !== this.dim) {
      throw new RangeError(`expected a Float32Array of ${this.dim} numbers`);
    }
    for (let j = 0; j < vector.length; j++) if (!Number.isFinite(vector[j])) throw new RangeError('vector has a non-finite value');
  }

  private grow(): void {
    const capacity = Math.max(64, this.ids.length * 2);
    const data = new Float32Array(capacity * this.dim);
    data.set(this.data.subarray(0, this.count * this.dim));
    const ids = new Float64Array(capacity);
    ids.set(this.ids.subarray(0, this.count));
    this.data = data;
    this.ids = ids;
  }
}
