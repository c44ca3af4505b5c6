import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isServerNodeFlag, serverNodeFlags } from './node-flags.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('serverNodeFlags', () => {
  it('are the flags npm start runs the server with (the Dockerfile and systemd unit: electron/packaging-config.test.ts)', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toContain(`node ${serverNodeFlags.join(' ')} dist/server/main.js`);
  });

  it('start a process whose analysis threads run (worker threads refuse V8 flags in their execArgv)', () => {
    const pool = path.join(root, 'server/audio/analysis/worker-pool.ts');
    const script = `const { createAnalysisPool } = await import(${JSON.stringify(pool)});
      const p = createAnalysisPool(1);
      for (let i = 0; i < 400 && !p.isWarm(); i++) await new Promise((r) => setTimeout(r, 50));
      console.log(p.isWarm() ? 'warm' : 'cold');
      await p.destroy();`;
    // A script file rather than `--input-type=module -e`: worker threads inherit the process's execArgv,
    // and a thread that piscina starts with --input-type fails (ERR_INPUT_TYPE_NOT_ALLOWED).
    const dir = mkdtempSync(path.join(tmpdir(), 'node-flags-'));
    const file = path.join(dir, 'pool.mjs');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [...serverNodeFlags, '--import', 'tsx', file], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    rmSync(dir, { recursive: true, force: true });
    expect(run.stderr).not.toMatch(/ERR_WORKER_INVALID_EXEC_ARGV/);
    expect(run.stdout.trim()).toBe('warm');
    expect(run.status).toBe(0);
  }, 60_000);

  it('are recognised whatever their value', () => {
    expect(isServerNodeFlag('--initial-old-space-size=128')).toBe(true);
    expect(isServerNodeFlag('--import')).toBe(false);
  });
});
