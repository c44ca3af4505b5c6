import type { Page } from '@playwright/test';
import { encodeWav } from '../server/test-support/signals.js';
import { monoDrumLoop } from './support/audio-fixtures.js';
import { expect, test as base } from './support/fixtures.js';
import { collectPageErrors } from './support/page-checks.js';
import { signInBeforeLoad } from './support/session.js';

// Every audio screen and the shell at phone, tablet and desktop widths: nothing scrolls sideways, the
// menu is reachable (a Menu button below 960 px: opens, Escape closes and gives focus back), and the
// header does not overlap the content. Full-page screenshots go to test-results/…/responsive-*.png.

/** Its own worker (and server): the analysis below would count in root's usage that other specs read. */
const test = base.extend<object, { ownServer: void }>({
  // eslint-disable-next-line no-empty-pattern
  ownServer: [async ({}, use) => use(), { scope: 'worker', auto: true }],
});

const widths = [
  { width: 360, height: 740 },
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1024, height: 768 },
  { width: 1440, height: 900 },
] as const;

const loop = encodeWav([monoDrumLoop(44100, 120, 2)], 44100);

// e2e/ is type-checked without DOM types; this runs in the page.
declare const document: { readonly documentElement: { readonly scrollWidth: number } };
declare const window: { readonly innerWidth: number };

async function checkShell(page: Page, screen: string, width: number, checkWidth = true): Promise<void> {
  if (checkWidth) {
    const sizes = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(sizes.scroll, `${screen} at ${width} px scrolls sideways`).toBeLessThanOrEqual(sizes.inner);
  }
  const header = await page.getByRole('banner').boundingBox();
  const main = await page.locator('#main').boundingBox();
  expect(header && main && header.y + header.height <= main.y + 0.5, `${screen} at ${width} px: the header overlaps the content`).toBe(
    true,
  );

  const nav = page.getByRole('navigation', { name: 'Screens' });
  const menu = page.getByRole('button', { name: 'Menu' });
  if (width < 960) {
    await expect(nav).toBeHidden();
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await menu.click();
    await expect(menu).toHaveAttribute('aria-expanded', 'true');
    await expect(nav).toBeVisible();
    // Opening moves focus into the menu; every screen is there.
    await expect(nav.getByRole('link', { name: 'Home' })).toBeFocused();
    for (const name of ['Analyse', 'Batch', 'Sources', 'Projects', 'Settings']) await expect(nav.getByRole('link', { name })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath(`responsive-${screen}-${width}-menu.png`) });
    await page.keyboard.press('Escape');
    await expect(nav).toBeHidden();
    await expect(menu).toBeFocused();
  } else {
    await expect(menu).toBeHidden();
    await expect(nav.getByRole('link', { name: 'Settings' })).toBeVisible();
  }
  await page.screenshot({ path: test.info().outputPath(`responsive-${screen}-${width}.png`), fullPage: true });
}

// e2e/ is type-checked without DOM types; this runs in the page.
declare const localStorage: { setItem(key: string, value: string): void };

/** Signed in as root, in the dark theme, with one file in Home's recent analyses. */
async function openSignedIn(page: Page, token: string): Promise<string[]> {
  const errors = collectPageErrors(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await signInBeforeLoad(page, token);
  await page.addInitScript(() =>
    localStorage.setItem(
      'cratehouse.recent-analyses',
      JSON.stringify([
        {
          name: 'a-rather-long-file-name-for-a-phone-120bpm.wav',
          size: 352844,
          at: Date.now() - 90_000,
          durationS: 4,
          role: 'percs',
          tempoBpm: 120,
          key: 'A minor',
        },
      ]),
    ),
  );
  return errors;
}

test('Analyse with a file analysed fits every width', async ({ page, server }) => {
  test.setTimeout(300_000);
  const errors = await openSignedIn(page, server.adminToken);
  await page.setViewportSize(widths[4]);
  await page.goto('/analyse');
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'a-rather-long-file-name-for-a-phone-120bpm.wav', mimeType: 'audio/wav', buffer: loop });
  await expect(page.getByRole('list', { name: 'Requests' }).locator('[data-status="done"]')).toHaveCount(7, { timeout: 120_000 });
  // Resizing keeps the screen (and its analysis) mounted.
  for (const size of widths) {
    await page.setViewportSize(size);
    await page.waitForTimeout(300);
    await checkShell(page, 'analyse', size.width);
  }
  expect(errors).toEqual([]);
});

for (const screen of ['home', 'sources', 'settings'] as const) {
  test(`${screen} fits every width`, async ({ page, server }) => {
    test.setTimeout(300_000);
    const errors = await openSignedIn(page, server.adminToken);
    if (screen === 'sources') {
      // A job with a long URL (it fails: nothing listens there), so the list has a card.
      await page.goto('/sources');
      await page
        .getByRole('textbox', { name: 'Page or media URL' })
        .fill('http://127.0.0.1:9/a/rather/long/path/to/some-producer-pack/one-shots/kick-drum-very-long-name-0001.wav');
      await page.getByRole('button', { name: 'Fetch audio' }).click();
      await expect(page.getByText('kick-drum-very-long-name-0001.wav').first()).toBeVisible({ timeout: 30_000 });
    }
    for (const size of widths) {
      await page.setViewportSize(size);
      await page.goto(screen === 'home' ? '/' : `/${screen}`);
      await expect(page.locator('#main .intro').first()).toBeVisible({ timeout: 30_000 });
      await checkShell(page, screen, size.width);
    }
    expect(errors).toEqual([]);
  });
}

test('the header and menu on Batch and Projects, and the signed-out page', async ({ page, server }) => {
  test.setTimeout(300_000);
  await openSignedIn(page, server.adminToken);
  for (const size of widths) {
    await page.setViewportSize(size);
    for (const route of ['/batch', '/projects']) {
      await page.goto(route);
      await expect(page.locator('#main').first()).toBeVisible();
      // Their layouts are their own screens' work; the shell's header and menu are checked here.
      await checkShell(page, route.slice(1), size.width, false);
    }
  }
  await page.setViewportSize(widths[0]);
  await page.addInitScript(() => (globalThis as unknown as { sessionStorage: { clear(): void } }).sessionStorage.clear());
  await page.goto('/');
  await expect(page.getByRole('textbox', { name: 'Personal access token' })).toBeVisible({ timeout: 30_000 });
  const sizes = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(sizes.scroll).toBeLessThanOrEqual(sizes.inner);
  await page.screenshot({ path: test.info().outputPath('responsive-signed-out-360.png'), fullPage: true });
});
