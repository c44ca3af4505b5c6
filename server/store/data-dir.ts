import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';

/** Sub-folders every data dir has (see docs/architecture.md). */
export const dataDirLayout = ['cache', 'artifacts', 'repositories', 'uploads', 'exports', 'tmp'] as const;

/** Name of the lock a running server holds on its data dir. */
export const lockFileName = 'server.lock';

/** Contents of the lock: who holds it and where it serves. */
export interface DataDirLock {
  readonly pid: number;
  readonly url: string | null;
  readonly startedAt: string;
  readonly holder: 'server' | 'cli';
}

/** Thrown when another live process holds the data dir. */
export class DataDirLockedError extends Error {
  constructor(readonly lock: DataDirLock) {
    super(
      `the data dir is in use by ${lock.holder} pid ${lock.pid}${lock.url ? ` serving ${lock.url}` : ''}; stop it first or use another CRATEHOUSE_DATA_DIR`,
    );
  }
}

/** Create the data dir layout and empty tmp/ (uploads in flight from a previous run are garbage). */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  rmSync(path.join(dataDir, 'tmp'), { recursive: true, force: true });
  for (const sub of dataDirLayout) mkdirSync(path.join(dataDir, sub), { recursive: true });
}

/** Read the lock if a live process holds it; stale locks (dead pid) read as null. */
export function readLiveLock(dataDir: string): DataDirLock | null {
  let lock: DataDirLock;
  try {
    lock = JSON.parse(readFileSync(path.join(dataDir, lockFileName), 'utf8')) as DataDirLock;
  } catch {
    return null;
  }
  return isAlive(lock.pid) ? lock : null;
}

/** Take the data dir for this process, or throw DataDirLockedError. Returns a release function. */
export function acquireLock(dataDir: string, holder: DataDirLock['holder']): { update(url: string): void; release(): void } {
  const file = path.join(dataDir, lockFileName);
  const lock: DataDirLock = { pid: process.pid, url: null, startedAt: new Date().toISOString(), holder };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(lock), { flag: 'wx', mode: 0o600 });
      return {
        update(url: string) {
          writeFileSync(`${file}.tmp`, JSON.stringify({ ...lock, url }), { mode: 0o600 });
          renameSync(`${file}.tmp`, file);
        },
        release() {
          try {
            const current = JSON.parse(readFileSync(file, 'utf8')) as DataDirLock;
            if (current.pid === process.pid) unlinkSync(file);
          } catch {
            // already gone
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const live = readLiveLock(dataDir);
      if (live && live.pid !== process.pid) throw new DataDirLockedError(live);
      // Stale lock from a process that died (or our own from an earlier start): take it over.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
