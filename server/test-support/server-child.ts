import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A server child process and the URL it listens on. */
export interface ServerChild {
  readonly child: ChildProcess;
  readonly url: string;
}

/** Start the real headless server (through tsx) on a free port over `dataDir` (plus `env`); resolve once it listens. For tests that kill it. */
export function startServerChild(dataDir: string, adminToken: string, env: Readonly<Record<string, string>> = {}): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      CRATEHOUSE_PORT: '0',
      CRATEHOUSE_DATA_DIR: dataDir,
      CRATEHOUSE_ADMIN_TOKEN: adminToken,
      CRATEHOUSE_LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m?.[1]) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
  });
}
