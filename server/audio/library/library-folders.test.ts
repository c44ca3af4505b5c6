import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';

const rate = 22_050;
const wav = (freq: number) => encodeWav([sine(rate, 0.5, freq, 0.3)], rate);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const auth = (token = adminToken) => ({ Authorization: `Bearer ${token}` });
const json = (body: unknown, token = adminToken) => ({
  method: 'POST',
  headers: { ...auth(token), 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

interface Item {
  id: number;
  name: string;
  path?: string;
  origin: string;
  status: string;
  error?: string;
  sha256: string;
}

let root: string;
let outside: string;
let app: TestApp;

async function items(): Promise<Item[]> {
  const res = await app.fetch('/audio/v1/library/items?sort=name&per_page=200', { headers: auth() });
  return ((await res.json()) as { items: Item[] }).items;
}

/** Poll until `check` passes (the watcher is debounced, and analysis runs in the background). */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'cratehouse-folders-')));
  root = path.join(base, 'home');
  outside = path.join(base, 'elsewhere');
  await mkdir(path.join(root, 'samples', 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'samples', 'a.wav'), wav(220));
  await writeFile(path.join(root, 'samples', 'sub', 'b.wav'), wav(330));
  await writeFile(path.join(root, 'samples', 'notes.txt'), 'not audio');
  await writeFile(path.join(root, 'samples', '.hidden.wav'), wav(440));
  await writeFile(path.join(outside, 'secret.wav'), wav(550));
  // A link inside the folder to a file outside the roots: never indexed.
  await symlink(path.join(outside, 'secret.wav'), path.join(root, 'samples', 'linked.wav'));
  // A link inside the roots to a folder outside them: refused.
  await symlink(outside, path.join(root, 'escape'));
  app = await startTestApp({ libraryFolders: [root] });
}, 120_000);
afterAll(() => app.close());

describe('library folders', () => {
  it('refuses folders outside the roots (symlinks resolved), relative paths, and non-admins', async () => {
    for (const p of [outside, path.join(root, 'escape'), path.join(root, '..', 'elsewhere'), 'samples', '/']) {
      const res = await app.fetch('/audio/v1/library/folders', json({ path: p }));
      expect(res.status, p).toBe(403);
      expect(await res.json()).toEqual({ detail: expect.any(String) });
    }
    expect((await app.fetch('/audio/v1/library/folders', json({ path: path.join(root, 'missing') }))).status).toBe(404);
    expect((await app.fetch('/audio/v1/library/folders', json({ path: 42 }))).status).toBe(422);
    const mia = await app.addUser('mia');
    expect((await app.fetch('/audio/v1/library/folders', json({ path: root }, mia.token))).status).toBe(403);
  });

  it('indexes audio in place (no copy), skipping other files, dot files and links out of the roots', async () => {
    const res = await app.fetch('/audio/v1/library/folders', json({ path: path.join(root, 'samples') }));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ path: path.join(root, 'samples'), item_count: 2, watching: true });
    await app.library.whenIdle();
    const list = await items();
    expect(list.map((i) => [i.name, i.origin, i.path, i.status])).toEqual([
      ['a.wav', 'folder', path.join(root, 'samples', 'a.wav'), 'ready'],
      ['b.wav', 'folder', path.join(root, 'samples', 'sub', 'b.wav'), 'ready'],
    ]);
    expect(list[0]!.sha256).toBe(sha(wav(220)));
    // Nothing was copied into the content store.
    expect(await readdir(path.join(app.dataDir, 'content')).catch(() => [])).toEqual([]);
    // The file is served from where it is, and analysable by hash.
    const audio = await app.fetch(`/audio/v1/library/items/${list[0]!.id}/audio`, { headers: auth() });
    expect(Buffer.from(await audio.arrayBuffer())).toEqual(wav(220));
    expect((await app.fetch(`/audio/v1/loudness?sha256=${sha(wav(220))}`, { method: 'POST', headers: auth() })).status).toBe(200);
    // The same folder again is the same folder.
    expect((await app.fetch('/audio/v1/library/folders', json({ path: path.join(root, 'samples') }))).status).toBe(200);
  });

  it('watches: new files are added, removed ones say so, changed ones are measured again', async () => {
    await writeFile(path.join(root, 'samples', 'sub', 'c.wav'), wav(660));
    await eventually(async () => (await items()).some((i) => i.name === 'c.wav'));
    await rm(path.join(root, 'samples', 'sub', 'b.wav'));
    await eventually(async () => (await items()).find((i) => i.name === 'b.wav')?.error === 'The file is missing on disk');
    const b = (await items()).find((i) => i.name === 'b.wav')!;
    expect(b.status).toBe('failed');
    expect((await app.fetch(`/audio/v1/library/items/${b.id}/audio`, { headers: auth() })).status).toBe(404);
    expect((await app.fetch(`/audio/v1/loudness?sha256=${sha(wav(330))}`, { method: 'POST', headers: auth() })).status).toBe(404);
    await writeFile(path.join(root, 'samples', 'a.wav'), wav(880));
    await eventually(async () => (await items()).find((i) => i.name === 'a.wav')?.sha256 === sha(wav(880)));
  });

  it('stops indexing a folder: its items leave the library, the files stay', async () => {
    const [folder] = ((await (await app.fetch('/audio/v1/library/folders', { headers: auth() })).json()) as { items: { id: number }[] })
      .items;
    const res = await app.fetch(`/audio/v1/library/folders/${folder!.id}`, { method: 'DELETE', headers: auth() });
    expect(res.status).toBe(204);
    expect(await items()).toEqual([]);
    expect((await stat(path.join(root, 'samples', 'a.wav'))).isFile()).toBe(true);
  });
});

describe('library folders off', () => {
  it('answers 403 when no roots are configured', async () => {
    const off = await startTestApp();
    try {
      const res = await off.fetch('/audio/v1/library/folders', json({ path: tmpdir() }));
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toContain('CRATEHOUSE_LIBRARY_FOLDERS');
    } finally {
      await off.close();
    }
  }, 60_000);
});
