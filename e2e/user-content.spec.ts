import type { Page } from '@playwright/test';
import { encodeWav, sine } from '../server/test-support/signals.js';
import { expect, test } from './support/fixtures.js';
import { collectCspViolations, collectPageErrors } from './support/page-checks.js';
import { createProducer, signInBeforeLoad } from './support/session.js';

// Uploaded files are served on the GUI's origin. Opened in the browser (as a person clicking a link
// to one in a public project would: a browser's navigation carries no token), a file with script
// must not run it there; and the GUI itself must still work under its own Content-Security-Policy.

// e2e/ is type-checked without DOM types; these callbacks run in the page, where these exist.
declare const document: {
  title: string;
  querySelector(selector: string): { naturalWidth?: number; readyState?: number; duration?: number } | null;
};
declare const window: {
  readonly sessionStorage: { getItem(key: string): string | null };
  readonly localStorage: { getItem(key: string): string | null };
};

/** What a script in an upload would do if it ran: call home, mark the page and storage, steal the token. */
const payload = `document.title = 'pwned';
try { localStorage.setItem('pwned', '1'); } catch (e) {}
fetch('/marker-ran?token=' + encodeURIComponent(sessionStorage.getItem('cratehouse.token') || ''));
new Image().src = '/marker-img';`;
const evilHtml = `<!doctype html><html><head><title>harmless</title><script>${payload}</script></head><body onload="fetch('/marker-onload')">hello</body></html>`;
const evilSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="fetch('/marker-svg-onload')"><script>${payload}</script><rect width="10" height="10"/></svg>`;
// A 1×1 PNG, to check that inert images still show inline.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

interface Uploaded {
  readonly name: string;
  readonly url: string;
}

async function uploadAll(
  baseURL: string,
  token: string,
  files: readonly { readonly name: string; readonly bytes: Buffer | string }[],
): Promise<Uploaded[]> {
  const headers = { 'PRIVATE-TOKEN': token };
  const created = await fetch(`${baseURL}/api/v4/projects`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Uploads Probe', visibility: 'public' }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: number };
  const uploaded: Uploaded[] = [];
  for (const file of files) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(Buffer.from(file.bytes))]), file.name);
    const res = await fetch(`${baseURL}/api/v4/projects/${id}/uploads`, { method: 'POST', headers, body: form });
    expect(res.status).toBe(201);
    uploaded.push({ name: file.name, url: ((await res.json()) as { full_path: string }).full_path });
  }
  return uploaded;
}

/** Requests a script in an upload would send, if it ran. */
function watchMarkers(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/marker')) seen.push(request.url());
  });
  return seen;
}

test('uploaded HTML and SVG with script never run on the GUI origin; inert media still shows', async ({ page, server }) => {
  test.setTimeout(60_000);
  const producer = await createProducer(server.url, server.adminToken, 'uploader');
  const files = await uploadAll(server.url, producer.token, [
    { name: 'evil.html', bytes: evilHtml },
    { name: 'evil.svg', bytes: evilSvg },
    // Script in bytes named as an image: nosniff keeps it an image, the sandbox keeps it scriptless.
    { name: 'evil.png', bytes: evilSvg },
    { name: 'cover.png', bytes: png },
    { name: 'tone.wav', bytes: encodeWav([sine(44_100, 0.5, 440, 0.5)], 44_100) },
  ]);
  const url = (name: string) => files.find((f) => f.name === name)!.url;
  const markers = watchMarkers(page);
  await signInBeforeLoad(page, producer.token);
  await page.goto('/');
  await expect(page.getByRole('navigation', { name: 'Screens' })).toBeVisible();

  for (const name of ['evil.html', 'evil.svg']) {
    await test.step(`${name} opened at its URL is a download, not a page`, async () => {
      const download = page.waitForEvent('download', { timeout: 10_000 });
      // A navigation that turns into a download is aborted, so goto rejects: the download is the answer.
      await page.goto(url(name)).catch(() => undefined);
      expect((await download).suggestedFilename()).toBe(name);
      expect(new URL(page.url()).pathname).toBe('/');
      expect(await page.evaluate(() => document.title)).not.toBe('pwned');
    });
  }

  await test.step('script in bytes named .png shows as a (broken) image and runs nothing', async () => {
    const response = await page.goto(url('evil.png'));
    expect(response?.headers()['content-type']).toBe('image/png');
    expect(await page.evaluate(() => document.title)).not.toBe('pwned');
  });

  await test.step('a real PNG shows inline under the sandbox policy', async () => {
    const response = await page.goto(url('cover.png'));
    expect(response?.headers()['content-security-policy']).toContain('sandbox');
    await expect.poll(() => page.evaluate(() => document.querySelector('img')?.naturalWidth ?? 0)).toBe(1);
  });

  await test.step('a WAV plays inline under the sandbox policy', async () => {
    const response = await page.goto(url('tone.wav'));
    expect(response?.headers()['content-security-policy']).toMatch(/^sandbox /);
    await expect.poll(() => page.evaluate(() => document.querySelector('video, audio')?.readyState ?? 0)).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate(() => document.querySelector('video, audio')?.duration ?? 0)).toBeCloseTo(0.5, 1);
  });

  await test.step("nothing ran: no call home, nothing written to the origin's storage", async () => {
    await page.goto('/');
    await expect(page.getByRole('navigation', { name: 'Screens' })).toBeVisible();
    expect(await page.evaluate(() => window.localStorage.getItem('pwned'))).toBeNull();
    expect(markers).toEqual([]);
  });
});

test('the GUI works under its Content-Security-Policy: no violations on the main screens', async ({ page, server }) => {
  test.setTimeout(90_000);
  const violations = collectCspViolations(page);
  const errors = collectPageErrors(page);
  const producer = await createProducer(server.url, server.adminToken, 'csp-walker');
  await signInBeforeLoad(page, producer.token);
  const response = await page.goto('/');
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  const screens = page.getByRole('navigation', { name: 'Screens' });
  await expect(screens).toBeVisible();
  // The token is this tab's, not the origin's.
  expect(await page.evaluate(() => window.localStorage.getItem('cratehouse.token'))).toBeNull();
  expect(await page.evaluate(() => window.sessionStorage.getItem('cratehouse.token'))).toBe(producer.token);

  await test.step('Analyse: a file, its waveform (blob: media), spectrogram (worker) and playback', async () => {
    await screens.getByRole('link', { name: 'Analyse' }).click();
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'tone.wav', mimeType: 'audio/wav', buffer: encodeWav([sine(44_100, 2, 440, 0.5)], 44_100) });
    await expect(page.getByRole('list', { name: 'Requests' }).locator('[data-status="done"]')).toHaveCount(7, { timeout: 60_000 });
    await expect(page.getByRole('region', { name: 'Spectrogram' }).locator('canvas').first()).toBeVisible();
    await page.getByRole('button', { name: /^Play/ }).first().click();
    await page
      .getByRole('button', { name: /^Pause/ })
      .first()
      .click()
      .catch(() => undefined);
  });

  for (const name of ['Batch', 'Sources', 'Projects', 'Settings', 'Home']) {
    await test.step(name, async () => {
      await screens.getByRole('link', { name }).click();
      await expect(page.getByRole('main')).toBeVisible();
      await page.waitForLoadState('networkidle');
    });
  }
  expect(violations).toEqual([]);
  expect(errors).toEqual([]);
});
