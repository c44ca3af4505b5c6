import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { encodeWav } from '../server/test-support/signals.js';
import { monoDrumLoop } from './support/audio-fixtures.js';
import { expect, test } from './support/fixtures.js';
import { collectPageErrors } from './support/page-checks.js';
import { startTestServer } from './support/server.js';
import { createProducer, signInBeforeLoad } from './support/session.js';

// The shell, walked as a producer meets it: the server stops mid-session and comes back, the token is
// revoked while screens are open, and a file is dropped on the header rather than on a drop zone.

const loop = encodeWav([monoDrumLoop(44100, 120, 1)], 44100);

async function call<T>(baseURL: string, token: string, method: string, route: string, json?: unknown): Promise<T> {
  const response = await fetch(`${baseURL}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Everything on the page a screen reader announces as a problem, as text. */
const alerts = (page: Page) => page.getByRole('alert').allTextContents();

test('the server stopped mid-session: one offline banner, and recovery when it is back', async ({ page }) => {
  // A server start takes 20 s on the shared 2-core machine under load.
  test.setTimeout(360_000);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-e2e-shell-'));
  const adminToken = `e2e-admin-shell-${Date.now()}`;
  // Port 0 first: the server picks a free port, which the restart then reuses.
  let server = await startTestServer(120_000, { port: 0, dataDir, adminToken });
  try {
    const port = Number(new URL(server.url).port);
    const errors = collectPageErrors(page);
    await signInBeforeLoad(page, adminToken);
    await page.goto(`${server.url}/`);
    await expect(page.getByRole('banner')).toContainText('Server online');
    await expect(page.getByRole('region', { name: 'Recent projects' })).toContainText('No projects yet');

    await test.step('stopped: one banner says so, the panels wait instead of failing', async () => {
      await server.stop();
      // Opening a screen sends requests: the first failure makes the shell check the server at once.
      await page.getByRole('link', { name: 'Projects', exact: true }).first().click();
      const banner = page.getByTestId('offline-banner');
      await expect(banner).toBeVisible({ timeout: 10_000 });
      await expect(banner).toContainText('The Cratehouse server is not answering.');
      await expect(banner).toContainText(/Checking again in \d+ s|Checking…/);
      await expect(page.getByRole('banner')).toContainText('Server unreachable');
      // Give the panels time to fail if they were going to; only the banner may speak.
      await page.waitForTimeout(3_000);
      expect(await alerts(page)).toHaveLength(1);
      await page.getByRole('link', { name: 'Home', exact: true }).first().click();
      await page.waitForTimeout(1_500);
      expect(await alerts(page)).toHaveLength(1);
      await page.screenshot({ path: test.info().outputPath('offline.png'), fullPage: true });
    });

    await test.step('started again: the banner goes by itself and the panels load', async () => {
      server = await startTestServer(120_000, { port, dataDir, adminToken });
      // No click: the back-off (at most 15 s) finds the server.
      await expect(page.getByTestId('offline-banner')).toHaveCount(0, { timeout: 40_000 });
      await expect(page.getByRole('banner')).toContainText('Server online');
      await expect(page.getByRole('region', { name: 'Recent projects' })).toContainText('No projects yet', { timeout: 30_000 });
      expect(await alerts(page)).toHaveLength(0);
    });
    expect(errors).toEqual([]);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a revoked token: one sign-in dialog, and the screen carries on with the new token', async ({ page, server }) => {
  test.setTimeout(240_000);
  const errors = collectPageErrors(page);
  const username = `shell-${Date.now()}`;
  const producer = await createProducer(server.url, server.adminToken, username);
  const tokens = await call<{ id: number; name: string }[]>(server.url, producer.token, 'GET', '/api/v4/personal_access_tokens');
  const first = tokens[0];
  if (!first) throw new Error('the producer has no token');
  await signInBeforeLoad(page, producer.token);
  await page.goto('/analyse');
  await expect(page.getByText('Drop an audio file here')).toBeVisible();

  await test.step('revoked while Analyse is open: seven requests refused, asked once', async () => {
    await call(server.url, server.adminToken, 'DELETE', `/api/v4/personal_access_tokens/${first.id}`);
    await page.getByTestId('file-input').setInputFiles({ name: 'revoked.wav', mimeType: 'audio/wav', buffer: loop });
    const dialog = page.getByTestId('sign-in-again');
    await expect(dialog).toBeVisible();
    await expect(page.getByRole('dialog')).toHaveCount(1);
    await expect(dialog).toContainText('it was revoked or has expired');
    const requests = page.getByRole('list', { name: 'Requests' });
    await expect(requests.locator('[data-status="failed"]')).toHaveCount(7, { timeout: 30_000 });
    // The panels wait for the sign-in; none repeats the server's sentence.
    await expect(page.getByText('Waiting for you to sign in again.').first()).toBeVisible();
    await expect(page.locator('.an-panel').getByRole('alert')).toHaveCount(0);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('sign-in-again.png'), fullPage: true });
  });

  await test.step('a new token closes the dialog and the analysis runs again', async () => {
    const [user] = await call<{ id: number }[]>(server.url, server.adminToken, 'GET', `/api/v4/users?username=${username}`);
    if (!user) throw new Error('the producer is not listed');
    const fresh = await call<{ token: string }>(server.url, server.adminToken, 'POST', `/api/v4/users/${user.id}/personal_access_tokens`, {
      name: 'e2e-again',
      scopes: ['api'],
    });
    const dialog = page.getByTestId('sign-in-again');
    await dialog.getByRole('textbox', { name: 'Personal access token' }).fill(fresh.token);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    const requests = page.getByRole('list', { name: 'Requests' });
    await expect(requests.locator('[data-status="done"]')).toHaveCount(7, { timeout: 90_000 });
    await expect(page.getByText('revoked.wav').first()).toBeVisible();
  });
  expect(errors).toEqual([]);
});

test('a file dropped on the header opens in Analyse', async ({ page, server }) => {
  test.setTimeout(120_000);
  const errors = collectPageErrors(page);
  await signInBeforeLoad(page, server.adminToken);
  await page.goto('/settings');
  await expect(page.getByRole('region', { name: 'Preferences' })).toBeVisible({ timeout: 30_000 });
  const bytes = Array.from(loop.subarray(0, 44 + 44_100));
  const dataTransfer = await page.evaluateHandle(
    `(() => { const dt = new DataTransfer(); dt.items.add(new File([new Uint8Array(${JSON.stringify(bytes)})], 'dropped-on-header.wav', { type: 'audio/wav' })); return dt; })()`,
  );
  const header = page.getByRole('banner');
  await header.dispatchEvent('dragover', { dataTransfer });
  await expect(page.getByText('Drop to analyse')).toBeVisible();
  // A drop the page does not cancel would make the browser open the file and leave the app.
  const cancelled = await header.evaluate((element, dt) => {
    const event = new (globalThis as unknown as { DragEvent: new (type: string, init: object) => { defaultPrevented: boolean } }).DragEvent(
      'drop',
      {
        dataTransfer: dt,
        bubbles: true,
        cancelable: true,
      },
    );
    (element as unknown as { dispatchEvent(event: unknown): boolean }).dispatchEvent(event);
    return event.defaultPrevented;
  }, dataTransfer);
  expect(cancelled).toBe(true);
  await expect(page).toHaveURL(/\/analyse$/);
  await expect(page.getByText('dropped-on-header.wav').first()).toBeVisible();
  await expect(page.getByText('Drop to analyse')).toHaveCount(0);
  expect(errors).toEqual([]);
});
