/**
 * Fit the similarity vector's constants on the training libraries (fit.ts: TRAINING_LIBRARIES) and write
 * them to server/audio/library/feature-vector-norms.ts: each component's mean and deviation, and the
 * group weights. Reads the kept /analyze answers (analyze-sets.ts). Bump VERSION when the output changes.
 *
 *   CRATEHOUSE_REAL_AUDIO_CACHE=/path/to/cache npx tsx eval/similarity/fit-normalisation.ts
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../real-audio/packages.js';
import { analysedFile, findAnalysedSets } from './analysed-sets.js';
import { fitMoments, fitWeights, readRawItems, TRAINING_LIBRARIES } from './fit.js';

/** The featureVectorVersion the written constants get. */
const VERSION = 1;

function main(): void {
  const files = findAnalysedSets();
  if (!files) throw new Error(`${analysedFile} missing: run npx tsx eval/similarity/analyze-sets.ts`);
  const training = readRawItems(files.filter((f) => TRAINING_LIBRARIES.includes(f.library)));
  const { weights, components } = fitWeights(training, fitMoments(training), { log: (s) => process.stdout.write(`${s}\n`) });
  const out = path.join(repoRoot, 'server', 'audio', 'library', 'feature-vector-norms.ts');
  const body = [
    '/**',
    ` * Constants of the similarity vector (feature-vector.ts), fitted on ${training.length} files of the training libraries`,
    ` * ${TRAINING_LIBRARIES.join(', ')} by eval/similarity/fit-normalisation.ts (do not edit by hand): each component's`,
    ' * mean and population deviation, and the group and component weights a coordinate search of the similarity',
    ' * quality (eval/similarity/quality.ts) chose on the same libraries.',
    ' */',
    'export const featureNorms = {',
    `  version: ${VERSION},`,
    `  weights: ${JSON.stringify(weights).replace(/"/g, '').replace(/,/g, ', ').replace(/:/g, ': ').replace('{', '{ ').replace(/}$/, ' }')},`,
    '  components: [',
    ...components.map((c) => `    { name: '${c.name}', mean: ${c.mean}, std: ${c.std}, weight: ${c.weight} },`),
    '  ],',
    '} as const;',
    '',
  ].join('\n');
  writeFileSync(out, body);
  process.stdout.write(`wrote ${out}\n`);
}

main();
