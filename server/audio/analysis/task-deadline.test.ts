import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { fileForm, startTestApp } from '../../test-support/test-app.js';
import { DEADLINE_BYTES, DeadlineClock, isOverdue, readPublishedDeadline } from './task-deadline.js';
import { createAnalysisPool } from './worker-pool.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cratehouse-deadline-'));
const tone = encodeWav([sine(44_100, 3, 440, 0.5), sine(44_100, 3, 660, 0.4)], 44_100);

describe('DeadlineClock', () => {
  it('publishes start + base, and each decoded second of stereo 48 kHz earns perAudioS', () => {
    const shared = new SharedArrayBuffer(DEADLINE_BYTES);
    expect(readPublishedDeadline(shared)).toBeNull();
    const before = Date.now();
    const clock = new DeadlineClock(shared, { baseS: 10, perAudioS: 2 });
    const first = readPublishedDeadline(shared)!;
    expect(first - before).toBeGreaterThanOrEqual(10_000);
    expect(first - Date.now()).toBeLessThanOrEqual(10_000);
    clock.advance(48_000 * 3, 2, 48_000); // 3 s of stereo 48 kHz: 6 s more
    expect(readPublishedDeadline(shared)! - first).toBe(6_000);
    clock.advance(48_000, 8, 48_000); // 1 s of 8 channels is 4 s of stereo: 8 s more
    expect(readPublishedDeadline(shared)! - first).toBe(14_000);
    clock.advance(8_000, 1, 8_000); // sparser audio still counts as whole seconds: 2 s more
    expect(readPublishedDeadline(shared)! - first).toBe(16_000);
  });

  it('throws a 503 in the API shape once the deadline has passed', () => {
    const clock = new DeadlineClock(new SharedArrayBuffer(DEADLINE_BYTES), { baseS: 0, perAudioS: 0 });
    expect(() => clock.check()).toThrow(
      expect.objectContaining({
        kind: 'unavailable',
        options: expect.objectContaining({ code: 'analysis_deadline', retryAfter: 60 }) as unknown,
      }),
    );
  });
});

describe('isOverdue', () => {
  const budget = { baseS: 1, perAudioS: 0 };
  it('never before the worker has published, nor while the upload is arriving', () => {
    expect(isOverdue(null, 0, 1e12, budget, 0)).toBe(false);
    expect(isOverdue(1000, null, 1e12, budget, 0)).toBe(false);
  });
  it('past the later of the published deadline and base after completion, plus the grace', () => {
    expect(isOverdue(5000, 0, 5001, budget, 0)).toBe(true);
    expect(isOverdue(5000, 0, 5001, budget, 10)).toBe(false);
    expect(isOverdue(5000, 4500, 5400, budget, 0)).toBe(false); // completed at 4.5 s: 1 s from then
    expect(isOverdue(5000, 4500, 5501, budget, 0)).toBe(true);
  });
});

describe('the pool enforces the deadline', () => {
  const pool = createAnalysisPool(1, { budget: { baseS: 1, perAudioS: 0 }, overdueGraceMs: 0 });
  afterAll(() => pool.destroy());

  it('terminates a task that stops checking its deadline (a decoder that never answers), then serves the next one', async () => {
    // An "ffmpeg" that never answers: the worker awaits its probe, so only the pool can end the task.
    const stuck = path.join(dir, 'stuck-ffmpeg');
    const pidFile = path.join(dir, 'stuck.pid');
    writeFileSync(stuck, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 120\n`);
    chmodSync(stuck, 0o755);
    const notWav = path.join(dir, 'not-a-wav');
    writeFileSync(notWav, Buffer.alloc(4096, 7));
    while (!pool.isWarm()) await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    try {
      // Left alone, the probe would give up after its own 30 s timeout with a 415: the deadline is the pool's doing.
      await expect(
        pool.run({ engineId: 'loudness', params: {}, file: notWav, decoder: { kind: 'ffmpeg', path: stuck } }),
      ).rejects.toMatchObject({ kind: 'unavailable', options: { code: 'analysis_deadline' } });
      expect(Date.now() - started).toBeLessThan(25_000);
    } finally {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()));
    }

    const wav = path.join(dir, 'tone.wav');
    writeFileSync(wav, tone);
    const out = await pool.run({ engineId: 'loudness', params: {}, file: wav, decoder: { kind: 'js' } });
    expect(out.source).toMatchObject({ sample_rate: 44_100, channels: 2, duration_s: 3 });
  }, 60_000);
});

describe('over HTTP', () => {
  it('an analysis past its budget is a 503 with the reason and Retry-After, on single and split engines', async () => {
    const app = await startTestApp({ analysisBudget: { baseS: 0, perAudioS: 0 } });
    try {
      for (const route of ['/loudness', '/analyze']) {
        const res = await app.fetch(`/audio/v1${route}`, {
          method: 'POST',
          headers: { Authorization: 'Bearer admin-token' },
          body: fileForm(tone, 'tone.wav'),
        });
        const body = (await res.json()) as { detail: string; code: string };
        expect(res.status, JSON.stringify(body)).toBe(503);
        expect(body.code).toBe('analysis_deadline');
        expect(body.detail).toMatch(/time budget/);
        expect(res.headers.get('retry-after')).toBe('60');
      }
    } finally {
      await app.close();
    }
  }, 60_000);
});
