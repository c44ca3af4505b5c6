/**
 * What the evaluations share: the real server started from the TypeScript sources in a child process
 * (node --import tsx server/main.ts, a fresh data directory), files posted to it under the neutral
 * name `sample.wav` (so only the audio decides), and a list of files sent two at a time (the server
 * has two analysis threads).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerProcess } from '../bench/bench-support.js';

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

/** POST one WAV file as `sample.wav` to an audio route (`/audio/v1/analyze`, …) and read its JSON answer. */
export async function postSample<T>(url: string, route: string, wav: string): Promise<T> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(wav)], { type: 'audio/wav' }), 'sample.wav');
  const res = await fetch(`${url}${route}`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${TOKEN}` } });
  if (!res.ok) throw new Error(`${wav}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Every file through one server started from source, two in flight; answers in the files' order. */
export async function analyseAll<F, R>(files: readonly F[], analyse: (url: string, file: F) => Promise<R>, progress = true): Promise<R[]> {
  const server = await startSourceServer();
  const out: R[] = new Array(files.length);
  let next = 0;
  let done = 0;
  try {
    const lane = async () => {
      while (next < files.length) {
        const i = next++;
        out[i] = await analyse(server.url, files[i]!);
        if (progress && ++done % 100 === 0) process.stderr.write(`  ${done}/${files.length}\n`);
      }
    };
    await Promise.all([lane(), lane()]);
  } finally {
    await server.stop();
  }
  return out;
}
