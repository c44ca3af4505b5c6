import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZERO_SHA } from './git-names.js';
import { cli, tempDir } from './test-support/git-fixtures.js';
import { writeCommit, type CommitWrite } from './write-commit.js';

let root: { dir: string; remove: () => Promise<void> };
let repo: string;
const who = { name: 'Ada Producer', email: 'ada@example.com' };
const base = { message: 'x', author: who, committer: who, when: new Date('2024-05-01T12:00:00Z'), ref: 'refs/heads/main' } as const;
const write = (w: Partial<CommitWrite> & Pick<CommitWrite, 'parent' | 'actions' | 'expected'>) => writeCommit(repo, { ...base, ...w });

beforeAll(async () => {
  root = await tempDir();
  repo = `${root.dir}/r.git`;
  await cli(root.dir, ['init', '-q', '--bare', repo]);
});
afterAll(() => root.remove());

describe('writeCommit', () => {
  it('writes a commit without a working tree and moves the branch only from the value it expects', async () => {
    const first = await write({
      parent: null,
      expected: ZERO_SHA,
      message: 'one',
      actions: [{ action: 'create', filePath: 'a/kick.wav', content: Buffer.from([0, 1, 2]) }],
    });
    expect((await cli(root.dir, ['--git-dir', repo, 'rev-parse', 'main'])).stdout.trim()).toBe(first);
    expect((await cli(root.dir, ['--git-dir', repo, 'log', '--format=%an <%ae> %at %s', 'main'])).stdout).toBe(
      `Ada Producer <ada@example.com> ${Date.parse('2024-05-01T12:00:00Z') / 1000} one\n`,
    );
    const second = await write({
      parent: first,
      expected: first,
      message: 'two',
      actions: [{ action: 'create', filePath: 'b.txt', content: Buffer.from('b\n') }],
    });

    // A writer that built on `first` after `second` landed (a push, or another API commit) is refused: nothing lost.
    await expect(
      write({
        parent: first,
        expected: first,
        message: 'stale',
        actions: [{ action: 'create', filePath: 'c.txt', content: Buffer.from('c\n') }],
      }),
    ).rejects.toMatchObject({ kind: 'invalid', message: 'Could not update refs/heads/main. Please refresh and try again.' });
    // So is one that expects the branch not to exist yet.
    await expect(
      write({
        parent: null,
        expected: ZERO_SHA,
        message: 'orphan',
        actions: [{ action: 'create', filePath: 'd.txt', content: Buffer.from('d') }],
      }),
    ).rejects.toMatchObject({ kind: 'invalid' });
    expect((await cli(root.dir, ['--git-dir', repo, 'rev-parse', 'main'])).stdout.trim()).toBe(second);
    expect((await cli(root.dir, ['--git-dir', repo, 'ls-tree', '-r', '--name-only', 'main'])).stdout).toBe('a/kick.wav\nb.txt\n');
    // No temporary index is left behind in the repository.
    expect((await readdir(repo)).filter((f) => f.startsWith('cratehouse-index'))).toEqual([]);
  });

  it('a file may give way to a folder of its name in one commit', async () => {
    const head = (await cli(root.dir, ['--git-dir', repo, 'rev-parse', 'main'])).stdout.trim();
    await write({
      parent: head,
      expected: head,
      actions: [
        { action: 'delete', filePath: 'b.txt' },
        { action: 'create', filePath: 'b.txt/inner.txt', content: Buffer.from('i\n') },
      ],
    });
    expect((await cli(root.dir, ['--git-dir', repo, 'ls-tree', '-r', '--name-only', 'main'])).stdout).toBe('a/kick.wav\nb.txt/inner.txt\n');
  });
});
