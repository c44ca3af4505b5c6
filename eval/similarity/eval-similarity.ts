/**
 * The similarity quality on the real-recording sets (docs/audio-api.md, "Similarity"): for each query
 * the share of its 5 nearest neighbours, searched within all development libraries pooled (lmms-common is
 * never used), that have the query's role and instrument family (families.ts); the query and its darker
 * copy are excluded. Printed for the committed constants (fitted on TRAINING_LIBRARIES) on the held-out
 * libraries (the figure that counts) and on the training ones, per role, per library and per family,
 * and with `--lolo` leaving one library out at a time (its constants refitted on the six others).
 *
 *   CRATEHOUSE_REAL_AUDIO_CACHE=/path/to/cache npx tsx eval/similarity/eval-similarity.ts [--lolo]
 */
import { featureNorms } from '../../server/audio/library/feature-vector-norms.js';
import { LIBRARIES } from '../real-audio/sets.js';
import { analysedFile, findAnalysedSets } from './analysed-sets.js';
import { fitMoments, fitWeights, poolOf, readRawItems, TRAINING_LIBRARIES } from './fit.js';
import { measureQuality, type Quality, type Share } from './quality.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const pct = (s: Share | undefined) => (s ? `${s.mean.toFixed(3)} (${s.queries})` : '—');

function report(title: string, q: Quality, families = false): void {
  say(`${title}: ${pct(q.overall)}`);
  say(
    `  by role:    ${Object.entries(q.byRole)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}`,
  );
  say(
    `  by library: ${Object.entries(q.byLibrary)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ')}`,
  );
  if (families)
    say(
      `  by family:  ${Object.entries(q.byFamily)
        .map(([k, v]) => `${k} ${pct(v)}`)
        .join(', ')}`,
    );
}

function main(): void {
  const files = findAnalysedSets();
  if (!files) throw new Error(`${analysedFile} missing: run npx tsx eval/similarity/analyze-sets.ts`);
  const items = readRawItems(files);
  const heldOut = LIBRARIES.map((l) => l.id).filter((id) => !TRAINING_LIBRARIES.includes(id));
  say(
    `similarity quality, top 5, ${items.length} files of ${LIBRARIES.length} libraries pooled (${items.filter((i) => i.family === null).length} without a family are searched but never queries)`,
  );
  say(`constants v${featureNorms.version} fitted on ${TRAINING_LIBRARIES.join(', ')}; weights ${JSON.stringify(featureNorms.weights)}`);
  const pool = poolOf(items, featureNorms);
  report(`held out (${heldOut.join(', ')})`, measureQuality(pool, { queryLibraries: heldOut }), true);
  report(`training (${TRAINING_LIBRARIES.join(', ')})`, measureQuality(pool, { queryLibraries: TRAINING_LIBRARIES }));
  report(
    'held out, only the query excluded (its darker copy may count)',
    measureQuality(pool, { queryLibraries: heldOut, excludeCopies: false }),
  );
  if (!process.argv.includes('--lolo')) return;
  say(
    'leave one library out (moments and group weights refitted on the other six: one pass over the groups, component weights all 1, every fourth file a query during the search; that library queried, all pooled):',
  );
  const means: number[] = [];
  for (const lib of LIBRARIES.map((l) => l.id)) {
    const rest = items.filter((i) => i.library !== lib);
    // A cheaper search than the committed fit (one pass over the groups, none over the components, every
    // fourth item a query): the full search takes over an hour per library on this machine.
    const fitted = fitWeights(rest, fitMoments(rest), { groupPasses: 1, componentPasses: 0, queryEvery: 4 });
    const q = measureQuality(poolOf(items, { version: 0, ...fitted }), { queryLibraries: [lib] });
    means.push(q.overall.mean);
    say(
      `  ${lib.padEnd(13)} ${pct(q.overall)}   ${Object.entries(q.byRole)
        .map(([k, v]) => `${k} ${pct(v)}`)
        .join(', ')}`,
    );
  }
  say(`  mean of libraries ${(means.reduce((s, x) => s + x, 0) / means.length).toFixed(3)}, worst ${Math.min(...means).toFixed(3)}`);
}

main();
