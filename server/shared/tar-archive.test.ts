import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveError, extractTarGz, safeEntryPath, writeTarGz, type TarInput } from './tar-archive.js';

const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-archive-'));
const limits = { maxBytes: 16 * 1024 * 1024, maxEntries: 1000 };
let n = 0;
const fresh = (name: string) => path.join(work, `${name}-${++n}`);

async function pack(entries: readonly TarInput[]): Promise<string> {
  const file = `${fresh('a')}.tar.gz`;
  await writeTarGz(file, entries);
  return file;
}

/** Extract into a fresh folder; returns the folder, the entries, or the error. */
async function extract(file: string, options: Partial<Parameters<typeof extractTarGz>[2]> = {}) {
  const dir = fresh('out');
  try {
    return { dir, entries: await extractTarGz(file, dir, { limits, ...options }), error: null };
  } catch (error) {
    return { dir, entries: null, error: error as Error };
  }
}

const run = (cmd: string, args: readonly string[], cwd = work) =>
  new Promise<string>((resolve, reject) => execFile(cmd, args, { cwd }, (e, out, err) => (e ? reject(new Error(err)) : resolve(out))));

describe('writeTarGz', () => {
  it('writes archives the system tar reads: long and non-ASCII names through pax, files from disk', async () => {
    const source = path.join(work, 'source.bin');
    await writeFile(source, Buffer.alloc(5000, 7));
    const long = `uploads/${'f'.repeat(32)}/${'très-long-'.repeat(12)}.wav`;
    const file = await pack([
      { path: 'VERSION', data: '0.2.4' },
      { path: long, data: 'ü' },
      { path: `deep/${'d'.repeat(120)}/x.txt`, data: 'x' },
      { path: 'project.bundle', source },
    ]);
    const listed = (await run('tar', ['-tzf', file])).trim().split('\n');
    expect(listed).toEqual(['VERSION', long, `deep/${'d'.repeat(120)}/x.txt`, 'project.bundle']);
    const { dir, entries } = await extract(file);
    expect(entries!.map((e) => [e.path, e.size])).toEqual([
      ['VERSION', 5],
      [long, 2],
      [`deep/${'d'.repeat(120)}/x.txt`, 1],
      ['project.bundle', 5000],
    ]);
    expect(await readFile(path.join(dir, long), 'utf8')).toBe('ü');
    expect((await readFile(path.join(dir, 'project.bundle'))).equals(Buffer.alloc(5000, 7))).toBe(true);
  });
});

describe('extractTarGz', () => {
  it('reads GNU and pax archives made by the system tar, with ./ names and folders', async () => {
    const src = fresh('tree');
    const name = 'n'.repeat(150);
    await mkdir(path.join(src, 'tree', 'project'), { recursive: true });
    await writeFile(path.join(src, 'tree', 'project.json'), '{}');
    await writeFile(path.join(src, 'tree', 'project', name), 'long');
    for (const format of ['gnu', 'posix']) {
      const file = `${fresh(format)}.tar.gz`;
      await run('tar', [`--format=${format}`, '-czf', file, '-C', src, '.']);
      const { dir, entries, error } = await extract(file);
      expect(error).toBeNull();
      expect(
        entries!
          .filter((e) => e.type === 'file')
          .map((e) => e.path)
          .sort(),
      ).toEqual(['tree/project.json', `tree/project/${name}`]);
      expect(await readFile(path.join(dir, 'tree', 'project', name), 'utf8')).toBe('long');
    }
  });

  it('writes only selected files; the rest is checked and skipped', async () => {
    const file = await pack([
      { path: 'keep.txt', data: 'k' },
      { path: 'skip/me.txt', data: 's' },
    ]);
    const { dir, entries } = await extract(file, { select: (p) => p === 'keep.txt' });
    expect(entries!.map((e) => [e.path, e.written])).toEqual([
      ['keep.txt', true],
      ['skip/me.txt', false],
    ]);
    expect(await readdir(dir)).toEqual(['keep.txt']);
  });

  it.each([
    ['../evil', /leaves the archive/],
    ['a/../../evil', /leaves the archive/],
    ['/etc/passwd', /absolute path/],
    ['C:/Windows/evil', /absolute path/],
    ['a\\..\\evil', /backslash/],
    ['a/\u0001b', /control character/],
  ])('refuses the name %j', async (name, message) => {
    const { dir, error } = await extract(
      await pack([
        { path: 'ok.txt', data: 'ok' },
        { path: name, data: 'evil' },
      ]),
    );
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error!.message).toMatch(message);
    expect(await readdir(dir)).toEqual(['ok.txt']);
  });

  it('refuses a pax path or GNU long name that leaves the archive (the ustar name looks harmless)', async () => {
    const pax = await pack([{ path: `../${'x'.repeat(200)}`, data: 'evil' }]);
    expect((await extract(pax)).error?.message).toMatch(/leaves the archive/);
    // A GNU 'L' header by hand: its body is the real name.
    const body = Buffer.from('../../gnu-evil\0');
    const tar = gunzipSync(await readFile(await pack([{ path: 'harmless', data: 'evil' }])));
    const longHeader = Buffer.from(gunzipSync(await readFile(await pack([{ path: '././@LongLink', data: body }]))).subarray(0, 512));
    longHeader[156] = 'L'.charCodeAt(0);
    longHeader.fill(0x20, 148, 156);
    let sum = 0;
    for (const b of longHeader) sum += b;
    longHeader.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
    const padded = Buffer.concat([body, Buffer.alloc(512 - body.length)]);
    const file = `${fresh('gnu')}.tar.gz`;
    await writeFile(file, gzipSync(Buffer.concat([longHeader, padded, tar])));
    expect((await extract(file)).error?.message).toMatch(/leaves the archive \(\.\.\/\.\.\/gnu-evil\)/);
  });

  it.each([
    ['symlink', /link .*links are not allowed/],
    ['hardlink', /links are not allowed/],
    ['character-device', /device file/],
    ['block-device', /device file/],
    ['fifo', /FIFO/],
  ] as const)('refuses a %s entry', async (type, message) => {
    const { dir, error } = await extract(
      await pack([
        { path: 'first.txt', data: '1' },
        { path: 'bad', type, linkTarget: '/etc/passwd' },
        { path: 'after.txt', data: '2' },
      ]),
    );
    expect(error!.message).toMatch(message);
    expect(await readdir(dir)).toEqual(['first.txt']);
  });

  it('refuses duplicate names and file/folder clashes', async () => {
    expect(
      (
        await extract(
          await pack([
            { path: 'a', data: '1' },
            { path: './a', data: '2' },
          ]),
        )
      ).error?.message,
    ).toMatch(/contains \.\/a twice/);
    expect(
      (
        await extract(
          await pack([
            { path: 'a', data: '1' },
            { path: 'a/b', data: '2' },
          ]),
        )
      ).error?.message,
    ).toMatch(/clash/);
  });

  it('stops at the size limit before writing an oversized entry, and at the entry limit', async () => {
    const big = await pack([{ path: 'big.bin', data: Buffer.alloc(200_000) }]);
    const { dir, error } = await extract(big, { limits: { maxBytes: 100_000, maxEntries: 10 } });
    expect(error!.message).toBe('The archive is larger than 98 KiB uncompressed');
    expect(await readdir(dir)).toEqual([]);
    const many = await pack(Array.from({ length: 11 }, (_, i) => ({ path: `f${i}`, data: '' })));
    expect((await extract(many, { limits: { maxBytes: 1e6, maxEntries: 10 } })).error?.message).toBe(
      'The archive has more than 10 entries',
    );
  });

  it('counts what follows the end marker against the limit (a gzip bomb after the archive)', async () => {
    const tar = gunzipSync(await readFile(await pack([{ path: 'a', data: 'a' }])));
    const file = `${fresh('bomb')}.tar.gz`;
    await writeFile(file, gzipSync(Buffer.concat([tar, Buffer.alloc(2_000_000)])));
    expect((await extract(file, { limits: { maxBytes: 1_000_000, maxEntries: 10 } })).error?.message).toMatch(/larger than/);
    expect((await extract(file)).error).toBeNull();
  });

  it('reports corrupt gzip, a bad checksum and a truncated archive plainly', async () => {
    const plain = `${fresh('plain')}.tar.gz`;
    await writeFile(plain, Buffer.from('not gzip at all'));
    expect((await extract(plain)).error?.message).toMatch(/^The archive is not a valid gzip file/);
    const bad = `${fresh('sum')}.tar.gz`;
    await writeFile(bad, gzipSync(Buffer.concat([Buffer.alloc(512, 0x31), Buffer.alloc(1024)])));
    expect((await extract(bad)).error?.message).toBe('The archive is corrupt: a tar header checksum does not match');
    const tar = gunzipSync(await readFile(await pack([{ path: 'a', data: 'x'.repeat(4000) }])));
    const cut = `${fresh('cut')}.tar.gz`;
    await writeFile(cut, gzipSync(tar.subarray(0, 2048)));
    expect((await extract(cut)).error?.message).toBe('The archive is truncated');
  });

  it('needs an empty target folder', async () => {
    const dir = fresh('busy');
    await mkdir(dir);
    await writeFile(path.join(dir, 'x'), '');
    await expect(extractTarGz(await pack([{ path: 'a', data: '' }]), dir, { limits })).rejects.toThrow(/empty target/);
  });
});

describe('safeEntryPath', () => {
  it('normalises ./ and . segments; the root is empty', () => {
    expect(safeEntryPath('./tree/./project.json')).toBe('tree/project.json');
    expect(safeEntryPath('./')).toBe('');
    expect(safeEntryPath('uploads//x')).toBe('uploads/x');
  });
});
