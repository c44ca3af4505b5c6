import type { Locator, Page } from '@playwright/test';
import { encodeWav } from '../server/test-support/signals.js';
import { musicLoop } from '../server/test-support/drums.js';
import { monoDrumLoop } from './support/audio-fixtures.js';
import { expect, saveScreenshot, test as base } from './support/fixtures.js';
import { postAudio, signInBeforeLoad } from './support/session.js';
import { collectPageErrors, expectNoHorizontalOverflow } from './support/page-checks.js';

// The Analyse screen, walked as a producer would: choose a synthesized 124 BPM drum loop, read the
// results off the page, compare them with the API's own answers, and use the controls.

/**
 * This file's tests analyse audio as root, which the usage figures of other specs would then count.
 * A worker fixture of its own gives the file its own worker, hence its own fresh server.
 */
const test = base.extend<object, { ownServer: void }>({
  // Playwright reads the fixtures a function uses from its first parameter, so it must be a pattern.
  // eslint-disable-next-line no-empty-pattern
  ownServer: [async ({}, use) => use(), { scope: 'worker', auto: true }],
});

const BPM = 124;
const loop = encodeWav([monoDrumLoop(44100, BPM, 2)], 44100);
const loopName = 'loop-124.wav';
/** One frame at 60 Hz: the draw budget `npm run bench:gui` holds the main-thread draws to. */
const frameMs = 16.7;
const drawBudget = process.env.CRATEHOUSE_BENCH_GUI === '1';
// Bytes that are no audio format at all, in a file that claims to be a WAV.
const corrupt = Buffer.from('This is a text file with a .wav name, not audio. '.repeat(40));

/** The API's own answer for a file, fetched independently of the page. */
async function apiAnswer<T>(url: string, token: string, route: string, file: Buffer, name: string): Promise<{ status: number; body: T }> {
  const response = await postAudio(url, token, route, file, name);
  return { status: response.status, body: (await response.json()) as T };
}

/** The page's text for a number, as a JS number (the UI writes a real minus sign). */
const numberOf = (text: string | null) => Number((text ?? '').replace('\u2212', '-').trim());

/** "0:01.94" → 1.94. */
const secondsOf = (clock: string | null) => {
  const [minutes = '0', seconds = '0'] = (clock ?? '').trim().split(':');
  return Number(minutes) * 60 + Number(seconds);
};

async function drawMeasures(page: Page): Promise<{ name: string; duration: number }[]> {
  return page.evaluate(() =>
    performance
      .getEntriesByType('measure')
      .filter((entry) => entry.name.startsWith('cratehouse:'))
      .map((entry) => ({ name: entry.name, duration: entry.duration })),
  );
}

const canvasImage = (canvas: Locator) => canvas.evaluate((element) => (element as unknown as { toDataURL(): string }).toDataURL());

/** Screenshots of the top and of the result cards, in one colour scheme and size. */
async function screenshots(page: Page, scheme: 'dark' | 'light', width: number, height: number): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await page.setViewportSize({ width, height });
  await page.evaluate(() => window.scrollTo(0, 0));
  await expectNoHorizontalOverflow(page);
  await saveScreenshot(page, `analyse-top-${scheme}-${width}`);
  await page.getByRole('region', { name: 'Grade' }).scrollIntoViewIfNeeded();
  await page
    .getByRole('region', { name: 'Spectrogram' })
    .evaluate((element) => (element as unknown as { scrollIntoView(): void }).scrollIntoView());
  await saveScreenshot(page, `analyse-middle-${scheme}-${width}`);
  await page
    .getByRole('region', { name: 'Features' })
    .evaluate((element) => (element as unknown as { scrollIntoView(): void }).scrollIntoView());
  await saveScreenshot(page, `analyse-bottom-${scheme}-${width}`);
}

/** The role card at a laptop's and a phone's width: nothing overflows, and a screenshot of each. */
async function roleScreenshots(page: Page, what: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await expectNoHorizontalOverflow(page);
    await page
      .getByRole('region', { name: 'Role and name' })
      .evaluate((element) => (element as unknown as { scrollIntoView(): void }).scrollIntoView());
    await saveScreenshot(page, `analyse-role-${what}-${width}`);
  }
}

// e2e/ is type-checked without DOM types; this callback runs in the page, where window exists.
declare const window: { scrollTo(x: number, y: number): void };

test('analyses a drum loop: tempo, loudness, grade, name, spectrogram, playback and draw timings', async ({ page, server }) => {
  test.setTimeout(120_000);
  const errors = collectPageErrors(page);
  await signInBeforeLoad(page, server.adminToken);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/analyse');

  await test.step('the empty screen says what to do', async () => {
    await expect(page.getByText('Drop an audio file here')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Choose a file…' })).toBeVisible();
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'analyse-empty-dark-1280');
  });

  await page.getByTestId('file-input').setInputFiles({ name: loopName, mimeType: 'audio/wav', buffer: loop });

  await test.step('progress per request while the analyses run', async () => {
    const requests = page.getByRole('list', { name: 'Requests' });
    await expect(requests.getByRole('listitem')).toHaveCount(7);
    await expect(requests.getByRole('listitem').filter({ hasText: 'Waveform' })).toBeVisible();
    await expect(requests.locator('[data-status="done"]')).toHaveCount(7, { timeout: 90_000 });
  });

  const tier = await page.getByTestId('grade-tier').textContent();
  // The loop is shorter than the 30 s head: the grade read all of it, and says so.
  await expect(page.getByTestId('grade-scope')).toHaveText(/^Graded the whole file \(\d+(\.\d)? s\)$/);
  const lufs = numberOf(await page.getByTestId('integrated-lufs').textContent());
  const clipLufs = numberOf(await page.getByTestId('clip-lufs').textContent());
  const name = await page.getByTestId('suggested-name').textContent();
  const tempo = numberOf(await page.getByTestId('tempo').textContent());

  await test.step('the figures match the API and the loop as synthesized', async () => {
    const [grade, loudness, naming, onsets, samples] = await Promise.all([
      apiAnswer<{ tier: string }>(server.url, server.adminToken, 'grade', loop, loopName),
      apiAnswer<{ integrated_lufs: number; clip_lufs: number }>(server.url, server.adminToken, 'loudness', loop, loopName),
      apiAnswer<{ name: string }>(server.url, server.adminToken, 'naming?index=1', loop, loopName),
      apiAnswer<{ tempo_bpm: number }>(server.url, server.adminToken, 'onsets', loop, loopName),
      apiAnswer<{ role: string; confidence: number; runner_up: { role: string; confidence: number }; reasons: string[]; mixture: boolean }>(
        server.url,
        server.adminToken,
        'analyze/samples',
        loop,
        loopName,
      ),
    ]);
    console.log(`page: tier ${tier}, integrated ${lufs} LUFS, name ${name}, tempo ${tempo} BPM`);
    expect(tier).toBe(grade.body.tier);
    expect(lufs).toBeCloseTo(loudness.body.integrated_lufs, 1);
    expect(clipLufs).toBeCloseTo(loudness.body.clip_lufs, 1);
    expect(name).toBe(naming.body.name);
    expect(tempo).toBeCloseTo(onsets.body.tempo_bpm, 1);
    // Known values of the synthesized loop: a seamless 2-bar loop at 124 BPM of kick and hats.
    expect(Math.abs(tempo - BPM)).toBeLessThan(1);
    // Two whole bars whose onsets fit their grid: the tempo comes from the loop length, and the strip says so.
    await expect(page.getByTestId('tempo-source')).toHaveText(/from loop length \(2 bars\)/);
    expect(['S', 'A']).toContain(tier);
    expect(lufs).toBeGreaterThan(-30);
    expect(lufs).toBeLessThan(-15);
    expect(name).toMatch(/^01_percs_[a-z-]+(_[a-z-]+)?$/);
    await expect(page.getByTestId('role')).toHaveText('Percs');
    // The role's reasons, confidence and runner-up as the server words them (a capital added), one per line.
    const role = samples.body;
    expect(role.role).toBe('percs');
    expect(role.reasons.length).toBeGreaterThan(0);
    const reasons = page.getByRole('list', { name: 'Why percs' });
    await expect(reasons.getByRole('listitem')).toHaveText(role.reasons.map((r) => r.charAt(0).toUpperCase() + r.slice(1)));
    await expect(page.getByTestId('role-confidence')).toHaveText(`${Math.round(role.confidence * 100)} %`);
    await expect(page.getByTestId('role-runner-up')).toContainText(role.runner_up.role, { ignoreCase: true });
    // A 4-second loop is no full mix: no mix note, and the probabilities of every role.
    expect(role.mixture).toBe(false);
    await expect(page.getByTestId('role-mixture')).toHaveCount(0);
    await expect(page.getByRole('list', { name: 'Every role' }).getByRole('listitem')).toHaveCount(5);
    // Kick and hats have no key: the headline says so, with the reason.
    await expect(page.getByTestId('key')).toHaveText('no key');
    await expect(page.getByTestId('key-reason')).toHaveText(
      /^(no stable pitch: drums, noise or silence|no key fits clearly \(nearest: [A-G]#? (major|minor)\))$/,
    );
    await expect(page.getByRole('region', { name: 'File' })).toContainText('Mono');
    await expect(page.getByRole('region', { name: 'File' })).toContainText('44.1 kHz');
  });

  await test.step('the waveform and the spectrogram record their draw times (within one frame under npm run bench:gui)', async () => {
    // Wall-clock timings on a shared two-core machine include time the scheduler gives to other
    // processes (the server analysing this very file among them). Speed targets are benchmarks, not
    // test verdicts: `npm test` prints the figures and checks they were recorded; `npm run bench:gui`
    // (CRATEHOUSE_BENCH_GUI=1) also holds them to the frame budget. Up to two more fresh loads of the
    // page (the server answers from its cache) are measured; every attempt is printed, the best counts.
    const mainThread = ['waveform-draw', 'spectrogram-prepare', 'spectrogram-draw'];
    const attempts: Record<string, number>[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      if (attempt > 1) {
        await page.reload();
        await page.getByTestId('file-input').setInputFiles({ name: loopName, mimeType: 'audio/wav', buffer: loop });
      }
      await expect(page.getByRole('slider', { name: 'Playback position' })).toHaveAttribute('data-ready', 'true', { timeout: 60_000 });
      await expect(page.locator('canvas[data-drawn="mel"]')).toBeVisible({ timeout: 60_000 });
      const measures = await drawMeasures(page);
      const figures: Record<string, number> = {};
      for (const m of measures) figures[m.name.replace('cratehouse:', '')] ??= m.duration;
      attempts.push(figures);
      console.log(
        `draw timings, attempt ${attempt}: ${Object.entries(figures)
          .map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`)
          .join(', ')}`,
      );
      for (const name of [...mainThread, 'spectrogram-latency']) expect(figures[name], name).toBeGreaterThan(0);
      if (!drawBudget || mainThread.every((name) => (figures[name] ?? Infinity) < frameMs)) break;
    }
    if (drawBudget) {
      const best = (name: string) => Math.min(...attempts.map((figures) => figures[name] ?? Infinity));
      for (const name of mainThread) expect(best(name), name).toBeLessThan(frameMs);
      // From the answer's commit to pixels, including the worker that maps the 128 000 cells off the
      // main thread (the page stays responsive meanwhile): bounded loosely.
      expect(best('spectrogram-latency')).toBeLessThan(250);
    }
    await expect(page.getByRole('list', { name: 'Requests' }).locator('[data-status="done"]')).toHaveCount(7, { timeout: 90_000 });
  });

  await screenshots(page, 'dark', 1280, 800);
  await roleScreenshots(page, 'loop-dark');

  await test.step('the mel/log toggle changes the spectrogram', async () => {
    const spectrogram = page.getByRole('region', { name: 'Spectrogram' });
    const mel = await canvasImage(spectrogram.locator('canvas'));
    await spectrogram.getByRole('radio', { name: 'Log' }).check();
    await expect(spectrogram.locator('canvas[data-drawn="log"]')).toBeVisible({ timeout: 60_000 });
    await expect(spectrogram.getByRole('radio', { name: 'Log' })).toBeChecked();
    const log = await canvasImage(spectrogram.locator('canvas'));
    expect(log).not.toBe(mel);
    const measures = (await drawMeasures(page)).filter(
      (m) => m.name === 'cratehouse:spectrogram-draw' || m.name === 'cratehouse:spectrogram-latency',
    );
    expect(measures.length).toBeGreaterThanOrEqual(4);
    for (const m of measures.slice(-2)) console.log(`draw timing ${m.name} (log): ${m.duration.toFixed(2)} ms`);
    const draw = measures.filter((m) => m.name === 'cratehouse:spectrogram-draw').at(-1);
    expect(draw?.duration).toBeGreaterThan(0);
    if (drawBudget) expect(draw?.duration).toBeLessThan(frameMs);
  });

  await test.step('clicking the waveform seeks; the arrow keys move by a beat', async () => {
    const slider = page.getByRole('slider', { name: 'Playback position' });
    const duration = Number(await slider.getAttribute('aria-valuemax'));
    expect(duration).toBeCloseTo((2 * 4 * 60) / BPM, 1);
    const box = await slider.boundingBox();
    if (!box) throw new Error('the waveform has no box');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(async () => secondsOf(await page.getByTestId('playhead-time').textContent())).toBeGreaterThan(duration / 2 - 0.1);
    const afterClick = secondsOf(await page.getByTestId('playhead-time').textContent());
    expect(afterClick).toBeLessThan(duration / 2 + 0.1);
    await expect(slider).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => secondsOf(await page.getByTestId('playhead-time').textContent())).toBeCloseTo(afterClick + 60 / tempo, 1);
    await expect(slider).not.toHaveCSS('outline-style', 'none');
    await page.keyboard.press('Home');
    await expect(page.getByTestId('playhead-time')).toHaveText('0:00.00');
  });

  await test.step('zoom in and back to fit', async () => {
    const waveformPanel = page.getByRole('region', { name: 'Waveform' });
    await waveformPanel.getByRole('button', { name: 'Zoom in' }).click();
    await expect(waveformPanel.getByText('2×', { exact: true })).toBeVisible();
    await waveformPanel.getByRole('button', { name: 'Fit' }).click();
    await expect(waveformPanel.getByText('1×', { exact: true })).toBeVisible();
  });

  await test.step('the index control changes the name prefix', async () => {
    const index = page.getByLabel('Index', { exact: true });
    await index.fill('7');
    await expect(page.getByTestId('suggested-name')).toHaveText(/^07_/, { timeout: 60_000 });
    const naming = await apiAnswer<{ name: string }>(server.url, server.adminToken, 'naming?index=7', loop, loopName);
    await expect(page.getByTestId('suggested-name')).toHaveText(naming.body.name);
    expect(naming.body.name.slice(3)).toBe((name ?? '').slice(3));
  });

  await screenshots(page, 'light', 1280, 800);
  await screenshots(page, 'dark', 1920, 1080);
  await screenshots(page, 'light', 1920, 1080);
  expect(errors).toEqual([]);
});

/** Where the parts of the Analyse screen are (top and height in px), to compare before and after the answers arrive. */
async function screenLayout(page: Page): Promise<Record<string, { readonly top: number; readonly height: number }>> {
  const parts = {
    file: page.getByRole('region', { name: 'File' }),
    requests: page.getByRole('list', { name: 'Requests' }),
    waveform: page.getByRole('region', { name: 'Waveform' }),
    spectrogram: page.getByRole('region', { name: 'Spectrogram' }),
    loudness: page.getByRole('region', { name: 'Loudness' }),
    grade: page.getByRole('region', { name: 'Grade' }),
  };
  const layout: Record<string, { top: number; height: number }> = {};
  for (const [name, locator] of Object.entries(parts)) {
    const box = await locator.boundingBox();
    if (!box) throw new Error(`${name} is not on the page`);
    layout[name] = { top: Math.round(box.y * 10) / 10, height: Math.round(box.height * 10) / 10 };
  }
  return layout;
}

test('one upload bar while the file goes up; the panels wait without moving', async ({ page, server }) => {
  test.setTimeout(90_000);
  const errors = collectPageErrors(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInBeforeLoad(page, server.adminToken);
  await page.goto('/analyse');
  // A slow uplink (Chromium's own throttling, 50 kB/s) keeps the 342 kB loop uploading for ~7 s, long enough to look at.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 50_000 });
  await page.getByTestId('file-input').setInputFiles({ name: loopName, mimeType: 'audio/wav', buffer: loop });

  const upload = page.getByRole('progressbar', { name: 'Uploading to the server' });
  await expect(upload).toBeVisible();
  // One bar for the one upload: no panel has a bar of its own.
  await expect(page.getByRole('progressbar')).toHaveCount(1);
  await expect(page.getByText('Waiting for the upload.').first()).toBeVisible();
  expect(await page.getByText('Waiting for the upload.').count()).toBeGreaterThanOrEqual(5);
  const requests = page.getByRole('list', { name: 'Requests' });
  await expect(requests.locator('[data-status="uploading"]')).toHaveCount(7);
  await expect(requests.locator('[data-status="uploading"]').first()).toContainText('uploading');
  // The waiting pills are still: only a request the server is working on is drawn as busy.
  await expect(requests.locator('.an-request-busy')).toHaveCount(0);
  await expect.poll(async () => Number(await upload.getAttribute('aria-valuenow')), { timeout: 10_000 }).toBeGreaterThan(0);
  const waiting = await screenLayout(page);
  await saveScreenshot(page, 'analyse-uploading-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(upload).toBeVisible();
  await expectNoHorizontalOverflow(page);
  await saveScreenshot(page, 'analyse-uploading-390');
  await page.setViewportSize({ width: 1280, height: 800 });

  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(requests.locator('[data-status="done"]')).toHaveCount(7, { timeout: 60_000 });
  await expect(page.locator('canvas[data-drawn="mel"]')).toBeVisible();
  await expect(page.getByRole('slider', { name: 'Playback position' })).toHaveAttribute('data-ready', 'true');
  await expect(page.getByRole('progressbar', { name: 'Uploading to the server' })).toHaveCount(0);
  await expect(page.getByTestId('upload-held')).toHaveText(/On the server/);
  // Nothing moved while the answers arrived: the upload's row stayed, the pills kept their size, and the
  // waveform and spectrogram panels were as tall while waiting as with their views (analyse.css); a move
  // would repaint the page below it. The cards below them grow downwards with their answers.
  const filled = await screenLayout(page);
  expect(filled).toEqual({
    ...waiting,
    loudness: { ...waiting.loudness, height: filled.loudness!.height },
    grade: { ...waiting.grade, height: filled.grade!.height },
  });
  await saveScreenshot(page, 'analyse-filled-1280');
  expect(errors).toEqual([]);
});

test('a full mix: a low confidence, the reasons, a "full mix" note and the share of each role', async ({ page, server }) => {
  test.setTimeout(180_000);
  // 8 bars at 120 BPM (16 s) of drums, bass and chords together: a track, not a sample.
  const mix = encodeWav(musicLoop({ bpm: 120, bars: 8, sampleRate: 44100 }).channels, 44100);
  const api = await apiAnswer<{
    role: string;
    confidence: number;
    reasons: string[];
    mixture: boolean;
    shares: Record<string, number> | null;
  }>(server.url, server.adminToken, 'analyze/samples', mix, 'mix.wav');
  expect(api.body.mixture).toBe(true);
  const shares = api.body.shares ?? {};
  await signInBeforeLoad(page, server.adminToken);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/analyse');
  await page.getByTestId('file-input').setInputFiles({ name: 'mix.wav', mimeType: 'audio/wav', buffer: mix });
  await expect(page.getByTestId('role-mixture')).toBeVisible({ timeout: 150_000 });
  await expect(page.getByTestId('role-mixture')).toContainText('Full mix');
  await expect(page.getByTestId('role-confidence')).toHaveText(`${Math.round(api.body.confidence * 100)} %`);
  const reasons = page.getByTestId('role-reasons').getByRole('listitem');
  await expect(reasons).toHaveText(api.body.reasons.map((r) => r.charAt(0).toUpperCase() + r.slice(1)));
  await expect(reasons.first()).toContainText('full mix');
  // The shares, largest first, instead of the probabilities.
  const order = Object.entries(shares).sort((a, b) => b[1] - a[1]);
  const rows = page.getByRole('list', { name: 'Share of the mix' }).getByRole('listitem');
  const percent = (share: number) => (share > 0 && share < 0.005 ? '< 1 %' : `${Math.round(share * 100)} %`);
  await expect(rows).toHaveText(order.map(([role, share]) => new RegExp(`^${role}\\s*${percent(share)}$`, 'i')));
  await expect(page.getByRole('list', { name: 'Every role' })).toHaveCount(0);
  await roleScreenshots(page, 'mix-light');
});

test('a one-shot under 400 ms: no integrated loudness, the ungated clip loudness instead, labelled as such', async ({ page, server }) => {
  test.setTimeout(120_000);
  // 250 ms of a 1 kHz sine at −20 dBFS: shorter than one BS.1770 gating block.
  const rate = 44100;
  const hit = encodeWav(
    [Float32Array.from({ length: Math.round(0.25 * rate) }, (_, i) => 0.1 * Math.sin((2 * Math.PI * 1000 * i) / rate))],
    rate,
  );
  const api = await apiAnswer<{ integrated_lufs: number | null; clip_lufs: number }>(
    server.url,
    server.adminToken,
    'loudness',
    hit,
    'hit.wav',
  );
  expect(api.body.integrated_lufs).toBeNull();
  expect(api.body.clip_lufs).toBeCloseTo(-23, 0);
  await signInBeforeLoad(page, server.adminToken);
  await page.goto('/analyse');
  await page.getByTestId('file-input').setInputFiles({ name: 'hit.wav', mimeType: 'audio/wav', buffer: hit });
  await expect(page.getByTestId('clip-lufs')).not.toHaveText('—', { timeout: 60_000 });
  expect(numberOf(await page.getByTestId('clip-lufs').textContent())).toBeCloseTo(api.body.clip_lufs, 1);
  await expect(page.getByTestId('integrated-lufs')).toHaveText('—');
  await expect(page.getByText('Clip loudness (ungated)')).toBeVisible();
  await expect(page.getByText(/Shorter than one 400 ms gating block/)).toBeVisible();
});

test('a file that is not audio shows the server’s sentence next to the file', async ({ page, server }) => {
  test.setTimeout(120_000);
  const api = await apiAnswer<{ detail: string }>(server.url, server.adminToken, 'loudness', corrupt, 'notes.wav');
  expect(api.status).toBe(415);
  await signInBeforeLoad(page, server.adminToken);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/analyse');
  await page.getByTestId('file-input').setInputFiles({ name: 'notes.wav', mimeType: 'audio/wav', buffer: corrupt });
  const problem = page.getByRole('alert').filter({ hasText: 'This file could not be analysed.' });
  await expect(problem).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('file-problem')).toHaveText(api.body.detail);
  // The other requests stop: each panel says why it has nothing.
  await expect(page.getByRole('list', { name: 'Requests' }).locator('[data-status="failed"]').first()).toBeVisible();
  await expect(page.getByRole('region', { name: 'Grade' })).toContainText(/could not|Not analysed/);
  // Nothing will arrive: the waveform and spectrogram panels keep no empty frame for their views.
  await expect(page.getByRole('region', { name: 'Waveform' })).toContainText(/could not|Not analysed/);
  await expect(page.getByRole('region', { name: 'Spectrogram' })).toContainText(/could not|Not analysed/);
  await expect(page.locator('.an-view-pending')).toHaveCount(0);
  await expectNoHorizontalOverflow(page);
  await saveScreenshot(page, 'analyse-corrupt-dark-1280');
});
