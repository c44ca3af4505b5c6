import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';

// The desktop app, launched with Playwright's Electron support when the Electron binary is present
// (it cannot be downloaded everywhere: see docs/install.md). Everything else about the desktop app
// (port choice, readiness, local-api.json, Host checks, navigation, IPC arguments) is unit-tested in
// electron/ and runs everywhere.
const require = createRequire(import.meta.url);
const repoRoot = fileURLToPath(new URL('../', import.meta.url));

function electronBinary(): string | null {
  try {
    const binary = require('electron') as unknown; // the package's main answers the binary's path
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
const missing =
  'the Electron binary is missing (node_modules/electron/dist): run `npm run fetch-binaries electron` where Electron’s release host is reachable';
// The list reporter does not print skip reasons: say it once, plainly.
if (binary === null) process.stderr.write(`desktop.spec.ts: skipped, ${missing}\n`);

test.describe('desktop app', () => {
  test.skip(binary === null, missing);

  test('starts the embedded server, signs itself in, serves plugins through local-api.json and removes it on quit', async () => {
    test.setTimeout(120_000);
    const userData = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-desktop-'));
    const app = await electron.launch({
      executablePath: binary ?? undefined,
      args: [repoRoot, '--no-sandbox'],
      env: { ...process.env, CRATEHOUSE_DESKTOP_USER_DATA: userData, CRATEHOUSE_LOG_LEVEL: 'error' },
    });
    try {
      const window = await app.firstWindow();
      await expect(window).toHaveTitle('Cratehouse');
      await expect(window.getByRole('navigation', { name: 'Screens' })).toBeVisible({ timeout: 30_000 });

      const file = path.join(userData, 'data', 'local-api.json');
      const info = JSON.parse(await readFile(file, 'utf8')) as { url: string; token: string; pid: number };
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const me = await fetch(`${info.url}/audio/v1/me`, { headers: { Authorization: `Bearer ${info.token}` } });
      expect(me.status).toBe(200);

      await app.close();
      expect(existsSync(file)).toBe(false);
    } finally {
      await app.close().catch(() => undefined);
      await rm(userData, { recursive: true, force: true });
    }
  });
});
