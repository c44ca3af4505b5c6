import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/http';
import type { AnalyseFile } from './analyse-file';
import type { BatchResult } from './batch-model';
import { createBatchStore } from './batch-store';

interface Call {
  readonly name: string;
  readonly index: number;
  readonly token: string;
  readonly signal: AbortSignal;
  resolve(result: BatchResult): void;
  reject(error: unknown): void;
}

/** An analyser whose answers the test gives by hand, so it sees every state in between. */
function controlledAnalyser() {
  const calls: Call[] = [];
  const analyse: AnalyseFile = (file, index, { token, signal, onProgress }) =>
    new Promise<BatchResult>((resolve, reject) => {
      onProgress('analyze', 0.25);
      signal.addEventListener('abort', () => reject(new DOMException('cancelled', 'AbortError')));
      calls.push({ name: file.name, index, token, signal, resolve, reject });
    });
  return { calls, analyse };
}

const result = (suggestedName: string): BatchResult => ({
  durationS: 1,
  role: 'bass',
  roleConfidence: 0.9,
  tier: 'B',
  score: 0.7,
  flags: [],
  integratedLufs: -20,
  truePeakDbtp: -3,
  tempoBpm: null,
  key: 'F',
  mode: 'minor',
  keyConfidence: 0.4,
  suggestedName,
});

const files = (...names: string[]) => names.map((name) => ({ file: new File(['x'], name) }));
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createBatchStore', () => {
  it('runs at most two files at once, in order, numbering them from 1', async () => {
    const { calls, analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 2);
    store.add('t', files('a.wav', 'b.wav', 'c.wav'));
    expect(calls.map((c) => c.name)).toEqual(['a.wav', 'b.wav']);
    expect(store.getSnapshot().items.map((i) => i.status)).toEqual(['running', 'running', 'queued']);
    expect(store.getSnapshot().items[0]?.progress).toBe(0.25);

    calls[1]?.resolve(result('02_bass_x'));
    await settle();
    expect(calls.map((c) => c.name)).toEqual(['a.wav', 'b.wav', 'c.wav']);
    expect(calls.map((c) => c.index)).toEqual([1, 2, 3]);
    expect(calls.every((c) => c.token === 't')).toBe(true);
    const b = store.getSnapshot().items[1];
    expect(b?.status).toBe('done');
    expect(b?.progress).toBe(1);
    expect(b?.result?.suggestedName).toBe('02_bass_x');
  });

  it('keeps the server sentence of a failed file, and retries it with the same number', async () => {
    const { calls, analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 2);
    store.add('t', files('bad.wav'));
    calls[0]?.reject(new ApiError(415, 'The file could not be decoded as audio (no audio stream).'));
    await settle();
    expect(store.getSnapshot().items[0]).toMatchObject({
      status: 'failed',
      error: 'The file could not be decoded as audio (no audio stream).',
    });

    store.retry(store.getSnapshot().items[0]?.id ?? '');
    expect(store.getSnapshot().items[0]).toMatchObject({ status: 'running', error: null });
    expect(calls[1]?.index).toBe(1);
  });

  it('removes a queued file without running it, and cancels a running one', async () => {
    const { calls, analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 1);
    store.add('t', files('a.wav', 'b.wav', 'c.wav'));
    const [a, b] = store.getSnapshot().items;
    store.remove(b?.id ?? '');
    expect(store.getSnapshot().items.map((i) => i.name)).toEqual(['a.wav', 'c.wav']);

    store.cancel(a?.id ?? '');
    expect(calls[0]?.signal.aborted).toBe(true);
    await settle();
    expect(store.getSnapshot().items.map((i) => i.status)).toEqual(['cancelled', 'running']);
    expect(calls.map((c) => c.name)).toEqual(['a.wav', 'c.wav']);
  });

  it('clears everything, stops running files and numbers new files from 1 again', async () => {
    const { calls, analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 2);
    store.add('t', files('a.wav', 'b.wav', 'c.wav'));
    store.clear();
    expect(store.getSnapshot().items).toEqual([]);
    expect(calls.every((c) => c.signal.aborted)).toBe(true);
    await settle();
    expect(calls).toHaveLength(2);
    store.add('t', files('d.wav'));
    expect(calls[2]).toMatchObject({ name: 'd.wav', index: 1 });
  });

  it('drops the batch of another signed-in token', () => {
    const { calls, analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 2);
    store.add('first', files('a.wav'));
    store.add('second', files('b.wav'));
    expect(calls[0]?.signal.aborted).toBe(true);
    expect(store.getSnapshot()).toMatchObject({ owner: 'second', items: [{ name: 'b.wav', index: 1 }] });
  });

  it('tells subscribers about changes', () => {
    const { analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 2);
    let calls = 0;
    const unsubscribe = store.subscribe(() => (calls += 1));
    store.add('t', files('a.wav'));
    expect(calls).toBeGreaterThan(0);
    unsubscribe();
    const before = calls;
    store.clear();
    expect(calls).toBe(before);
  });
});

describe('a batch whose server stops', () => {
  const offline = () => new ApiError(0, 'The Cratehouse server could not be reached. Check that it is running.');

  it('pauses instead of failing: the interrupted files go back to the queue and nothing new starts', async () => {
    const { calls, analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 2);
    store.add('t', files('a.wav', 'b.wav', 'c.wav', 'd.wav'));
    calls[0]?.reject(offline());
    calls[1]?.reject(offline());
    await settle();
    const snapshot = store.getSnapshot();
    expect(snapshot.paused).toBe('offline');
    expect(snapshot.items.map((i) => i.status)).toEqual(['queued', 'queued', 'queued', 'queued']);
    expect(snapshot.items.every((i) => i.error === null)).toBe(true);
    expect(calls).toHaveLength(2);

    // The resume button: the queue starts again from the first file.
    store.resume();
    expect(store.getSnapshot().paused).toBeNull();
    expect(calls.slice(2).map((c) => c.name)).toEqual(['a.wav', 'b.wav']);
  });

  it('still fails a file the server refuses (a 415 is about the file, not the server)', async () => {
    const { calls, analyse } = controlledAnalyser();
    const store = createBatchStore(analyse, 1);
    store.add('t', files('notes.txt', 'b.wav'));
    calls[0]?.reject(new ApiError(415, 'Not audio.'));
    await settle();
    expect(store.getSnapshot().paused).toBeNull();
    expect(store.getSnapshot().items.map((i) => i.status)).toEqual(['failed', 'running']);
  });

  it('resumes by itself when the probe says the server is back', async () => {
    const { calls, analyse } = controlledAnalyser();
    let back = false;
    let probes = 0;
    const store = createBatchStore(analyse, 1, {
      probe: async () => {
        probes++;
        return back;
      },
      intervalMs: 5,
    });
    store.add('t', files('a.wav', 'b.wav'));
    calls[0]?.reject(offline());
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(probes).toBeGreaterThan(1);
    expect(store.getSnapshot().paused).toBe('offline');
    expect(calls).toHaveLength(1);

    back = true;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(store.getSnapshot().paused).toBeNull();
    expect(calls.map((c) => c.name)).toEqual(['a.wav', 'a.wav']);
    calls[1]?.resolve(result('01_bass_a'));
    await settle();
    expect(calls.map((c) => c.name)).toEqual(['a.wav', 'a.wav', 'b.wav']);
    store.clear();
  });
});
