import { open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { syncDir } from '../shared/sync-dir.js';

/**
 * lowdb adapter writing a JSON file atomically and durably: write a temp file, fsync it, rename it
 * over the target, fsync the directory. A crash at any point leaves either the old or the new
 * document, never a torn one. (lowdb's own JSONFile renames but does not fsync.)
 */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly filename: string;
  /** Number of completed writes, for tests and benchmarks. */
  writes = 0;
  lastWriteBytes = 0;

  constructor(filename: string) {
    this.filename = filename;
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.filename, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return JSON.parse(text) as T;
  }

  async write(data: T): Promise<void> {
    // Serialise first, synchronously, so the bytes are a snapshot of this moment.
    const text = JSON.stringify(data);
    const tmp = `${this.filename}.${process.pid}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    try {
      await rename(tmp, this.filename);
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
    await syncDir(path.dirname(this.filename));
    this.writes++;
    this.lastWriteBytes = Buffer.byteLength(text);
  }
}

/** In-memory adapter for unit tests, counting writes like the file adapter. */
export class MemoryAdapter<T> implements Adapter<T> {
  private data: string | null = null;
  writes = 0;
  lastWriteBytes = 0;
  /** Set to make the next writes fail, to test error paths. */
  failWrites = false;

  async read(): Promise<T | null> {
    return this.data === null ? null : (JSON.parse(this.data) as T);
  }

  async write(data: T): Promise<void> {
    const text = JSON.stringify(data);
    await Promise.resolve();
    if (this.failWrites) throw new Error('simulated write failure');
    this.data = text;
    this.writes++;
    this.lastWriteBytes = text.length;
  }
}
