// The batch lives in this module, not in the screen, so it keeps running and keeps its results when
// the person opens another screen and comes back (app.tsx unmounts routes it does not show).
import { useSyncExternalStore } from 'react';
import { messageOf } from '../../api/error-message';
import { ApiError, isAbort } from '../../api/http';
import type { AnalyseFile } from './analyse-file';
import type { BatchItem } from './batch-model';

export interface BatchSnapshot {
  /** The token the batch was started with: another signed-in person does not see it. */
  readonly owner: string | null;
  readonly items: readonly BatchItem[];
  /**
   * Why nothing new starts: 'offline' when the server stopped answering mid-batch (the files it
   * interrupted went back to the queue); null while the batch runs.
   */
  readonly paused: 'offline' | null;
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
  /** Start the queue again after a pause, without waiting for the next health check. */
  resume(): void;
}

/** How a paused batch finds out that the server is back. */
export interface BatchResumeOptions {
  /** True when the server answers again (the real one asks /healthz). */
  readonly probe: () => Promise<boolean>;
  /** Milliseconds between two probes while paused. */
  readonly intervalMs: number;
}

/**
 * True for a failure that says nothing about the file: the server could not be reached, or a proxy
 * in front of it answered that it is gone (502, 504). Such a file goes back to the queue.
 */
export function isServerGone(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 0 || error.status === 502 || error.status === 504);
}

/**
 * A batch that runs at most `concurrency` files at once through `analyseFile`. When the server stops
 * answering, the batch pauses instead of failing every queued file: the interrupted files are queued
 * again, and it resumes when `resume.probe` says the server is back (or on resume()).
 */
export function createBatchStore(analyseFile: AnalyseFile, concurrency = 2, resume?: BatchResumeOptions): BatchStore {
  let snapshot: BatchSnapshot = { owner: null, items: [], paused: null };
  let probeTimer: ReturnType<typeof setTimeout> | null = null;
  let nextIndex = 1;
  let nextId = 1;
  const listeners = new Set<() => void>();
  const running = new Map<string, AbortController>();

  const publish = (items: readonly BatchItem[], owner = snapshot.owner, paused = snapshot.paused) => {
    snapshot = { owner, items, paused };
    for (const listener of listeners) listener();
  };
  const update = (id: string, change: Partial<BatchItem>) => {
    if (!snapshot.items.some((item) => item.id === id)) return;
    publish(snapshot.items.map((item) => (item.id === id ? { ...item, ...change } : item)));
  };
  const stopProbing = () => {
    if (probeTimer !== null) clearTimeout(probeTimer);
    probeTimer = null;
  };
  const unpause = () => {
    stopProbing();
    if (snapshot.paused === null) return;
    publish(snapshot.items, snapshot.owner, null);
    pump();
  };
  const scheduleProbe = () => {
    if (!resume || probeTimer !== null) return;
    probeTimer = setTimeout(() => {
      void resume.probe().then(
        (back) => {
          probeTimer = null;
          if (snapshot.paused === null) return;
          if (back) unpause();
          else scheduleProbe();
        },
        () => {
          probeTimer = null;
          if (snapshot.paused !== null) scheduleProbe();
        },
      );
    }, resume.intervalMs);
  };
  const pause = () => {
    if (snapshot.paused === null) publish(snapshot.items, snapshot.owner, 'offline');
    scheduleProbe();
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
          if (isServerGone(error)) {
            // Not the file's fault: it waits in the queue for the server to come back.
            update(item.id, { status: 'queued', stage: null, progress: 0, error: null });
            pause();
            return;
          }
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
    if (!token || snapshot.paused !== null) return;
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
        stopProbing();
        nextIndex = 1;
        publish([], token, null);
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
      stopProbing();
      nextIndex = 1;
      publish([], snapshot.owner, null);
    },
    resume: unpause,
  };
}

/** Subscribe a component to a batch store. */
export function useBatch(store: BatchStore): BatchSnapshot {
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}
