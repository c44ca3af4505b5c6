import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Meter } from '../../auth/metering.js';
import type { UsageDelta } from '../../auth/usage-repo.js';
import { AnalysisService, type Derivation } from './analysis-service.js';
import type { AnalysisOutput, AnalysisTask } from './analysis-worker.js';
import { ResultCache } from './cache.js';
import type { AnalysisPool, AnalysisPriority } from './worker-pool.js';

/** A pool whose tasks finish when the test says: it records what it was asked and each task's signal. */
function controlledPool() {
  const tasks: {
    task: AnalysisTask;
    signal?: AbortSignal;
    priority?: AnalysisPriority;
    finish: () => void;
    fail: (error: Error) => void;
  }[] = [];
  const pool: AnalysisPool = {
    run: (task, signal, priority) =>
      new Promise<AnalysisOutput>((resolve, reject) => {
        const output: AnalysisOutput = {
          result: { engine: task.engineId, params: task.params },
          source: { duration_s: 1, sample_rate: 44_100, channels: 2, format: 'wav' },
          analysedSeconds: 1,
        };
        tasks.push({ task, signal, priority, finish: () => resolve(output), fail: reject });
        signal?.addEventListener('abort', () => reject(new Error('cancelled')), { once: true });
      }),
    combine: () => Promise.reject(new Error('not used')),
    isWarm: () => true,
    analysesGrowingFiles: true,
    destroy: () => Promise.resolve(),
  };
  return { pool, tasks };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function service(derivations?: ReadonlyMap<string, Derivation>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'analysis-service-'));
  dirs.push(dir);
  const meter = new Meter({ get: () => undefined, add: (_d: ReadonlyMap<string, UsageDelta>) => Promise.resolve() });
  const { pool, tasks } = controlledPool();
  const analysis = new AnalysisService(pool, new ResultCache(path.join(dir, 'cache')), { kind: 'js' }, meter, derivations);
  return { analysis, tasks, meter };
}

const file = { path: '/nonexistent/held.wav', sha256: 'a'.repeat(64) };
const tick = () => new Promise((r) => setTimeout(r, 20));
/** Wait until the pool has been handed `n` tasks (the cache lookups before them touch the disk). */
async function tasksReach(tasks: readonly unknown[], n: number): Promise<void> {
  for (let i = 0; i < 500 && tasks.length < n; i++) await tick();
}

describe('AnalysisService: one computation per cache key at a time', () => {
  it('runs the same analysis of the same bytes once when asked twice at once, and answers both', async () => {
    const { analysis, tasks, meter } = service();
    const first = analysis.analyseFile('alice', file, '/onsets', 'onsets', {});
    await tasksReach(tasks, 1);
    const second = analysis.analyseFile('bob', file, '/onsets', 'onsets', {});
    const other = analysis.analyseFile('alice', file, '/waveform', 'waveform', { bins: 64 });
    await tasksReach(tasks, 2);
    await tick();
    expect(tasks.map((t) => t.task.engineId)).toEqual(['onsets', 'waveform']);
    for (const t of tasks) t.finish();
    const [a, b] = await Promise.all([first, second, other]);
    expect(a.result).toEqual({ engine: 'onsets', params: {} });
    expect(b.result).toEqual(a.result);
    // Each tenant's first answer is a miss; the one who started it pays for the analysis.
    expect([a.cache, b.cache]).toEqual(['miss', 'miss']);
    expect(meter.report('alice').audio_seconds).toBe(2);
    expect(meter.report('bob').audio_seconds).toBe(0);
    // Afterwards: from the cache, no new task.
    expect((await analysis.analyseFile('bob', file, '/onsets', 'onsets', {})).cache).toBe('hit');
    expect(tasks).toHaveLength(2);
  });

  it('keeps computing for the requests still waiting when one goes, and stops when the last one goes', async () => {
    const { analysis, tasks } = service();
    const goes = new AbortController();
    const stays = new AbortController();
    const left = analysis.analyseFile('alice', file, '/onsets', 'onsets', {}, { signal: goes.signal });
    const waiting = analysis.analyseFile('bob', file, '/onsets', 'onsets', {}, { signal: stays.signal });
    await tasksReach(tasks, 1);
    await tick();
    expect(tasks).toHaveLength(1);
    goes.abort();
    await expect(left).rejects.toMatchObject({ kind: 'unavailable' });
    expect(tasks[0]!.signal?.aborted).toBe(false);
    tasks[0]!.finish();
    expect((await waiting).result).toEqual({ engine: 'onsets', params: {} });

    const only = new AbortController();
    const alone = analysis.analyseFile('alice', file, '/spectrum', 'spectrum', { bands: 64 }, { signal: only.signal });
    await tasksReach(tasks, 2);
    only.abort();
    await expect(alone).rejects.toMatchObject({ kind: 'unavailable' });
    expect(tasks[1]!.signal?.aborted).toBe(true);
    // A later request starts afresh rather than joining the stopped run.
    const again = analysis.analyseFile('alice', file, '/spectrum', 'spectrum', { bands: 64 });
    await tasksReach(tasks, 3);
    expect(tasks).toHaveLength(3);
    tasks[2]!.finish();
    expect((await again).cache).toBe('miss');
  });

  it('does not make an interactive request wait behind a background run of the same analysis', async () => {
    const { analysis, tasks } = service();
    const background = analysis.analyseFile('project:1', file, '/onsets', 'onsets', {}, { priority: 'background' });
    await tasksReach(tasks, 1);
    const interactive = analysis.analyseFile('alice', file, '/onsets', 'onsets', {});
    await tasksReach(tasks, 2);
    expect(tasks.map((t) => t.priority ?? 'interactive')).toEqual(['background', 'interactive']);
    for (const t of tasks) t.finish();
    await Promise.all([background, interactive]);
  });

  it('never lets a request join a run over another request’s upload, whose temp file goes with it', async () => {
    const { analysis, tasks } = service();
    const upload = (n: number) => ({
      path: `/tmp/upload-${n}`,
      sha256: file.sha256,
      bytes: 1,
      filename: 'x.wav',
      mimeType: 'audio/wav',
      fields: {},
      discard: () => Promise.resolve(),
    });
    const first = analysis.analyse('alice', upload(1), '/onsets', 'onsets', {});
    await tasksReach(tasks, 1);
    const second = analysis.analyse('bob', upload(2), '/onsets', 'onsets', {});
    await tasksReach(tasks, 2);
    // Each upload's analysis reads its own file.
    expect(tasks.map((t) => t.task.file)).toEqual(['/tmp/upload-1', '/tmp/upload-2']);
    for (const t of tasks) t.finish();
    await Promise.all([first, second]);
  });
});

/**
 * /naming (head 30) derived from /analyze/samples (head 60 here, so heads differ as /analyze's do; an
 * engine without split parts, which this pool cannot combine), except for index 0, which it cannot tell.
 */
const namingFromAnalyze = new Map<string, Derivation>([
  [
    '/naming',
    {
      from: { route: '/analyze/samples', engine: 'samples', params: {}, headSeconds: 60 },
      headSeconds: 30,
      derive: (answer, params) =>
        params.index === 0 ? undefined : { source: answer.source, result: { from: answer.result, index: params.index } },
    },
  ],
]);
const containingResult = { engine: 'samples', params: {} };

describe('AnalysisService: answers derived from another analysis', () => {
  it('derives an answer from the containing analysis while it runs, with no task and nothing metered of its own', async () => {
    const { analysis, tasks, meter } = service(namingFromAnalyze);
    const containing = analysis.analyseFile('alice', file, '/analyze/samples', 'samples', {}, { headSeconds: 60 });
    await tasksReach(tasks, 1);
    const naming = analysis.analyseFile('alice', file, '/naming', 'naming', { index: 3 }, { headSeconds: 30 });
    await tick();
    expect(tasks).toHaveLength(1);
    tasks[0]!.finish();
    await containing;
    const answer = await naming;
    expect(answer).toEqual({
      source: expect.objectContaining({ duration_s: 1 }),
      result: { from: containingResult, index: 3 },
      cache: 'miss',
    });
    expect(meter.report('alice').audio_seconds).toBe(1);
    // Cached under the route's own key: the next request is a hit.
    expect((await analysis.analyseFile('alice', file, '/naming', 'naming', { index: 3 }, { headSeconds: 30 })).cache).toBe('hit');
    expect(tasks).toHaveLength(1);
  });

  it('derives from the cached containing analysis', async () => {
    const { analysis, tasks } = service(namingFromAnalyze);
    const containing = analysis.analyseFile('alice', file, '/analyze/samples', 'samples', {}, { headSeconds: 60 });
    await tasksReach(tasks, 1);
    tasks[0]!.finish();
    await containing;
    const naming = await analysis.analyseFile('bob', file, '/naming', 'naming', { index: 5 }, { headSeconds: 30 });
    expect(naming.result).toEqual({ from: containingResult, index: 5 });
    expect(tasks).toHaveLength(1);
  });

  it('runs the route’s own engine when there is nothing to derive from, the derivation cannot tell, the head differs or the containing analysis fails', async () => {
    const { analysis, tasks } = service(namingFromAnalyze);
    const ownRun = async (index: number, headSeconds: number) => {
      const before = tasks.length;
      const answer = analysis.analyseFile('alice', file, '/naming', 'naming', { index }, { headSeconds });
      await tasksReach(tasks, before + 1);
      expect(tasks[before]!.task.engineId).toBe('naming');
      tasks[before]!.finish();
      expect((await answer).result).toEqual({ engine: 'naming', params: { index } });
    };
    await ownRun(1, 30); // no /analyze of the file anywhere
    const containing = analysis.analyseFile('alice', file, '/analyze/samples', 'samples', {}, { headSeconds: 60 });
    await tasksReach(tasks, 2);
    tasks[1]!.finish();
    await containing;
    await ownRun(0, 30); // the derivation returns undefined
    await ownRun(2, 10); // another head: another cache key the derivation does not answer

    const other = { path: '/nonexistent/other.wav', sha256: 'b'.repeat(64) };
    const failing = analysis.analyseFile('alice', other, '/analyze/samples', 'samples', {}, { headSeconds: 60 });
    failing.catch(() => undefined);
    await tasksReach(tasks, 5);
    const naming = analysis.analyseFile('alice', other, '/naming', 'naming', { index: 4 }, { headSeconds: 30 });
    await tick();
    tasks[4]!.fail(new Error('undecodable'));
    await expect(failing).rejects.toThrow('undecodable');
    await tasksReach(tasks, 6);
    expect(tasks[5]!.task.engineId).toBe('naming');
    tasks[5]!.finish();
    expect((await naming).result).toEqual({ engine: 'naming', params: { index: 4 } });
  });
});
