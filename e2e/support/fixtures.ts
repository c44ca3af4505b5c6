import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { startTestServer, type TestServer } from './server.js';

export { expect };

/**
 * `server`: one headless server per worker, started before its first test and stopped (SIGTERM)
 * after its last. `baseURL` points at it, so specs call `page.goto('/')`.
 */
export const test = base.extend<object, { server: TestServer }>({
  server: [
    // Playwright reads the fixtures a function uses from its first parameter, so it must be a pattern.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startTestServer();
      try {
        await use(server);
      } finally {
        const exit = await server.stop();
        if (exit.code !== 0) {
          process.stderr.write(`cratehouse server exited with code ${exit.code} (signal ${exit.signal}); output:\n${server.output()}\n`);
        }
      }
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ server }, use) => {
    await use(server.url);
  },
});

/** Save a full-viewport PNG to e2e/screenshots/<name>.png (git-ignored). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(test.info().project.testDir, 'screenshots');
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), animations: 'disabled', caret: 'hide' });
}
