import { readFile } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import type { Locator, Page } from '@playwright/test';
import { startMediaServer, serveBytes, type MediaServer } from '../server/test-support/media-server.js';
import { encodeWav, sine } from '../server/test-support/signals.js';
import { expect, saveScreenshot, test } from './support/fixtures.js';
import { createProducer, signInBeforeLoad } from './support/session.js';
import { collectPageErrors, expectNoHorizontalOverflow } from './support/page-checks.js';

// The Sources screen, black box: a local HTTP server in the test (the server tests' media server)
// serves a WAV, a 404 and an endless slow stream; the real server fetches them
// (CRATEHOUSE_FETCH_ALLOW_PRIVATE lets it reach loopback) and the screen shows the jobs.

// e2e/ is type-checked without DOM types; this callback runs in the page, where localStorage exists.
declare const localStorage: { getItem(key: string): string | null };

// 2 s of stereo at 48 kHz: the server resamples it to 44.1 kHz, so the WAV has exactly 88 200 frames.
const toneSeconds = 2;
const tone = encodeWav([sine(48_000, toneSeconds, 440, 0.5), sine(48_000, toneSeconds, 660, 0.5)], 48_000);

/**
 * A WAV header, then a trickle of silence for ever: the job downloads until it is cancelled.
 * `closed` resolves when the server has closed the connection.
 */
function slowStream(): { readonly handler: RequestListener; readonly closed: Promise<void> } {
  let markClosed = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  const handler: RequestListener = (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'audio/wav' });
    response.write(tone.subarray(0, 44));
    const timer = setInterval(() => response.write(Buffer.alloc(4096)), 200);
    // Also fires when the media server closes its connections at the end.
    response.on('close', () => {
      clearInterval(timer);
      markClosed();
    });
  };
  return { handler, closed };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&');
/** The value (<dd>) that follows the term (<dt>) with exactly this text. */
const fact = (scope: Locator, term: string) =>
  scope
    .getByRole('term')
    .filter({ hasText: new RegExp(`^${escapeRegExp(term)}$`) })
    .locator('xpath=following-sibling::dd[1]');
const jobCard = (page: Page, url: string) => page.getByRole('article', { name: url, exact: true });
const urlField = (page: Page) => page.getByLabel('Page or media URL');

async function submit(page: Page, url: string): Promise<void> {
  await urlField(page).fill(url);
  await page.getByRole('button', { name: 'Fetch audio' }).click();
}

async function rememberedJobId(page: Page, tenant: string, url: string): Promise<string> {
  const stored = await page.evaluate((key) => localStorage.getItem(key), `cratehouse.sources.jobs.${tenant}`);
  const jobs = JSON.parse(stored ?? '[]') as { id: string; url: string }[];
  const job = jobs.find((entry) => entry.url === url);
  if (!job) throw new Error(`no remembered job for ${url} in ${stored}`);
  return job.id;
}

async function getJob(
  baseURL: string,
  token: string,
  id: string,
): Promise<{ status: string; error?: string | null; result?: Record<string, unknown> | null }> {
  const response = await fetch(`${baseURL}/audio/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; error?: string | null; result?: Record<string, unknown> | null };
}

let media: MediaServer;
let slowClosed: Promise<void>;
test.beforeAll(async () => {
  media = await startMediaServer();
  media.route('/tone.wav', serveBytes(tone, 'audio/wav'));
  const slow = slowStream();
  media.route('/slow.wav', slow.handler);
  slowClosed = slow.closed;
});
test.afterAll(async () => {
  await media.close();
});

test('sources: fetch a WAV, download it, cancel a slow stream, and see refusals', async ({ page, server }) => {
  test.setTimeout(180_000);
  const errors = collectPageErrors(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  const producer = await createProducer(server.url, server.adminToken, 'sources-producer');
  await signInBeforeLoad(page, producer.token);
  await page.goto('/sources');

  await test.step('the empty state says what to do', async () => {
    await expect(page.getByText('No sources fetched yet')).toBeVisible();
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'sources-empty-dark');
  });

  await test.step('an empty field and an invalid URL are refused next to the form', async () => {
    await page.getByRole('button', { name: 'Fetch audio' }).click();
    await expect(page.getByRole('alert')).toContainText('Paste the address of a page or a media file first.');
    await submit(page, 'not a url');
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('This URL cannot be fetched.');
    // The server's 422 for the url field, as a sentence.
    await expect(alert).toContainText('URL should be an absolute http or https URL.');
    await expect(urlField(page)).toHaveAttribute('aria-invalid', 'true');
    await expect(urlField(page)).toBeFocused();
    const describedBy = (await urlField(page).getAttribute('aria-describedby')) ?? '';
    expect(describedBy.split(' ')).toContain(await alert.getAttribute('id'));
    await saveScreenshot(page, 'sources-invalid-dark');
  });

  const toneUrl = `${media.url}/tone.wav`;
  let toneBytes = 0;
  await test.step('a WAV is fetched and described', async () => {
    await submit(page, toneUrl);
    await expect(urlField(page)).toHaveValue('');
    await expect(page.getByRole('alert')).toHaveCount(0);
    const card = jobCard(page, toneUrl);
    await expect(card.getByText('Done', { exact: true })).toBeVisible({ timeout: 60_000 });
    await expect(fact(card, 'Found via')).toHaveText('Direct link to the media');
    await expect(fact(card, 'Source codec')).toContainText('48,000 Hz');
    await expect(fact(card, 'Duration')).toHaveText('2 s');
    await expect(fact(card, 'Sample rate')).toHaveText('44,100 Hz');
    await expect(fact(card, 'Channels')).toHaveText('Stereo');
    await expect(fact(card, 'Bits')).toHaveText('16-bit PCM');
    // The size the API reports, in kB.
    const job = await getJob(server.url, producer.token, await rememberedJobId(page, producer.tenant, toneUrl));
    expect(job.status).toBe('done');
    toneBytes = Number(job.result?.bytes);
    // The PCM and ffmpeg's header chunks.
    expect(toneBytes).toBeGreaterThanOrEqual(44 + 88_200 * 4);
    expect(toneBytes).toBeLessThan(44 + 88_200 * 4 + 1024);
    await expect(fact(card, 'Size')).toHaveText(`${(toneBytes / 1000).toFixed(1)} kB`);
    await card.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'sources-done-dark');
  });

  await test.step('Download WAV saves the 44.1 kHz WAV', async () => {
    const card = jobCard(page, toneUrl);
    const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Download WAV' }).click()]);
    const wav = await readFile(await download.path());
    expect(wav.length).toBe(toneBytes);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
    // Walk the chunks: fmt gives rate, channels and bits; data gives the length.
    let offset = 12;
    let format: { rate: number; channels: number; bits: number } | null = null;
    let dataBytes = -1;
    while (offset + 8 <= wav.length) {
      const id = wav.toString('ascii', offset, offset + 4);
      const size = wav.readUInt32LE(offset + 4);
      if (id === 'fmt ')
        format = { channels: wav.readUInt16LE(offset + 10), rate: wav.readUInt32LE(offset + 12), bits: wav.readUInt16LE(offset + 22) };
      if (id === 'data') dataBytes = size;
      offset += 8 + size + (size % 2);
    }
    expect(format).toEqual({ rate: 44_100, channels: 2, bits: 16 });
    const frames = dataBytes / 4;
    expect(frames).toBe(88_200);
    expect(frames / 44_100).toBe(toneSeconds);
    expect(download.suggestedFilename()).toMatch(/\.wav$/);
  });

  await test.step('the job list survives a reload', async () => {
    await page.reload();
    await expect(jobCard(page, toneUrl).getByText('Done', { exact: true })).toBeVisible();
    await expect(fact(jobCard(page, toneUrl), 'Duration')).toHaveText('2 s');
  });

  const missingUrl = `${media.url}/missing.wav`;
  await test.step('a job that fails shows the server sentence on its card', async () => {
    await submit(page, missingUrl);
    const card = jobCard(page, missingUrl);
    await expect(card.getByText('Failed', { exact: true })).toBeVisible({ timeout: 60_000 });
    const job = await getJob(server.url, producer.token, await rememberedJobId(page, producer.tenant, missingUrl));
    expect(job.status).toBe('error');
    await expect(card.getByRole('alert')).toContainText('Fetching failed.');
    await expect(card.getByRole('alert')).toContainText(job.error ?? '');
    await expect(card.getByRole('alert')).toContainText('404');
  });

  const slowUrl = `${media.url}/slow.wav`;
  await test.step('a slow endless stream can be cancelled', async () => {
    await submit(page, slowUrl);
    const card = jobCard(page, slowUrl);
    await expect(card.getByText('Fetching', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(card.getByRole('progressbar', { name: 'Downloading' })).toBeVisible();
    // Running starts before the connection does: wait until the stream is really being read.
    await expect.poll(() => media.hits.get('/slow.wav') ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
    await saveScreenshot(page, 'sources-running-dark');
    await card.getByRole('button', { name: 'Cancel' }).click();
    await expect(card.getByText('Cancelled', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(card.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
    const job = await getJob(server.url, producer.token, await rememberedJobId(page, producer.tenant, slowUrl));
    expect(job).toMatchObject({ status: 'error', error: 'cancelled' });
    // The server stopped downloading: it closed the connection.
    await expect(slowClosed).resolves.toBeUndefined();
  });

  await test.step('screenshots in both themes and two sizes', async () => {
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'sources-jobs-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await saveScreenshot(page, 'sources-jobs-light');
    await page.setViewportSize({ width: 1920, height: 1080 });
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'sources-jobs-light-1920');
    await page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(page, 'sources-jobs-dark-1920');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await test.step('Remove from list forgets a finished job', async () => {
    await jobCard(page, missingUrl)
      .getByRole('button', { name: `Remove ${missingUrl} from the list` })
      .click();
    await expect(jobCard(page, missingUrl)).toHaveCount(0);
    await page.reload();
    await expect(jobCard(page, toneUrl)).toBeVisible();
    await expect(jobCard(page, missingUrl)).toHaveCount(0);
  });

  await test.step('Analyse hands the WAV to the Analyse screen', async () => {
    await jobCard(page, toneUrl).getByRole('button', { name: 'Analyse' }).click();
    await expect(page).toHaveURL(/\/analyse$/);
    await expect(page.getByRole('link', { name: 'Analyse' })).toHaveClass(/active/);
    // The fetched WAV is analysed at once: its name is on the page and a suggested name arrives.
    await expect(page.getByText('tone.wav').first()).toBeVisible();
    await expect(page.getByTestId('suggested-name')).toHaveText(/^01_/, { timeout: 90_000 });
  });

  await test.step('a file dropped anywhere on the window opens in Analyse', async () => {
    await page.goto('/');
    // A real drag from the desktop cannot be scripted; the same DataTransfer with a File can.
    const bytes = Array.from(tone.subarray(0, 44 + 48_000 * 4));
    const dataTransfer = await page.evaluateHandle(
      `(() => { const dt = new DataTransfer(); dt.items.add(new File([new Uint8Array(${JSON.stringify(bytes)})], 'dropped-on-home.wav', { type: 'audio/wav' })); return dt; })()`,
    );
    const zone = page.locator('#main');
    await zone.dispatchEvent('dragover', { dataTransfer });
    await expect(page.getByText('Drop to analyse')).toBeVisible();
    await zone.dispatchEvent('drop', { dataTransfer });
    await expect(page).toHaveURL(/\/analyse$/);
    await expect(page.getByText('dropped-on-home.wav').first()).toBeVisible();
    await expect(page.getByText('Drop to analyse')).toHaveCount(0);
  });

  expect(errors).toEqual([]);
});
