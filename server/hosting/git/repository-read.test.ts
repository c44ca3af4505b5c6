import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBlob, findCommit, findReadme, listTree, splitRepositoryPath, streamBlob } from './repository-read.js';
import { cli, tempDir } from './test-support/git-fixtures.js';

let root: { dir: string; remove: () => Promise<void> };
let bare: string;
let work: string;
const git = async (args: readonly string[]) => (await cli(root.dir, args, work)).stdout.trim();

/** Commit exactly `files` (the previous commit's files removed) on `branch`. */
async function commitFiles(branch: string, files: Readonly<Record<string, string>>): Promise<string> {
  await git(['checkout', '-q', '--orphan', `tmp-${branch}`]);
  await git(['rm', '-rq', '--cached', '--ignore-unmatch', '.']);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
    writeFileSync(path.join(work, name), content);
    await git(['add', '--', name]);
  }
  await git(['commit', '-q', '-m', branch]);
  await git(['push', '-q', bare, `HEAD:refs/heads/${branch}`]);
  await git(['clean', '-fdxq']);
  return git(['rev-parse', 'HEAD']);
}

beforeAll(async () => {
  root = await tempDir();
  bare = path.join(root.dir, 'r.git');
  work = path.join(root.dir, 'w');
  await cli(root.dir, ['init', '-q', '--bare', bare]);
  await cli(root.dir, ['init', '-q', work]);
}, 30_000);

afterAll(() => root.remove());

describe('findReadme picks the README GitLab shows', () => {
  it.each([
    [{ 'README.txt': 'a', 'readme.md': 'b' }, 'readme.md'],
    [{ README: 'a', 'docs/README.md': 'b' }, 'README'],
    [{ 'README.rst': 'a', 'README.md': 'b' }, 'README.md'],
    [{ 'README.wav': 'a' }, undefined],
    [{ 'docs/README.md': 'a', 'notes.md': 'b' }, undefined],
  ] as const)('%o → %s', async (files, expected) => {
    const branch = `b${Object.keys(files)
      .join('')
      .replace(/[^a-z]/gi, '')}`;
    await commitFiles(branch, files);
    expect(await findReadme(bare, branch)).toBe(expected);
  });

  it('is undefined for a missing branch or an invalid name', async () => {
    expect(await findReadme(bare, 'nope')).toBeUndefined();
    expect(await findReadme(bare, '--all')).toBeUndefined();
  });
});

describe('names and paths never reach git as syntax', () => {
  it('splitRepositoryPath refuses climbing, empty and NUL components', () => {
    expect(splitRepositoryPath('a/b/')).toEqual(['a', 'b']);
    expect(splitRepositoryPath('')).toEqual([]);
    expect(splitRepositoryPath('/a', { allowLeadingSlash: true })).toEqual(['a']);
    for (const bad of ['/a', '../a', 'a/../b', 'a//b', './a', 'a\0b']) expect(splitRepositoryPath(bad), bad).toBeNull();
  });

  it('findCommit resolves branches, tags and SHAs, and nothing with revision syntax', async () => {
    const sha = await commitFiles('syntax', { 'a.txt': 'a' });
    await git(['tag', 'v-syntax']);
    await git(['push', '-q', bare, 'v-syntax']);
    expect(await findCommit(bare, 'syntax')).toBe(sha);
    expect(await findCommit(bare, 'v-syntax')).toBe(sha);
    expect(await findCommit(bare, sha.slice(0, 10))).toBe(sha);
    for (const bad of ['syntax~0', 'syntax^', 'syntax@{0}', 'HEAD:a.txt', '--all', 'a..b', ''])
      expect(await findCommit(bare, bad), bad).toBeUndefined();
    const blob = await git(['rev-parse', 'HEAD:a.txt']);
    expect(await findBlob(bare, blob)).toBe(blob);
    expect(await findBlob(bare, sha)).toBeUndefined();
  });

  it('listTree reads paths literally (pathspec magic is a plain name) and streamBlob gives the bytes', async () => {
    const sha = await commitFiles('magic', { ':(glob)*/x.txt': 'x', '*.txt': 'star', 'b.txt': 'b' });
    expect((await listTree(bare, sha, [], false))!.map((e) => e.path).sort()).toEqual(['*.txt', ':(glob)*', 'b.txt']);
    expect((await listTree(bare, sha, [':(glob)*'], false))!.map((e) => e.path)).toEqual([':(glob)*/x.txt']);
    expect(await listTree(bare, sha, ['b.txt'], false)).toBeUndefined();
    const star = (await listTree(bare, sha, [], false))!.find((e) => e.name === '*.txt')!;
    const chunks: Buffer[] = [];
    for await (const c of streamBlob(bare, star.id)) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('star');
  });
});
