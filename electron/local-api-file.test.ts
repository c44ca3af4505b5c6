import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStale, localApiFilePath, readLocalApiFile, removeLocalApiFile, writeLocalApiFile } from './local-api-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-local-api-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const info = { url: 'http://127.0.0.1:43123', token: 'secret-token', pid: process.pid, version: '0.1.0' };

describe('local-api.json', () => {
  it('is written readable only by the user and read back', async () => {
    const file = await writeLocalApiFile(dir, info);
    expect(file).toBe(localApiFilePath(dir));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(info);
    expect(await readLocalApiFile(dir)).toEqual(info);
  });

  it('is replaced whole, never left half-written', async () => {
    await writeLocalApiFile(dir, info);
    await writeLocalApiFile(dir, { ...info, url: 'http://127.0.0.1:50000' });
    expect((await readLocalApiFile(dir))?.url).toBe('http://127.0.0.1:50000');
  });

  it('is removed on quit only by the process that wrote it', async () => {
    await writeLocalApiFile(dir, info);
    expect(await removeLocalApiFile(dir, process.pid + 1)).toBe(false);
    expect(await readLocalApiFile(dir)).not.toBeNull();
    expect(await removeLocalApiFile(dir, process.pid)).toBe(true);
    expect(await readLocalApiFile(dir)).toBeNull();
    expect(await removeLocalApiFile(dir, process.pid)).toBe(false);
  });

  it('reads a missing or foreign file as null', async () => {
    expect(await readLocalApiFile(dir)).toBeNull();
    await writeFile(localApiFilePath(dir), '{"url": 5}');
    expect(await readLocalApiFile(dir)).toBeNull();
    await writeFile(localApiFilePath(dir), 'not json');
    expect(await readLocalApiFile(dir)).toBeNull();
  });

  it('tells a crashed app’s file from a running one', () => {
    expect(isStale(info)).toBe(false);
    expect(isStale({ ...info, pid: 4_000_000 }, () => false)).toBe(true);
  });
});
