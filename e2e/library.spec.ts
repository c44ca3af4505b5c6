import type { Page, Request } from '@playwright/test';
import { encodeWav, sine } from '../server/test-support/signals.js';
import { monoDrumLoop } from './support/audio-fixtures.js';
import { expect, saveScreenshot, test } from './support/fixtures.js';
import { collectPageErrors, expectNoHorizontalOverflow } from './support/page-checks.js';
import { createProducer, signInBeforeLoad } from './support/session.js';

// The library (issue 22), black box against the real server: add files, search, filter by key and
// tempo (with ½×/2×), similar sounds, audition with the keys, tags, reload; "each byte once" on
// Analyse and Batch, measured as request bytes; a 100-file batch; a batch whose server goes away.

const rate = 44_100;

interface Fixture {
  readonly name: string;
  readonly buffer: Buffer;
}

const fixtures: readonly Fixture[] = [
  { name: 'loop-120.wav', buffer: encodeWav([monoDrumLoop(rate, 120, 4)], rate) },
  { name: 'loop-140.wav', buffer: encodeWav([monoDrumLoop(rate, 140, 4)], rate) },
  { name: 'sub-bass.wav', buffer: encodeWav([sine(rate, 3, 55, 0.7)], rate) },
  // An A minor triad over two octaves (equal-tempered, A4 = 440 Hz): its key is A minor, Camelot 8A.
  { name: 'am-chord.wav', buffer: encodeWav([chordOf([220, 261.63, 329.63, 440, 523.25, 659.26], 4, 0.03)], rate) },
];

/** Equal-amplitude sines summed, `amp` peak each. */
function chordOf(freqs: readonly number[], seconds: number, amp: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate));
  for (const f of freqs) {
    const s = sine(rate, seconds, f, amp);
    for (let i = 0; i < out.length; i++) out[i]! += s[i]!;
  }
  return out;
}

interface WireItem {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly bpm: number | null;
  readonly camelot: string | null;
  readonly tags: readonly string[];
}

async function listItems(baseURL: string, token: string, query = ''): Promise<{ items: WireItem[]; total: number }> {
  const response = await fetch(`${baseURL}/audio/v1/library/items?per_page=200${query}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { items: WireItem[]; total: number };
}

/** Every request the page sends to the audio API. */
function recordAudioRequests(page: Page): { readonly requests: Request[] } {
  const requests: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/audio/v1/')) requests.push(request);
  });
  return { requests };
}

/**
 * The audio bytes the server received from this caller, as its usage meter counts them (`GET /me`):
 * counted by the server per upload, independently of the GUI (Chromium reports no body size for XHR
 * uploads of files, so the page's side cannot be measured).
 */
async function uploadedBytes(baseURL: string, token: string): Promise<number> {
  const response = await fetch(`${baseURL}/audio/v1/me`, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { usage: { bytes_uploaded: number } }).usage.bytes_uploaded;
}

const libraryRows = (page: Page) => page.getByRole('listbox', { name: /Library items/ }).getByRole('option');
const rowNamed = (page: Page, name: string) => libraryRows(page).filter({ hasText: name });

/** What misplacedRows reads in the page (e2e is type-checked without the DOM's types). */
interface RowElement {
  readonly dataset: { readonly itemId?: string };
  readonly scrollHeight: number;
  readonly clientHeight: number;
  getBoundingClientRect(): { readonly top: number; readonly bottom: number };
}
declare const document: { querySelectorAll(selector: string): Iterable<RowElement> };

/**
 * Row boxes whose content overflows them or that overlap the next row, as "name: why" (empty when the list is
 * laid out right). Read in the page at once, so a layout that waits for a re-render after a resize shows here.
 */
function misplacedRows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll('[role="listbox"] [role="option"]')];
    const boxes = rows.map((row) => ({
      name: row.dataset.itemId ?? '?',
      box: row.getBoundingClientRect(),
      fits: row.scrollHeight <= row.clientHeight + 1,
    }));
    boxes.sort((a, b) => a.box.top - b.box.top);
    return boxes.flatMap((b, i) => [
      ...(b.fits ? [] : [`${b.name}: content taller than its row`]),
      ...(i + 1 < boxes.length && b.box.bottom > boxes[i + 1]!.box.top + 0.5 ? [`${b.name}: overlaps the next row`] : []),
    ]);
  });
}

test('library: add, search, filter by key and tempo, similar, audition with keys, tags, reload', async ({ page, server }) => {
  test.setTimeout(240_000);
  const errors = collectPageErrors(page);
  const producer = await createProducer(server.url, server.adminToken, 'library-producer');
  await signInBeforeLoad(page, producer.token);
  const audio = recordAudioRequests(page);
  await page.goto('/library');

  await test.step('empty, then four files added: each uploaded once', async () => {
    await expect(page.getByText('Your library is empty')).toBeVisible();
    await page.getByTestId('file-input').setInputFiles(fixtures.map((f) => ({ name: f.name, mimeType: 'audio/wav', buffer: f.buffer })));
    await expect(libraryRows(page)).toHaveCount(4, { timeout: 60_000 });
    // Rows say "Analysing…" until the summary is computed, then show it.
    await expect(page.getByText('Analysing…')).toHaveCount(0, { timeout: 90_000 });
    const uploads = audio.requests.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/audio/v1/library/items');
    expect(uploads).toHaveLength(4);
    // Each file's bytes reached the server exactly once.
    expect(await uploadedBytes(server.url, producer.token)).toBe(fixtures.reduce((sum, f) => sum + f.buffer.length, 0));
  });

  const all = await listItems(server.url, producer.token);
  const loop120 = all.items.find((i) => i.name === 'loop-120.wav')!;

  await test.step('search by name', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('sub-bass');
    await expect(libraryRows(page)).toHaveCount(1);
    await expect(libraryRows(page).first()).toContainText('sub-bass.wav');
    await expect(page).toHaveURL(/q=sub-bass/);
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await expect(libraryRows(page)).toHaveCount(4);
  });

  await test.step('filter by tempo, and by half the tempo with ½×/2×', async () => {
    // The 120 BPM loop per the API (measured by the server, asserted in the server's own tests).
    expect(loop120.bpm).not.toBeNull();
    const bpm = Math.round(loop120.bpm!);
    await page.getByLabel('BPM from').fill(String(bpm - 3));
    await page.getByLabel('BPM to').fill(String(bpm + 3));
    await page.getByLabel('BPM to').press('Enter');
    await expect(rowNamed(page, 'loop-120.wav')).toHaveCount(1);
    await expect(rowNamed(page, 'loop-140.wav')).toHaveCount(0);
    await page.getByLabel('BPM from').fill(String(Math.floor(bpm / 2) - 1));
    await page.getByLabel('BPM to').fill(String(Math.ceil(bpm / 2) + 1));
    await page.getByLabel('BPM to').press('Enter');
    await expect(rowNamed(page, 'loop-120.wav')).toHaveCount(0);
    await page.getByLabel('also ½× and 2×').click();
    await expect(page.getByLabel('also ½× and 2×')).toBeChecked();
    await expect(rowNamed(page, 'loop-120.wav')).toHaveCount(1);
    await page.goto('/library');
  });

  await test.step('filter by key in Camelot notation: the rows the API gives for that key', async () => {
    const keyed = all.items.find((i) => i.name === 'am-chord.wav');
    expect(keyed?.camelot).toBe('8A');
    const expected = (await listItems(server.url, producer.token, `&camelot=${keyed!.camelot}`)).items.map((i) => i.name).sort();
    await page.getByLabel('Key', { exact: true }).selectOption(keyed!.camelot!);
    await expect(libraryRows(page)).toHaveCount(expected.length);
    expect((await libraryRows(page).locator('.lib-name').allTextContents()).sort()).toEqual(expected);
    await expect(libraryRows(page).first().locator('.lib-camelot')).toHaveText(keyed!.camelot!);
    await page.goto('/library');
  });

  await test.step('arrow keys select and audition, space stops, Enter opens in Analyse without an upload', async () => {
    await page.getByRole('listbox', { name: /Library items/ }).focus();
    const firstAudio = page.waitForRequest((r) => /\/library\/items\/\d+\/audio$/.test(r.url()));
    await page.keyboard.press('ArrowDown');
    await firstAudio;
    await expect(libraryRows(page).nth(0)).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('ArrowDown');
    await expect(libraryRows(page).nth(1)).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('button', { name: /^Stop / }).first()).toBeVisible();
    await page.keyboard.press(' ');
    await expect(page.getByRole('button', { name: /^Stop / })).toHaveCount(0);
  });

  await test.step('similar sounds: the API’s neighbours, nearest first', async () => {
    await rowNamed(page, 'loop-120.wav').click();
    await page.getByRole('button', { name: 'Similar' }).click();
    const similar = page.getByRole('region', { name: 'Similar to loop-120.wav' });
    await expect(similar).toBeVisible();
    const response = await fetch(`${server.url}/audio/v1/library/items/${loop120.id}/similar?limit=10`, {
      headers: { Authorization: `Bearer ${producer.token}` },
    });
    const body = (await response.json()) as { items: { item: WireItem }[] };
    await expect(similar.locator('.lib-similar-name')).toHaveText(body.items.map((n) => n.item.name));
    expect(body.items.map((n) => n.item.name)).not.toContain('loop-120.wav');
  });

  await test.step('tags, rating, favourite and ½× tempo are kept by the library', async () => {
    const tags = page.getByLabel(/^Tags/);
    await tags.fill('dusty, drums');
    await tags.press('Enter');
    await expect(rowNamed(page, 'loop-120.wav').locator('.lib-tag')).toHaveText(['dusty', 'drums']);
    await page.getByRole('button', { name: '4 stars' }).click();
    await page.getByRole('button', { name: 'Favourite', exact: true }).click();
    await page.getByRole('button', { name: /^½×/ }).click();
    await expect(page.getByRole('button', { name: /^½×/ })).toHaveAttribute('aria-pressed', 'true');
    const saved = (await listItems(server.url, producer.token, '&q=loop-120')).items[0]!;
    expect(saved.tags).toEqual(['dusty', 'drums']);
    expect(saved).toMatchObject({ rating: 4, favourite: true, tempo_multiplier: 0.5 });
  });

  await test.step('reload keeps everything', async () => {
    await page.reload();
    await expect(libraryRows(page)).toHaveCount(4);
    await expect(rowNamed(page, 'loop-120.wav').locator('.lib-tag')).toHaveText(['dusty', 'drums']);
    await expect(rowNamed(page, 'loop-120.wav').locator('.lib-corrected')).toHaveText('½×');
    // The box is controlled by the address: its state follows once the navigation commits (slower
    // under load), so click and wait for it rather than demand an immediate change.
    await page.getByLabel('Favourites only').click();
    await expect(page.getByLabel('Favourites only')).toBeChecked();
    await expect(libraryRows(page)).toHaveCount(1);
    await page.goto('/library');
  });

  await test.step('no horizontal scrolling at 390, 768 and 1440 px; screenshots', async () => {
    for (const [width, height] of [
      [390, 844],
      [768, 1024],
      [1440, 900],
    ] as const) {
      await page.setViewportSize({ width, height });
      expect(await misplacedRows(page)).toEqual([]);
      await rowNamed(page, 'loop-120.wav').click();
      expect(await misplacedRows(page)).toEqual([]);
      await expectNoHorizontalOverflow(page);
      await saveScreenshot(page, `library-${width}`);
    }
  });

  expect(errors).toEqual([]);
});

test('analyse: a file is uploaded once, every other analysis asked by hash', async ({ page, server }) => {
  test.setTimeout(120_000);
  const producer = await createProducer(server.url, server.adminToken, 'analyse-once-producer');
  await signInBeforeLoad(page, producer.token);
  const audio = recordAudioRequests(page);
  await page.goto('/analyse');
  const file = encodeWav([monoDrumLoop(rate, 124, 8)], rate);
  await page.getByTestId('file-input').setInputFiles({ name: 'once.wav', mimeType: 'audio/wav', buffer: file });
  await expect(page.getByText('Role, emotion, features')).toBeVisible();
  // Every panel's request answered.
  await expect.poll(() => audio.requests.filter((r) => r.method() === 'POST').length, { timeout: 60_000 }).toBeGreaterThanOrEqual(8);
  await page.waitForLoadState('networkidle');
  const posts = audio.requests.filter((r) => r.method() === 'POST');
  const uploads = posts.filter((r) => new URL(r.url()).pathname === '/audio/v1/library/items');
  expect(uploads).toHaveLength(1);
  expect(posts.filter((r) => r !== uploads[0]).every((r) => new URL(r.url()).searchParams.get('sha256')?.length === 64)).toBe(true);
  expect(await uploadedBytes(server.url, producer.token)).toBe(file.length);
});

test('batch: 100 files complete with one upload each and stay in the library after a reload', async ({ page, server }) => {
  test.setTimeout(600_000);
  const producer = await createProducer(server.url, server.adminToken, 'batch-100-producer');
  await signInBeforeLoad(page, producer.token);
  const audio = recordAudioRequests(page);
  await page.goto('/batch');
  // 100 different 0.3 s tones (a different pitch each, so no two files share a hash).
  const files = Array.from({ length: 100 }, (_, i) => ({
    name: `tone-${String(i + 1).padStart(3, '0')}.wav`,
    mimeType: 'audio/wav',
    buffer: encodeWav([sine(rate, 0.3, 200 + i * 7, 0.5)], rate),
  }));
  await page.getByTestId('file-input').setInputFiles(files);
  await expect(page.getByRole('progressbar', { name: 'Batch finished' })).toHaveAttribute('aria-valuenow', '100', { timeout: 540_000 });
  const posts = audio.requests.filter((r) => r.method() === 'POST');
  expect(posts.filter((r) => new URL(r.url()).pathname === '/audio/v1/library/items')).toHaveLength(100);
  expect(await uploadedBytes(server.url, producer.token)).toBe(files.reduce((sum, f) => sum + f.buffer.length, 0));

  await page.goto('/library');
  await expect(page.getByText('100 items')).toBeVisible();
  await page.reload();
  await expect(page.getByText('100 items')).toBeVisible();
});

test('batch: the server going away pauses the batch; it resumes when the server is back', async ({ page, server }) => {
  test.setTimeout(240_000);
  const producer = await createProducer(server.url, server.adminToken, 'batch-offline-producer');
  await signInBeforeLoad(page, producer.token);
  await page.goto('/batch');
  const files = Array.from({ length: 8 }, (_, i) => ({
    name: `pause-${i + 1}.wav`,
    mimeType: 'audio/wav',
    buffer: encodeWav([sine(rate, 0.5, 300 + i * 11, 0.5)], rate),
  }));
  // Signed in and on Batch first: a stop before the page's own sign-in check answered leaves it on the sign-in form.
  await page.getByTestId('file-input').waitFor({ state: 'attached' });
  // The server "stops": every request to it fails at the network level, as a stopped server's would.
  await page.route('**/audio/v1/**', (route) => route.abort('connectionrefused'));
  await page.getByTestId('file-input').setInputFiles(files);
  await expect(page.getByText('Paused: server offline.')).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Batch paused' })).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Batch finished' })).toHaveCount(0);
  await expect(page.getByText('Failed', { exact: true })).toHaveCount(0);
  await expect(page.getByText('Waiting for the server to come back.')).toHaveCount(8);
  await saveScreenshot(page, 'batch-paused-offline');
  for (const [width, height] of [
    [390, 844],
    [768, 1024],
  ] as const) {
    await page.setViewportSize({ width, height });
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, `batch-paused-offline-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.unroute('**/audio/v1/**');
  // Back by itself (the health check every 3 s), then finished.
  await expect(page.getByText('Paused: server offline.')).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByRole('progressbar', { name: 'Batch finished' })).toHaveAttribute('aria-valuenow', '100', { timeout: 180_000 });
});
