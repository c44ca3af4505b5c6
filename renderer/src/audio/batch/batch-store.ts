// The batch lives in this module, not in the screen, so it keeps running and keeps its results when
// the person opens another screen and comes back (app.tsx unmounts routes it does not show).
import { useSyncExternalStore } from 'react';
import { messageOf } from '../../api/error-message';
import { isAbort } from '../../api/http';
import type { AnalyseFile } from './analyse-file';
import type { BatchItem } from './batch-model';

export interface BatchSnapshot {
  /** The token the batch was started with: another signed-in person does not see it. */
  readonly owner: string | null;
  readonly items: readonly BatchItem[];
}

/** A file to add, with its path on disk when the desktop app knows it. */
export interface NewFile {
  readonly file: File;
  readonly name?: string;
  readonly path?: string | null;
}

export interface BatchStore {
  subscribe(listener: () => void): () => void;
  getSnapshot(): BatchSnapshot;
  /** Queue files for `token`'s batch; a different owner's batch is dropped first. */
  add(token: string, files: readonly NewFile[]): void;
  /** Stop a running file; it stays in the list as cancelled, to retry or remove. */
  cancel(id: string): void;
  /** Take a file out of the batch, stopping it if it runs. */
  remove(id: string): void;
  /** Queue a failed or cancelled file again. */
  retry(id: string): void;
  /** Stop everything and empty the batch; numbering starts at 1 again. */
  clear(): void;
}

/** A batch that runs at most `concurrency` files at once through `analyseFile`. */
export function createBatchStore(analyseFile: AnalyseFile, concurrency = 2): BatchStore {
  let snapshot: BatchSnapshot = { owner: null, items: [] };
  let nextIndex = 1;
  let nextId = 1;
  const listeners = new Set<() => void>();
  const running = new Map<string, AbortController>();

  const publish = (items: readonly BatchItem[], owner = snapshot.owner) => {
    snapshot = { owner, items };
    for (const listener of listeners) listener();
  };
  const update = (id: string, change: Partial<BatchItem>) => {
    if (!snapshot.items.some((item) => item.id === id)) return;
    publish(snapshot.items.map((item) => (item.id === id ? { ...item, ...change } : item)));
  };
  const stopAll = () => {
    for (const controller of running.values()) controller.abort();
    running.clear();
  };

  const start = (item: BatchItem, token: string) => {
    const controller = new AbortController();
    running.set(item.id, controller);
    update(item.id, { status: 'running', stage: 'loudness', progress: 0, error: null, result: null });
    analyseFile(item.file, item.index, {
      token,
      signal: controller.signal,
      onProgress: (stage, fraction) => {
        if (!controller.signal.aborted) update(item.id, { stage, progress: fraction });
      },
    })
      .then(
        (result) => {
          if (controller.signal.aborted) return;
          update(item.id, { status: 'done', stage: null, progress: 1, result });
        },
        (error: unknown) => {
          // A cancelled file was already marked by cancel() or removed by remove()/clear().
          if (controller.signal.aborted || isAbort(error)) return;
          update(item.id, { status: 'failed', stage: null, error: messageOf(error, 'The analysis failed unexpectedly.') });
        },
      )
      .finally(() => {
        if (running.get(item.id) === controller) running.delete(item.id);
        pump();
      });
  };

  // Start queued files, in list order, while fewer than `concurrency` run.
  const pump = () => {
    const token = snapshot.owner;
    if (!token) return;
    for (const item of snapshot.items) {
      if (running.size >= concurrency) break;
      if (item.status === 'queued' && !running.has(item.id)) start(item, token);
    }
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => snapshot,
    add(token, files) {
      if (snapshot.owner !== token) {
        stopAll();
        nextIndex = 1;
        publish([], token);
      }
      const added = files.map(({ file, name, path }): BatchItem => ({
        id: `f${nextId++}`,
        file,
        name: name ?? file.name,
        path: path ?? null,
        index: nextIndex++,
        status: 'queued',
        stage: null,
        progress: 0,
        error: null,
        result: null,
      }));
      publish([...snapshot.items, ...added]);
      pump();
    },
    cancel(id) {
      const controller = running.get(id);
      if (!controller) return;
      running.delete(id);
      controller.abort();
      update(id, { status: 'cancelled', stage: null, progress: 0, error: null });
      pump();
    },
    remove(id) {
      const controller = running.get(id);
      running.delete(id);
      controller?.abort();
      publish(snapshot.items.filter((item) => item.id !== id));
      pump();
    },
    retry(id) {
      const item = snapshot.items.find((candidate) => candidate.id === id);
      if (!item || (item.status !== 'failed' && item.status !== 'cancelled')) return;
      update(id, { status: 'queued', stage: null, progress: 0, error: null, result: null });
      pump();
    },
    clear() {
      stopAll();
      nextIndex = 1;
      publish([]);
    },
  };
}

/** Subscribe a component to a batch store. */
export function useBatch(store: BatchStore): BatchSnapshot {
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}
