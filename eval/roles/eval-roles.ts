/**
 * npm run eval:roles [-- --write] [--reuse] [--only lib,lib]: the role judgement on the real-recording
 * development libraries. Every labelled file goes through the real server under the name `sample.wav`;
 * prints accuracy, per-role accuracy, the confusion matrix and the expected calibration error of the
 * server's answers (the shipped model, fitted on all these libraries), then leave-one-library-out:
 * the same fitting procedure on the other libraries, tested on the one left out (mean and worst).
 * --write appends the report to bench/RESULTS.md; --reuse takes the last run's answers from the cache.
 */
import { execFileSync } from 'node:child_process';
import { machineHeader, say, writeResults } from '../../bench/bench-support.js';
import { LIBRARIES, loadLibrary } from '../real-audio/sets.js';
import { repoRoot } from '../real-audio/packages.js';
import { leaveOneLibraryOut } from './fit-role-model.js';
import { loadAnswers, measureFiles, measureTrainingOnly, saveAnswers, type Measured } from './measure.js';
import { computeMetrics, formatLibraryRows, formatMetrics, type Prediction } from './metrics.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

async function main(): Promise<void> {
  const only = arg('--only')?.split(',');
  const libraries = LIBRARIES.map((l) => l.id).filter((id) => !only || only.includes(id));
  const reuse = process.argv.includes('--reuse');
  let measured: Measured[];
  if (reuse) measured = loadAnswers().filter((m) => libraries.includes(m.library));
  else {
    const files = libraries.flatMap((id) => loadLibrary(id));
    process.stderr.write(`eval:roles: ${files.length} files through the server…\n`);
    measured = await measureFiles(files);
    saveAnswers(measured);
  }
  // Training-only (synth-sub.ts): in every fold's fit, never held out, never in a figure below.
  const trainingOnly = await measureTrainingOnly(reuse);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot }).toString().trim();
  say(machineHeader(`Role evaluation on real recordings (commit ${commit})`));
  say('');
  say(
    `Data: ${libraries.map((id) => `${id} (${measured.filter((m) => m.library === id).length})`).join(', ')}; labels in eval/labels/, sets built by npm run eval:sets. lmms-common held out (not used). Fitting also uses the synthesized synth-sub set (${trainingOnly.length} sub/808 basses and kicks, eval/real-audio/synth-sub.ts), which is never held out and in no figure here.`,
  );
  say('');
  const served = (ms: readonly Measured[]): Prediction[] =>
    ms.map((m) => ({ truth: m.role, role: m.answer.role, confidence: m.answer.confidence }));
  say("### The server's answers (the shipped role model)");
  say('');
  for (const l of formatMetrics('all libraries', computeMetrics(served(measured)))) say(l);
  say('');
  say(
    formatLibraryRows(
      libraries.map((library) => ({ library, m: computeMetrics(served(measured.filter((m) => m.library === library))) })),
    ).join('\n'),
  );
  say('');
  if (!process.argv.includes('--no-lolo') && libraries.length > 1) {
    say("### Leave one library out (fit on the others with `fit:roles`' procedure, test on the one left out)");
    say('');
    const folds = leaveOneLibraryOut([...measured, ...trainingOnly], libraries);
    const rows = folds.map((f) => ({ library: f.library, m: computeMetrics(f.predictions) }));
    say(formatLibraryRows(rows).join('\n'));
    say('');
    const pooled = computeMetrics(folds.flatMap((f) => f.predictions));
    const worst = rows.reduce((a, b) => (b.m.accuracy < a.m.accuracy ? b : a));
    const roleFloor = Math.min(
      ...rows.flatMap((r) =>
        Object.values(r.m.perRole)
          .filter((p) => p.n > 0)
          .map((p) => p.accuracy!),
      ),
    );
    say(
      `Held-out accuracy: mean over libraries ${(100 * (rows.reduce((s, r) => s + r.m.accuracy, 0) / rows.length)).toFixed(1)} %, worst ${(100 * worst.m.accuracy).toFixed(1)} % (${worst.library}), pooled ${(100 * pooled.accuracy).toFixed(1)} %; lowest role accuracy on any held-out library ${(100 * roleFloor).toFixed(1)} %; pooled held-out ECE ${pooled.ece.toFixed(3)} (targets: ≥ 92 %, every role ≥ 85 %, ECE ≤ 0.08).`,
    );
    say('');
    for (const l of formatMetrics('held-out answers, pooled', pooled)) say(l);
    say('');
  }
  await writeResults();
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
