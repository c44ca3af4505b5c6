import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadIpcArguments } from './ipc/validate.js';
import { fileForDrag, itemIdArg, safeFileName, startLibraryDrag } from './native-drag.js';

// A server with the library's two routes the drag reads (the contract's shapes), and the drag's
// Electron side replaced by a recorder of startDrag calls.
const token = 'drag-test-token';
const audio = Buffer.from('RIFF....WAVEfmt test bytes of an upload');
let dir: string;
let original: string;
let server: http.Server;
let url: string;
let audioRequests = 0;

function items(): Record<string, object> {
  return {
    '1': { id: 1, sha256: 'a'.repeat(64), name: 'kick 01.wav', size: audio.length, origin: 'upload' },
    '2': { id: 2, sha256: 'b'.repeat(64), name: 'loop.wav', size: 5, origin: 'folder', path: original },
    '3': { id: 3, sha256: 'c'.repeat(64), name: '../../escape.wav', size: audio.length, origin: 'upload' },
    '4': { id: 4, sha256: 'd'.repeat(64), name: 'moved.wav', size: audio.length, origin: 'folder', path: '/nowhere/moved.wav' },
    '5': { id: 5, sha256: '../../x', name: 'bad.wav', size: 1, origin: 'upload' },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-drag-test-'));
  original = path.join(dir, 'library', 'loop.wav');
  await mkdir(path.dirname(original), { recursive: true });
  await writeFile(original, 'LOOP!');
  server = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"detail":"Invalid token"}');
      return;
    }
    const match = /^\/audio\/v1\/library\/items\/(\d+)(\/audio)?$/.exec(req.url ?? '');
    const item = match ? items()[match[1]!] : undefined;
    if (!item) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"detail":"Item not found"}');
      return;
    }
    if (match?.[2]) {
      audioRequests++;
      res.writeHead(200, { 'Content-Type': 'audio/wav' }).end(audio);
    } else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(item));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const deps = () => ({ connection: () => ({ url, token }), cacheDir: path.join(dir, 'cache') });

describe('native drag of a library item', () => {
  it('drags the original file of an item from an indexed folder, without downloading', async () => {
    const before = audioRequests;
    const dragged: { file: string; icon: string }[] = [];
    await startLibraryDrag<string>({ startDrag: (item) => dragged.push(item) }, 2, { ...deps(), iconFor: async (file) => `icon:${file}` });
    expect(dragged).toEqual([{ file: original, icon: `icon:${original}` }]);
    expect(audioRequests).toBe(before);
  });

  it('drags a downloaded copy under the item name, downloaded once', async () => {
    const file = await fileForDrag(1, deps());
    expect(file).toBe(path.join(dir, 'cache', 'a'.repeat(64), 'kick 01.wav'));
    expect(await readFile(file)).toEqual(audio);
    const count = audioRequests;
    expect(await fileForDrag(1, deps())).toBe(file);
    expect(audioRequests).toBe(count);
  });

  it('downloads a copy when a folder item is no longer on disk', async () => {
    expect(await fileForDrag(4, deps())).toBe(path.join(dir, 'cache', 'd'.repeat(64), 'moved.wav'));
  });

  it('keeps copies inside its cache folder whatever the names say', async () => {
    expect(await fileForDrag(3, deps())).toBe(path.join(dir, 'cache', 'c'.repeat(64), 'escape.wav'));
    await expect(fileForDrag(5, deps())).rejects.toThrow('valid sha256');
    expect(safeFileName('a/b\\c:d?.wav')).toBe('c_d_.wav');
    expect(safeFileName('..')).toBe('audio');
    expect(safeFileName('')).toBe('audio');
  });

  it('refuses ids that are not positive integers before asking the server', async () => {
    for (const bad of [0, -1, 1.5, '1', null, Number.NaN]) expect(() => itemIdArg(bad)).toThrow(BadIpcArguments);
    await expect(fileForDrag('../1', deps())).rejects.toThrow(BadIpcArguments);
  });

  it("says the server's sentence when the item is missing", async () => {
    await expect(fileForDrag(99, deps())).rejects.toThrow('Item not found');
  });
});
