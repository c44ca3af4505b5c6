import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, withToken } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';
import { sha256File, writeNoiseWav } from '../../test-support/signals.js';

/** The real git-lfs client (Debian's `git-lfs`; .ci/run installs it). */
const hasGitLfs = (() => {
  try {
    execFileSync('git', ['lfs', 'version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const wavBytes = 50 * 1024 * 1024;
let app: TestApp;
let token: string;
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-lfs-'));
const client = gitClient(work);

beforeAll(async () => {
  if (!hasGitLfs) return;
  app = await startTestApp();
  token = (await app.addUser('producer')).token;
  // git-lfs's filters go into this test's own HOME, never the machine's config.
  await client.ok(['lfs', 'install', '--skip-repo']);
}, 60_000);

afterAll(async () => {
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!hasGitLfs)('the real git-lfs client over HTTP', () => {
  it('pushes a tracked 50 MB WAV, clones it back byte for byte, locks and unlocks it', async () => {
    const project = await readJson<Project>(
      callHosting(app, token, '/projects', { method: 'POST', body: { name: 'Album Stems', visibility: 'private' } }),
    );
    const remote = withToken(project.http_url_to_repo, token);
    const src = path.join(work, 'src');
    await client.ok(['init', '-q', src]);
    await client.ok(['lfs', 'track', '*.wav'], src);
    const wav = path.join(src, 'stem.wav');
    writeNoiseWav(wav, wavBytes);
    const expected = await sha256File(wav);
    await client.ok(['add', '.gitattributes', 'stem.wav'], src);
    await client.ok(['commit', '-q', '-m', 'Add the bass stem'], src);
    // The commit holds a pointer naming the content's sha256, not the audio.
    const pointer = await client.ok(['show', 'HEAD:stem.wav'], src);
    expect(pointer).toContain(`oid sha256:${expected}`);
    expect(pointer).toContain(`size ${wavBytes}`);
    await client.ok(['push', '-q', remote, 'main'], src);

    const stats = await readJson<{ statistics: { lfs_objects_size: number; repository_size: number } }>(
      callHosting(app, token, `/projects/${project.id}?statistics=true`),
    );
    expect(stats.statistics.lfs_objects_size).toBe(wavBytes);
    expect(stats.statistics.repository_size).toBeLessThan(1024 * 1024);

    const clone = path.join(work, 'clone');
    await client.ok(['clone', '-q', remote, clone]);
    expect(await sha256File(path.join(clone, 'stem.wav'))).toBe(expected);
    expect(readFileSync(path.join(clone, 'stem.wav')).subarray(0, 4).toString('ascii')).toBe('RIFF');

    const locked = await client.ok(['lfs', 'lock', 'stem.wav'], clone);
    expect(locked).toMatch(/Locked stem\.wav/);
    const list = await client.ok(['lfs', 'locks'], clone);
    expect(list).toMatch(/stem\.wav\s+producer\s+ID:\d+/);
    // A second lock of the same file is refused by the server (409 with the lock).
    const again = await client.run(['lfs', 'lock', 'stem.wav'], clone);
    expect(again.status).not.toBe(0);
    expect(again.stderr + again.stdout).toMatch(/already (created|locked)/i);
    const unlocked = await client.ok(['lfs', 'unlock', 'stem.wav'], clone);
    expect(unlocked).toMatch(/Unlocked stem\.wav/);
    expect((await client.ok(['lfs', 'locks'], clone)).trim()).toBe('');
  }, 240_000);
});
