import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, withToken } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { ProjectRecord } from '../../store/schema.js';
import type { Project } from '../api-types.js';
import type { LfsService } from './lfs.js';
import { LfsPushCheck, lfsMissingMessage } from './lfs-push-check.js';

let app: TestApp;
let token: string;
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-lfs-check-'));
const client = gitClient(work);
/** GitLab's refusal, as gitlab-shell prints it (git shows it after `remote:`). */
const refusal = 'remote: GitLab: LFS objects are missing. Ensure LFS is properly set up or try a manual "git lfs push --all".';

/** The pointer file git-lfs would commit for `bytes` (written here by hand: no git-lfs involved). */
const pointerOf = (bytes: Buffer) =>
  `version https://git-lfs.github.com/spec/v1\noid sha256:${createHash('sha256').update(bytes).digest('hex')}\nsize ${bytes.length}\n`;

const newProject = (name: string, extra: Record<string, unknown> = {}) =>
  readJson<Project>(callHosting(app, token, '/projects', { method: 'POST', body: { name, ...extra } }));

/** A working copy with one commit of `files`, its remote the project. */
async function commitFiles(project: Project, files: Readonly<Record<string, string | Buffer>>): Promise<string> {
  const dir = mkdtempSync(path.join(work, 'src-'));
  await client.ok(['init', '-q', '-b', 'main', dir]);
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  await client.ok(['add', '.'], dir);
  await client.ok(['commit', '-q', '-m', 'Stems'], dir);
  await client.ok(['remote', 'add', 'origin', withToken(project.http_url_to_repo, token)], dir);
  return dir;
}

/** Upload bytes as an LFS object of the project through the batch API, as git-lfs does. */
async function uploadObject(project: Project, bytes: Buffer): Promise<void> {
  const oid = createHash('sha256').update(bytes).digest('hex');
  const auth = { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}` };
  const batch = await app.fetch(`${new URL(project.http_url_to_repo).pathname}/info/lfs/objects/batch`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/vnd.git-lfs+json', Accept: 'application/vnd.git-lfs+json' },
    body: JSON.stringify({ operation: 'upload', objects: [{ oid, size: bytes.length }] }),
  });
  const upload = ((await batch.json()) as { objects: { actions: { upload: { href: string; header: Record<string, string> } } }[] })
    .objects[0]!.actions.upload;
  const put = await fetch(upload.href, { method: 'PUT', headers: upload.header, body: bytes });
  expect(put.status).toBe(200);
}

beforeAll(async () => {
  app = await startTestApp();
  token = (await app.addUser('mixer')).token;
}, 60_000);

afterAll(async () => {
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a push naming LFS objects the project does not have (GitLab LFS integrity check)', () => {
  const stem = randomBytes(3000);

  it('is refused whole, with GitLab’s message, and no ref moves; after the object is uploaded the same push lands', async () => {
    const project = await newProject('Hand Pointers');
    const dir = await commitFiles(project, { 'kick.wav': pointerOf(stem), 'notes.txt': 'kick at 120 bpm\n' });
    const refused = await client.run(['push', 'origin', 'main'], dir);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(refusal);
    expect(refused.stderr).toContain('[remote rejected] main -> main (pre-receive hook declined)');
    expect((await client.ok(['ls-remote', 'origin'], dir)).trim()).toBe('');
    expect((await readJson<Project>(callHosting(app, token, `/projects/${project.id}`))).empty_repo).toBe(true);

    await uploadObject(project, stem);
    const accepted = await client.run(['push', 'origin', 'main'], dir);
    expect(accepted.status, accepted.stderr).toBe(0);
    expect((await client.ok(['ls-remote', 'origin', 'refs/heads/main'], dir)).split('\t')[0]).toBe(
      (await client.ok(['rev-parse', 'HEAD'], dir)).trim(),
    );
  }, 120_000);

  it('an object another project holds does not count: the pushing project must link it itself', async () => {
    const other = await newProject('Other Stems');
    await uploadObject(other, stem);
    const project = await newProject('Borrowed Pointer');
    const refused = await client.run(['push', 'origin', 'main'], await commitFiles(project, { 'kick.wav': pointerOf(stem) }));
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(refusal);
  }, 120_000);

  it('is not checked for a project with lfs_enabled false, nor for files that only look like pointers', async () => {
    const plain = await newProject('No Lfs', { lfs_enabled: false });
    const off = await client.run(['push', 'origin', 'main'], await commitFiles(plain, { 'kick.wav': pointerOf(stem) }));
    expect(off.status, off.stderr).toBe(0);

    const project = await newProject('Look Alike');
    const lookAlike = {
      // Not pointers: a second line that is not `oid`, and a pointer's text followed by more.
      'a.txt': 'version https://git-lfs.github.com/spec/v1\nhello\n',
      'b.txt': `${pointerOf(stem)}and more\n`,
      // Large: never read by the check.
      'big.bin': randomBytes(256 * 1024),
    };
    const pushed = await client.run(['push', 'origin', 'main'], await commitFiles(project, lookAlike));
    expect(pushed.status, pushed.stderr).toBe(0);
  }, 120_000);
});

describe('the hook’s shell pre-filter', () => {
  /** git in `cwd` with the push's environment; a push to a local bare repository runs its pre-receive hook. */
  const git = (args: readonly string[], cwd: string, env: Readonly<Record<string, string>> = {}, input?: string) =>
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], {
      cwd,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      input,
    });

  /** A data dir whose hook starts a "node" that records that it was started and what it was given, then is node; a bare repository using the hook. */
  async function setUp(linkedOids: readonly string[]) {
    const root = mkdtempSync(path.join(work, 'prefilter-'));
    const dataDir = path.join(root, 'data');
    mkdirSync(path.join(dataDir, 'tmp'), { recursive: true });
    const started = path.join(root, 'node-started');
    const given = path.join(root, 'node-given');
    const fakeNode = path.join(root, 'node.sh');
    writeFileSync(fakeNode, `#!/bin/sh\necho started >> '${started}'\ncat > '${given}'\nexec '${process.execPath}' "$@" < '${given}'\n`, {
      mode: 0o755,
    });
    const lfs = { linkedOids: () => linkedOids } as unknown as LfsService;
    const gate = (await new LfsPushCheck(lfs, dataDir, fakeNode).gate({
      id: 1,
      settings: { lfs_enabled: true },
    } as unknown as ProjectRecord))!;
    const bare = path.join(root, 'remote.git');
    expect(git(['init', '-q', '--bare', bare], root).status).toBe(0);
    expect(git(['config', 'core.hooksPath', gate.config['core.hooksPath']!], bare).status).toBe(0);
    return { root, started, given, gate, bare };
  }

  it('starts no node for a push without a blob under 200 bytes, and node still refuses an unknown pointer', async () => {
    const linked = randomBytes(500);
    const { root, started, given, gate, bare } = await setUp([createHash('sha256').update(linked).digest('hex')]);
    const src = path.join(root, 'src');
    expect(git(['init', '-q', '-b', 'main', src], root).status).toBe(0);
    const commitAndPush = (files: Readonly<Record<string, string | Buffer>>) => {
      for (const [name, content] of Object.entries(files)) writeFileSync(path.join(src, name), content);
      expect(git(['add', '.'], src).status).toBe(0);
      expect(git(['commit', '-q', '-m', 'c'], src).status).toBe(0);
      return git(['push', bare, 'HEAD:refs/heads/main'], src, gate.env);
    };

    // Large files only (the commit and tree are small, but not blobs): no node.
    const large = commitAndPush({ 'mix.wav': randomBytes(64 * 1024), 'notes.txt': 'x'.repeat(300) });
    expect(large.status, large.stderr).toBe(0);
    expect(existsSync(started)).toBe(false);

    // A pointer to an object the project does not link: node runs and refuses as before.
    const unknown = pointerOf(randomBytes(3000));
    const refused = commitAndPush({ 'kick.wav': unknown });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(lfsMissingMessage);
    expect(readFileSync(started, 'utf8')).toBe('started\n');
    // Node is handed the one new small blob the pre-filter found, so it does not walk the push again.
    const pointerBlob = git(['hash-object', '--stdin'], src, {}, unknown).stdout;
    expect(readFileSync(given, 'utf8')).toBe(pointerBlob);

    // A pointer to a linked object (the refused commit amended away): node runs and accepts.
    expect(git(['reset', '-q', '--hard', 'HEAD~1'], src).status).toBe(0);
    const accepted = commitAndPush({ 'snare.wav': pointerOf(linked) });
    expect(accepted.status, accepted.stderr).toBe(0);
    expect(readFileSync(started, 'utf8')).toBe('started\nstarted\n');
    await gate.release();
  }, 60_000);

  it('a listing that fails refuses the push with the reason', async () => {
    const { started, gate, bare } = await setUp([]);
    // A new tip git does not have: rev-list cannot walk it.
    const hook = spawnSync(path.join(gate.config['core.hooksPath']!, 'pre-receive'), {
      cwd: bare,
      env: { ...process.env, ...gate.env, GIT_DIR: bare },
      encoding: 'utf8',
      input: `${'0'.repeat(40)} ${'1'.repeat(40)} refs/heads/main\n`,
    });
    expect(hook.status).toBe(1);
    expect(hook.stderr).toContain('GitLab: could not check the pushed LFS pointers (git rev-list failed).');
    // The shell reports it: node is not started to walk the push again.
    expect(existsSync(started)).toBe(false);
    await gate.release();
  });
});
