import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { startServer } from '../start-server.js';
import { memoryLogger } from '../test-support/test-app.js';

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../e2e/clients/python_gitlab_smoke.py');
/**
 * Debian's python3-gitlab lives in the system python (/usr/bin/python3), which may not be the first
 * python3 on PATH (pyenv). CI installs it, so there a missing client is a failure, not a skip.
 */
const python = ['/usr/bin/python3', 'python3'].find((p) => spawnSync(p, ['-c', 'import gitlab']).status === 0);
const hasPythonGitlab = python !== undefined;

it.skipIf(!hasPythonGitlab && !process.env.CI && process.env.CRATEHOUSE_REQUIRE_CLIENTS !== '1')(
  'python-gitlab lists, creates, edits, stars, archives, shares, forks and deletes projects without errors',
  async () => {
    expect(hasPythonGitlab, 'python3-gitlab is not installed (apt-get install python3-gitlab)').toBe(true);
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-pygitlab-'));
    // The smoke script's hook names a loopback address, refused by default since hooks follow the outbound rules.
    const server = await startServer(loadConfig({}, { dataDir, port: 0, adminToken: 'py-admin', hooksAllowPrivate: true }), {
      log: memoryLogger(),
      rendererDir: null,
      meterFlushMs: 60_000,
    });
    try {
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(python!, [script, server.url, 'py-admin'], { timeout: 120_000 }, (error, out, err) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
        );
      });
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      expect(stdout.trim().split('\n').pop()).toBe('OK');
    } finally {
      await server.stop();
    }
  },
  180_000,
);
