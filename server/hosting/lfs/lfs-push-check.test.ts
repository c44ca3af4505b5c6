import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, withToken } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';

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
