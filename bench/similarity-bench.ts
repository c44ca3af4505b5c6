/**
 * Speed of similarity search (server/audio/library/similarity-index.ts): nearest(q, 5) over 10,000 and
 * 100,000 vectors of the feature vector's length, beside a brute-force reference written plainly (every
 * distance into an object, sort, take 5), so the ratio shows what the index's early-stopping scan buys;
 * also with an `accept` filter that lets half the ids through (a tenant's items among others). The vectors are RANDOM (each component normal with mean 0 and the component's
 * own scale, clipped at ±4 deviations, as the z-scores are): speed does not depend on what they
 * mean, but real libraries cluster, which lets the scan stop earlier than here. Medians of 60 queries
 * after 10 warm-up queries; the load average is printed because the machine is shared.
 *
 *   npx tsx bench/similarity-bench.ts [--write]
 */
import { loadavg } from 'node:os';
import { featureVectorLength, findVectorScales } from '../server/audio/library/feature-vector.js';
import { createSimilarityIndex } from '../server/audio/library/similarity-index.js';
import { machineHeader, median, say, writeResults } from './bench-support.js';

const dim = featureVectorLength;
let seed = 20261126;
/** xorshift-style uniform in [0, 1): reproducible vectors. */
const uniform = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};
const normal = () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
const scales = findVectorScales();
/** A z-score per component (normal, clipped at ±4) times the component's committed scale, as computeFeatureVector makes them. */
const randomVector = () => Float32Array.from(scales, (scale) => Math.max(-4, Math.min(4, normal())) * scale);

/** The plain reference: every distance, sorted. */
function bruteForce(data: readonly Float32Array[], q: Float32Array, k: number): { id: number; distance: number }[] {
  const all = data.map((v, id) => {
    let s = 0;
    for (let j = 0; j < dim; j++) s += (v[j]! - q[j]!) ** 2;
    return { id, distance: Math.sqrt(s) };
  });
  all.sort((a, b) => a.distance - b.distance);
  return all.slice(0, k);
}

function timeQueries(run: (q: Float32Array) => unknown, queries: readonly Float32Array[]): number {
  for (let i = 0; i < 10; i++) run(queries[i % queries.length]!);
  const ms = queries.map((q) => {
    const t0 = performance.now();
    run(q);
    return performance.now() - t0;
  });
  return median(ms);
}

async function main(): Promise<void> {
  say(machineHeader('Similarity search (bench/similarity-bench.ts)'));
  say('');
  say(
    `Random vectors of ${dim} numbers (the feature vector's length); nearest(q, 5), median of 60 queries; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}.`,
  );
  say('');
  say('| items | index | index, accept half | brute force (reference) | ratio | vectors held |');
  say('|---|---|---|---|---|---|');
  const queries = Array.from({ length: 60 }, randomVector);
  for (const n of [10_000, 100_000]) {
    const index = createSimilarityIndex(dim);
    const data: Float32Array[] = [];
    for (let id = 0; id < n; id++) {
      const vec = randomVector();
      data.push(vec);
      index.add(id, vec);
    }
    // The same answers, or the comparison means nothing.
    const a = index.nearest(queries[0]!, 5).map((h) => h.id);
    const b = bruteForce(data, queries[0]!, 5).map((h) => h.id);
    if (a.join() !== b.join()) throw new Error(`index ${a} ≠ brute force ${b}`);
    const tIndex = timeQueries((q) => index.nearest(q, 5), queries);
    const tAccept = timeQueries((q) => index.nearest(q, 5, (id) => (id & 1) === 0), queries);
    const tBrute = timeQueries((q) => bruteForce(data, q, 5), queries);
    say(
      `| ${n.toLocaleString('en')} | ${tIndex.toFixed(2)} ms | ${tAccept.toFixed(2)} ms | ${tBrute.toFixed(1)} ms | ${(tBrute / tIndex).toFixed(1)}× | ${((n * dim * 4) / 2 ** 20).toFixed(1)} MB (one Float32Array) |`,
    );
  }
  say('');
  say('Target: ≤ 50 ms at 100,000 items.');
  await writeResults();
}

await main();
