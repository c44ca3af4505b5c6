/**
 * The /analyze answers of every labelled file of the development libraries, through the real server
 * (started from source, as eval/roles/measure.ts does), each file posted as `sample.wav` so only the audio
 * decides. Kept in the real-audio cache (`similarity-analyze.json`, never committed) so the evaluation and
 * the fitting of the normalisation read them without analysing again.
 *
 *   CRATEHOUSE_REAL_AUDIO_CACHE=/path/to/cache npx tsx eval/similarity/analyze-sets.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { AnalyzeResponse } from '../../server/audio/api-types.js';
import { LIBRARIES, loadLibrary, readLabels } from '../real-audio/sets.js';
import { startSourceServer } from '../roles/measure.js';
import { analysedFile, type AnalysedFile } from './analysed-sets.js';

const TOKEN = 'eval-token';

async function analyse(url: string, wav: string): Promise<AnalyzeResponse> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(wav)], { type: 'audio/wav' }), 'sample.wav');
  const res = await fetch(`${url}/audio/v1/analyze`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`${wav}: ${res.status} ${await res.text()}`);
  return (await res.json()) as AnalyzeResponse;
}

async function main(): Promise<void> {
  const files = LIBRARIES.flatMap((l) => {
    const rules = new Map(readLabels(l.id).map((r) => [r.file, r.rule]));
    return loadLibrary(l.id).map((f) => ({ ...f, rule: rules.get(f.key)! }));
  });
  const server = await startSourceServer();
  const out: AnalysedFile[] = new Array(files.length);
  let next = 0;
  let done = 0;
  try {
    const lane = async () => {
      while (next < files.length) {
        const i = next++;
        out[i] = { ...files[i]!, analyze: await analyse(server.url, files[i]!.wav) };
        if (++done % 100 === 0) process.stderr.write(`  ${done}/${files.length}\n`);
      }
    };
    await Promise.all([lane(), lane()]);
  } finally {
    await server.stop();
  }
  writeFileSync(analysedFile, JSON.stringify(out));
  process.stdout.write(`${out.length} answers in ${analysedFile}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
