import { createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.js';
import { ZERO_SHA } from './git-names.js';
import {
  commitsBetween,
  countCommitsBetween,
  createBundle,
  forkRepository,
  headCommit,
  housekeeping,
  importRepository,
  initBare,
  moveRepository,
  recentCommits,
  removeRepository,
  repositoryStats,
  restoreFromBundle,
  setHead,
  snapshotTar,
} from './repositories.js';
import { cli, run, startGitServer, tempDir, type GitTestServer } from './test-support/git-fixtures.js';

let tmp: { dir: string; remove: () => Promise<void> };
let home: string;
let repos: string;

beforeAll(async () => {
  tmp = await tempDir();
  home = path.join(tmp.dir, 'home');
  repos = path.join(tmp.dir, 'repositories');
  await mkdir(home, { recursive: true });
});
afterAll(async () => {
  await tmp.remove();
});

/** The AppError a promise rejects with. */
async function appError(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw new Error(`expected an AppError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a rejection');
}

const gitIn = async (gitDir: string, ...args: string[]) => (await cli(home, [`--git-dir=${gitDir}`, ...args])).stdout.trim();
const refsOf = (gitDir: string) => gitIn(gitDir, 'for-each-ref', '--format=%(objectname) %(refname)');

/** A working repository whose commits are pushed into bare repositories by path. */
async function workRepo(name: string): Promise<{
  dir: string;
  commit: (file: string, content: string, message: string) => Promise<string>;
  git: (...args: string[]) => Promise<string>;
}> {
  const dir = path.join(tmp.dir, name);
  await cli(home, ['init', '-q', '-b', 'main', dir]);
  const git = async (...args: string[]) => (await cli(home, args, dir)).stdout.trim();
  return {
    dir,
    git,
    commit: async (file, content, message) => {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), content);
      await git('add', '-A');
      await git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD');
    },
  };
}

describe('initBare, setHead, headCommit, stats', () => {
  it('creates a bare repository with HEAD on the default branch, accepting HTTP pushes', async () => {
    const dir = path.join(repos, 'ns/new.git');
    await initBare(dir, 'studio');
    expect(await gitIn(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/studio');
    expect(await gitIn(dir, 'config', '--bool', 'http.receivepack')).toBe('true');
    expect(await gitIn(dir, 'rev-parse', '--is-bare-repository')).toBe('true');
    expect(await readdir(dir)).not.toContain('hooks'); // no template, so no hooks run on push
    expect((await appError(initBare(dir, 'main'))).kind).toBe('conflict');
    expect((await appError(initBare(path.join(repos, 'ns/bad.git'), 'bad..name'))).kind).toBe('invalid');
    expect((await appError(initBare(path.join(repos, 'ns/bad.git'), '-x'))).kind).toBe('invalid');
  });

  it('says when git is missing, and honours an aborted signal, leaving nothing behind', async () => {
    const dir = path.join(repos, 'ns/no-git.git');
    const missing = await appError(initBare(dir, 'main', { gitPath: path.join(tmp.dir, 'no-such-git') }));
    expect(missing).toMatchObject({ kind: 'unavailable', options: { code: 'tool_missing' } });
    expect(missing.message).toContain('CRATEHOUSE_GIT');
    const cancelled = await appError(initBare(dir, 'main', { signal: AbortSignal.abort() }));
    expect(cancelled.options.code).toBe('cancelled');
    await expect(readdir(dir)).rejects.toThrow();
  });

  it('reports an empty repository', async () => {
    const dir = path.join(repos, 'ns/empty.git');
    await initBare(dir, 'main');
    const stats = await repositoryStats(dir, 'main');
    expect(stats).toEqual({
      empty: true,
      defaultBranch: null,
      commitCount: 0,
      repositorySize: stats.repositorySize,
      headSha: null,
      branches: [],
    });
    expect(stats.repositorySize).toBeGreaterThan(0);
    expect(await headCommit(dir, 'main')).toBeNull();
  });

  it('counts commits of the default branch and follows HEAD', async () => {
    const dir = path.join(repos, 'ns/stats.git');
    await initBare(dir, 'main');
    const work = await workRepo('stats-work');
    await work.commit('a.txt', 'a', 'one');
    await work.commit('b.txt', 'b', 'two');
    const three = await work.commit('c.txt', 'c', 'three');
    await work.git('checkout', '-q', '-b', 'beta', 'HEAD~2');
    const beta = await work.commit('d.txt', 'd', 'beta only');
    await work.git('push', '-q', dir, 'main', 'beta');

    const before = await repositoryStats(dir, 'main');
    expect(before).toMatchObject({ empty: false, defaultBranch: 'main', commitCount: 3, headSha: three, branches: ['beta', 'main'] });
    await work.commit('e.txt', 'e'.repeat(100_000), 'big');
    await work.git('push', '-q', dir, 'beta');
    expect((await repositoryStats(dir, 'main')).repositorySize).toBeGreaterThan(before.repositorySize);

    await setHead(dir, 'beta');
    expect(await repositoryStats(dir, 'main')).toMatchObject({
      defaultBranch: 'beta',
      commitCount: 3,
      headSha: await work.git('rev-parse', 'beta'),
    });
    // HEAD on a branch that does not exist: the requested default, else the first branch.
    await setHead(dir, 'gone');
    expect(await repositoryStats(dir, 'main')).toMatchObject({ defaultBranch: 'main', headSha: three });
    expect(await repositoryStats(dir, 'nope')).toMatchObject({ defaultBranch: 'beta' });
    expect(await headCommit(dir, 'main')).toBe(three);
    expect(await headCommit(dir, 'beta')).not.toBe(beta);
    expect(await headCommit(dir, 'gone')).toBeNull();
    expect((await appError(setHead(dir, 'a b'))).kind).toBe('invalid');
  });

  it('answers not found for a directory that is no repository', async () => {
    const missing = path.join(repos, 'ns/missing.git');
    expect((await appError(repositoryStats(missing, 'main'))).kind).toBe('not-found');
    expect((await appError(headCommit(missing, 'main'))).kind).toBe('not-found');
    const e = await appError(recentCommits(missing, 'main', 5));
    expect(e.kind).toBe('not-found');
    expect(e.message).not.toContain(tmp.dir);
  });
});

describe('commits for push payloads', () => {
  const dir = () => path.join(repos, 'ns/log.git');
  const shas: Record<string, string> = {};

  beforeAll(async () => {
    await initBare(dir(), 'main');
    const work = await workRepo('log-work');
    shas.one = await work.commit('kick.wav', 'k', 'Add kick\n\nWith a body line.');
    await writeFile(path.join(work.dir, 'odd name\nwith newline.txt'), 'x');
    await work.git('rm', '-q', 'kick.wav');
    await work.git('add', '-A');
    await work.git('commit', '-q', '-m', 'Swap kick for an oddly named file');
    shas.two = await work.git('rev-parse', 'HEAD');
    await work.git('checkout', '-q', '-b', 'side');
    shas.side = await work.commit('snare.wav', 's', 'Side snare');
    await work.git('checkout', '-q', 'main');
    shas.three = await work.commit('odd name\nwith newline.txt', 'changed', 'Change the odd file');
    await work.git('merge', '-q', '--no-edit', 'side');
    shas.merge = await work.git('rev-parse', 'HEAD');
    await work.git('push', '-q', dir(), 'main', 'side');
  });

  it('lists the newest commits oldest first, with files against the first parent', async () => {
    const all = await recentCommits(dir(), 'main', 10);
    expect(all.map((c) => c.id)).toEqual([shas.one, shas.two, shas.side, shas.three, shas.merge]);
    const [one, two, , three, merge] = all;
    expect(one).toMatchObject({
      title: 'Add kick',
      message: 'Add kick\n\nWith a body line.\n',
      author: { name: 'Ada Producer', email: 'ada@example.com' },
      added: ['kick.wav'],
      modified: [],
      removed: [],
    });
    expect(one!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    expect(two).toMatchObject({ added: ['odd name\nwith newline.txt'], removed: ['kick.wav'], modified: [] });
    expect(three).toMatchObject({ modified: ['odd name\nwith newline.txt'], added: [], removed: [] });
    expect(merge).toMatchObject({ added: ['snare.wav'], modified: [], removed: [] }); // the merge brought snare.wav to main
    expect((await recentCommits(dir(), 'main', 2)).map((c) => c.id)).toEqual([shas.three, shas.merge]);
    expect((await recentCommits(dir(), shas.two!, 10)).map((c) => c.id)).toEqual([shas.one, shas.two]);
  });

  it('lists the commits a push brought', async () => {
    expect((await commitsBetween(dir(), shas.two!, shas.merge!, 20)).map((c) => c.id)).toEqual([shas.side, shas.three, shas.merge]);
    expect((await commitsBetween(dir(), shas.two!, shas.merge!, 1)).map((c) => c.id)).toEqual([shas.merge]);
    expect((await commitsBetween(dir(), ZERO_SHA, shas.two!, 20)).map((c) => c.id)).toEqual([shas.one, shas.two]);
    expect(await commitsBetween(dir(), shas.two!, ZERO_SHA, 20)).toEqual([]);
    expect(await countCommitsBetween(dir(), shas.two!, shas.merge!)).toBe(3);
    expect(await countCommitsBetween(dir(), ZERO_SHA, shas.merge!)).toBe(5);
    expect(await countCommitsBetween(dir(), shas.one!, ZERO_SHA)).toBe(0);
  });

  it('refuses revisions git would read as options, and unknown ones', async () => {
    expect((await appError(recentCommits(dir(), '--output=/tmp/x', 5))).kind).toBe('invalid');
    expect((await appError(commitsBetween(dir(), '--all', shas.one!, 5))).kind).toBe('invalid');
    expect((await appError(commitsBetween(dir(), 'main', shas.one!, 5))).kind).toBe('invalid');
    expect((await appError(recentCommits(dir(), 'no-such-branch', 5))).kind).toBe('not-found');
    expect((await appError(commitsBetween(dir(), ZERO_SHA, 'e'.repeat(40), 5))).kind).toBe('not-found');
  });
});

describe('housekeeping', () => {
  it('packs the repository, one run at a time per repository', async () => {
    const dir = path.join(repos, 'ns/gc.git');
    await initBare(dir, 'main');
    const work = await workRepo('gc-work');
    for (let i = 0; i < 5; i++) await work.commit(`f${i}.txt`, `content ${i}`, `commit ${i}`);
    await work.git('push', '-q', dir, 'main');
    const other = path.join(repos, 'ns/gc-other.git');
    await initBare(other, 'main');

    const first = housekeeping(dir);
    const second = await appError(housekeeping(dir));
    expect(second.kind).toBe('conflict');
    expect(second.message).toMatch(/^Somebody already triggered housekeeping/);
    await housekeeping(other); // another repository is not blocked
    await first;
    expect((await readdir(path.join(dir, 'objects/pack'))).some((f) => f.endsWith('.pack'))).toBe(true);
    expect(await gitIn(dir, 'count-objects')).toMatch(/^0 objects/); // no loose objects left
    await housekeeping(dir); // the lease is released once the run ends
  });
});

/** A source repository with branches, a tag, a custom ref, a HEAD off the default and a dangling object. */
async function richSource(name: string): Promise<{ dir: string; dangling: string }> {
  const dir = path.join(repos, `ns/${name}.git`);
  await initBare(dir, 'main');
  const work = await workRepo(`${name}-work`);
  const one = await work.commit('a.txt', 'a', 'one');
  await work.commit('b.txt', 'b', 'two');
  await work.git('tag', '-a', 'v1', '-m', 'release', one);
  await work.git('push', '-q', dir, 'main', 'v1', `${one}:refs/heads/develop`, `${one}:refs/keep-around/${one}`);
  await setHead(dir, 'develop');
  await writeFile(path.join(tmp.dir, `${name}-secret.txt`), 'a secret nobody references');
  const dangling = await gitIn(dir, 'hash-object', '-w', path.join(tmp.dir, `${name}-secret.txt`));
  return { dir, dangling };
}

describe('forkRepository', () => {
  it('copies every ref and HEAD into an independent repository, without unreachable objects', async () => {
    const source = await richSource('fork-source');
    const fork = path.join(repos, 'other/fork.git');
    await forkRepository(source.dir, fork);
    expect(await refsOf(fork)).toBe(await refsOf(source.dir));
    expect(await gitIn(fork, 'symbolic-ref', 'HEAD')).toBe('refs/heads/develop');
    expect(await gitIn(fork, 'config', '--bool', 'http.receivepack')).toBe('true');
    await expect(gitIn(fork, 'config', '--get-regexp', '^remote\\.')).rejects.toThrow(); // no remote left behind
    await expect(gitIn(fork, 'cat-file', '-e', source.dangling)).rejects.toThrow();
    expect(await gitIn(fork, 'fsck', '--no-dangling')).toBe('');

    // Independent: a push to either side leaves the other as it was.
    const sourceRefs = await refsOf(source.dir);
    const work = await workRepo('fork-push');
    await work.git('pull', '-q', fork, 'main');
    await work.commit('fork-only.txt', 'f', 'only in the fork');
    await work.git('push', '-q', fork, 'HEAD:main');
    await housekeeping(fork);
    expect(await refsOf(source.dir)).toBe(sourceRefs);
    await gitIn(source.dir, 'update-ref', '-d', 'refs/tags/v1');
    expect(await gitIn(fork, 'for-each-ref', '--format=%(refname)', 'refs/tags')).toBe('refs/tags/v1');
    expect((await appError(forkRepository(source.dir, fork))).kind).toBe('conflict');
  });

  it('forks an empty repository', async () => {
    const source = path.join(repos, 'ns/empty-source.git');
    await initBare(source, 'trunk');
    const fork = path.join(repos, 'other/empty-fork.git');
    await forkRepository(source, fork);
    expect(await repositoryStats(fork, 'trunk')).toMatchObject({ empty: true, branches: [] });
    expect(await gitIn(fork, 'symbolic-ref', 'HEAD')).toBe('refs/heads/trunk');
  });
});

describe('snapshotTar', () => {
  it('streams a tar of HEAD, refs and objects, paths relative to the repository', async () => {
    const source = await richSource('snap');
    await housekeeping(source.dir); // refs move into packed-refs, objects into a pack
    const file = path.join(tmp.dir, 'snapshot.tar');
    const stream = await snapshotTar(source.dir);
    await pipeline(stream, createWriteStream(file));
    const entries = (await run('tar', ['-tf', file])).trim().split('\n');
    expect(entries).toContain('HEAD');
    expect(entries).toContain('packed-refs');
    expect(entries.some((e) => e.startsWith('refs/'))).toBe(true);
    expect(entries.some((e) => /^objects\/pack\/pack-[0-9a-f]+\.pack$/.test(e))).toBe(true);
    expect(entries).not.toContain('config');
    expect(entries.every((e) => !e.startsWith('/') && !e.startsWith('./'))).toBe(true);
    // The tar holds a working repository.
    const restored = path.join(tmp.dir, 'from-snapshot.git');
    await mkdir(restored);
    await run('tar', ['-xf', file, '-C', restored]);
    expect(await gitIn(restored, 'rev-parse', 'refs/heads/main')).toBe(await gitIn(source.dir, 'rev-parse', 'refs/heads/main'));
    expect((await appError(snapshotTar(path.join(repos, 'ns/none.git')))).kind).toBe('not-found');
  });

  it('stops tar when the reader goes away', async () => {
    const source = await richSource('snap-stop');
    const stream = await snapshotTar(source.dir);
    stream.destroy();
    await new Promise((r) => stream.once('close', r));
    expect(stream.destroyed).toBe(true);
  });
});

describe('bundles', () => {
  it('round-trips every ref and HEAD through a bundle file', async () => {
    const source = await richSource('bundle-source');
    const file = path.join(tmp.dir, 'exports/project.bundle');
    expect(await createBundle(source.dir, file)).toBe(true);
    const restored = path.join(repos, 'ns/restored.git');
    await restoreFromBundle(file, restored);
    expect(await refsOf(restored)).toBe(await refsOf(source.dir));
    expect(await gitIn(restored, 'symbolic-ref', 'HEAD')).toBe('refs/heads/develop');
    expect(await gitIn(restored, 'config', '--bool', 'http.receivepack')).toBe('true');
    await expect(gitIn(restored, 'config', '--get-regexp', '^remote\\.')).rejects.toThrow();
  });

  it('writes no bundle for an empty repository and refuses files that are no bundle', async () => {
    const empty = path.join(repos, 'ns/bundle-empty.git');
    await initBare(empty, 'main');
    const file = path.join(tmp.dir, 'empty.bundle');
    expect(await createBundle(empty, file)).toBe(false);
    await expect(readFile(file)).rejects.toThrow();
    const junk = path.join(tmp.dir, 'junk.bundle');
    await writeFile(junk, 'not a bundle');
    const target = path.join(repos, 'ns/from-junk.git');
    const e = await appError(restoreFromBundle(junk, target));
    expect(e.kind).toBe('invalid');
    expect(e.message).toBe('The file is not a git bundle');
    await expect(readdir(target)).rejects.toThrow(); // nothing half-made is left
    expect((await appError(restoreFromBundle(path.join(tmp.dir, 'absent.bundle'), target))).kind).toBe('not-found');
  });
});

describe('move and remove', () => {
  it('moves a repository into new parent directories and removes it', async () => {
    const from = path.join(repos, 'ns/moving.git');
    await initBare(from, 'main');
    const to = path.join(repos, 'elsewhere/deep/moved.git');
    await moveRepository(from, to);
    expect(await gitIn(to, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    await expect(readdir(from)).rejects.toThrow();
    expect((await appError(moveRepository(from, to))).kind).toBe('not-found');
    await initBare(from, 'main');
    expect((await appError(moveRepository(from, to))).kind).toBe('conflict');
    await removeRepository(to);
    await expect(readdir(to)).rejects.toThrow();
    await removeRepository(to); // already gone is fine
    expect((await appError(removeRepository(path.join(repos, 'ns')))).kind).toBe('invalid');
    expect(await readdir(path.join(repos, 'ns'))).toContain('moving.git');
  });
});

describe('importRepository', () => {
  let server: GitTestServer;
  let source: { dir: string; dangling: string };

  beforeAll(async () => {
    server = await startGitServer(repos);
    source = await richSource('import-source'); // served at /ns/import-source.git
  });
  afterAll(async () => {
    await server.close();
  });

  it('clones branches, tags and HEAD from an http remote (private addresses allowed)', async () => {
    const target = path.join(repos, 'imported/one.git');
    await importRepository(`${server.url}/ns/import-source.git`, target, { allowPrivate: true });
    const heads = (dir: string) => gitIn(dir, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags');
    expect(await heads(target)).toBe(await heads(source.dir));
    expect(await gitIn(target, 'symbolic-ref', 'HEAD')).toBe('refs/heads/develop');
    expect(await gitIn(target, 'config', '--bool', 'http.receivepack')).toBe('true');
    await expect(gitIn(target, 'config', '--get-regexp', '^remote\\.')).rejects.toThrow();
  });

  it('refuses loopback when private addresses are not allowed, before connecting', async () => {
    const seen = server.requests.length;
    for (const url of [`${server.url}/ns/import-source.git`, `http://localhost:${server.port}/ns/import-source.git`]) {
      const e = await appError(importRepository(url, path.join(repos, 'imported/refused.git'), { allowPrivate: false }));
      expect(e.kind).toBe('forbidden');
      expect(e.options.code).toBe('private_address');
    }
    expect(server.requests.length).toBe(seen);
  });

  it('refuses transports other than http and https', async () => {
    const seen = server.requests.length;
    const marker = path.join(tmp.dir, 'ext-ran');
    for (const url of [
      `ext::sh -c touch% ${marker}`,
      `file://${source.dir}`,
      source.dir,
      `ssh://127.0.0.1:${server.port}/ns/import-source.git`,
      'git://127.0.0.1/x.git',
      `fd::3`,
    ]) {
      const e = await appError(importRepository(url, path.join(repos, 'imported/transport.git'), { allowPrivate: true }));
      expect(e.kind).toBe('invalid');
    }
    await expect(readFile(marker)).rejects.toThrow();
    expect(server.requests.length).toBe(seen);
  });

  it('pins git to the checked address: a name only the policy resolves still connects there', async () => {
    const resolved: string[] = [];
    const resolve = async (host: string) => {
      resolved.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const target = path.join(repos, 'imported/pinned.git');
    // No DNS knows this name; git can only reach it through the pinned address.
    await importRepository(`http://git.cratehouse.invalid:${server.port}/ns/import-source.git`, target, {
      allowPrivate: false,
      resolve,
      isAllowedAddress: (a) => a === '127.0.0.1',
    });
    expect(resolved).toEqual(['git.cratehouse.invalid']);
    expect(await gitIn(target, 'rev-parse', 'refs/heads/main')).toBe(await gitIn(source.dir, 'rev-parse', 'refs/heads/main'));
  });

  it('does not follow redirects', async () => {
    server.gate = (req) =>
      req.url?.startsWith('/moved/') ? { status: 301, headers: { Location: req.url.replace('/moved/', '/') } } : null;
    try {
      const seen = server.requests.length;
      const e = await appError(
        importRepository(`${server.url}/moved/ns/import-source.git`, path.join(repos, 'imported/redirect.git'), { allowPrivate: true }),
      );
      expect(e.options.code).toBe('import_redirect');
      expect(server.requests.slice(seen).every((r) => r.url.startsWith('/moved/'))).toBe(true);
    } finally {
      server.gate = null;
    }
    await expect(readdir(path.join(repos, 'imported/redirect.git'))).rejects.toThrow();
  });

  it('uses credentials from the URL without storing or repeating them', async () => {
    const token = 'glpat-s3cr3t-t0ken';
    const expected = `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}`;
    server.gate = (req) =>
      req.headers.authorization === expected ? null : { status: 401, headers: { 'WWW-Authenticate': 'Basic realm="git"' } };
    try {
      const target = path.join(repos, 'imported/private.git');
      await importRepository(`${server.url.replace('://', `://oauth2:${token}@`)}/ns/import-source.git`, target, { allowPrivate: true });
      expect(await gitIn(target, 'rev-parse', 'refs/heads/main')).toBe(await gitIn(source.dir, 'rev-parse', 'refs/heads/main'));
      expect(await readFile(path.join(target, 'config'), 'utf8')).not.toContain(token);

      const wrong = await appError(
        importRepository(
          `${server.url.replace('://', '://oauth2:wrong-t0ken@')}/ns/import-source.git`,
          path.join(repos, 'imported/wrong.git'),
          { allowPrivate: true },
        ),
      );
      expect(wrong.options.code).toBe('import_auth');
      expect(wrong.message).not.toContain('wrong-t0ken');
      expect(JSON.stringify(wrong.options.cause, Object.getOwnPropertyNames(wrong.options.cause ?? {}))).not.toContain('wrong-t0ken');
      const none = await appError(
        importRepository(`${server.url}/ns/import-source.git`, path.join(repos, 'imported/none.git'), { allowPrivate: true }),
      );
      expect(none.options.code).toBe('import_auth');
    } finally {
      server.gate = null;
    }
  });

  it('stops a clone that takes too long, or that is cancelled', async () => {
    server.gate = () => ({ status: 0 }); // accept the connection, never answer
    try {
      const slow = await appError(
        importRepository(`${server.url}/ns/import-source.git`, path.join(repos, 'imported/slow.git'), {
          allowPrivate: true,
          timeoutMs: 300,
        }),
      );
      expect(slow.kind).toBe('unavailable');
      expect(slow.options.code).toBe('timeout');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const cancelled = await appError(
        importRepository(`${server.url}/ns/import-source.git`, path.join(repos, 'imported/cancelled.git'), {
          allowPrivate: true,
          signal: controller.signal,
        }),
      );
      expect(cancelled.options.code).toBe('cancelled');
    } finally {
      server.gate = null;
    }
    await expect(readdir(path.join(repos, 'imported/slow.git'))).rejects.toThrow();
    await expect(readdir(path.join(repos, 'imported/cancelled.git'))).rejects.toThrow();
  });

  it('says when there is no repository at the URL, or nothing answers', async () => {
    const missing = await appError(
      importRepository(`${server.url}/ns/no-such.git`, path.join(repos, 'imported/missing.git'), { allowPrivate: true }),
    );
    expect(missing.options.code).toBe('import_not_found');
    const closed = await startGitServer(repos);
    const url = `${closed.url}/ns/import-source.git`;
    await closed.close();
    const down = await appError(importRepository(url, path.join(repos, 'imported/down.git'), { allowPrivate: true }));
    expect(down.kind).toBe('unavailable');
    expect(down.options.code).toBe('import_unreachable');
  });
});
