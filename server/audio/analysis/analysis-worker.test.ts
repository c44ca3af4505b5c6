import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { warmUp } from './analysis-worker.js';
import { engines } from '../engines/registry.js';

describe('warmUp', () => {
  it('runs every engine three times, and with a directory the /analyze path three times, removing its WAV', async () => {
    expect(await warmUp()).toBe(3 * Object.keys(engines).length);
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-warm-up-'));
    try {
      // Each /analyze round reads the WAV through both parts, combines them and hashes the file; a
      // failing part throws, so the count says every round went through.
      expect(await warmUp({ dir })).toBe(3 * Object.keys(engines).length + 3);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
