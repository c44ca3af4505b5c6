import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverNodeFlags } from './node-flags.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('serverNodeFlags', () => {
  it('are the flags npm start runs the server with (the Dockerfile and systemd unit: electron/packaging-config.test.ts)', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toContain(`node ${serverNodeFlags.join(' ')} dist/server/main.js`);
  });

  it('are accepted by this node', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, [...serverNodeFlags, '-e', 'process.exit(0)']);
    expect(run.stderr.toString()).toBe('');
    expect(run.status).toBe(0);
  });
});
