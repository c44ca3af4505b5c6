import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { request, type ClientRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { AnalysisTask } from '../analysis/analysis-worker.js';
import type { AnalysisPool } from '../analysis/worker-pool.js';
import { dbToAmp, encodeWav, sine } from '../../test-support/signals.js';
import { adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { waitFor } from '../../test-support/wait-for.js';

const rate = 44_100;
let app: TestApp;
let runs: MockInstance<AnalysisPool['run']>;

beforeAll(async () => {
  app = await startTestApp();
  // Record (and still run) every analysis task the server gives its threads.
  const pool = (app.audioDeps.analysis as unknown as { readonly pool: AnalysisPool }).pool;
  runs = vi.spyOn(pool, 'run');
}, 60_000);
afterAll(() => app.close());

/** A multipart upload of `bytes` as `file`, sent by hand: the test decides when the last part goes. */
function startUpload(bytes: Buffer): {
  readonly req: ClientRequest;
  readonly answer: Promise<{ status: number; body: Record<string, unknown> }>;
  finish(): void;
} {
  const boundary = 'early-analyses-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="track.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL('/audio/v1/library/items', app.url);
  const req = request(url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${adminToken}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': head.length + bytes.length + tail.length,
    },
  });
  const answer = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> }),
      );
    });
    req.on('error', reject);
  });
  const half = Math.floor(bytes.length / 2);
  req.write(head);
  req.write(bytes.subarray(0, half));
  return { req, answer, finish: () => req.end(Buffer.concat([bytes.subarray(half), tail])) };
}

/** Tasks over one upload's temp file (each engine part counts once per run). */
const tasksOf = (file: string): AnalysisTask[] => runs.mock.calls.map((c) => c[0]).filter((t) => t.file === file);

describe('library upload: the summary analyses run while the bytes arrive', () => {
  it('starts every summary analysis on the growing file, answers, and runs each once for the summary and the requests by hash', async () => {
    const bytes = encodeWav([sine(rate, 12, 440, dbToAmp(-12)), sine(rate, 12, 660, dbToAmp(-12))], rate);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const before = runs.mock.calls.length;
    const upload = startUpload(bytes);
    // Half the file is on the server and the rest withheld: the analyses are already given to the threads.
    const file = await waitFor(
      () => {
        const growing = runs.mock.calls
          .slice(before)
          .map((c) => c[0])
          .filter((t) => t.growing === true);
        return growing.length >= 6 && growing[0]!.file;
      },
      { timeoutMs: 10_000 },
    );
    const engines = tasksOf(file)
      .map((t) => t.engineId)
      .sort();
    // /analyze runs as its two parts (analyze-features, analyze-sample) on two threads; /naming is
    // derived from /analyze's sample analysis, with no run of its own (derived-analyses.ts).
    expect(engines).toEqual(['analyze-features', 'analyze-sample', 'grade', 'loudness', 'onsets', 'waveform']);
    upload.finish();
    const { status, body } = await upload.answer;
    expect(status).toBe(201);
    expect(body.sha256).toBe(sha256);
    // The page then asks the listed analyses by hash at once: each joins the run already under way.
    const listed = body.summary_analyses as { route: string; params: Record<string, string | number | boolean> }[];
    const answers = await Promise.all(
      listed.map(async (a) => {
        const q = new URLSearchParams({ ...Object.fromEntries(Object.entries(a.params).map(([k, v]) => [k, String(v)])), sha256 });
        const res = await app.fetch(`/audio/v1${a.route}?${q.toString()}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${adminToken}` },
        });
        return { route: a.route, status: res.status, body: (await res.json()) as { source: { duration_s: number } } };
      }),
    );
    for (const a of answers) {
      expect(a.status, a.route).toBe(200);
      expect(a.body.source.duration_s).toBeCloseTo(12, 3);
    }
    await app.library.whenIdle();
    // No second run of anything, /naming included: the six tasks above are all the threads were given for this audio.
    const forThisAudio = runs.mock.calls.slice(before).map((c) => c[0]);
    expect(forThisAudio.filter((t) => t.file !== file)).toEqual([]);
    expect(forThisAudio).toHaveLength(6);
    expect(answers.map((a) => a.route)).toContain('/naming');
    // The temp file goes once the runs that read it are done; the bytes are in the content store.
    await waitFor(async () => !(await readdir(path.join(app.dataDir, 'tmp'))).includes(path.basename(file)));
    expect(await readdir(path.join(app.dataDir, 'content', sha256.slice(0, 2), sha256.slice(2, 4)))).toEqual([sha256]);
    const item = await app.fetch(`/audio/v1/library/items/${String(body.id)}`, { headers: { Authorization: `Bearer ${adminToken}` } });
    expect(await item.json()).toMatchObject({ status: 'ready', duration_s: 12 });
  }, 60_000);

  it('keeps nothing and stops the analyses when the upload breaks off', async () => {
    const bytes = encodeWav([sine(rate, 8, 330, dbToAmp(-12))], rate);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const total = async () =>
      (
        (await (await app.fetch('/audio/v1/library/items', { headers: { Authorization: `Bearer ${adminToken}` } })).json()) as {
          total: number;
        }
      ).total;
    const itemsBefore = await total();
    const before = runs.mock.calls.length;
    const upload = startUpload(bytes);
    upload.answer.catch(() => undefined);
    await waitFor(() => runs.mock.calls.length - before >= 6, { timeoutMs: 10_000 });
    upload.req.destroy();
    // Every run started for it ends (cancelled), the temp file goes, and no item or content appears.
    const started = runs.mock.results.slice(before).map((r) => r.value as Promise<unknown>);
    const settled = await Promise.allSettled(started);
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    await waitFor(async () => (await readdir(path.join(app.dataDir, 'tmp'))).filter((f) => f.startsWith('upload-')).length === 0);
    expect(await total()).toBe(itemsBefore);
    await expect(readdir(path.join(app.dataDir, 'content', sha256.slice(0, 2)))).rejects.toThrow();
  }, 60_000);
});
