/**
 * Send labelled files through the real server (eval/eval-support.ts: started from source, every file
 * posted to POST /audio/v1/analyze/samples under the neutral name `sample.wav`, so only the audio can decide).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SampleAnalysisResult } from '../../server/audio/engines/sample-analysis.js';
import { analyseAll, postSample } from '../eval-support.js';
import { cacheDir } from '../real-audio/packages.js';
import type { LabelledFile } from '../real-audio/sets.js';
import { buildSynthSub, SYNTH_SUB_LIBRARY } from '../real-audio/synth-sub.js';

export interface Measured extends LabelledFile {
  readonly answer: SampleAnalysisResult;
}

/** POST one file as `sample.wav`. */
export function analyseSample(url: string, wav: string): Promise<SampleAnalysisResult> {
  return postSample<SampleAnalysisResult>(url, '/audio/v1/analyze/samples', wav);
}

/** Every file through one server, two requests in flight (the server has two analysis threads). */
export function measureFiles(files: readonly LabelledFile[], progress = true): Promise<Measured[]> {
  return analyseAll(files, async (url, file) => ({ ...file, answer: await analyseSample(url, file.wav) }), progress);
}

/** Where the last run's answers are kept (for --reuse while developing; never committed). */
export const answersFile = path.join(cacheDir, 'answers.json');

/** Keep these answers, and the earlier ones of libraries not in them. */
export function saveAnswers(measured: readonly Measured[]): void {
  const libs = new Set(measured.map((m) => m.library));
  let kept: Measured[] = [];
  try {
    kept = loadAnswers().filter((m) => !libs.has(m.library));
  } catch {
    // no earlier answers
  }
  writeFileSync(answersFile, JSON.stringify([...kept, ...measured]));
}

export function loadAnswers(): Measured[] {
  return JSON.parse(readFileSync(answersFile, 'utf8')) as Measured[];
}

/** The training-only synthesized sub/808/kick set (synth-sub.ts), written and measured; with `reuse`, its kept answers when there are any. */
export async function measureTrainingOnly(reuse: boolean): Promise<Measured[]> {
  const files = buildSynthSub();
  if (reuse) {
    let kept: Measured[] = [];
    try {
      kept = loadAnswers().filter((m) => m.library === SYNTH_SUB_LIBRARY);
    } catch {
      // no earlier answers
    }
    if (kept.length === files.length) return kept;
  }
  const measured = await measureFiles(files, false);
  saveAnswers(measured);
  return measured;
}
