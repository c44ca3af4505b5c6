/**
 * The /analyze answers of every labelled file of the development libraries, through the real server
 * (started from source by eval/eval-support.ts), each file posted as `sample.wav` so only the audio
 * decides. Kept in the real-audio cache (`similarity-analyze-v3.json`, never committed) so the evaluation and
 * the fitting of the normalisation read them without analysing again.
 *
 *   CRATEHOUSE_REAL_AUDIO_CACHE=/path/to/cache npx tsx eval/similarity/analyze-sets.ts
 */
import { writeFileSync } from 'node:fs';
import type { AnalyzeResponse } from '../../server/audio/api-types.js';
import { LIBRARIES, loadLibrary } from '../real-audio/sets.js';
import { analyseAll, postSample } from '../eval-support.js';
import { analysedFile, type AnalysedFile } from './analysed-sets.js';

async function main(): Promise<void> {
  const files = LIBRARIES.flatMap((l) => loadLibrary(l.id));
  const out: AnalysedFile[] = await analyseAll(files, async (url, file) => ({
    ...file,
    analyze: await postSample<AnalyzeResponse>(url, '/audio/v1/analyze', file.wav),
  }));
  writeFileSync(analysedFile, JSON.stringify(out));
  process.stdout.write(`${out.length} answers in ${analysedFile}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
