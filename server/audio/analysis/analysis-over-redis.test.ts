import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { fileForm, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../../test-support/private-redis.js';
import { startWorkerChild, type WorkerChild } from '../../test-support/worker-child.js';
import { waitFor } from '../../test-support/wait-for.js';

const auth = { Authorization: 'Bearer admin-token' };
const redisSkip = redisSkipReason(process.env);
if (redisSkip) console.warn(redisSkip);

/** Seconds a dead worker's task stays locked before another worker takes it (CRATEHOUSE_REDIS_LOCK_S). */
const lockS = 2;

/** A `cratehouse worker` over the app's data dir, one thread, with the test's short task lock. */
const startWorker = (dataDir: string, redisUrl: string): Promise<WorkerChild> =>
  startWorkerChild(dataDir, redisUrl, { CRATEHOUSE_REDIS_LOCK_S: String(lockS), CRATEHOUSE_ANALYSIS_THREADS: '1' });

/** Stereo 1 kHz at −`db` dBFS: EBU Tech 3341 case 1 reads such a tone as −`db` LUFS (independent of our meter). */
const toneWav = (db: number, seconds: number) => {
  const tone = sine(48_000, seconds, 1000, 10 ** (-db / 20));
  return encodeWav([tone, tone], 48_000, 'pcm16');
};

describe('analysis tasks over Redis', () => {
  let redis: PrivateRedis | null = null;
  let app: TestApp | null = null;
  const workers: WorkerChild[] = [];
  beforeEach(async (ctx) => {
    if (redisSkip) ctx.skip();
    redis = await startPrivateRedis();
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    await app?.close();
    app = null;
    await redis?.stop();
  });

  it('answers from the app node alone when no worker is attached (a node can be both)', async () => {
    app = await startTestApp({ redis: { url: redis!.url, lockS, analysisInApp: true } });
    const res = await app.fetch('/audio/v1/loudness', { method: 'POST', headers: auth, body: fileForm(toneWav(23, 5), 'a.wav') });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { integrated_lufs: number };
    expect(Math.abs(body.integrated_lufs + 23)).toBeLessThanOrEqual(0.1);
    // A split engine: its parts cross the queue as separate tasks and are combined here.
    const composite = await app.fetch('/audio/v1/analyze', { method: 'POST', headers: auth, body: fileForm(toneWav(20, 5), 'b.wav') });
    expect(composite.status).toBe(200);
    const analysed = (await composite.json()) as Record<string, unknown>;
    expect(analysed.source).toMatchObject({ duration_s: 5, sample_rate: 48_000, channels: 2 });
    expect(Object.keys(analysed)).toEqual(expect.arrayContaining(['sample', 'features', 'emotion']));
  }, 120_000);

  it('spreads 50 uploads over two worker processes, each task run and answered exactly once', async () => {
    app = await startTestApp({ redis: { url: redis!.url, lockS, analysisInApp: false } });
    workers.push(...(await Promise.all([startWorker(app.dataDir, redis!.url), startWorker(app.dataDir, redis!.url)])));
    // 50 different tones (10.0, 10.2 … 19.8 dBFS), so every upload is a cache miss with its own answer.
    const levels = Array.from({ length: 50 }, (_, i) => 10 + i * 0.2);
    const answers = await Promise.all(
      levels.map(async (db) => {
        const res = await app!.fetch('/audio/v1/loudness', { method: 'POST', headers: auth, body: fileForm(toneWav(db, 3), `t${db}.wav`) });
        return { db, status: res.status, cache: res.headers.get('x-cache'), body: (await res.json()) as { integrated_lufs: number } };
      }),
    );
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.cache).toBe('miss');
      expect(Math.abs(a.body.integrated_lufs + a.db)).toBeLessThanOrEqual(0.1); // each upload got its own answer
    }
    const started = workers.flatMap((w) => w.started);
    const finished = workers.flatMap((w) => w.finished);
    // Every task was run once (no retry, no duplicate) by one of the workers, and both took a share.
    expect(new Set(started).size).toBe(50);
    expect(started).toHaveLength(50);
    expect(finished.slice().sort()).toEqual(started.slice().sort());
    for (const w of workers) expect(w.finished.length).toBeGreaterThan(0);
    // The inputs were released once answered.
    const { readdir } = await import('node:fs/promises');
    const left = await readdir(path.join(app.dataDir, 'analysis-inputs'), { recursive: true, withFileTypes: true });
    expect(left.filter((e) => e.isFile())).toEqual([]);
  }, 240_000);

  it('retries the task of a worker SIGKILLed mid-task on another worker, and answers it once', async () => {
    app = await startTestApp({ redis: { url: redis!.url, lockS, analysisInApp: false } });
    const doomed = await startWorker(app.dataDir, redis!.url);
    workers.push(doomed);
    // 120 s of audio: seconds of work, so the kill lands while it runs.
    const answer = app.fetch('/audio/v1/loudness', { method: 'POST', headers: auth, body: fileForm(toneWav(17, 120), 'long.wav') });
    await waitFor(() => doomed.started.length === 1, { timeoutMs: 60_000 });
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect(doomed.finished).toEqual([]);
    const rescuer = await startWorker(app.dataDir, redis!.url);
    workers.push(rescuer);
    const res = await answer;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { integrated_lufs: number };
    expect(Math.abs(body.integrated_lufs + 17)).toBeLessThanOrEqual(0.1);
    // The same task (BullMQ id) ran again on the rescuer and finished there once.
    expect(rescuer.started).toEqual(doomed.started);
    expect(rescuer.finished).toEqual(doomed.started);
  }, 240_000);
});
