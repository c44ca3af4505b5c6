import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import { waitFor } from '../../test-support/wait-for.js';

const rate = 22_050;
const auth = { Authorization: `Bearer ${adminToken}` };
const post = (body: unknown) => ({ method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
/** Files of the big folder: enough that hashing and indexing them takes longer than answering. */
const count = 120;

interface Folder {
  id: number;
  item_count: number;
  scan: {
    state: string;
    finished_at: string | null;
    seen: number;
    added: number;
    unchanged: number;
    failed: number;
    skipped: Record<string, number>;
  };
}

let base: string;
let app: TestApp;

async function folder(id: number): Promise<Folder | undefined> {
  const res = await app.fetch('/audio/v1/library/folders', { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Folder[] }).items.find((f) => f.id === id);
}

const until = (check: () => Promise<boolean>) => waitFor(check, { timeoutMs: 60_000, everyMs: 100 });

/** `n` distinct WAVs (each its own sha256) in `dir`. */
async function writeWavs(dir: string, n: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < n; i++) await writeFile(path.join(dir, `hit-${i}.wav`), encodeWav([sine(rate, 0.25, 100 + i, 0.3)], rate));
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'cratehouse-folder-scan-')));
  await mkdir(path.join(base, 'outside'));
  await mkdir(path.join(base, 'root'));
  await writeFile(path.join(base, 'outside', 'secret.wav'), encodeWav([sine(rate, 0.25, 999, 0.3)], rate));
  app = await startTestApp({ libraryFolders: [path.join(base, 'root')] });
}, 120_000);
afterAll(() => app?.close());

describe('folder scans in the background', () => {
  it(`answers before the scan of ${count} WAVs is done, counts hostile entries, and ends with ${count} items`, async () => {
    const dir = path.join(base, 'root', 'kit');
    await writeWavs(dir, count);
    // Hostile entries: a link out of the roots, a link to a folder, a dangling link, non-audio, a path past 1024 bytes, a fifo.
    await symlink(path.join(base, 'outside', 'secret.wav'), path.join(dir, 'escape.wav'));
    await symlink(path.join(base, 'outside'), path.join(dir, 'loop'));
    await symlink(path.join(dir, 'gone.wav'), path.join(dir, 'dangling.wav'));
    await writeFile(path.join(dir, 'readme.txt'), 'not audio');
    await writeFile(path.join(dir, 'cover.jpg'), Buffer.alloc(100));
    let deep = dir;
    for (let i = 0; i < 5; i++) deep = path.join(deep, `${'d'.repeat(200)}${i}`);
    await mkdir(deep, { recursive: true });
    await writeFile(path.join(deep, `${'n'.repeat(200)}.wav`), encodeWav([sine(rate, 0.25, 50, 0.3)], rate));
    execFileSync('mkfifo', [path.join(dir, 'pipe.wav')]);

    const res = await app.fetch('/audio/v1/library/folders', post({ path: dir }));
    expect(res.status).toBe(202);
    const answered = (await res.json()) as Folder;
    expect(answered.scan).toMatchObject({ state: 'scanning', finished_at: null, added: 0 });
    expect(answered.item_count).toBeLessThan(count);

    await until(async () => (await folder(answered.id))?.scan.state === 'done');
    const done = (await folder(answered.id))!;
    expect(done.item_count).toBe(count);
    expect(done.scan).toMatchObject({
      seen: count,
      added: count,
      unchanged: 0,
      failed: 1, // the dangling link
      skipped: { not_audio: 2, outside_roots: 2, name_too_long: 1, over_limit: 0 },
    });
    expect(done.scan.finished_at).toEqual(expect.any(String));
  }, 120_000);

  it('is cancelled by removing the folder: no item of it is left or added later', async () => {
    const dir = path.join(base, 'root', 'cancelled');
    await writeWavs(dir, count);
    // Files the scan indexes: without the abort, remove() would wait for all of them (and then take them out).
    const added = vi.spyOn(app.library, 'addFolderFile');
    const res = await app.fetch('/audio/v1/library/folders', post({ path: dir }));
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as Folder;
    expect((await app.fetch(`/audio/v1/library/folders/${id}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    const addedBeforeRemoval = added.mock.calls.length;
    expect(addedBeforeRemoval).toBeLessThan(count);
    const itemsOf = async () =>
      (
        (await (await app.fetch('/audio/v1/library/items?per_page=200&q=hit-', { headers: auth })).json()) as { items: { path?: string }[] }
      ).items.filter((i) => i.path?.startsWith(dir)).length;
    expect(await itemsOf()).toBe(0);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await itemsOf()).toBe(0);
    expect(added.mock.calls.length).toBe(addedBeforeRemoval); // the scan stopped: nothing added after
    added.mockRestore();
    expect(await folder(id)).toBeUndefined();
  }, 60_000);
});
