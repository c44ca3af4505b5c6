import { open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { syncDir } from '../shared/sync-dir.js';

/**
 * A durable append-only journal of JSON lines, for tables too large to rewrite on every write (the
 * lowdb document is rewritten whole). Appends wait for a group commit: every line queued while the
 * previous write+fdatasync ran goes out in one write and one fdatasync, so a burst of N writers costs
 * a few syncs, not N. A write is acknowledged only after its sync. At open the file is replayed; a
 * torn last line (a kill mid-write) is ignored and cut off. `compact` rewrites the live state as a
 * new file (temp, fsync, rename, directory fsync), so a crash leaves the old or the new journal whole.
 */
export class Journal<E> {
  private fh: FileHandle | null = null;
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private writing: Promise<void> | null = null;
  private bytes = 0;
  private compacting = false;

  private constructor(readonly file: string) {}

  /** Open (creating) the journal and replay it: `apply` sees every whole entry in order. */
  static async open<E>(file: string, apply: (entry: E) => void): Promise<Journal<E>> {
    const journal = new Journal<E>(file);
    let bytes: Buffer = Buffer.alloc(0);
    try {
      bytes = await readFile(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    // Byte offsets throughout (a line's UTF-8 length is not its string length).
    let good = 0;
    while (good < bytes.length) {
      const end = bytes.indexOf(0x0a, good);
      // No newline: the last line was torn by a kill before its sync (never acknowledged).
      if (end < 0) break;
      let entry: E;
      try {
        entry = JSON.parse(bytes.toString('utf8', good, end)) as E;
      } catch {
        break; // a torn line can only be the last one written; what follows it was never acknowledged
      }
      apply(entry);
      good = end + 1;
    }
    journal.fh = await open(file, 'a+');
    const size = (await journal.fh.stat()).size;
    if (size !== good) await journal.fh.truncate(good);
    journal.bytes = good;
    return journal;
  }

  /** Bytes in the journal file. */
  get size(): number {
    return this.bytes;
  }

  /** Append entries; resolves once they are on disk (fdatasync'd with whatever else was queued). */
  append(...entries: readonly E[]): Promise<void> {
    for (const e of entries) this.pending.push(`${JSON.stringify(e)}\n`);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    // During a compaction the lines wait and go to the new file.
    if (!this.writing && !this.compacting) this.writing = this.drain();
    return done;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending.join('');
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        if (!this.fh) throw new Error('journal is closed');
        const buf = Buffer.from(lines);
        await this.fh.write(buf);
        await this.fh.datasync();
        this.bytes += buf.length;
        for (const w of waiters) w.resolve();
      } catch (error) {
        for (const w of waiters) w.reject(error);
      }
    }
    this.writing = null;
  }

  /** Replace the journal with `entries` (the live state), atomically. */
  async compact(entries: Iterable<E>): Promise<void> {
    this.compacting = true;
    try {
      await this.writing;
      await this.rewrite(entries);
    } finally {
      this.compacting = false;
      if (this.pending.length > 0 && !this.writing) this.writing = this.drain();
    }
  }

  private async rewrite(entries: Iterable<E>): Promise<void> {
    const temp = `${this.file}.compact`;
    const out = await open(temp, 'w');
    let written = 0;
    try {
      let chunk: string[] = [];
      const flush = async () => {
        const buf = Buffer.from(chunk.join(''));
        await out.write(buf);
        written += buf.length;
        chunk = [];
      };
      for (const e of entries) {
        chunk.push(`${JSON.stringify(e)}\n`);
        if (chunk.length >= 1000) await flush();
      }
      await flush();
      await out.sync();
    } finally {
      await out.close();
    }
    // Appends queued meanwhile wait for the new file.
    const old = this.fh;
    this.fh = null;
    await old?.close();
    await rename(temp, this.file);
    await syncDir(path.dirname(this.file));
    this.fh = await open(this.file, 'a+');
    this.bytes = written;
  }

  /** Wait for queued appends, then close. */
  async close(): Promise<void> {
    await this.writing;
    await this.fh?.close();
    this.fh = null;
  }
}

/** Size of a file, or 0 when it does not exist. */
export async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

/** Remove a journal's leftovers from an interrupted compaction. */
export async function removeCompactionLeftover(file: string): Promise<void> {
  await rm(`${file}.compact`, { force: true });
}
