/**
 * Fit the similarity vector's constants on the training libraries (fit.ts: TRAINING_LIBRARIES) and write
 * them to server/audio/library/feature-vector-norms.ts: each component's mean and deviation, and the
 * group weights. Reads the kept /analyze answers (analyze-sets.ts). Bump VERSION when the output changes.
 *
 *   CRATEHOUSE_REAL_AUDIO_CACHE=/path/to/cache npx tsx eval/similarity/fit-normalisation.ts [--only-group embedding]
 *
 * With `--only-group G` the committed constants of every other component and group are kept; G's components get
 * their moments and G its weight (fit.ts `fitGroupWeight`). That is how the timbre embedding's group was added: its
 * network was trained on the same training libraries, so a joint search would over-weight it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../real-audio/packages.js';
import { analysedFile, findAnalysedSets } from './analysed-sets.js';
import { featureNorms } from '../../server/audio/library/feature-vector-norms.js';
import { featureComponents, type FeatureGroup, type FeatureNorms } from '../../server/audio/library/feature-vector.js';
import { fitGroupWeight, fitMoments, fitWeights, readRawItems, TRAINING_LIBRARIES, type RawItem } from './fit.js';

/** The featureVectorVersion the written constants get. */
const VERSION = 3;

function main(): void {
  const files = findAnalysedSets();
  if (!files) throw new Error(`${analysedFile} missing: run npx tsx eval/similarity/analyze-sets.ts`);
  const training = readRawItems(files.filter((f) => TRAINING_LIBRARIES.includes(f.library)));
  const log = (s: string): void => void process.stdout.write(`${s}\n`);
  const only = process.argv.indexOf('--only-group');
  const { weights, components } =
    only >= 0 ? fitOneGroup(training, process.argv[only + 1] as FeatureGroup, log) : fitWeights(training, fitMoments(training), { log });
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

/** The committed constants, with `group`'s components given their moments and `group` its weight. */
function fitOneGroup(
  training: readonly RawItem[],
  group: FeatureGroup,
  log: (s: string) => void,
): Pick<FeatureNorms, 'weights' | 'components'> {
  if (!featureComponents.some((c) => c.group === group)) throw new Error(`no component is in group ${group}`);
  const committed = new Map<string, FeatureNorms['components'][number]>(featureNorms.components.map((c) => [c.name, c]));
  const moments = fitMoments(training);
  const components = featureComponents.map((c, i) =>
    c.group === group ? moments[i]! : (committed.get(c.name) ?? { ...moments[i]!, weight: 0 }),
  );
  const weights = { ...(featureNorms.weights as Record<FeatureGroup, number>), [group]: 1 };
  weights[group] = fitGroupWeight(training, { version: 0, weights, components }, group, { log });
  return { weights, components };
}

main();
