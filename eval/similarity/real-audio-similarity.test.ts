/**
 * The similarity quality on real recordings (eval/similarity/eval-similarity.ts prints the full report):
 * the committed constants (fitted on the training libraries) over the kept /analyze answers of every
 * development library pooled, queried from the held-out libraries. Needs the answers
 * (`similarity-analyze-v3.json`: `npx tsx eval/similarity/analyze-sets.ts`, about 10 minutes on two cores, after `npm run eval:sets`);
 * skipped without them, so CI, which does not build them, skips it.
 */
import { describe, expect, it } from 'vitest';
import { featureNorms } from '../../server/audio/library/feature-vector-norms.js';
import { LIBRARIES, readLabels } from '../real-audio/sets.js';
import { findAnalysedSets } from './analysed-sets.js';
import { poolOf, readRawItems, TRAINING_LIBRARIES } from './fit.js';
import { measureQuality } from './quality.js';

const files = findAnalysedSets();
const heldOut = LIBRARIES.map((l) => l.id).filter((id) => !TRAINING_LIBRARIES.includes(id));

describe.skipIf(!files)('similarity on real recordings (held-out libraries)', () => {
  const quality = () => measureQuality(poolOf(readRawItems(files!), featureNorms), { queryLibraries: heldOut });

  it('has an answer for every labelled file of every development library, and never lmms-common', () => {
    const labelled = LIBRARIES.flatMap((l) => readLabels(l.id).filter((r) => r.role !== null)).length;
    expect(files!.length).toBe(labelled);
    expect(files!.some((f) => f.library.includes('lmms'))).toBe(false);
  });

  it('finds the query’s role and family in the top 5 for drums, cymbals and basses (≥ 0.8 each)', () => {
    const q = quality();
    const figures = JSON.stringify(q.byRole);
    for (const role of ['percs', 'tops', 'bass']) expect(q.byRole[role]!.mean, `${role}: ${figures}`).toBeGreaterThanOrEqual(0.8);
  });

  // Issue 22's target. Met with constants v3 (the timbre embedding, sample.embedding): 0.813 on 2026-11-27, against
  // 0.719 with v2, whose descriptors did not tell pitched instruments' families apart.
  it('reaches the issue’s target: a mean share of at least 0.8 over all held-out queries', () => {
    const q = quality();
    expect(
      q.overall.mean,
      `mean ${q.overall.mean.toFixed(3)} over ${q.overall.queries} queries; by role ${JSON.stringify(q.byRole)}`,
    ).toBeGreaterThanOrEqual(0.8);
  });
});
