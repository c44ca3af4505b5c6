/**
 * npm run fit:key: the thresholds of dsp/key.ts judgeKey from the calibration sets only, reproducibly.
 * Reads the answers of the last `npm run eval:key` (<cache>/key-progressions/answers.json: each file's
 * mean chroma and tonal_stability as the server measured them), re-estimates the key from the chroma with
 * the current profiles (dsp/key.ts estimateKey), and searches a grid of the three thresholds on the
 * calibration items: the hydrogen kick/snare/clap/hat/cymbal one-shots and the gm-fluid and gm-timgm6mb
 * progressions (flagged `calibration` by eval-key.ts). Held-out items (sonic-pi, the GM drum renders, the
 * gm-musescore progressions) are never read. The rule: at least MIN_DRUM_NULL of the calibration drums
 * answered null; among those, the most progressions exactly right; ties go to more drums null, then the
 * lowest stability, confidence and correlation thresholds (answer a key whenever the data allow).
 * Run eval:key first whenever the chroma changes; the thresholds then go into dsp/key.ts by hand.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChromaFeatures } from '../../server/audio/engines/features.js';
import { PITCH_CLASSES } from '../../server/audio/dsp/chroma.js';
import { estimateKey, judgeKey, KEY_THRESHOLDS, type KeyEstimate, type KeyThresholds } from '../../server/audio/dsp/key.js';
import { progressionsDir } from './progressions.js';

/** The share of calibration drums that must stay null: the 95 % target. */
const MIN_DRUM_NULL = 0.95;
/**
 * The stability threshold is not searched below this: 2 s of white noise, which has no pitch by
 * construction, measures 0.30 (features.test.ts), and the calibration drums alone would pull it there.
 */
const MIN_STABILITY_FLOOR = 0.35;
/** Nor the confidence below this: a near tie with the runner-up is settled by the sort order, not the audio. */
const MIN_CONFIDENCE_FLOOR = 0.02;
const DRUMS = ['kick', 'snare', 'clap', 'hat', 'cymbal'];
const grid = (lo: number, hi: number, step: number) =>
  Array.from({ length: Math.round((hi - lo) / step) + 1 }, (_, i) => Math.round((lo + i * step) * 1000) / 1000);

interface Answer {
  readonly source: string;
  readonly category: string;
  readonly truth?: string;
  readonly calibration: boolean;
  readonly chroma: ChromaFeatures;
}
interface Case {
  readonly drum: boolean;
  readonly truth?: string;
  readonly estimate: KeyEstimate | null;
  readonly stability: number;
}

/** Calibration drums and progressions of the answers, with the key re-estimated from their chroma. */
export function calibrationCases(answers: readonly Answer[]): Case[] {
  return answers
    .filter((a) => a.calibration && (DRUMS.includes(a.category) || a.category === 'progression'))
    .map((a) => ({
      drum: a.category !== 'progression',
      truth: a.truth,
      estimate: estimateKey(PITCH_CLASSES.map((p) => a.chroma.mean[p])),
      stability: a.chroma.tonal_stability,
    }));
}

/** Share of drums null and of progressions exactly right under the thresholds. */
export function score(cases: readonly Case[], t: KeyThresholds): { drumNull: number; exact: number } {
  let drums = 0;
  let nulls = 0;
  let progs = 0;
  let exact = 0;
  for (const c of cases) {
    const { key } = judgeKey(c.estimate, c.stability, t);
    if (c.drum) {
      drums++;
      if (!key) nulls++;
    } else {
      progs++;
      if (key && `${key.key} ${key.mode}` === c.truth) exact++;
    }
  }
  return { drumNull: drums ? nulls / drums : 0, exact: progs ? exact / progs : 0 };
}

/** The grid search of the module comment. */
export function fitThresholds(cases: readonly Case[]): { thresholds: KeyThresholds; drumNull: number; exact: number } | null {
  let best: { thresholds: KeyThresholds; drumNull: number; exact: number } | null = null;
  for (const minTonalStability of grid(MIN_STABILITY_FLOOR, 0.6, 0.05))
    for (const minKeyConfidence of grid(MIN_CONFIDENCE_FLOOR, 0.1, 0.01))
      for (const minKeyCorrelation of grid(0.5, 0.95, 0.01)) {
        const thresholds = { minTonalStability, minKeyCorrelation, minKeyConfidence };
        const s = score(cases, thresholds);
        if (s.drumNull < MIN_DRUM_NULL) continue;
        // Strictly better only: the loops run from the lowest thresholds up, so ties keep the lowest.
        if (!best || s.exact > best.exact || (s.exact === best.exact && s.drumNull > best.drumNull)) best = { thresholds, ...s };
      }
  return best;
}

function main(): void {
  const file = path.join(progressionsDir, 'answers.json');
  if (!existsSync(file)) throw new Error(`${file} missing: run npm run eval:key first`);
  const cases = calibrationCases(JSON.parse(readFileSync(file, 'utf8')) as Answer[]);
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  const drums = cases.filter((c) => c.drum).length;
  process.stdout.write(
    `fit:key on ${drums} calibration drums and ${cases.length - drums} calibration progressions (held-out sets not read)\n`,
  );
  const now = score(cases, KEY_THRESHOLDS);
  process.stdout.write(
    `current  ${JSON.stringify(KEY_THRESHOLDS)}: drums null ${pct(now.drumNull)}, progressions exact ${pct(now.exact)}\n`,
  );
  const best = fitThresholds(cases);
  if (!best) throw new Error(`no thresholds keep ${pct(MIN_DRUM_NULL)} of the drums null`);
  process.stdout.write(
    `fitted   ${JSON.stringify(best.thresholds)}: drums null ${pct(best.drumNull)}, progressions exact ${pct(best.exact)}\n`,
  );
}

main();
