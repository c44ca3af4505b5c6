/** Nearest neighbours over fixed-length vectors. */
export interface SimilarityIndex {
  add(id: number, vector: Float32Array): void;
  remove(id: number): void;
  nearest(vector: Float32Array, k: number, accept?: (id: number) => boolean): readonly { readonly id: number; readonly distance: number }[];
  readonly size: number;
}

/**
 * Brute-force Euclidean nearest neighbours over one flat Float32Array (ids beside it; a removal moves
 * the last row into the hole), keeping the k best in a small sorted buffer: no allocation per row.
 */
export function createSimilarityIndex(dimensions: number): SimilarityIndex {
  let data = new Float32Array(dimensions * 1024);
  let ids = new Int32Array(1024);
  const rowOf = new Map<number, number>();
  let count = 0;

  const grow = () => {
    const d = new Float32Array(data.length * 2);
    d.set(data);
    data = d;
    const i = new Int32Array(ids.length * 2);
    i.set(ids);
    ids = i;
  };
  const remove = (id: number) => {
    const row = rowOf.get(id);
    if (row === undefined) return;
    const last = count - 1;
    if (row !== last) {
      data.copyWithin(row * dimensions, last * dimensions, (last + 1) * dimensions);
      ids[row] = ids[last]!;
      rowOf.set(ids[row]!, row);
    }
    rowOf.delete(id);
    count--;
  };

  return {
    get size() {
      return count;
    },
    add(id, vector) {
      if (vector.length !== dimensions) throw new Error(`vector has ${vector.length} dimensions, expected ${dimensions}`);
      remove(id);
      if (count === ids.length) grow();
      data.set(vector, count * dimensions);
      ids[count] = id;
      rowOf.set(id, count);
      count++;
    },
    remove,
    nearest(vector, k, accept) {
      if (k <= 0) return [];
      const bestD = new Float64Array(k).fill(Infinity);
      const bestI = new Int32Array(k).fill(-1);
      for (let r = 0; r < count; r++) {
        let d = 0;
        const base = r * dimensions;
        for (let j = 0; j < dimensions; j++) {
          const diff = data[base + j]! - vector[j]!;
          d += diff * diff;
        }
        if (d >= bestD[k - 1]!) continue;
        const id = ids[r]!;
        if (accept && !accept(id)) continue;
        let p = k - 1;
        while (p > 0 && bestD[p - 1]! > d) {
          bestD[p] = bestD[p - 1]!;
          bestI[p] = bestI[p - 1]!;
          p--;
        }
        bestD[p] = d;
        bestI[p] = id;
      }
      const out: { id: number; distance: number }[] = [];
      for (let p = 0; p < k && bestI[p] !== -1; p++) out.push({ id: bestI[p]!, distance: Math.sqrt(bestD[p]!) });
      return out;
    },
  };
}
