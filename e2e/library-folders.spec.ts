import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test as base, expect } from '@playwright/test';
import { encodeWav, sine } from '../server/test-support/signals.js';
import { saveScreenshot } from './support/fixtures.js';
import { expectNoHorizontalOverflow, producerViewports } from './support/page-checks.js';
import { startTestServer, type TestServer } from './support/server.js';
import { signInBeforeLoad } from './support/session.js';

// A server of its own: folders on disk are off unless CRATEHOUSE_LIBRARY_FOLDERS names a root.
const test = base.extend<object, { folderRoot: string; folderServer: TestServer }>({
  folderRoot: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cratehouse-e2e-folders-')));
      await use(root);
      await rm(root, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  folderServer: [
    async ({ folderRoot }, use) => {
      const server = await startTestServer(90_000, undefined, { CRATEHOUSE_LIBRARY_FOLDERS: folderRoot });
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ folderServer }, use) => use(folderServer.url),
});

const files = 150;

test('library folders: the scan’s progress and result are shown, the items arrive, removing stops indexing', async ({
  page,
  folderServer,
  folderRoot,
}) => {
  test.setTimeout(120_000);
  const kit = path.join(folderRoot, 'Drum Kit');
  await mkdir(kit);
  for (let i = 0; i < files; i++)
    await writeFile(path.join(kit, `hit-${String(i).padStart(3, '0')}.wav`), encodeWav([sine(22_050, 0.2, 80 + i, 0.3)], 22_050));
  await writeFile(path.join(kit, 'readme.txt'), 'not audio');
  await symlink('/etc/hostname', path.join(kit, 'escape.wav'));

  await signInBeforeLoad(page, folderServer.adminToken);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/library');
  const fold = page.locator('details.lib-folders');
  await fold.locator('summary').click();
  await fold.getByLabel('Folder on the server').fill(kit);
  await fold.getByRole('button', { name: 'Index folder' }).click();
  const row = fold.locator('.lib-folder');
  await expect(row.locator('.lib-folder-path')).toHaveText(kit);
  await expect(row.locator('.lib-folder-status')).toContainText(`Scanned: ${files} audio files, ${files} added`, { timeout: 60_000 });
  await expect(row.locator('.lib-folder-status')).toContainText('2 skipped: 1 not audio, 1 link outside the allowed folders');
  await expect(row.locator('.lib-folder-count')).toHaveText(`${files} items`);
  await expect(page.locator('.lib-count')).toHaveText(`${files} items`);
  for (const viewport of producerViewports) {
    await page.setViewportSize(viewport);
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, `library-folders-${viewport.width}`);
  }

  await row.getByRole('button', { name: 'Remove' }).click();
  await expect(fold.locator('.lib-folder')).toHaveCount(0);
  await expect(page.locator('.lib-count')).toHaveText('0 items');
});
