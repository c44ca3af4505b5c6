import { readFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { expect, saveScreenshot, test } from './support/fixtures.js';
import { collectPageErrors, expectNoHorizontalOverflow } from './support/page-checks.js';

// The foundation GUI, black box: the built renderer served by a real headless server.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

// tsconfig.json type-checks e2e/ with the server's libs (no DOM), so the few browser globals that
// page.evaluate callbacks use are declared here; the callbacks run in the page, where they exist.
declare const document: { readonly body: object };
declare function getComputedStyle(element: object): { readonly backgroundColor: string };

const account = (page: Page) => page.getByRole('region', { name: 'Account' });
const serverPanel = (page: Page) => page.getByRole('region', { name: 'Server' });
const tokenField = (page: Page) => account(page).getByLabel('Personal access token', { exact: true });
const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&');
/** The value (<dd>) that follows the term (<dt>) with exactly this text. */
const fact = (scope: Page | Locator, term: string) =>
  scope
    .getByRole('term')
    .filter({ hasText: new RegExp(`^${escapeRegExp(term)}$`) })
    .locator('xpath=following-sibling::dd[1]');

async function signIn(page: Page, token: string): Promise<void> {
  await tokenField(page).fill(token);
  await account(page).getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('shows the product name and the server health', async ({ page }) => {
  const errors = collectPageErrors(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');

  await expect(page).toHaveTitle('Cratehouse');
  await expect(page.getByRole('heading', { level: 1, name: 'Cratehouse' })).toBeVisible();

  const server = serverPanel(page);
  await expect(fact(server, 'Server version')).toHaveText(version);
  await expect(fact(server, 'ffmpeg')).toContainText(/^Found/);
  await expect(fact(server, 'git')).toContainText(/^Found/);
  await expect(page.getByRole('banner')).toContainText(`Server online v${version}`);

  // Signed out: the form is there and empty.
  await expect(tokenField(page)).toBeVisible();
  await expect(tokenField(page)).toHaveValue('');

  await expectNoHorizontalOverflow(page);
  await saveScreenshot(page, 'signed-out-dark');
  expect(errors).toEqual([]);
});

test('signs in with a token, stays signed in after a reload, and signs out', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');

  await test.step('an empty token is caught before any request', async () => {
    await account(page).getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(account(page).getByRole('alert')).toContainText('Paste a personal access token first.');
    await expect(tokenField(page)).toBeFocused();
  });

  await test.step('a wrong token shows the API error as a sentence next to the form', async () => {
    await signIn(page, 'not-a-real-token');
    const alert = account(page).getByRole('alert');
    await expect(alert).toContainText('Could not sign in.');
    await expect(alert).toContainText('Invalid token.');
    await expect(tokenField(page)).toHaveAttribute('aria-invalid', 'true');
    // The field is described by the error, so a screen reader reads it with the field.
    const describedBy = (await tokenField(page).getAttribute('aria-describedby')) ?? '';
    expect(describedBy.split(' ')).toContain(await alert.getAttribute('id'));
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'sign-in-error-dark');
  });

  await test.step('the admin token signs in as root in tenant root', async () => {
    await signIn(page, server.adminToken);
    await expect(account(page).getByRole('alert')).toHaveCount(0);
    await expect(fact(page, 'Username')).toHaveText('root');
    await expect(fact(page, 'Name')).toHaveText('Administrator');
    await expect(fact(page, 'Access')).toHaveText('Administrator');
    await expect(fact(page, 'Tenant')).toHaveText('root');
    await expect(fact(page, 'Requests')).toHaveText(/^\d+$/);
    await expect(fact(page, 'Audio analysed')).toHaveText('0 s');
    await expect(tokenField(page)).toHaveCount(0);
    // Keyboard focus continues from the profile, not from the page's top.
    await expect(account(page).getByRole('heading', { name: 'Administrator' })).toBeFocused();
  });

  await test.step('Refresh fetches the usage again', async () => {
    const before = Number(await fact(page, 'Requests').textContent());
    await account(page).getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect.poll(async () => Number(await fact(page, 'Requests').textContent())).toBeGreaterThan(before);
  });

  await test.step('a reload keeps the session', async () => {
    await page.reload();
    await expect(fact(page, 'Username')).toHaveText('root');
    await expect(fact(page, 'Tenant')).toHaveText('root');
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'signed-in-dark');
  });

  await test.step('signing out forgets the token', async () => {
    await account(page).getByRole('button', { name: 'Sign out', exact: true }).click();
    await expect(tokenField(page)).toBeVisible();
    await expect(tokenField(page)).toHaveValue('');
    await expect(tokenField(page)).toBeFocused();
    await expect(fact(page, 'Username')).toHaveCount(0);
    await page.reload();
    await expect(tokenField(page)).toBeVisible();
    await expect(fact(page, 'Username')).toHaveCount(0);
  });

  expect(errors).toEqual([]);
});

test('follows the system colour scheme', async ({ page, server }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/');
  await expect(fact(page, 'Server version')).toHaveText(version);
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  await saveScreenshot(page, 'signed-out-light');

  await signIn(page, server.adminToken);
  await expect(fact(page, 'Username')).toHaveText('root');
  await expectNoHorizontalOverflow(page);
  await saveScreenshot(page, 'signed-in-light');

  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await background();
  expect(dark).not.toBe(light);
  // Dark means dark: the body's background is mostly black, and light mostly white.
  const luminance = (rgb: string) => {
    const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  expect(luminance(dark)).toBeLessThan(0.2);
  expect(luminance(light)).toBeGreaterThan(0.8);
});

test('keyboard focus is visible', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await expect(fact(page, 'Server version')).toHaveText(version);
  // Tab from the top: the skip link, then the token field; both draw an outline.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(tokenField(page)).toBeFocused();
  await expect(tokenField(page)).not.toHaveCSS('outline-style', 'none');
  await page.keyboard.press('Tab');
  const showButton = account(page).getByRole('button', { name: 'Show', exact: true });
  await expect(showButton).toBeFocused();
  await expect(showButton).not.toHaveCSS('outline-style', 'none');
  await saveScreenshot(page, 'keyboard-focus-dark');
});

test('shows loading and error states', async ({ page, server }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  const health = '**/audio/v1/healthz';

  // The shell re-checks health on a timer while it fails: the page's clock is held during "Try again", so
  // the recovery that step sees is the button's own.
  await page.clock.install();
  await test.step('the health check is visibly pending, then visibly failed', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(health, async (route) => {
      await held;
      await route.abort('connectionrefused');
    });
    await page.goto('/');
    await expect(serverPanel(page).getByRole('status')).toHaveText('Checking the server…');
    await expect(page.getByRole('banner')).toContainText('Connecting…');
    release();
    const alert = serverPanel(page).getByRole('alert');
    await expect(alert).toContainText('The health check failed.');
    await expect(alert).toContainText('The Cratehouse server could not be reached.');
    await expect(page.getByRole('banner')).toContainText('Server unreachable');
    await saveScreenshot(page, 'server-unreachable-dark');
  });

  await test.step('Try again recovers', async () => {
    await page.clock.pauseAt(Date.now() + 50);
    await page.unroute(health);
    // A DOM click, not a pointer one: Playwright's click focuses the window first, and the shell re-checks
    // health on focus by itself, which then raced the button (its panel gone before the click landed).
    await serverPanel(page).getByRole('button', { name: 'Try again', exact: true }).dispatchEvent('click');
    await expect(fact(page, 'Server version')).toHaveText(version);
    await page.clock.resume();
  });

  await test.step('signing in is visibly pending', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/audio/v1/me', async (route) => {
      await held;
      await route.continue();
    });
    await signIn(page, server.adminToken);
    await expect(account(page).getByRole('button', { name: 'Signing in…', exact: true })).toBeVisible();
    await expect(tokenField(page)).toHaveAttribute('readonly', '');
    await saveScreenshot(page, 'signing-in-dark');
    release();
    await expect(fact(page, 'Username')).toHaveText('root');
  });
});
