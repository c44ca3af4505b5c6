import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentStore } from './content-store.js';

const bytes = Buffer.from('held once');
const sha256 = createHash('sha256').update(bytes).digest('hex');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'content-store-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('ContentStore linking', () => {
  it('adopt passes over an owner whose file cannot be linked and links the next one', async () => {
    const owned = path.join(dir, 'owned');
    await writeFile(owned, bytes);
    const store = new ContentStore(path.join(dir, 'store'), dir, [
      () => Promise.resolve(path.join(dir, 'missing')),
      () => Promise.resolve(owned),
    ]);
    expect(await store.adopt(sha256)).toBe(true);
    expect((await stat(store.pathOf(sha256))).ino).toBe((await stat(owned)).ino);
  });

  it('adopt is false when no owner can link the bytes', async () => {
    const store = new ContentStore(path.join(dir, 'store'), dir, [() => Promise.resolve(path.join(dir, 'missing'))]);
    expect(await store.adopt(sha256)).toBe(false);
    expect(await store.has(sha256)).toBe(false);
  });

  it('putLinked links the source in and throws when it cannot', async () => {
    const source = path.join(dir, 'source');
    await writeFile(source, bytes);
    const store = new ContentStore(path.join(dir, 'store'), dir);
    const held = await store.putLinked(source, sha256);
    expect(await readFile(held)).toEqual(bytes);
    await store.remove(sha256);
    await expect(store.putLinked(path.join(dir, 'missing'), sha256)).rejects.toThrow();
    expect(await store.has(sha256)).toBe(false);
  });
});
