import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { gitClient, withToken } from '../server/test-support/hosting-client.js';
import { encodeWav, sine } from '../server/test-support/signals.js';
import { monoDrumLoop } from './support/audio-fixtures.js';
import { expect as baseExpect, test as base } from './support/fixtures.js';
import { hostingApi } from './support/hosting-api.js';
import { collectPageErrors, expectNoHorizontalOverflow, producerViewports } from './support/page-checks.js';
import { createProducer, postAudio, signInBeforeLoad } from './support/session.js';

// The Files tab walked as a producer would: a project with a README, two WAV stems of several MB
// dropped onto it (above the commits API's 1 MB JSON limit: they go to Git LFS from the browser,
// the commit carries pointers), a failed upload retried, the commit in the history, a git clone
// that finds pointers whose objects the server serves, one stem opened, played, and its loudness
// and tempo read.

// e2e/ is type-checked without DOM types; these callbacks run in the page, where the globals exist.
declare const document: { querySelector(selector: string): unknown };
interface PageAudio {
  readonly paused: boolean;
  readonly currentTime: number;
  play(): Promise<void>;
}

/** This file analyses audio: its own worker, hence its own server, keeps usage out of the other specs. */
const test = base.extend<object, { ownServer: void }>({
  // eslint-disable-next-line no-empty-pattern
  ownServer: [async ({}, use) => use(), { scope: 'worker', auto: true }],
});
test.describe.configure({ mode: 'serial' });
// Every request runs git or the analysis; on a shared 2-core machine one can take several seconds.
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(900_000); // 10 MB of stems hashed, uploaded and analysed on a shared 2-core machine

const BPM = 120;
/** A 16-bar drum loop at 120 BPM, stereo: 32 s, 5.6 MB; kick on the beats (a decaying 55 Hz sine), hats off the beat. */
const loopChannel = monoDrumLoop(44100, BPM, 16);
const loop = encodeWav([loopChannel, loopChannel], 44100);
/** A 24 s 220 Hz sine at −12 dBFS peak, stereo (4.2 MB): a held bass note. */
const padChannel = sine(44100, 24, 220, 0.25);
const pad = encodeWav([padChannel, padChannel], 44100);
/** A 1 s sine: small enough for the JSON commits API. */
const blip = encodeWav([sine(44100, 1, 330, 0.25)], 44100);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** The pointer git-lfs writes for these bytes (git-lfs docs/spec.md). */
const pointerOf = (bytes: Buffer) => `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(bytes)}\nsize ${bytes.length}\n`;
const readme =
  '# Beat Tape\n\nStems for the *second* track. [Mix notes](https://example.com/notes)\n\n- kick loop\n- bass\n\n<img src=x onerror="document.title=\'pwned\'"> [bad](javascript:alert(1))\n';

let producer: { token: string };
let projectId = 0;
let projectPath = '';

/** Drop files on the Files tab's drop zone, as a drag from the desktop would (a DataTransfer with Files). */
async function dropFiles(page: Page, files: readonly { name: string; bytes: Buffer }[]): Promise<void> {
  const list = files.map((f) => ({ name: f.name, b64: f.bytes.toString('base64') }));
  // A string, run in the page: e2e/ is type-checked without the DOM's DataTransfer and File.
  const dataTransfer = await page.evaluateHandle(
    `(() => { const dt = new DataTransfer(); for (const item of ${JSON.stringify(list)}) dt.items.add(new File([Uint8Array.from(atob(item.b64), (c) => c.charCodeAt(0))], item.name, { type: 'audio/wav' })); return dt; })()`,
  );
  const zone = page.locator('.fl-add .file-drop');
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
}

/** Screenshots of the page at the three widths a producer uses, under test-results/files-tab/. */
async function screenshotsAt(page: Page, name: string): Promise<void> {
  const dir = path.join(test.info().project.testDir, '..', 'test-results', 'files-tab');
  await mkdir(dir, { recursive: true });
  for (const viewport of producerViewports) {
    await page.setViewportSize(viewport);
    await expectNoHorizontalOverflow(page);
    await page.screenshot({ path: path.join(dir, `${name}-${viewport.width}.png`), fullPage: true, animations: 'disabled', caret: 'hide' });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('drop two stems onto a project, see the commit, open one and play it', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  producer = await createProducer(server.url, server.adminToken, 'files-producer');
  const made = await hostingApi<{ id: number; path_with_namespace: string }>(server.url, producer.token, 'POST', '/projects', {
    name: 'Beat Tape',
  });
  expect(made.status).toBe(201);
  projectId = made.body.id;
  projectPath = made.body.path_with_namespace;
  expect(loop.length).toBeGreaterThan(5_000_000);
  expect(pad.length).toBeGreaterThan(4_000_000);
  const first = await hostingApi(server.url, producer.token, 'POST', `/projects/${projectId}/repository/commits`, {
    branch: 'main',
    commit_message: 'Start the tape',
    actions: [{ action: 'create', file_path: 'README.md', content: readme }],
  });
  expect(first.status).toBe(201);
  await signInBeforeLoad(page, producer.token);

  await test.step('the Files tab lists the README and renders it without running any of it', async () => {
    await page.goto(`/projects/${projectId}`);
    await page.getByRole('navigation', { name: 'Project', exact: true }).getByRole('link', { name: 'Files' }).click();
    await expect(page.getByRole('list', { name: 'Files' }).getByRole('link', { name: 'README.md' })).toBeVisible();
    const rendered = page.locator('.fl-markdown');
    await expect(rendered.getByRole('heading', { name: 'Beat Tape' })).toBeVisible();
    await expect(rendered.locator('em')).toHaveText('second');
    await expect(rendered.getByRole('link', { name: 'Mix notes' })).toHaveAttribute('href', 'https://example.com/notes');
    await expect(rendered.getByRole('link', { name: 'Mix notes' })).toHaveAttribute('rel', /noopener/);
    // Raw HTML stays text, a javascript: link stays words.
    await expect(rendered).toContainText('<img src=x onerror=');
    await expect(rendered.locator('img')).toHaveCount(0);
    await expect(rendered.getByRole('link', { name: 'bad' })).toHaveCount(0);
    expect(await page.title()).not.toBe('pwned');
  });

  await test.step('an upload that fails commits nothing and keeps the stems staged', async () => {
    // The network drops every LFS transfer (PUT of the bytes); batch and verify get through.
    await page.route('**/info/lfs/objects/*', (route) => (route.request().method() === 'PUT' ? route.abort('failed') : route.continue()));
    await dropFiles(page, [
      { name: 'kick-loop.wav', bytes: loop },
      { name: 'bass.wav', bytes: pad },
    ]);
    const staged = page.getByRole('list', { name: 'Files to commit' });
    await expect(staged.getByRole('listitem')).toHaveText([/^newkick-loop\.wav5\.6 MB · Git LFS$/, /^newbass\.wav4\.2 MB · Git LFS$/]);
    await expect(page.getByLabel('Commit message')).toHaveValue('Add 2 stems');
    await page.getByRole('button', { name: 'Commit 2 files to main' }).click();
    // Hashing 10 MB and the batch request take a few seconds on a busy machine.
    await expect(page.getByRole('alert')).toHaveText(
      'The commit was not made: 2 of 2 uploads failed, so nothing was committed. Commit again to retry: files already stored are not sent again.',
      { timeout: 60_000 },
    );
    await expect(staged.getByRole('listitem')).toHaveText([/Upload failed: /, /Upload failed: /]);
    const commits = await hostingApi<{ title: string }[]>(server.url, producer.token, 'GET', `/projects/${projectId}/repository/commits`);
    expect(commits.body.map((c) => c.title)).toEqual(['Start the tape']);
    await screenshotsAt(page, 'upload-failed');
    await page.unroute('**/info/lfs/objects/*');
  });

  await test.step('two dropped stems go to Git LFS and become one commit of pointers', async () => {
    await page.getByRole('button', { name: 'Commit 2 files to main' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Committed' })).toContainText('“Add 2 stems” to main', { timeout: 60_000 });
    // The listing refreshes: folders first, then files by name; .gitattributes now tracks *.wav.
    await expect(page.getByRole('list', { name: 'Files' }).getByRole('link')).toHaveText(
      ['.gitattributes', 'bass.wav', 'kick-loop.wav', 'README.md'],
      { timeout: 30_000 },
    );
    await expect(page.getByTestId('latest-commit')).toContainText('Add 2 stems');
    // The API agrees: one commit with both stems as LFS pointers and the attributes line git lfs track writes.
    const commits = await hostingApi<{ title: string }[]>(server.url, producer.token, 'GET', `/projects/${projectId}/repository/commits`);
    expect(commits.body.map((c) => c.title)).toEqual(['Add 2 stems', 'Start the tape']);
    const raw = async (file: string, lfs: boolean) =>
      Buffer.from(
        await (
          await fetch(`${server.url}/api/v4/projects/${projectId}/repository/files/${file}/raw?ref=main${lfs ? '&lfs=true' : ''}`, {
            headers: { 'PRIVATE-TOKEN': producer.token },
          })
        ).arrayBuffer(),
      );
    expect((await raw('kick-loop.wav', false)).toString('utf8')).toBe(pointerOf(loop));
    expect((await raw('bass.wav', false)).toString('utf8')).toBe(pointerOf(pad));
    expect((await raw('kick-loop.wav', true)).equals(loop)).toBe(true);
    expect((await raw('.gitattributes', false)).toString('utf8')).toBe('*.wav filter=lfs diff=lfs merge=lfs -text\n');
    // Sizes are the stems', not the pointers': 32 s of 16-bit stereo at 44.1 kHz plus the header.
    await expect(page.locator('.fl-row', { hasText: 'kick-loop.wav' }).locator('.fl-size')).toHaveText(
      `${(loop.length / 1_000_000).toFixed(1)} MB`,
      { timeout: 30_000 },
    );
    await screenshotsAt(page, 'listing');
  });

  await test.step('a git clone has LFS pointers whose objects the server serves', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'cratehouse-e2e-files-'));
    const git = gitClient(home);
    const url = withToken(`${server.url}/${projectPath}.git`, producer.token);
    const clone = path.join(home, 'clone');
    // Before git-lfs's filters are installed the working tree holds what git stores: the pointers.
    await git.ok(['clone', '-q', url, clone]);
    expect(await readFile(path.join(clone, 'kick-loop.wav'), 'utf8')).toBe(pointerOf(loop));
    expect(await readFile(path.join(clone, 'bass.wav'), 'utf8')).toBe(pointerOf(pad));
    expect((await git.ok(['lfs', 'ls-files', '--long'], clone)).split('\n').filter(Boolean).sort()).toEqual(
      [`${sha256(pad)} - bass.wav`, `${sha256(loop)} - kick-loop.wav`].sort(),
    );
    // git-lfs (its filters in this HOME only) fetches the objects from the server: the stems, byte for byte.
    await git.ok(['lfs', 'install', '--skip-repo']);
    await git.ok(['lfs', 'pull'], clone);
    expect((await readFile(path.join(clone, 'kick-loop.wav'))).equals(loop)).toBe(true);
    expect((await readFile(path.join(clone, 'bass.wav'))).equals(pad)).toBe(true);
  });

  await test.step('a refusal shows the server’s sentence, and a retry against the refreshed folder works', async () => {
    // Someone else adds hat.wav after this page listed the folder: the GUI still plans a create.
    const other = await hostingApi(server.url, producer.token, 'POST', `/projects/${projectId}/repository/commits`, {
      branch: 'main',
      commit_message: 'Add a hat from elsewhere',
      actions: [{ action: 'create', file_path: 'hat.wav', encoding: 'base64', content: blip.toString('base64') }],
    });
    expect(other.status).toBe(201);
    await dropFiles(page, [{ name: 'hat.wav', bytes: loop }]);
    await expect(page.getByLabel('Commit message')).toHaveValue('Add hat.wav');
    await page.getByRole('button', { name: 'Commit 1 file to main' }).click();
    await expect(page.getByRole('alert')).toHaveText('The commit was not made: A file with this name already exists.', { timeout: 60_000 });
    // The folder was listed again: the same file is now an update, and the suggestion follows.
    await expect(page.getByRole('list', { name: 'Files to commit' }).getByRole('listitem')).toHaveText([/^updatehat\.wav/]);
    await expect(page.getByLabel('Commit message')).toHaveValue('Update hat.wav');
    await page.getByRole('button', { name: 'Commit 1 file to main' }).click();
    await expect(page.getByTestId('latest-commit')).toContainText('Update hat.wav', { timeout: 60_000 });
    const hat = await fetch(`${server.url}/api/v4/projects/${projectId}/repository/files/hat.wav/raw?ref=main&lfs=true`, {
      headers: { 'PRIVATE-TOKEN': producer.token },
    });
    expect(Buffer.from(await hat.arrayBuffer()).equals(loop)).toBe(true);
  });

  await test.step('a tag is browsed, not written to', async () => {
    expect(
      (await hostingApi(server.url, producer.token, 'POST', `/projects/${projectId}/repository/tags`, { tag_name: 'v1', ref: 'main' }))
        .status,
    ).toBe(201);
    await page.reload();
    await page.getByLabel('Branch or tag').selectOption('v1');
    await expect(page).toHaveURL(/ref=v1/);
    await expect(page.getByRole('list', { name: 'Files' }).getByRole('link', { name: 'hat.wav' })).toBeVisible();
    await expect(page.getByText('v1 is not a branch: switch to a branch to add files.')).toBeVisible();
    await page.getByLabel('Branch or tag').selectOption('main');
    await expect(page.getByRole('button', { name: 'Choose files…' })).toBeVisible();
  });

  await test.step('a stem opens with its history and plays', async () => {
    await page.getByRole('link', { name: 'kick-loop.wav' }).click();
    await expect(page.getByRole('heading', { name: 'kick-loop.wav' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'History' }).getByRole('listitem')).toHaveCount(1);
    await expect(page.getByRole('region', { name: 'History' })).toContainText('Add 2 stems');
    const audio = page.getByTestId('file-audio');
    await expect(audio).toBeVisible();
    // A click on the page is the gesture Chromium's autoplay rule asks for; then play.
    await page.getByRole('heading', { name: 'kick-loop.wav' }).click();
    await page.evaluate(() => (document.querySelector('[data-testid="file-audio"]') as PageAudio).play());
    await expect
      .poll(() => page.evaluate(() => (document.querySelector('[data-testid="file-audio"]') as PageAudio).currentTime))
      .toBeGreaterThan(0.2);
    expect(await page.evaluate(() => (document.querySelector('[data-testid="file-audio"]') as PageAudio).paused)).toBe(false);
    await screenshotsAt(page, 'file');
  });

  await test.step('breadcrumb and text files', async () => {
    await page.getByRole('navigation', { name: 'Folder' }).getByRole('link', { name: 'beat-tape' }).click();
    await page.getByRole('link', { name: 'README.md' }).click();
    await expect(page.getByTestId('file-text')).toHaveText(readme);
  });

  expect(errors).toEqual([]);
});

test('an opened stem shows the server’s loudness and tempo', async ({ page, server }) => {
  const probe = await fetch(`${server.url}/api/v4/projects/${projectId}/repository/files/kick-loop.wav/analysis?ref=main`, {
    headers: { 'PRIVATE-TOKEN': producer.token },
  });
  const probeBody = await probe.text();
  test.skip(
    probe.status === 404 && !probeBody.includes('File Not Found'),
    `GET …/repository/files/:path/analysis is not on this server yet (404 ${probeBody}): loudness and tempo are not checked`,
  );
  const errors = collectPageErrors(page);
  await signInBeforeLoad(page, producer.token);
  await page.goto(`/projects/${projectId}/files?ref=main&file=kick-loop.wav`);
  // Pending answers show "Analysing…" until the endpoint answers 200.
  await expect(page.getByTestId('file-tempo')).toBeVisible({ timeout: 90_000 });
  const tempo = Number((await page.getByTestId('file-tempo').locator('.fl-big').textContent())?.trim());
  expect(tempo).toBeGreaterThan(BPM - 1);
  expect(tempo).toBeLessThan(BPM + 1);
  // The loudness is the audio API's integrated loudness of the same bytes (first 60 s: all of them).
  const loudness = (await (await postAudio(server.url, producer.token, 'loudness', loop, 'kick-loop.wav')).json()) as {
    integrated_lufs: number;
  };
  const shown = Number((await page.getByTestId('file-loudness').locator('.fl-big').textContent())?.replace('\u2212', '-').trim());
  expect(shown).toBeCloseTo(loudness.integrated_lufs, 1);
  await expect(page.locator('.fl-wave-canvas')).toBeVisible();
  await screenshotsAt(page, 'analysis');
  expect(errors).toEqual([]);
});
