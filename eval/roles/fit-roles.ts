/**
 * npm run fit:roles [-- --reuse]: fit the role model on every development library and write
 * server/audio/engines/role-model-weights.ts. The sets come from Debian's packages (npm run eval:sets builds
 * them); the measurements come from the real server (files sent as `sample.wav`); the fit is
 * deterministic (fit-role-model.ts), so the same packages give the same file, digit for digit.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RoleTree } from '../../server/audio/engines/role-model.js';
import { fitRoleModel, FIT_OPTIONS } from './fit-role-model.js';
import { loadAnswers, measureFiles, measureTrainingOnly, saveAnswers, type Measured } from './measure.js';
import { cacheDir, repoRoot } from '../real-audio/packages.js';
import { LIBRARIES, loadLibrary } from '../real-audio/sets.js';

const target = path.join(repoRoot, 'server', 'audio', 'engines', 'role-model-weights.ts');

/** Versions of the unpacked packages (and of fluidsynth, which renders the GM sets). */
function packageVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...new Set(LIBRARIES.flatMap((l) => l.packages))].sort()) {
    const stamp = path.join(cacheDir, 'pkg', name, '.version');
    if (existsSync(stamp)) out[name] = readFileSync(stamp, 'utf8').trim();
  }
  return out;
}

/** The weights file's text: one tree per line (node arrays). */
export function formatWeights(w: ReturnType<typeof fitRoleModel>): string {
  const tree = (t: RoleTree) =>
    `{ feature: ${JSON.stringify(t.feature)}, threshold: ${JSON.stringify(t.threshold)}, left: ${JSON.stringify(t.left)}, right: ${JSON.stringify(t.right)}, value: ${JSON.stringify(t.value)} }`;
  return `/**
 * The role model's coefficients: written by \`npm run fit:roles\` (eval/roles/fit-roles.ts), do not edit.
 * Gradient-boosted regression trees: per round, one tree per role in \`roles\` order; a node goes left
 * when x[feature] < threshold; logits = rate · Σ leaf values; probabilities = softmax(logits / temperature).
 * Features: ${w.features.map((f, j) => `${j} ${f}`).join(', ')}.
 */
import type { RoleModelWeights } from './role-model.js';

export const ROLE_MODEL_WEIGHTS: RoleModelWeights = {
  features: ${JSON.stringify(w.features)},
  mean: ${JSON.stringify(w.mean)},
  roles: ${JSON.stringify(w.roles)},
  rate: ${w.rate},
  temperature: ${w.temperature},
  fitted: ${JSON.stringify(w.fitted, null, 2).replace(/\n/g, '\n  ')},
  trees: [
${w.trees.map((round, r) => `    // round ${r}\n    [\n${round.map((t) => `      ${tree(t)},`).join('\n')}\n    ],`).join('\n')}
  ],
};
`;
}

async function main(): Promise<void> {
  const reuse = process.argv.includes('--reuse');
  let measured: Measured[];
  // Only the listed libraries: the cache may hold answers of a library tried and not kept.
  if (reuse) measured = loadAnswers().filter((m) => LIBRARIES.some((l) => l.id === m.library));
  else {
    measured = await measureFiles(LIBRARIES.flatMap((l) => loadLibrary(l.id)));
    saveAnswers(measured);
  }
  // The synthesized sub/808 basses and kicks no library holds: fitted on, never evaluated (synth-sub.ts).
  measured = [...measured, ...(await measureTrainingOnly(reuse))];
  // A stable order, whatever order the answers arrived in.
  measured = [...measured].sort((a, b) => (a.library + '/' + a.key < b.library + '/' + b.key ? -1 : 1));
  const w = fitRoleModel(measured);
  const counts: Record<string, Record<string, number>> = {};
  for (const m of measured) {
    counts[m.library] ??= {};
    counts[m.library]![m.role] = (counts[m.library]![m.role] ?? 0) + 1;
  }
  const fitted = {
    method:
      'gradient-boosted regression trees, softmax loss, Newton leaves; files weighted 1/(files of their library and role); the synthesized synth-sub set (sub/808 basses and kicks) in the fit only, at half weight; temperature by leave-one-library-out log loss',
    options: FIT_OPTIONS,
    libraries: counts,
    packages: packageVersions(),
  };
  writeFileSync(target, formatWeights({ ...w, fitted }));
  process.stdout.write(`wrote ${path.relative(repoRoot, target)} (${measured.length} files, temperature ${w.temperature})\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
