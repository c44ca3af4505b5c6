import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import { hostname } from 'node:os';
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
  /** The machine it runs on (node locks of a shared data dir; pids are only checked on this machine). */
  readonly host?: string;
}

/**
 * How a process holds the data dir: `exclusive` (the embedded store: db.json has one owner) or
 * `shared` (the metadata is in PostgreSQL: several nodes share repositories, artifacts and caches).
 */
export type DataDirMode = 'exclusive' | 'shared';

/** Files a shared node holds (one per process: node-<host>-<pid>.lock). */
const nodeLockPattern = /^node-.+-\d+\.lock$/;

/** Leftovers in tmp/ older than this are a dead node's (a shared data dir's tmp/ is not emptied at start). */
const sharedTmpMaxAgeMs = 24 * 60 * 60 * 1000;

/** Thrown when another live process holds the data dir. */
export class DataDirLockedError extends Error {
  constructor(readonly lock: DataDirLock) {
    super(
      `the data dir is in use by ${lock.holder} pid ${lock.pid}${lock.url ? ` serving ${lock.url}` : ''}; stop it first or use another CRATEHOUSE_DATA_DIR`,
    );
  }
}

/**
 * Create the data dir layout and empty tmp/ (uploads in flight from a previous run are garbage).
 * Shared: other nodes' uploads are in flight in tmp/; only what is older than a day goes.
 */
export function prepareDataDir(dataDir: string, mode: DataDirMode = 'exclusive', now = Date.now()): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dataDir, 'tmp');
  if (mode === 'exclusive') rmSync(tmp, { recursive: true, force: true });
  else
    for (const name of safeReaddir(tmp)) {
      const file = path.join(tmp, name);
      try {
        if (now - statSync(file).mtimeMs > sharedTmpMaxAgeMs) rmSync(file, { recursive: true, force: true });
      } catch {
        // Gone meanwhile (another node took it away).
      }
    }
  for (const sub of dataDirLayout) mkdirSync(path.join(dataDir, sub), { recursive: true });
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Shared nodes that hold the data dir now (a node on another machine counts as live: its pid cannot be checked here). */
export function readLiveNodeLocks(dataDir: string): DataDirLock[] {
  const out: DataDirLock[] = [];
  for (const name of safeReaddir(dataDir).filter((n) => nodeLockPattern.test(n))) {
    try {
      const lock = JSON.parse(readFileSync(path.join(dataDir, name), 'utf8')) as DataDirLock;
      if (lock.host !== hostname() || isAlive(lock.pid)) out.push(lock);
      else rmSync(path.join(dataDir, name), { force: true });
    } catch {
      // Half-written or removed meanwhile.
    }
  }
  return out;
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

/**
 * Take the data dir for this process, or throw DataDirLockedError. Returns a release function.
 * Exclusive: no other process may hold it (shared nodes included). Shared: any number of shared
 * nodes, but no exclusive holder.
 */
export function acquireLock(
  dataDir: string,
  holder: DataDirLock['holder'],
  mode: DataDirMode = 'exclusive',
): { update(url: string): void; release(): void } {
  if (mode === 'shared') return acquireNodeLock(dataDir, holder);
  const file = path.join(dataDir, lockFileName);
  const lock: DataDirLock = { pid: process.pid, url: null, startedAt: new Date().toISOString(), holder };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(lock), { flag: 'wx', mode: 0o600 });
      // Checked after taking the lock (a shared node checks after writing its own): of two racing, one sees the other.
      const node = readLiveNodeLocks(dataDir)[0];
      if (node) {
        rmSync(file, { force: true });
        throw new DataDirLockedError(node);
      }
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

/** A shared node's own lock file, after checking that no exclusive holder (an embedded-store server) is live. */
function acquireNodeLock(dataDir: string, holder: DataDirLock['holder']): { update(url: string): void; release(): void } {
  const host = hostname();
  const file = path.join(dataDir, `node-${host.replace(/[^A-Za-z0-9.-]/g, '_')}-${process.pid}.lock`);
  const lock: DataDirLock = { pid: process.pid, url: null, startedAt: new Date().toISOString(), holder, host };
  const write = (value: DataDirLock) => {
    writeFileSync(`${file}.tmp`, JSON.stringify(value), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  };
  write(lock);
  const exclusive = readLiveLock(dataDir);
  if (exclusive && exclusive.pid !== process.pid) {
    rmSync(file, { force: true });
    throw new DataDirLockedError(exclusive);
  }
  return {
    update: (url) => write({ ...lock, url }),
    release: () => rmSync(file, { force: true }),
  };
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
