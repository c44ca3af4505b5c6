import { defineConfig } from '@playwright/test';

// Playwright runs the built renderer (dist/renderer) in Debian's Chromium against a real headless
// server (dist/server) that each worker starts with a temp data dir: see support/fixtures.ts.
// `npm run test:e2e` builds first. No browser is downloaded: set CRATEHOUSE_CHROMIUM to use another
// Chromium than /usr/bin/chromium.
const chromiumPath = process.env.CRATEHOUSE_CHROMIUM || '/usr/bin/chromium';

export default defineConfig({
  testDir: '.', // this directory, e2e/
  testMatch: '**/*.spec.ts',
  outputDir: '../test-results',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'list',
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  projects: [{ name: 'chromium' }],
});
