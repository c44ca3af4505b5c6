import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileNameProblem, numbered, writeRenamedCopies } from './renamed-copies.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-rename-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fileNameProblem', () => {
  it('accepts the names naming produces and refuses paths and reserved names', () => {
    expect(fileNameProblem('01_bass_dark-sub.wav')).toBeNull();
    for (const bad of ['', ' a.wav', '../x.wav', 'a/b.wav', 'a\\b.wav', 'CON', 'nul.wav', 'a:b', 'x.', '.', '..', 'a'.repeat(256)])
      expect(fileNameProblem(bad), bad).not.toBeNull();
  });

  it('numbers clashes before the extension', () => {
    expect(numbered('01_bass.wav', 2)).toBe('01_bass (2).wav');
    expect(numbered('noext', 3)).toBe('noext (3)');
  });
});

describe('writeRenamedCopies', () => {
  it('copies under the new names, never overwriting, and keeps the originals', async () => {
    const a = path.join(dir, 'kick final FINAL.wav');
    const b = path.join(dir, 'bass.wav');
    await writeFile(a, 'A');
    await writeFile(b, 'B');
    const out = path.join(dir, 'out');
    await writeFile(path.join(dir, 'placeholder'), '');
    const first = await writeRenamedCopies(
      out,
      [
        { sourcePath: a, newName: '01_percs_punchy.wav' },
        { sourcePath: b, newName: '02_bass_dark-sub.wav' },
      ],
      'copy',
    );
    expect(first).toEqual([path.join(out, '01_percs_punchy.wav'), path.join(out, '02_bass_dark-sub.wav')]);
    const again = await writeRenamedCopies(out, [{ sourcePath: a, newName: '01_percs_punchy.wav' }], 'copy');
    expect(again).toEqual([path.join(out, '01_percs_punchy (2).wav')]);
    expect(await readFile(path.join(out, '01_percs_punchy.wav'), 'utf8')).toBe('A');
    expect((await readdir(dir)).sort()).toEqual(['bass.wav', 'kick final FINAL.wav', 'out', 'placeholder']);
  });

  it('moves when asked, leaving no original behind', async () => {
    const a = path.join(dir, 'take 3.wav');
    await writeFile(a, 'A');
    const [written] = await writeRenamedCopies(dir, [{ sourcePath: a, newName: '01_melodic_bright.wav' }], 'move');
    expect(written).toBe(path.join(dir, '01_melodic_bright.wav'));
    expect((await readdir(dir)).sort()).toEqual(['01_melodic_bright.wav']);
  });

  it('writes nothing when one name is unusable', async () => {
    const a = path.join(dir, 'a.wav');
    await writeFile(a, 'A');
    await expect(
      writeRenamedCopies(
        path.join(dir, 'out'),
        [
          { sourcePath: a, newName: 'ok.wav' },
          { sourcePath: a, newName: '../escape.wav' },
        ],
        'copy',
      ),
    ).rejects.toThrow('cannot hold');
    expect(await readdir(dir)).toEqual(['a.wav']);
  });
});
