import type { Page } from '@playwright/test';
import { encodeWav } from '../server/test-support/signals.js';
import { monoDrumLoop } from './support/audio-fixtures.js';
import { expect, test as base } from './support/fixtures.js';
import { hostingOk } from './support/hosting-api.js';
import { collectPageErrors, producerViewports } from './support/page-checks.js';
import { signInBeforeLoad } from './support/session.js';

// Every audio screen and the shell at phone, tablet and desktop widths: nothing scrolls sideways, the
// menu is reachable (a Menu button below 960 px: opens, Escape closes and gives focus back), and the
// header does not overlap the content. Full-page screenshots go to test-results/…/responsive-*.png.

/** Its own worker (and server): the analysis below would count in root's usage that other specs read. */
const test = base.extend<object, { ownServer: void }>({
  // eslint-disable-next-line no-empty-pattern
  ownServer: [async ({}, use) => use(), { scope: 'worker', auto: true }],
});

const [desktop, tablet, phone] = producerViewports;
/** The producer's viewports, a narrower phone and a landscape tablet: narrowest first. */
const widths = [{ width: 360, height: 740 }, phone, tablet, { width: 1024, height: 768 }, desktop] as const;

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

/** A loopback server for badge images that records the Referer each image request came with. */
async function startBadgeImages(): Promise<{ url: string; referers: (string | null)[]; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  const referers: (string | null)[] = [];
  const server = createServer((req, res) => {
    referers.push(req.headers.referer ?? null);
    res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'no-store' });
    res.end(
      '<svg xmlns="http://www.w3.org/2000/svg" width="110" height="20"><rect width="110" height="20" rx="3" fill="#555"/><rect x="50" width="60" height="20" rx="3" fill="#4c1"/><text x="6" y="14" fill="#fff" font-family="sans-serif" font-size="11">build</text><text x="56" y="14" fill="#fff" font-family="sans-serif" font-size="11">passing</text></svg>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, referers, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('the project list, hooks and badges are cards on a phone and fit every width, with data in them', async ({ page, server }) => {
  test.setTimeout(300_000);
  const images = await startBadgeImages();
  try {
    const call = <T>(method: string, route: string, body?: unknown) => hostingOk<T>(server.url, server.adminToken, method, route, body);
    // Long names, paths, descriptions and URLs: what makes a phone layout break.
    const group = await call<{ id: number }>('POST', '/groups', {
      name: 'Midnight Frequencies Collective Records',
      path: 'midnight-frequencies-collective-records',
      visibility: 'public',
    });
    const projects: { id: number }[] = [];
    for (const name of [
      'Extraordinarily Long Album Title Of The Late Night Sessions Volume One',
      'Drum Breaks And Percussion One Shots For Producers',
      'Ambient Textures',
      'Unreleased Remixes Of The Summer Festival Season',
      'Stems',
      'A Project Whose Name Goes On And On Without Any Good Place To Break It',
    ])
      projects.push(
        await call<{ id: number }>('POST', '/projects', {
          name,
          namespace_id: group.id,
          visibility: 'public',
          description: `${name}: mixdowns, stems and the session notes of every take, kept for the whole label.`,
          topics: ['synthwave', 'late-night'],
        }),
      );
    const project = projects[0]!;
    for (const suffix of ['push-events-notify-the-build-server', 'tag-release-pipeline', 'chat'])
      await call('POST', `/projects/${project.id}/hooks`, {
        url: `${images.url}/hooks/a/rather/long/path/for/the/${suffix}?token-free=true&project=extraordinarily-long-album-title`,
        tag_push_events: true,
        push_events_branch_filter: 'release/*',
      });
    await call('POST', `/groups/${group.id}/badges`, {
      name: 'Label licence',
      link_url: `${images.url}/licence/%{project_path}`,
      image_url: `${images.url}/badge.svg?kind=licence&project=%{project_id}`,
    });
    for (const name of ['Build status of the default branch', 'Release'])
      await call('POST', `/projects/${project.id}/badges`, {
        name,
        link_url: `${images.url}/ci/%{project_path}/-/pipelines?ref=%{default_branch}&badge=${encodeURIComponent(name)}`,
        image_url: `${images.url}/badge.svg?kind=${encodeURIComponent(name)}&sha=%{commit_sha}`,
      });

    const errors = await openSignedIn(page, server.adminToken);
    const screens = [
      { name: 'projects-list', url: '/projects', ready: () => page.getByRole('link', { name: /Stems/ }) },
      {
        name: 'projects-overview',
        url: `/projects/${project.id}`,
        ready: () => page.getByRole('list', { name: 'Badges' }).getByRole('img').nth(2),
      },
      {
        name: 'projects-hooks',
        url: `/projects/${project.id}/hooks`,
        ready: () => page.getByRole('list', { name: 'Project hooks' }).getByRole('listitem').nth(2),
      },
      {
        name: 'projects-badges',
        url: `/projects/badges?project=${project.id}`,
        ready: () => page.getByRole('list', { name: 'Project badges' }).getByRole('listitem').nth(2),
      },
    ];
    for (const size of widths) {
      await page.setViewportSize(size);
      for (const screen of screens) {
        await page.goto(screen.url);
        await expect(screen.ready()).toBeVisible({ timeout: 30_000 });
        if (screen.name === 'projects-list') {
          // A phone shows each project as a card: no column headers, the visibility named in the card.
          const headerHeight = (await page.locator('.prj-table thead').boundingBox())?.height ?? 0;
          if (size.width <= 430) expect(headerHeight, 'column headers are only for screen readers on a phone').toBeLessThanOrEqual(1);
          else expect(headerHeight).toBeGreaterThan(10);
          // Nor does the table scroll inside its own box.
          const box = await page.locator('.prj-table-wrap').evaluate((el) => {
            const box = el as unknown as { readonly scrollWidth: number; readonly clientWidth: number };
            return { scroll: box.scrollWidth, client: box.clientWidth };
          });
          expect(box.scroll, `the project table scrolls sideways at ${size.width} px`).toBeLessThanOrEqual(box.client);
        }
        await checkShell(page, screen.name, size.width);
      }
    }
    // The overview shows the group's badge and the project's own, each image without a Referer.
    await page.goto(`/projects/${project.id}`);
    const badges = page.getByRole('list', { name: 'Badges' }).getByRole('img');
    await expect(badges).toHaveCount(3);
    await expect(badges.nth(0)).toHaveAttribute('alt', 'Label licence');
    await expect(badges.nth(1)).toHaveAttribute('referrerpolicy', 'no-referrer');
    expect(images.referers.length).toBeGreaterThan(0);
    expect(images.referers.filter((r) => r !== null)).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await images.close();
  }
});
