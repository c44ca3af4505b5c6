import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import type { Download, Locator, Page } from '@playwright/test';
import { encodeWav, sine } from '../server/test-support/signals.js';
import { monoDrumLoop } from './support/audio-fixtures.js';
import { expect, saveScreenshot, test } from './support/fixtures.js';
import { createProducer, postAudio, signInBeforeLoad } from './support/session.js';
import { collectPageErrors, expectNoHorizontalOverflow } from './support/page-checks.js';

// The Batch screen, black box: five synthesized files through the real server, then the table,
// sorting, filtering, exports and "apply names" (a zip in the browser) checked against the API.

const rate = 44_100;

/** A soft A-minor chord that swells in and out: sustained, quiet material. */
function quietPad(seconds: number): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  const freqs = [220, 261.63, 329.63];
  for (let i = 0; i < out.length; i++) {
    const t = i / rate;
    const swell = Math.sin((Math.PI * i) / out.length);
    out[i] = freqs.reduce((sum, f) => sum + Math.sin(2 * Math.PI * f * t), 0) * 0.012 * swell;
  }
  return out;
}

interface Fixture {
  readonly name: string;
  readonly buffer: Buffer;
  readonly bpm?: number;
}

// Tempos whose double is above the detector's 60–200 BPM range: a kick on every beat with a hat
// on every off-beat is an even eighth-note pulse, and a 90 BPM loop reads as 180.
const fixtures: readonly Fixture[] = [
  { name: 'loop-120.wav', buffer: encodeWav([monoDrumLoop(rate, 120, 4)], rate), bpm: 120 },
  { name: 'loop-105.wav', buffer: encodeWav([monoDrumLoop(rate, 105, 4)], rate), bpm: 105 },
  { name: 'loop-140.wav', buffer: encodeWav([monoDrumLoop(rate, 140, 4)], rate), bpm: 140 },
  { name: 'sub-bass.wav', buffer: encodeWav([sine(rate, 3, 55, 0.7)], rate) },
  { name: 'quiet-pad.wav', buffer: encodeWav([quietPad(6)], rate) },
];

const columns = ['Status', 'Role', 'Tier', 'LUFS', 'Clip LUFS', 'Peak', 'BPM', 'Key', 'Suggested name'] as const;
type Column = (typeof columns)[number];

const table = (page: Page) => page.getByRole('region', { name: 'Files in the batch' });
const rows = (page: Page) => table(page).locator('tbody tr');
const rowOf = (page: Page, name: string) => rows(page).filter({ has: page.getByRole('rowheader', { name, exact: true }) });
/** A value cell of a finished row (the row header is the file name; cells follow in `columns` order). */
const cell = (row: Locator, column: Column) => row.locator('td').nth(columns.indexOf(column));

async function api<T>(baseURL: string, token: string, route: string, fixture: Fixture): Promise<T> {
  const response = await postAudio(baseURL, token, route, fixture.buffer, fixture.name);
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`${route} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function downloadText(download: Download): Promise<string> {
  return readFile(await download.path(), 'utf8');
}

const oneDecimal = (value: number) => value.toFixed(1);

test('batch: analyse five files, sort, filter, export and apply names', async ({ page, server }) => {
  test.setTimeout(240_000);
  const errors = collectPageErrors(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  const producer = await createProducer(server.url, server.adminToken, 'batch-producer');
  await signInBeforeLoad(page, producer.token);
  await page.goto('/batch');

  await test.step('the empty state says what to do', async () => {
    await expect(page.getByText('No files in the batch yet')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Choose files…' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Choose a folder…' })).toBeVisible();
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'batch-empty-dark');
  });

  await test.step('five files are queued and analysed, two at a time', async () => {
    // Files finish in a fraction of a second here, faster than a poll from the test can sample, so the
    // page itself records every change of the rows: the most that ran at once and the progress bars shown.
    // (A string: the e2e project is typed without the DOM library.)
    await page.evaluate(`(() => {
      const seen = { most: 0, labels: [] };
      window.batchSeen = seen;
      new MutationObserver(() => {
        seen.most = Math.max(seen.most, document.querySelectorAll('tbody tr[data-status="running"]').length);
        for (const bar of document.querySelectorAll('tbody [role="progressbar"]')) {
          const label = bar.getAttribute('aria-label') ?? '';
          if (!seen.labels.includes(label)) seen.labels.push(label);
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status', 'aria-label'] });
    })()`);
    await page.getByTestId('file-input').setInputFiles(fixtures.map((f) => ({ name: f.name, mimeType: 'audio/wav', buffer: f.buffer })));
    await expect(rows(page)).toHaveCount(5);
    await saveScreenshot(page, 'batch-running-dark');
    // Wait until the batch is finished; never more than two files run at once (sampled here too).
    const statuses = () => rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')));
    const deadline = Date.now() + 200_000;
    for (;;) {
      const now = await statuses();
      expect(now.filter((status) => status === 'running').length, `statuses ${now.join(', ')}`).toBeLessThanOrEqual(2);
      if (now.every((status) => status === 'done' || status === 'failed')) break;
      expect(Date.now(), 'the batch finishes in time').toBeLessThan(deadline);
      await page.waitForTimeout(50);
    }
    const seen = (await page.evaluate('window.batchSeen')) as { most: number; labels: string[] };
    expect(seen.most, 'files running at once').toBe(2);
    expect(
      seen.labels.some((label) => /^loop-120\.wav: /.test(label)),
      `progress bars shown: ${seen.labels.join(' | ')}`,
    ).toBe(true);
    await expect(page.getByRole('progressbar', { name: 'Batch finished' })).toBeVisible();
    await expect(rows(page).and(page.locator('[data-status="done"]'))).toHaveCount(5);
    await expect(page.getByRole('progressbar', { name: 'Batch finished' })).toHaveAttribute('aria-valuenow', '100');
  });

  const suggested = new Map<string, string>();
  await test.step('the table shows what the API answers', async () => {
    const loop = fixtures[0] as Fixture;
    const loudness = await api<{ integrated_lufs: number; clip_lufs: number; true_peak_dbtp: number }>(
      server.url,
      producer.token,
      'loudness',
      loop,
    );
    const naming = await api<{ name: string }>(server.url, producer.token, 'naming?index=1', loop);
    const analysis = await api<{
      sample: { role: string };
      features: { rhythm?: { tempo_bpm: number | null }; chroma: { key: string | null; mode: string | null } };
    }>(server.url, producer.token, 'analyze', loop);
    const row = rowOf(page, loop.name);
    await expect(cell(row, 'LUFS')).toHaveText(oneDecimal(loudness.integrated_lufs));
    await expect(cell(row, 'Clip LUFS')).toHaveText(oneDecimal(loudness.clip_lufs));
    await expect(table(page).getByRole('columnheader', { name: 'Clip loudness (ungated), LUFS' })).toBeVisible();
    await expect(cell(row, 'Peak')).toHaveText(oneDecimal(loudness.true_peak_dbtp));
    await expect(cell(row, 'Role')).toHaveText(analysis.sample.role);
    await expect(cell(row, 'Suggested name')).toHaveText(naming.name);
    expect(naming.name).toMatch(/^01_/);

    // Tempo of each drum loop is the tempo it was synthesized at.
    for (const fixture of fixtures.filter((f) => f.bpm)) {
      const tempo = Number(await cell(rowOf(page, fixture.name), 'BPM').textContent());
      expect(Math.abs(tempo - (fixture.bpm ?? 0)), `${fixture.name} tempo ${tempo}`).toBeLessThan(2);
    }
    // The names are numbered by position in the batch.
    for (const [i, fixture] of fixtures.entries()) {
      const name = (await cell(rowOf(page, fixture.name), 'Suggested name').textContent()) ?? '';
      expect(name.startsWith(`${String(i + 1).padStart(2, '0')}_`), `${fixture.name} is named ${name}`).toBe(true);
      suggested.set(fixture.name, name);
    }
    // The quiet pad is the quietest file.
    const pad = Number(await cell(rowOf(page, 'quiet-pad.wav'), 'LUFS').textContent());
    expect(pad).toBeLessThan(-30);
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'batch-done-dark');
  });

  await test.step('sorting by a column is announced and reorders the rows', async () => {
    const header = table(page).getByRole('columnheader', { name: 'Tempo, BPM' });
    await header.getByRole('button').click();
    await expect(header).toHaveAttribute('aria-sort', 'ascending');
    const names = async () => table(page).locator('tbody th').allTextContents();
    // Loops by tempo first, the files without a tempo after them.
    expect((await names()).slice(0, 3)).toEqual(['loop-105.wav', 'loop-120.wav', 'loop-140.wav']);
    await header.getByRole('button').press('Enter');
    await expect(header).toHaveAttribute('aria-sort', 'descending');
    expect((await names()).slice(0, 3)).toEqual(['loop-140.wav', 'loop-120.wav', 'loop-105.wav']);
    await expect(table(page).getByRole('columnheader', { name: 'File' })).not.toHaveAttribute('aria-sort');

    // By keyboard: from the tier filter, Tab reaches the table's scroll region, then the first sort button, with a visible ring.
    await page.getByLabel('Tier', { exact: true }).focus();
    await page.keyboard.press('Tab');
    await expect(table(page)).toBeFocused();
    await page.keyboard.press('Tab');
    const fileSort = table(page).getByRole('columnheader', { name: 'File' }).getByRole('button');
    await expect(fileSort).toBeFocused();
    await expect(fileSort).not.toHaveCSS('outline-style', 'none');
    await saveScreenshot(page, 'batch-keyboard-dark');
    await page.keyboard.press('Enter');
    await expect(table(page).getByRole('columnheader', { name: 'File' })).toHaveAttribute('aria-sort', 'ascending');
    // Back to the tempo order the next steps expect.
    await header.getByRole('button').click();
    await header.getByRole('button').click();
    await expect(header).toHaveAttribute('aria-sort', 'descending');
  });

  await test.step('filtering by words and by role', async () => {
    await page.getByLabel('Filter', { exact: true }).fill('loop');
    await expect(rows(page)).toHaveCount(3);
    await expect(page.getByText('3 of 5 files shown')).toBeVisible();
    await page.getByLabel('Filter', { exact: true }).fill('');
    const bassRole = await cell(rowOf(page, 'sub-bass.wav'), 'Role').textContent();
    const loopRole = await cell(rowOf(page, 'loop-120.wav'), 'Role').textContent();
    expect(loopRole).not.toBe(bassRole);
    await page.getByLabel('Role', { exact: true }).selectOption(bassRole ?? '');
    await expect(rowOf(page, 'sub-bass.wav')).toHaveCount(1);
    // Every row left has that role; the loop, with another role, is gone.
    for (const role of await rows(page).locator('td:nth-of-type(2)').allTextContents()) expect(role).toBe(bassRole);
    await expect(rowOf(page, 'loop-120.wav')).toHaveCount(0);
    await page.getByRole('button', { name: 'Show all' }).click();
    await expect(rows(page)).toHaveCount(5);
  });

  await test.step('the batch survives a visit to another screen', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Home' }).click();
    await expect(table(page)).toHaveCount(0);
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Batch' }).click();
    await expect(rows(page)).toHaveCount(5);
    await expect(table(page).getByRole('columnheader', { name: 'Tempo, BPM' })).toHaveAttribute('aria-sort', 'descending');
    await expect(cell(rowOf(page, 'loop-120.wav'), 'Suggested name')).toHaveText(suggested.get('loop-120.wav') ?? '');
  });

  await test.step('export CSV', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('cratehouse-batch.csv');
    const lines = (await downloadText(download)).split('\r\n');
    expect(lines[0]).toBe(
      'file,role,role_confidence,tier,score,integrated_lufs,clip_lufs,true_peak_dbtp,tempo_bpm,key,mode,key_confidence,duration_s,graded_s,suggested_name,flags',
    );
    expect(lines.at(-1)).toBe('');
    const data = lines.slice(1, -1).map((line) => line.split(','));
    expect(data).toHaveLength(5);
    // In the table's order (tempo, descending) with the API's raw numbers.
    expect(data.slice(0, 3).map((fields) => fields[0])).toEqual(['loop-140.wav', 'loop-120.wav', 'loop-105.wav']);
    const loop = await api<{ integrated_lufs: number; clip_lufs: number }>(server.url, producer.token, 'loudness', fixtures[0] as Fixture);
    const graded = await api<{ graded_s: number }>(server.url, producer.token, 'grade', fixtures[0] as Fixture);
    const loopRow = data.find((fields) => fields[0] === 'loop-120.wav') ?? [];
    expect(Number(loopRow[5])).toBe(loop.integrated_lufs);
    expect(Number(loopRow[6])).toBe(loop.clip_lufs);
    expect(Number(loopRow[13])).toBe(graded.graded_s);
    expect(loopRow[14]).toBe(suggested.get('loop-120.wav'));
    await expect(page.getByText('Saved cratehouse-batch.csv with 5 files.')).toBeVisible();
  });

  await test.step('export JSON', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    expect(download.suggestedFilename()).toBe('cratehouse-batch.json');
    const parsed = JSON.parse(await downloadText(download)) as {
      files: { file: string; suggested_name: string; tempo_bpm: number | null; tier: string }[];
    };
    expect(parsed.files).toHaveLength(5);
    for (const file of parsed.files) expect(file.suggested_name).toBe(suggested.get(file.file));
    expect(parsed.files.find((f) => f.file === 'loop-105.wav')?.tempo_bpm).toBeCloseTo(105, 0);
  });

  await test.step('apply names: a zip of renamed copies', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Apply names (download zip)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('cratehouse-renamed.zip');
    const files = unzipSync(new Uint8Array(await readFile(await download.path())));
    expect(Object.keys(files).sort()).toEqual([...suggested.values()].map((name) => `${name}.wav`).sort());
    const loopCopy = files[`${suggested.get('loop-120.wav')}.wav`];
    expect(loopCopy && Buffer.from(loopCopy).equals((fixtures[0] as Fixture).buffer)).toBe(true);
    await expect(page.getByText('Saved cratehouse-renamed.zip with 5 renamed copies.')).toBeVisible();
  });

  await test.step('screenshots in both themes and two sizes', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'batch-done-light');
    await page.setViewportSize({ width: 1920, height: 1080 });
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'batch-done-light-1920');
    await page.emulateMedia({ colorScheme: 'dark' });
    await saveScreenshot(page, 'batch-done-dark-1920');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await test.step('a file the server cannot decode fails with its sentence, and can be retried or removed', async () => {
    const broken: Fixture = { name: 'broken.wav', buffer: Buffer.from('this is not audio at all, just text pretending to be a WAV file') };
    const answer = await postAudio(server.url, producer.token, 'loudness', broken.buffer, broken.name);
    const detail = ((await answer.json()) as { detail: string }).detail;
    expect(answer.status).toBe(415);

    await page.getByTestId('file-input').setInputFiles([{ name: broken.name, mimeType: 'audio/wav', buffer: broken.buffer }]);
    const row = rowOf(page, broken.name);
    await expect(row).toHaveAttribute('data-status', 'failed', { timeout: 60_000 });
    await expect(row).toContainText(detail);
    await expect(row.getByRole('button', { name: 'Retry broken.wav' })).toBeVisible();
    await row.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'batch-failed-dark');
    await row.getByRole('button', { name: 'Retry broken.wav' }).click();
    await expect(row).toHaveAttribute('data-status', 'failed', { timeout: 60_000 });
    await row.getByRole('button', { name: 'Remove broken.wav' }).click();
    await expect(rows(page)).toHaveCount(5);
  });

  await test.step('the naming scheme of Settings: with tempo and key, the table and the exports follow', async () => {
    const loop = fixtures[0] as Fixture;
    const analysis = await api<{
      features: { rhythm?: { tempo_bpm: number | null }; chroma: { key: string | null; mode: string | null } };
    }>(server.url, producer.token, 'analyze', loop);
    const tempo = analysis.features.rhythm?.tempo_bpm ?? null;
    expect(tempo).not.toBeNull();
    const { key, mode } = analysis.features.chroma;
    // The scheme's documented form: _<rounded bpm>bpm, then _<key>-<maj|min> with # spelled s (see Settings).
    const keyPart = key && mode ? `_${key.toLowerCase().replace('#', 's')}-${mode.slice(0, 3)}` : '';
    const expected = `${suggested.get(loop.name)}_${Math.round(tempo ?? 0)}bpm${keyPart}`;

    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('radio', { name: 'With tempo and key' }).check();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Batch' }).click();
    await expect(cell(rowOf(page, loop.name), 'Suggested name')).toHaveText(expected);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
    const parsed = JSON.parse(await downloadText(download)) as { files: { file: string; suggested_name: string }[] };
    expect(parsed.files.find((f) => f.file === loop.name)?.suggested_name).toBe(expected);

    // Back to the names as suggested: the table follows at once.
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('radio', { name: 'Role and character' }).check();
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Batch' }).click();
    await expect(cell(rowOf(page, loop.name), 'Suggested name')).toHaveText(suggested.get(loop.name) ?? '');
  });

  await test.step('clearing the list brings back the empty state', async () => {
    await page.getByRole('button', { name: 'Clear list' }).click();
    await expect(page.getByText('No files in the batch yet')).toBeVisible();
  });

  expect(errors).toEqual([]);
});
