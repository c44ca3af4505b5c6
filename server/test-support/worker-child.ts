import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A `cratehouse worker` child process and the analysis task ids it logged as started and finished. */
export interface WorkerChild {
  readonly child: ChildProcess;
  readonly started: string[];
  readonly finished: string[];
  /** Resolved when the process has exited. */
  readonly exited: Promise<void>;
}

/**
 * Start `bin/cratehouse.mjs worker` over `dataDir` and the Redis at `redisUrl` (more settings in `env`,
 * e.g. CRATEHOUSE_ANALYSIS_THREADS); resolve once it logs that it takes tasks. For tests and benchmarks
 * that spread analyses over worker processes (and kill them).
 */
export function startWorkerChild(dataDir: string, redisUrl: string, env: Readonly<Record<string, string>> = {}): Promise<WorkerChild> {
  const child = spawn(process.execPath, ['bin/cratehouse.mjs', 'worker', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, CRATEHOUSE_REDIS_URL: redisUrl, CRATEHOUSE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const worker: WorkerChild = {
    child,
    started: [],
    finished: [],
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
  };
  createInterface({ input: child.stderr! }).on('line', (line) => {
    const m = /analysis task (\S+) (started|finished)/.exec(line);
    if (m) (m[2] === 'started' ? worker.started : worker.finished).push(m[1]!);
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('taking analysis tasks')) resolve(worker);
    });
    child.once('exit', (code) => reject(new Error(`worker exited early with ${code}`)));
  });
}
