import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServerChild } from '../../test-support/server-child.js';
import { encodeWav, sine } from '../../test-support/signals.js';

const token = 'folder-crash-token';
const auth = { Authorization: `Bearer ${token}` };
const count = 400;

interface Folder {
  id: number;
  item_count: number;
  scan: { state: string; resumed: boolean; seen: number; added: number; unchanged: number; failed: number };
}

async function onlyFolder(url: string): Promise<Folder> {
  return ((await (await fetch(`${url}/audio/v1/library/folders`, { headers: auth })).json()) as { items: Folder[] }).items[0]!;
}

describe('a folder scan killed mid-way', () => {
  it('resumes at the next start: every file an item once, none lost, none twice', async () => {
    const base = await realpath(await mkdtemp(path.join(tmpdir(), 'cratehouse-folder-crash-')));
    const dir = path.join(base, 'root', 'kit');
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < count; i++) await writeFile(path.join(dir, `hit-${i}.wav`), encodeWav([sine(22_050, 0.25, 100 + i, 0.3)], 22_050));
    const env = { CRATEHOUSE_LIBRARY_FOLDERS: path.join(base, 'root') };
    const dataDir = path.join(base, 'data');

    const first = await startServerChild(dataDir, token, env);
    const exited = new Promise((r) => first.child.once('exit', r));
    const res = await fetch(`${first.url}/audio/v1/library/folders`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: dir }),
    });
    expect(res.status).toBe(202);
    // Killed once some files are in and many are not.
    let before: Folder;
    do {
      await new Promise((r) => setTimeout(r, 50));
      before = await onlyFolder(first.url);
    } while (before.scan.added < 10);
    first.child.kill('SIGKILL');
    await exited;
    expect(before.scan.state).toBe('scanning');
    expect(before.item_count).toBeLessThan(count);

    const second = await startServerChild(dataDir, token, env);
    try {
      let after: Folder;
      do {
        await new Promise((r) => setTimeout(r, 200));
        after = await onlyFolder(second.url);
      } while (after.scan.state !== 'done');
      expect(after.scan).toMatchObject({ resumed: true, seen: count, failed: 0 });
      // What the first run had written down is found again, the rest added: together every file once.
      expect(after.scan.unchanged).toBeGreaterThanOrEqual(before.item_count);
      expect(after.scan.added + after.scan.unchanged).toBe(count);
      expect(after.item_count).toBe(count);
      const paths: string[] = [];
      for (let page = 1; page <= 2; page++) {
        const listed = (await (
          await fetch(`${second.url}/audio/v1/library/items?per_page=200&page=${page}`, { headers: auth })
        ).json()) as {
          items: { path: string }[];
        };
        paths.push(...listed.items.map((i) => i.path));
      }
      expect(new Set(paths).size).toBe(count);
      expect(paths.every((p) => p.startsWith(dir))).toBe(true);
    } finally {
      const stopped = new Promise((r) => second.child.once('exit', r));
      second.child.kill('SIGTERM');
      await stopped;
    }
  }, 180_000);
});
