import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZERO_SHA } from './git-names.js';
import { FLUSH, pktLine } from './pkt-line.js';
import { initBare } from './repositories.js';
import { parseGitPath, type RefUpdate } from './smart-http.js';
import { cli, startGitServer, tempDir, type GitTestServer } from './test-support/git-fixtures.js';

describe('parseGitPath', () => {
  it.each([
    ['/ns/project.git/info/refs?service=git-upload-pack', { fullPath: 'ns/project', service: 'info-refs', access: 'read' }],
    ['/ns/project/info/refs?service=git-receive-pack', { fullPath: 'ns/project', service: 'info-refs', access: 'write' }],
    ['/group/sub/deeper/project.git/git-upload-pack', { fullPath: 'group/sub/deeper/project', service: 'upload-pack', access: 'read' }],
    ['/group/sub/project/git-receive-pack', { fullPath: 'group/sub/project', service: 'receive-pack', access: 'write' }],
    ['/ns/my.project.git/git-upload-pack', { fullPath: 'ns/my.project', service: 'upload-pack', access: 'read' }],
  ])('%s', (url, expected) => {
    expect(parseGitPath(url)).toEqual(expected);
  });

  it.each([
    '/ns/project.git/info/refs', // dumb protocol
    '/ns/project.git/info/refs?service=git-upload-archive',
    '/project.git/git-upload-pack', // no namespace
    '/ns/../project.git/git-upload-pack',
    '/ns//project.git/git-upload-pack',
    '/ns/.git/git-upload-pack',
    '/ns/%2e%2e/project.git/git-upload-pack',
    '/ns/a%2Fb/project.git/git-upload-pack',
    '/ns/project.git/objects/info/packs',
    '/ns/project.git/HEAD',
    'ns/project.git/git-upload-pack',
  ])('%s → null', (url) => {
    expect(parseGitPath(url)).toBeNull();
  });
});

let tmp: { dir: string; remove: () => Promise<void> };
let root: string;
let home: string;
let server: GitTestServer;

beforeAll(async () => {
  tmp = await tempDir();
  root = path.join(tmp.dir, 'repos');
  home = path.join(tmp.dir, 'home');
  await mkdir(home, { recursive: true });
  server = await startGitServer(root);
});
afterAll(async () => {
  await server.close();
  await tmp.remove();
});

/** A position in the server's results, taken once earlier requests have settled. */
async function mark(): Promise<number> {
  await server.idle();
  return server.results.length;
}

/** The ref updates reported by the receive-packs served since `mark`. */
async function pushesSince(since: number): Promise<RefUpdate[]> {
  await server.idle();
  return server.results
    .slice(since)
    .filter((r) => r.service === 'receive-pack')
    .flatMap((r) => [...r.result.refUpdates]);
}

async function commitFile(work: string, name: string, content: string | Buffer, message: string): Promise<string> {
  await mkdir(path.dirname(path.join(work, name)), { recursive: true });
  await writeFile(path.join(work, name), content);
  await cli(home, ['add', '--', name], work);
  await cli(home, ['commit', '-q', '-m', message], work);
  return (await cli(home, ['rev-parse', 'HEAD'], work)).stdout.trim();
}

const revParse = async (gitDir: string, rev: string) =>
  (await cli(home, [`--git-dir=${gitDir}`, 'rev-parse', '--verify', '--quiet', rev])).stdout.trim();

describe('serveGitHttp with the git CLI', () => {
  const repoDir = () => path.join(root, 'band/stems/beat.git');
  const remote = () => `${server.url}/band/stems/beat.git`;
  let work: string;
  let a = '';
  let b = '';

  it('clones an empty repository', async () => {
    await initBare(repoDir(), 'main');
    work = path.join(tmp.dir, 'work');
    const { stderr } = await cli(home, ['clone', remote(), work]);
    expect(stderr).toContain('empty repository');
    await expect(cli(home, ['rev-parse', '--verify', 'HEAD'], work)).rejects.toThrow();
    expect(server.errors).toEqual([]);
  });

  it('pushes two commits and a tag, reporting both new refs', async () => {
    a = await commitFile(work, 'kick.txt', 'boom\n', 'Add kick');
    b = await commitFile(work, 'snare.txt', 'tak\n', 'Add snare');
    await cli(home, ['tag', '-a', 'v1', '-m', 'first release'], work);
    const tagObject = (await cli(home, ['rev-parse', 'v1'], work)).stdout.trim();
    const since = await mark();
    await cli(home, ['push', 'origin', 'main', 'v1'], work);
    expect(await pushesSince(since)).toEqual([
      { ref: 'refs/heads/main', before: ZERO_SHA, after: b },
      { ref: 'refs/tags/v1', before: ZERO_SHA, after: tagObject },
    ]);
    expect(await revParse(repoDir(), 'refs/heads/main')).toBe(b);
  });

  it('serves a clone with the same history (protocol v2 and v0)', async () => {
    const local = (await cli(home, ['log', '--format=%H %s'], work)).stdout;
    for (const version of ['2', '0']) {
      const copy = path.join(tmp.dir, `copy-v${version}`);
      await cli(home, ['-c', `protocol.version=${version}`, 'clone', remote(), copy]);
      expect((await cli(home, ['log', '--format=%H %s'], copy)).stdout).toBe(local);
      expect((await cli(home, ['tag', '--list'], copy)).stdout.trim()).toBe('v1');
      expect(await readFile(path.join(copy, 'snare.txt'), 'utf8')).toBe('tak\n');
    }
    // v2 is negotiated through the Git-Protocol header; v0 gets the "# service=" advertisement.
    const v0 = await fetch(`${remote()}/info/refs?service=git-upload-pack`);
    expect(v0.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(v0.headers.get('cache-control')).toContain('no-cache');
    expect((await v0.text()).startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
    const v2 = await fetch(`${remote()}/info/refs?service=git-upload-pack`, { headers: { 'Git-Protocol': 'version=2' } });
    expect((await v2.text()).startsWith('000eversion 2\n')).toBe(true);
  });

  it('reports a fast-forward with its before and after, and a branch deletion', async () => {
    const c = await commitFile(work, 'hat.txt', 'tss\n', 'Add hat');
    let since = await mark();
    await cli(home, ['push', 'origin', 'main'], work);
    expect(await pushesSince(since)).toEqual([{ ref: 'refs/heads/main', before: b, after: c }]);

    await cli(home, ['push', 'origin', `${a}:refs/heads/idea`], work);
    since = await mark();
    await cli(home, ['push', 'origin', ':idea'], work);
    expect(await pushesSince(since)).toEqual([{ ref: 'refs/heads/idea', before: a, after: ZERO_SHA }]);
    await expect(revParse(repoDir(), 'refs/heads/idea')).rejects.toThrow();
  });

  it('leaves out the refs receive-pack refused (report-status in side-band)', async () => {
    const head = await revParse(repoDir(), 'refs/heads/main');
    await cli(home, [`--git-dir=${repoDir()}`, 'config', 'receive.denyNonFastForwards', 'true']);
    try {
      const since = await mark();
      // One push, two refs: a rewind of main (refused by the server) and a new branch (accepted).
      const { stderr } = await cli(home, ['push', '--porcelain', 'origin', `+${a}:refs/heads/main`, `${b}:refs/heads/mix`], work).catch(
        (e: Error) => ({ stderr: e.message }),
      );
      expect(stderr).toMatch(/non-fast-forward|rejected/);
      expect(await pushesSince(since)).toEqual([{ ref: 'refs/heads/mix', before: ZERO_SHA, after: b }]);
      expect(await revParse(repoDir(), 'refs/heads/main')).toBe(head);
    } finally {
      await cli(home, [`--git-dir=${repoDir()}`, 'config', '--unset', 'receive.denyNonFastForwards']);
    }
  });

  it('streams a large push (chunked) and a fetch whose request git gzips', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 4; i++) files[`audio/take-${i}.raw`] = randomBytes(1024 * 1024);
    for (const [name, content] of Object.entries(files)) await commitFile(work, name, content, `Add ${name}`);
    // Many refs make the clone's want list longer than the 1 KiB above which git gzips a request.
    for (let i = 0; i < 60; i++) await cli(home, ['tag', `loop-${String(i).padStart(2, '0')}`], work);
    const pushStart = server.requests.length;
    const since = await mark();
    await cli(home, ['push', '--tags', 'origin', 'main'], work);
    expect(await pushesSince(since)).toHaveLength(61); // main's fast-forward and 60 new tags
    const pushes = server.requests.slice(pushStart).filter((r) => r.service === 'receive-pack' && r.method === 'POST');
    expect(pushes.some((r) => r.transferEncoding === 'chunked' && r.contentLength === undefined)).toBe(true);

    const fetchMark = server.requests.length;
    const copy = path.join(tmp.dir, 'big-copy');
    await cli(home, ['clone', remote(), copy]);
    const fetches = server.requests.slice(fetchMark).filter((r) => r.service === 'upload-pack');
    expect(fetches.some((r) => r.contentEncoding === 'gzip')).toBe(true);
    for (const [name, content] of Object.entries(files)) expect((await readFile(path.join(copy, name))).equals(content)).toBe(true);
    expect((await cli(home, ['tag', '--list', 'loop-*'], copy)).stdout.trim().split('\n')).toHaveLength(60);
    expect(server.errors).toEqual([]);
  });

  it('stops git when a client leaves in the middle of a fetch', async () => {
    // A pack far larger than the socket and pipe buffers, so git is still writing when the client goes.
    const huge = path.join(root, 'band/huge.git');
    await initBare(huge, 'main');
    const hugeWork = path.join(tmp.dir, 'huge-work');
    await cli(home, ['init', '-q', '-b', 'main', hugeWork]);
    const tip = await commitFile(hugeWork, 'stems.raw', randomBytes(24 * 1024 * 1024), 'Huge stems');
    await cli(home, ['push', '-q', huge, 'main'], hugeWork);
    await server.idle();
    const errorsBefore = server.errors.length;
    const resultsBefore = server.results.length;

    const body = Buffer.concat([pktLine(`want ${tip}\n`), FLUSH, pktLine('done\n')]);
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        `${server.url}/band/huge.git/git-upload-pack`,
        { method: 'POST', headers: { 'Content-Type': 'application/x-git-upload-pack-request' } },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', (e) => (e.message.includes('socket hang up') || e.message.includes('aborted') ? undefined : reject(e)));
      req.end(body);
    });
    // Without the kill, pack-objects would block on a full pipe and the request would never settle.
    await Promise.race([
      server.idle(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('serveGitHttp did not settle after the client left')), 10_000)),
    ]);
    expect(server.errors.length).toBe(errorsBefore);
    expect(server.results.slice(resultsBefore)).toEqual([{ service: 'upload-pack', result: { refUpdates: [] } }]);
  });

  it('answers 404 for a directory that is not a repository', async () => {
    const r = await fetch(`${server.url}/band/nothing-here.git/info/refs?service=git-upload-pack`);
    expect(r.status).toBe(404);
    await expect(cli(home, ['clone', `${server.url}/band/nothing-here.git`, path.join(tmp.dir, 'nothing')])).rejects.toThrow(
      /not found|404/i,
    );
  });
});

describe('hand-made receive-pack requests', () => {
  const repoDir = () => path.join(root, 'band/hand.git');
  let work: string;
  let base = '';

  beforeAll(async () => {
    await initBare(repoDir(), 'main');
    work = path.join(tmp.dir, 'hand-work');
    await cli(home, ['init', '-q', '-b', 'main', work]);
    base = await commitFile(work, 'one.txt', '1\n', 'one');
    await cli(home, ['push', '-q', repoDir(), 'main'], work);
  });

  /** The pack of the commits in `from..to`, as a client would send it. */
  async function packBetween(from: string, to: string): Promise<Buffer> {
    const { execFileSync } = await import('node:child_process');
    return execFileSync('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: work, input: `${to}\n^${from}\n` });
  }

  async function post(body: Buffer, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${server.url}/band/hand.git/git-receive-pack`, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/x-git-receive-pack-request', ...headers },
    });
  }

  it('reads the commands of a gzip-compressed request, and checks the refs when no report was asked for', async () => {
    const next = await commitFile(work, 'two.txt', '2\n', 'two');
    const body = Buffer.concat([pktLine(`${ZERO_SHA} ${next} refs/heads/gz\0agent=test\n`), FLUSH, await packBetween(base, next)]);
    const since = await mark();
    const r = await post(gzipSync(body), { 'Content-Encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect((await r.arrayBuffer()).byteLength).toBe(0); // no report-status requested, no side-band: nothing to say
    expect(await pushesSince(since)).toEqual([{ ref: 'refs/heads/gz', before: ZERO_SHA, after: next }]);
    expect(await revParse(repoDir(), 'refs/heads/gz')).toBe(next);
  });

  it('parses a report-status without side-band, counting only the ok refs', async () => {
    const next = await commitFile(work, 'three.txt', '3\n', 'three');
    const wrongBefore = 'f'.repeat(40);
    const body = Buffer.concat([
      pktLine(`${ZERO_SHA} ${next} refs/heads/plain\0report-status agent=test\n`),
      pktLine(`${wrongBefore} ${next} refs/heads/main\n`), // stale old value: receive-pack refuses it
      FLUSH,
      await packBetween(base, next),
    ]);
    const since = await mark();
    const r = await post(body);
    const report = await r.text();
    expect(report).toContain('ok refs/heads/plain');
    expect(report).toMatch(/ng refs\/heads\/main/);
    expect(await pushesSince(since)).toEqual([{ ref: 'refs/heads/plain', before: ZERO_SHA, after: next }]);
    expect(await revParse(repoDir(), 'refs/heads/main')).toBe(base);
  });

  it('applies and reports a push whose upload completed even if the client leaves before the answer', async () => {
    const next = await commitFile(work, 'five.txt', '5\n', 'five');
    const body = Buffer.concat([
      pktLine(`${ZERO_SHA} ${next} refs/heads/left\0report-status side-band-64k agent=test\n`),
      FLUSH,
      await packBetween(base, next),
    ]);
    const since = await mark();
    const seen = server.requests.length;
    await new Promise<void>((resolve) => {
      const req = http.request(`${server.url}/band/hand.git/git-receive-pack`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-git-receive-pack-request', 'Content-Length': String(body.length) },
      });
      req.on('error', () => undefined);
      req.end(body, () => {
        req.destroy(); // sent everything, reads nothing
        resolve();
      });
    });
    // The client is done before the server saw the request: wait until it did, then until it settled.
    for (let i = 0; i < 200 && server.requests.length === seen; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await pushesSince(since)).toEqual([{ ref: 'refs/heads/left', before: ZERO_SHA, after: next }]);
    expect(await revParse(repoDir(), 'refs/heads/left')).toBe(next);
  });

  it('reports nothing for a push whose pack is broken', async () => {
    const next = await commitFile(work, 'four.txt', '4\n', 'four');
    const pack = await packBetween(base, next);
    pack[pack.length - 30] = pack[pack.length - 30]! ^ 0xff; // corrupt the pack
    const body = Buffer.concat([pktLine(`${ZERO_SHA} ${next} refs/heads/broken\0report-status side-band-64k agent=test\n`), FLUSH, pack]);
    const since = await mark();
    const r = await post(body);
    await r.arrayBuffer();
    expect(await pushesSince(since)).toEqual([]);
    await expect(revParse(repoDir(), 'refs/heads/broken')).rejects.toThrow();
  });
});
