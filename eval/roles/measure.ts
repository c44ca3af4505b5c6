/**
 * Send labelled files through the real server: the server is started from the TypeScript sources in a
 * child process (node --import tsx server/main.ts, a fresh data directory), and every file is posted
 * to POST /audio/v1/analyze/samples under the neutral name `sample.wav`, so only the audio can decide.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerProcess } from '../../bench/bench-support.js';
import type { SampleAnalysisResult } from '../../server/audio/engines/sample-analysis.js';
import { cacheDir } from '../real-audio/packages.js';
import type { LabelledFile } from '../real-audio/sets.js';
import { buildSynthSub, SYNTH_SUB_LIBRARY } from '../real-audio/synth-sub.js';

export interface Measured extends LabelledFile {
  readonly answer: SampleAnalysisResult;
}

const TOKEN = 'eval-token';

/** Start the server from source on a free port; resolves with its URL and a stop function that also removes its data. */
export async function startSourceServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const data = mkdtempSync(path.join(tmpdir(), 'cratehouse-eval-'));
  const server = await startServerProcess(['--import', 'tsx', 'server/main.ts'], {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_DATA_DIR: data,
    CRATEHOUSE_ADMIN_TOKEN: TOKEN,
    CRATEHOUSE_LOG_LEVEL: 'error',
  });
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** POST one file as `sample.wav`. */
export async function analyseSample(url: string, wav: string): Promise<SampleAnalysisResult> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(wav)], { type: 'audio/wav' }), 'sample.wav');
  const res = await fetch(`${url}/audio/v1/analyze/samples`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`${wav}: ${res.status} ${await res.text()}`);
  return (await res.json()) as SampleAnalysisResult;
}

/** Every file through one server, two requests in flight (the server has two analysis threads). */
export async function measureFiles(files: readonly LabelledFile[], progress = true): Promise<Measured[]> {
  const server = await startSourceServer();
  const out: Measured[] = new Array(files.length);
  let next = 0;
  let done = 0;
  try {
    const lane = async () => {
      while (next < files.length) {
        const i = next++;
        out[i] = { ...files[i]!, answer: await analyseSample(server.url, files[i]!.wav) };
        if (progress && ++done % 100 === 0) process.stderr.write(`  ${done}/${files.length}\n`);
      }
    };
    await Promise.all([lane(), lane()]);
  } finally {
    await server.stop();
  }
  return out;
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
