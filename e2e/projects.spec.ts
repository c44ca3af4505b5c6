import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { gitClient, withToken } from '../server/test-support/hosting-client.js';
import { expect, saveScreenshot, test } from './support/fixtures.js';
import { hostingApi } from './support/hosting-api.js';
import type { TestServer } from './support/server.js';
import { createProducer, signInBeforeLoad } from './support/session.js';
import { collectPageErrors, expectNoHorizontalOverflow, producerViewports } from './support/page-checks.js';

// The Projects screens walked as a person would, black box: the built renderer against a real
// headless server. Every result is checked against the hosting API afterwards.

// e2e/ is type-checked without DOM types; these callbacks run in the page, where the globals exist.
declare const document: { readonly activeElement: unknown };

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A loopback receiver for hooks (records each POST) that also serves a badge image. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.startsWith('/badge.svg')) {
        res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'no-store' });
        res.end(
          '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="20"><rect width="96" height="20" rx="3" fill="#555"/><rect x="46" width="50" height="20" rx="3" fill="#4c1"/><text x="6" y="14" fill="#fff" font-family="sans-serif" font-size="11">build</text><text x="52" y="14" fill="#fff" font-family="sans-serif" font-size="11">passing</text></svg>',
        );
        return;
      }
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A call to the hosting API as root, for setting up and for checking what the GUI did. */
const api = <T>(server: TestServer, method: string, route: string, body?: unknown) =>
  hostingApi<T>(server.url, server.adminToken, method, route, body);

interface ApiProject {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  description: string | null;
  visibility: string;
  topics: string[];
  archived: boolean;
  star_count: number;
  empty_repo: boolean;
  import_status: string;
  http_url_to_repo: string;
  forked_from_project?: { id: number };
  shared_with_groups: { group_id: number; group_access_level: number; expires_at: string | null }[];
}

const projectByPath = (server: TestServer, fullPath: string) => api<ApiProject>(server, 'GET', `/projects/${encodeURIComponent(fullPath)}`);

/** Create a group through the API (the GUI has no group screen), or find it when a retry made it already. */
async function ensureGroup(server: TestServer, name: string, groupPath: string): Promise<number> {
  const found = await api<{ id: number }>(server, 'GET', `/groups/${encodeURIComponent(groupPath)}`);
  if (found.status === 200) return found.body.id;
  const made = await api<{ id: number }>(server, 'POST', '/groups', { name, path: groupPath, visibility: 'private' });
  expect(made.status).toBe(201);
  return made.body.id;
}

/** The error sentence that describes a field (aria-describedby), as a screen reader reads it. */
async function describedError(field: Locator): Promise<string> {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id.endsWith('-error'));
  expect(ids).toHaveLength(1);
  return (await field.page().locator(`[id="${ids[0]}"]`).textContent()) ?? '';
}

async function openProject(page: Page, id: number, tab = ''): Promise<void> {
  await page.goto(`/projects/${id}${tab ? `/${tab}` : ''}`);
  await expect(page.getByRole('navigation', { name: 'Project', exact: true })).toBeVisible();
}

/** Push one commit to a project over HTTP with git, as a person would after creating it. */
async function pushCommit(server: TestServer, project: ApiProject, file: string, content: string): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-e2e-push-'));
  try {
    // The temp dir is also git's HOME: no user config, no credential helper, only the URL's token.
    const git = gitClient(dir, { name: 'E2E', email: 'e2e@example.com' }).ok;
    await git(['init', '--initial-branch=main']);
    await writeFile(path.join(dir, file), content);
    await git(['add', '.']);
    await git(['commit', '-m', 'First take']);
    await git(['push', withToken(project.http_url_to_repo, server.adminToken), 'HEAD:main']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test.describe.configure({ mode: 'serial' });
test.setTimeout(180_000);

let receiver: Awaited<ReturnType<typeof startReceiver>>;
test.beforeAll(async () => {
  receiver = await startReceiver();
});
test.afterAll(async () => {
  await receiver.close();
});

test.beforeEach(async ({ page, server }) => {
  await signInBeforeLoad(page, server.adminToken);
  await page.emulateMedia({ colorScheme: 'dark' });
});

test('creates a project with the form, edits it, stars, archives and unarchives it, sets notification levels', async ({ page, server }) => {
  const errors = collectPageErrors(page);

  await test.step('no projects yet: the empty state says what to do', async () => {
    await page.goto('/projects');
    await expect(page.getByText('No projects yet.')).toBeVisible();
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'projects-empty-dark');
  });

  // A project that holds the path the person will try first.
  expect((await api(server, 'POST', '/projects', { name: 'Taken One', path: 'taken-one' })).status).toBe(201);

  await test.step('the create form shows GitLab\'s "has already been taken" under the path field', async () => {
    await page.reload();
    await page.getByRole('link', { name: 'New project' }).first().click();
    await expect(page).toHaveURL(/\/projects\/new$/);
    await page.getByLabel('Project name').fill('Night Drive');
    // The path the server will derive shows before anything is sent.
    await expect(page.getByLabel('Project path')).toHaveAttribute('placeholder', 'night-drive');
    await page.getByLabel('Project path').fill('taken-one');
    await page.getByLabel('Description').fill('Synth sketches');
    await page.getByLabel('Topics').fill('synthwave, demo, synthwave');
    await page.getByRole('radio', { name: /^Internal/ }).check();
    await page.getByLabel('Wiki').uncheck();
    await page.getByRole('button', { name: 'Create project' }).click();
    expect(await describedError(page.getByLabel('Project path'))).toBe('Has already been taken.');
    await expect(page.getByLabel('Project path')).toBeFocused();
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'projects-create-error-dark');
  });

  await test.step('with the path left empty the project is created and shows its clone instructions', async () => {
    await page.getByLabel('Project path').fill('');
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect(page).toHaveURL(/\/projects\/\d+$/);
    await expect(page.getByRole('heading', { name: 'Night Drive' })).toBeVisible();
    await expect(page.getByText('Project root/night-drive created.')).toBeVisible();
    await expect(page.getByLabel('Clone with HTTP')).toHaveValue(`${server.url}/root/night-drive.git`);
    await expect(page.getByRole('button', { name: 'Copy URL' })).toBeVisible();
    await expect(page.getByText('The repository is empty. Push an existing folder:')).toBeVisible();
    await expect(page.getByText(`git remote add origin ${server.url}/root/night-drive.git`)).toBeVisible();
    const { body } = await projectByPath(server, 'root/night-drive');
    expect(body).toMatchObject({
      name: 'Night Drive',
      description: 'Synth sketches',
      visibility: 'internal',
      topics: ['demo', 'synthwave'],
      empty_repo: true,
    });
    expect((body as unknown as { wiki_enabled: boolean }).wiki_enabled).toBe(false);
    await saveScreenshot(page, 'projects-created-dark');
  });

  const { body: project } = await projectByPath(server, 'root/night-drive');

  await test.step('edit: description and visibility', async () => {
    await page.getByRole('navigation', { name: 'Project', exact: true }).getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByLabel('Description')).toHaveValue('Synth sketches');
    await expect(page.getByLabel('Wiki')).not.toBeChecked();
    await page.getByLabel('Description').fill('Late night synth sketches');
    await page.getByRole('radio', { name: /^Public/ }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Saved.', { exact: true })).toBeVisible();
    const { body } = await projectByPath(server, 'root/night-drive');
    expect(body).toMatchObject({
      description: 'Late night synth sketches',
      visibility: 'public',
      path: 'night-drive',
      name: 'Night Drive',
    });
    await expect(page.locator('.prj-project-header')).toContainText('Public');
    // Saving again without a change sends nothing.
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByText('Nothing changed: there is nothing to save.')).toBeVisible();
  });

  await test.step('star', async () => {
    const star = page.getByRole('button', { name: /^Star/ });
    await expect(star).toHaveAttribute('aria-pressed', 'false');
    await star.click();
    await expect(page.getByRole('button', { name: /^Starred/ })).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByRole('button', { name: /^Starred/ })).toContainText('1');
    expect((await projectByPath(server, 'root/night-drive')).body.star_count).toBe(1);
    const starred = await api<ApiProject[]>(server, 'GET', '/projects?starred=true');
    expect(starred.body.map((p) => p.id)).toEqual([project.id]);
  });

  await test.step('archive (after a confirmation) and unarchive', async () => {
    await page.getByRole('navigation', { name: 'Project', exact: true }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: 'Archive…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive this project?' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await dialog.getByRole('button', { name: 'Archive', exact: true }).click();
    await expect(dialog).toBeHidden();
    await expect(page.locator('.prj-project-header')).toContainText('Archived');
    expect((await projectByPath(server, 'root/night-drive')).body.archived).toBe(true);
    await page.getByRole('button', { name: 'Unarchive' }).click();
    await expect(page.getByRole('button', { name: 'Archive…' })).toBeVisible();
    await expect(page.locator('.prj-project-header')).not.toContainText('Archived');
    expect((await projectByPath(server, 'root/night-drive')).body.archived).toBe(false);
  });

  await test.step('notification levels: this project, then the global one', async () => {
    await page.getByLabel('Notification level for this project').selectOption('watch');
    await expect(page.getByText('Saved: watch.')).toBeVisible();
    expect((await api<{ level: string }>(server, 'GET', `/projects/${project.id}/notification_settings`)).body.level).toBe('watch');
    await saveScreenshot(page, 'projects-overview-dark');

    await page.getByRole('navigation', { name: 'Projects sections' }).getByRole('link', { name: 'Notifications' }).click();
    await expect(page.getByLabel('Global notification level')).toHaveValue('participating');
    await page.getByLabel('Global notification level').selectOption('mention');
    await expect(page.getByText('Saved: mention.')).toBeVisible();
    expect((await api<{ level: string }>(server, 'GET', '/notification_settings')).body.level).toBe('mention');
  });

  expect(errors).toEqual([]);
});

test('lists projects with search, filters, sort and pagination', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  // Twelve more projects, so a page of ten has a second page.
  for (let i = 1; i <= 12; i++) {
    const made = await api(server, 'POST', '/projects', {
      name: `Loop ${String(i).padStart(2, '0')}`,
      visibility: i % 3 === 0 ? 'public' : 'private',
    });
    expect(made.status).toBe(201);
  }
  await page.goto('/projects');
  const rows = page.locator('.prj-table tbody tr');
  await expect(rows).toHaveCount(14);

  await test.step('search narrows the list and is kept in the address', async () => {
    await page.getByRole('searchbox', { name: 'Search' }).fill('loop');
    await expect(rows).toHaveCount(12);
    await expect(page).toHaveURL(/search=loop/);
  });

  await test.step('ten per page: page 1 of 2, Next and Previous', async () => {
    await page.getByLabel('Per page').selectOption('10');
    await expect(rows).toHaveCount(10);
    await expect(page.getByText('Page 1 of 2 · 12 projects')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(rows).toHaveCount(2);
    await expect(page.getByText('Page 2 of 2 · 12 projects')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect(rows).toHaveCount(10);
  });

  await test.step('sort by name, ascending and descending', async () => {
    await page.getByLabel('Sort by').selectOption('name');
    await page.getByLabel('Order').selectOption('asc');
    await expect(rows.first()).toContainText('Loop 01');
    await page.getByLabel('Order').selectOption('desc');
    await expect(rows.first()).toContainText('Loop 12');
  });

  await test.step('visibility, starred, owned and archived filters', async () => {
    await page.getByLabel('Visibility').selectOption('public');
    await expect(rows).toHaveCount(4);
    await expect(rows.first()).toContainText('Loop 12');
    await page.getByLabel('Visibility').selectOption('');
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await expect(page).not.toHaveURL(/search=/);
    await page.getByLabel('Starred').click();
    await expect(page.getByLabel('Starred')).toBeChecked();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('Night Drive');
    await page.getByLabel('Starred').click();
    await expect(page.getByLabel('Starred')).not.toBeChecked();
    await page.getByLabel('Owned by me').click();
    await expect(page.getByLabel('Owned by me')).toBeChecked();
    await expect(rows).toHaveCount(10);
    await page.getByLabel('Owned by me').click();
    await expect(page.getByLabel('Owned by me')).not.toBeChecked();
    await page.getByLabel('Archived').selectOption('true');
    await expect(page.getByText('No projects match these filters.')).toBeVisible();
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await expect(rows).toHaveCount(14);
  });

  await expectNoHorizontalOverflow(page);
  await saveScreenshot(page, 'projects-list-dark');
  expect(errors).toEqual([]);
});

test('forks into a group and waits for the fork, shares with the group and unshares', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  const groupId = await ensureGroup(server, 'Label Crew', 'label-crew');
  const { body: source } = await projectByPath(server, 'root/night-drive');

  await test.step('fork into the group and watch import_status until it is finished', async () => {
    await openProject(page, source.id, 'fork');
    await page.getByLabel('Namespace').selectOption({ label: 'label-crew (group)' });
    await page.getByRole('button', { name: 'Fork project' }).click();
    await expect(page.getByText('Fork ready')).toBeVisible({ timeout: 60_000 });
    // Humane words only: GitLab's raw field never shows (it did: "import_status: finished").
    await expect(page.getByText('import_status')).toHaveCount(0);
    const { body: fork } = await projectByPath(server, 'label-crew/night-drive');
    expect(fork.import_status).toBe('finished');
    expect(fork.forked_from_project?.id).toBe(source.id);
    await page.getByRole('link', { name: 'Open the fork' }).click();
    await expect(page.locator('.prj-project-header')).toContainText('Forked from root/night-drive');
  });

  await test.step('share with the group: access level and expiry', async () => {
    await openProject(page, source.id, 'share');
    await expect(page.getByText('Not shared with any group.')).toBeVisible();
    await page.getByRole('combobox', { name: 'Group', exact: true }).selectOption({ label: 'label-crew' });
    await page.getByLabel('Access level').selectOption('30');
    await page.getByLabel('Expires (optional)').fill('2099-12-31');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const row = page.getByRole('row', { name: /label-crew/ });
    await expect(row).toContainText('Developer');
    await expect(row).toContainText('2099-12-31');
    const { body } = await projectByPath(server, 'root/night-drive');
    expect(body.shared_with_groups).toEqual([
      expect.objectContaining({ group_id: groupId, group_access_level: 30, expires_at: '2099-12-31' }),
    ]);
    await saveScreenshot(page, 'projects-share-dark');
  });

  await test.step('unshare after a confirmation', async () => {
    await page.getByRole('button', { name: 'Unshare label-crew' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop sharing with this group?' });
    await dialog.getByRole('button', { name: 'Unshare' }).click();
    await expect(page.getByText('Not shared with any group.')).toBeVisible();
    expect((await projectByPath(server, 'root/night-drive')).body.shared_with_groups).toEqual([]);
    // Shared again, as the walk-through leaves it.
    await page.getByRole('combobox', { name: 'Group', exact: true }).selectOption({ label: 'label-crew' });
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await expect(page.getByRole('row', { name: /label-crew/ })).toBeVisible();
    expect((await projectByPath(server, 'root/night-drive')).body.shared_with_groups).toHaveLength(1);
  });

  expect(errors).toEqual([]);
});

test('adds, edits, tests and deletes a hook', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  const { body: project } = await projectByPath(server, 'root/night-drive');
  await openProject(page, project.id, 'hooks');
  await expect(page.getByText('No hooks yet.')).toBeVisible();

  await test.step('a URL that is not http(s) is caught under the field', async () => {
    await page.getByLabel('URL', { exact: true }).fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add hook' }).click();
    expect(await describedError(page.getByLabel('URL', { exact: true }))).toBe('Use an http:// or https:// URL.');
  });

  await test.step('add a hook for pushes and tag pushes', async () => {
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/hook`);
    await page.getByLabel('Secret token (optional)').fill('s3cret');
    await page.getByLabel('Tag push events').check();
    await page.getByRole('button', { name: 'Add hook' }).click();
    const item = page.getByRole('list', { name: 'Project hooks' }).getByRole('listitem');
    await expect(item).toHaveCount(1);
    await expect(item).toContainText(`${receiver.url}/hook`);
    await expect(item).toContainText('Tag push events');
    const { body } = await api<Record<string, unknown>[]>(server, 'GET', `/projects/${project.id}/hooks`);
    expect(body).toEqual([
      expect.objectContaining({
        url: `${receiver.url}/hook`,
        push_events: true,
        tag_push_events: true,
        note_events: false,
        enable_ssl_verification: true,
      }),
    ]);
  });

  await test.step('test push on an empty repository: the API says why', async () => {
    await page.getByRole('button', { name: `Test push to ${receiver.url}/hook` }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'Test failed' })).toHaveText(
      'Test failed: Ensure the project has at least one commit.',
    );
  });

  await test.step('edit the hook: new URL, comments on, tag pushes off', async () => {
    await page.getByRole('button', { name: `Edit ${receiver.url}/hook` }).click();
    await expect(page.getByRole('heading', { name: /^Edit hook #\d+$/ })).toBeVisible();
    await expect(page.getByLabel('URL', { exact: true })).toBeFocused();
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/hook-2`);
    await page.getByLabel('Secret token (optional)').fill('n3w-secret');
    await page.getByLabel('Tag push events').uncheck();
    await page.getByLabel('Comments').check();
    await page.getByRole('button', { name: 'Save hook' }).click();
    await expect(page.getByRole('heading', { name: 'Add a hook' })).toBeVisible();
    const { body } = await api<Record<string, unknown>[]>(server, 'GET', `/projects/${project.id}/hooks`);
    expect(body).toEqual([
      expect.objectContaining({ url: `${receiver.url}/hook-2`, push_events: true, tag_push_events: false, note_events: true }),
    ]);
  });

  await test.step('after a push, the test delivers to the receiver with the token', async () => {
    await pushCommit(server, project, 'README.md', '# Night Drive\n');
    const before = receiver.received.length;
    await page.getByRole('button', { name: `Test push to ${receiver.url}/hook-2` }).click();
    await expect(page.getByText('Test push delivered.')).toBeVisible();
    const delivered = receiver.received.slice(before).filter((r) => r.path === '/hook-2' && r.headers['x-gitlab-event'] === 'Push Hook');
    expect(delivered.length).toBeGreaterThanOrEqual(1);
    expect(delivered[0]?.headers['x-gitlab-token']).toBe('n3w-secret');
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'projects-hooks-dark');
  });

  await test.step('a second hook, deleted after a confirmation', async () => {
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/old`);
    await page.getByRole('button', { name: 'Add hook' }).click();
    await expect(page.getByRole('list', { name: 'Project hooks' }).getByRole('listitem')).toHaveCount(2);
    await page.getByRole('button', { name: `Delete ${receiver.url}/old` }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this hook?' });
    await dialog.getByRole('button', { name: 'Delete hook' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('list', { name: 'Project hooks' }).getByRole('listitem')).toHaveCount(1);
    const { body } = await api<{ url: string }[]>(server, 'GET', `/projects/${project.id}/hooks`);
    expect(body.map((h) => h.url)).toEqual([`${receiver.url}/hook-2`]);
  });

  expect(errors).toEqual([]);
});

test('exports a project, downloads the archive and imports it as a new project', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  const { body: source } = await projectByPath(server, 'root/night-drive');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-e2e-export-'));
  try {
    const archive = path.join(dir, 'night-drive_export.tar.gz');

    await test.step('schedule the export and wait until it is finished', async () => {
      await openProject(page, source.id, 'export');
      await expect(page.getByText('Not exported yet')).toBeVisible();
      await page.getByRole('button', { name: 'Export project' }).click();
      await expect(page.getByText('Finished', { exact: true })).toBeVisible({ timeout: 60_000 });
      expect((await api<{ export_status: string }>(server, 'GET', `/projects/${source.id}/export`)).body.export_status).toBe('finished');
    });

    await test.step('download the archive', async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download archive' }).click()]);
      expect(download.suggestedFilename()).toMatch(/_root_night-drive_export\.tar\.gz$/);
      await download.saveAs(archive);
      const bytes = await readFile(archive);
      expect(bytes.length).toBeGreaterThan(100);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]); // gzip
      await expect(page.getByText(`Saved ${download.suggestedFilename()}.`)).toBeVisible();
      await saveScreenshot(page, 'projects-export-dark');
    });

    await test.step('import it with a new path and watch it finish', async () => {
      await page.getByRole('navigation', { name: 'Projects sections' }).getByRole('link', { name: 'Import' }).click();
      await page.getByRole('button', { name: 'Import project' }).click();
      await expect(page.getByText('Choose an export archive (.tar.gz) first.')).toBeVisible();
      await page.getByLabel('Export archive').setInputFiles(archive);
      await page.getByLabel('Project path').fill('night-drive-restored');
      await page.getByLabel('Project name (optional)').fill('Night Drive restored');
      await page.getByRole('button', { name: 'Import project' }).click();
      await expect(page.getByText('Import finished')).toBeVisible({ timeout: 60_000 });
      await expectNoHorizontalOverflow(page);
      await saveScreenshot(page, 'projects-import-dark');
      const { body } = await projectByPath(server, 'root/night-drive-restored');
      expect(body).toMatchObject({
        import_status: 'finished',
        description: 'Late night synth sketches',
        empty_repo: false,
        name: 'Night Drive restored',
        topics: ['demo', 'synthwave'],
      });
      await page.getByRole('link', { name: 'Open Night Drive restored' }).click();
      await expect(page.getByLabel('Clone with HTTP')).toHaveValue(`${server.url}/root/night-drive-restored.git`);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  expect(errors).toEqual([]);
});

test('adds a group badge with a rendered preview, edits and deletes one', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  const groupId = await ensureGroup(server, 'Label Crew', 'label-crew');
  const { body: fork } = await projectByPath(server, 'label-crew/night-drive');
  await page.goto(`/projects/badges?group=${groupId}`);
  await expect(page.getByRole('combobox', { name: 'Group', exact: true })).toHaveValue(String(groupId));
  await expect(page.getByText('No badges yet.')).toBeVisible();

  await test.step('the preview renders the placeholders and shows the image', async () => {
    await page.getByLabel('Name (optional)').fill('Build');
    await page.getByLabel('Link URL').fill(`${receiver.url}/ci/%{project_path}`);
    await page.getByLabel('Image URL').fill(`${receiver.url}/badge.svg?id=%{project_id}`);
    const preview = page.getByRole('region', { name: 'Badge preview' });
    await expect(preview).toContainText(`${receiver.url}/ci/label-crew/night-drive`);
    await expect(preview).toContainText(`${receiver.url}/badge.svg?id=${fork.id}`);
    const image = preview.getByRole('img', { name: 'Build' });
    await expect(image).toBeVisible();
    await expect.poll(() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(96);
    await expect(preview.getByRole('link')).toHaveAttribute('href', `${receiver.url}/ci/label-crew/night-drive`);
  });

  await test.step('add it: the list shows the rendered badge', async () => {
    await page.getByRole('button', { name: 'Add badge' }).click();
    const item = page.getByRole('list', { name: 'Group badges' }).getByRole('listitem');
    await expect(item).toHaveCount(1);
    await expect(item.getByRole('img', { name: 'Build' })).toBeVisible();
    const { body } = await api<{ name: string; link_url: string; rendered_link_url: string; rendered_image_url: string }[]>(
      server,
      'GET',
      `/groups/${groupId}/badges`,
    );
    expect(body).toEqual([
      expect.objectContaining({
        name: 'Build',
        link_url: `${receiver.url}/ci/%{project_path}`,
        rendered_link_url: `${receiver.url}/ci/label-crew/night-drive`,
        rendered_image_url: `${receiver.url}/badge.svg?id=${fork.id}`,
      }),
    ]);
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, 'projects-badges-dark');
  });

  await test.step('edit its name', async () => {
    await page.getByRole('button', { name: 'Edit Build' }).click();
    await page.getByLabel('Name (optional)').fill('Build status');
    await page.getByRole('button', { name: 'Save badge' }).click();
    await expect(page.getByRole('list', { name: 'Group badges' })).toContainText('Build status');
    const { body } = await api<{ name: string }[]>(server, 'GET', `/groups/${groupId}/badges`);
    expect(body.map((b) => b.name)).toEqual(['Build status']);
  });

  await test.step('a second badge, deleted after a confirmation', async () => {
    await page.getByLabel('Name (optional)').fill('Old');
    await page.getByLabel('Link URL').fill(`${receiver.url}/old`);
    await page.getByLabel('Image URL').fill(`${receiver.url}/badge.svg`);
    await page.getByRole('button', { name: 'Add badge' }).click();
    await expect(page.getByRole('list', { name: 'Group badges' }).getByRole('listitem')).toHaveCount(2);
    await page.getByRole('button', { name: 'Delete Old' }).click();
    await page.getByRole('dialog', { name: 'Delete this badge?' }).getByRole('button', { name: 'Delete badge' }).click();
    await expect(page.getByRole('list', { name: 'Group badges' }).getByRole('listitem')).toHaveCount(1);
    const { body } = await api<{ name: string }[]>(server, 'GET', `/groups/${groupId}/badges`);
    expect(body.map((b) => b.name)).toEqual(['Build status']);
  });

  await test.step("a project's own badge beside the group badge it inherits; the overview shows both", async () => {
    await page.getByRole('group', { name: 'Badges of' }).getByRole('button', { name: 'A project' }).click();
    await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption(String(fork.id));
    const list = page.getByRole('list', { name: 'Project badges' });
    await expect(list.getByRole('listitem')).toHaveCount(1);
    await expect(list).toContainText('From a group');
    // The inherited badge is changed on the group, not here.
    await expect(page.getByRole('button', { name: 'Edit Build status' })).toHaveCount(0);
    await page.getByLabel('Name (optional)').fill('Mix');
    await page.getByLabel('Link URL').fill(`${receiver.url}/mix/%{project_id}`);
    await page.getByLabel('Image URL').fill(`${receiver.url}/badge.svg?p=%{project_path}`);
    await expect(page.getByRole('region', { name: 'Badge preview' })).toContainText(`${receiver.url}/mix/${fork.id}`);
    await page.getByRole('button', { name: 'Add badge' }).click();
    await expect(list.getByRole('listitem')).toHaveCount(2);
    const { body } = await api<{ name: string; kind: string; rendered_link_url: string }[]>(server, 'GET', `/projects/${fork.id}/badges`);
    expect(body.map((b) => [b.name, b.kind])).toEqual([
      ['Build status', 'group'],
      ['Mix', 'project'],
    ]);
    expect(body[1]?.rendered_link_url).toBe(`${receiver.url}/mix/${fork.id}`);
    await page.goto(`/projects/${fork.id}`);
    const images = page.getByRole('list', { name: 'Badges' }).getByRole('img');
    await expect(images).toHaveCount(2);
    await expect(images.nth(1)).toHaveAttribute('alt', 'Mix');
    await expect(page.getByRole('list', { name: 'Badges' }).getByRole('link').nth(1)).toHaveAttribute(
      'href',
      `${receiver.url}/mix/${fork.id}`,
    );
  });

  expect(errors).toEqual([]);
});

test('deletes a project through the typed confirmation dialog', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  const { body: fork } = await projectByPath(server, 'label-crew/night-drive');
  await openProject(page, fork.id);
  const dialog = page.getByRole('dialog', { name: 'Delete this project?' });

  await test.step('Escape closes the dialog without deleting', async () => {
    await page.getByRole('button', { name: 'Delete…' }).click();
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Type label-crew/night-drive to confirm')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    expect((await projectByPath(server, 'label-crew/night-drive')).status).toBe(200);
  });

  await test.step('focus stays in the dialog; the button waits for the exact path', async () => {
    await page.getByRole('button', { name: 'Delete…' }).click();
    const confirm = dialog.getByRole('button', { name: 'Delete project' });
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel('Type label-crew/night-drive to confirm').fill('label-crew/night');
    await expect(confirm).toBeDisabled();
    for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
    // showModal() makes the page behind inert: Tab cycles inside the dialog (or to the browser UI).
    const inside = await dialog.evaluate((element) => element.contains(document.activeElement as never) || document.activeElement === null);
    expect(inside).toBe(true);
    await dialog.getByLabel('Type label-crew/night-drive to confirm').fill('label-crew/night-drive');
    await saveScreenshot(page, 'projects-delete-dialog-dark');
    await confirm.click();
    await expect(page).toHaveURL(/\/projects$/);
    expect((await projectByPath(server, 'label-crew/night-drive')).status).toBe(404);
    await expect(page.getByRole('link', { name: /label-crew \/ Night Drive/ })).toHaveCount(0);
  });

  expect(errors).toEqual([]);
});

test('reads well in light and dark at 1280×800 and 1920×1080', async ({ page, server }) => {
  const errors = collectPageErrors(page);
  const { body: project } = await projectByPath(server, 'root/night-drive');
  const groupId = await ensureGroup(server, 'Label Crew', 'label-crew');
  const views = [
    { name: 'list', url: '/projects', ready: page.locator('.prj-table') },
    { name: 'overview', url: `/projects/${project.id}`, ready: page.getByLabel('Clone with HTTP') },
    { name: 'settings', url: `/projects/${project.id}/edit`, ready: page.getByLabel('Description') },
    { name: 'hooks', url: `/projects/${project.id}/hooks`, ready: page.getByRole('list', { name: 'Project hooks' }) },
    { name: 'badges', url: `/projects/badges?group=${groupId}`, ready: page.getByRole('list', { name: 'Group badges' }) },
    { name: 'new', url: '/projects/new', ready: page.getByLabel('Project name') },
  ];
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    await page.setViewportSize(size);
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const view of views) {
        await page.goto(view.url);
        await expect(view.ready).toBeVisible();
        await expectNoHorizontalOverflow(page);
        await saveScreenshot(page, `projects-${view.name}-${scheme}-${size.width}x${size.height}`);
        if (view.name === 'settings') {
          // The lower half of the form: switches and merge request rules.
          await page.getByText('Advanced: GitLab CI/CD and merge request settings').click();
          await page.getByLabel('Merge method').scrollIntoViewIfNeeded();
          await saveScreenshot(page, `projects-settings-lower-${scheme}-${size.width}x${size.height}`);
        }
      }
    }
  }
  expect(errors).toEqual([]);
});

/** The producer's phone and tablet viewports. */
const narrowViewports = producerViewports.filter((v) => v.width < 1024);

/** The page at a phone's and a tablet's width: no sideways scrolling, and a screenshot to look at. */
async function checkNarrow(page: Page, name: string): Promise<void> {
  for (const viewport of narrowViewports) {
    await page.setViewportSize(viewport);
    await expectNoHorizontalOverflow(page);
    await saveScreenshot(page, `projects-review-${name}-${viewport.width}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('review fixes: own namespace, share expiry, one failed-import state with delete and retry', async ({ page, server }) => {
  const errors = collectPageErrors(page);

  await test.step('the namespace list calls only root "you" (another user is a user)', async () => {
    await createProducer(server.url, server.adminToken, 'mia');
    await page.goto('/projects/import');
    const options = page.getByLabel('Namespace').locator('option');
    await expect(options.filter({ hasText: /^root / })).toHaveText('root (you)');
    await expect(options.filter({ hasText: /^mia / })).toHaveText('mia (user)');
  });

  await test.step('an expiry in the past is refused; an expired share is listed as expired', async () => {
    await ensureGroup(server, 'Old Friends', 'old-friends');
    const made = await api<ApiProject>(server, 'POST', '/projects', { name: 'Expiry Check' });
    expect(made.status).toBe(201);
    await openProject(page, made.body.id, 'share');
    await page.getByRole('combobox', { name: 'Group', exact: true }).selectOption({ label: 'old-friends' });
    const expires = page.getByLabel('Expires (optional)');
    await expires.fill('2020-01-01');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    expect(await describedError(expires)).toBe('Choose today or a later day: a share that has expired gives no access.');
    expect((await projectByPath(server, made.body.path_with_namespace)).body.shared_with_groups).toEqual([]);
    // GitLab itself accepts a past date (ProjectGroupLink has no such validation): the list must say it is over.
    const group = await api<{ id: number }>(server, 'GET', '/groups/old-friends');
    const shared = await api(server, 'POST', `/projects/${made.body.id}/share`, {
      group_id: group.body.id,
      group_access: 30,
      expires_at: '2020-01-01',
    });
    expect(shared.status).toBe(201);
    await page.reload();
    const row = page.getByRole('row', { name: /old-friends/ });
    await expect(row).toContainText('Expired');
    await expect(row).toContainText('2020-01-01');
    await checkNarrow(page, 'share');
  });

  await test.step('GitLab-only settings wait under "Advanced", in the project form and the hook form', async () => {
    const { body: project } = await projectByPath(server, 'root/expiry-check');
    // The overview does not count the expired share as access.
    await openProject(page, project.id);
    await expect(page.getByRole('region', { name: 'About' })).toContainText('old-friends (expired 2020-01-01)');
    await openProject(page, project.id, 'edit');
    await expect(page.getByLabel('Git Large File Storage (LFS)')).toBeVisible();
    for (const label of ['Merge method', 'CI configuration path', 'Shared runners', 'Container registry'])
      await expect(page.getByLabel(label)).toBeHidden();
    await page.getByText('Advanced: GitLab CI/CD and merge request settings').click();
    for (const label of ['Merge method', 'CI configuration path', 'Shared runners', 'Container registry'])
      await expect(page.getByLabel(label)).toBeVisible();
    await openProject(page, project.id, 'hooks');
    await expect(page.getByLabel('Push events', { exact: true })).toBeVisible();
    await expect(page.getByLabel('Pipeline events')).toBeHidden();
    await page.getByText('Advanced: GitLab CI/CD events').click();
    await expect(page.getByLabel('Pipeline events')).toBeVisible();
  });

  await test.step('a group is created from the GUI', async () => {
    await page.getByRole('navigation', { name: 'Projects sections' }).getByRole('link', { name: 'Groups', exact: true }).click();
    await page.getByLabel('Group name').fill('Tape Club');
    await expect(page.getByLabel('Group path')).toHaveAttribute('placeholder', 'tape-club');
    await page.getByRole('button', { name: 'Create group' }).click();
    await expect(page.getByRole('status')).toHaveText('Created the group tape-club.');
    await expect(page.getByRole('list', { name: 'Groups' })).toContainText('Tape Club');
    await checkNarrow(page, 'groups');
    const made = await api<{ name: string; visibility: string }>(server, 'GET', '/groups/tape-club');
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: 'Tape Club', visibility: 'private' });
  });

  await test.step('a failed import shows one failed state, deletes the empty project or imports again over it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-e2e-bad-archive-'));
    const archive = path.join(dir, 'broken_export.tar.gz');
    await writeFile(archive, Buffer.from('this is not a gzip archive'));
    await page.goto('/projects/import');
    await expect(page.getByLabel('Replace a project with the same path')).not.toBeChecked();
    await page.getByLabel('Export archive').setInputFiles(archive);
    await page.getByRole('button', { name: 'Import project' }).click();
    await expect(page.getByText('The import failed.')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText('Imported as')).toHaveCount(0);
    expect((await projectByPath(server, 'root/broken')).status).toBe(200);
    // Again over the empty project: without overwrite the taken path would be refused (400).
    await page.getByRole('button', { name: 'Import again over it' }).click();
    await expect(page.getByLabel('Replace a project with the same path')).toBeChecked();
    await expect(page.getByText('The import failed.')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText('has already been taken')).toHaveCount(0);
    await checkNarrow(page, 'import-failed');
    // That retry failed too, under the temporary path an overwrite imports into (as GitLab): delete that one.
    await page.getByRole('button', { name: 'Delete the empty project' }).click();
    await expect(page.getByText(/was deleted/)).toBeVisible();
    const left = async () =>
      (await api<ApiProject[]>(server, 'GET', '/projects?search=broken&owned=true')).body.map((p) => p.path_with_namespace);
    await expect.poll(left, { timeout: 30_000 }).toEqual(['root/broken']);
    await rm(dir, { recursive: true, force: true });
  });

  expect(errors).toEqual([]);
});
