import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTarGz } from '../../shared/tar-archive.js';
import { callHosting, gitClient, readJson, withToken, type CallInit } from '../../test-support/hosting-client.js';
import { addUsers, adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Badge, BadgeRender, Project, ProjectImportStatus } from '../api-types.js';

let app: TestApp;
const tokens: Record<'alice' | 'bob' | 'carol' | 'dave' | 'erin', string> = { alice: '', bob: '', carol: '', dave: '', erin: '' };
const ids = { alice: 0, bob: 0, carol: 0, dave: 0, erin: 0, label: 0, roster: 0, other: 0 };
const badges = { label: 0, roster: 0, other: 0, first: 0, second: 0 };
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-project-badges-'));
let drive: Project;
let vault: Project;
let sha = '';

type Who = keyof typeof tokens | 'admin' | 'anonymous';
const api = (who: Who, route: string, init: CallInit = {}) =>
  callHosting(app, who === 'anonymous' ? null : who === 'admin' ? adminToken : tokens[who], route, init);
const json = readJson;
const expectReply = async (res: Response, status: number, body: unknown) => {
  expect({ status: res.status, body: res.status === 204 ? null : await res.json() }).toEqual({ status, body });
};
const created = async <T>(res: Promise<Response> | Response): Promise<T> => {
  const r = await res;
  expect(r.status, JSON.stringify(await r.clone().json())).toBe(201);
  return json<T>(r);
};
const git = gitClient(work, { name: 'Badge Maker', email: 'badges@example.com' }).ok;
const routeOf = (p: Project) => `/projects/${p.id}/badges`;

beforeAll(async () => {
  app = await startTestApp();
  await addUsers(app, ['alice', 'bob', 'carol', 'dave', 'erin'], tokens, ids);
  // label (public) > label/roster (public): alice owns both; bob is a developer, carol a reporter of label.
  ids.label = (
    await created<{ id: number }>(api('alice', '/groups', { method: 'POST', body: { name: 'Label', path: 'label', visibility: 'public' } }))
  ).id;
  ids.roster = (
    await created<{ id: number }>(
      api('alice', '/groups', { method: 'POST', body: { name: 'Roster', path: 'roster', visibility: 'public', parent_id: ids.label } }),
    )
  ).id;
  ids.other = (
    await created<{ id: number }>(api('alice', '/groups', { method: 'POST', body: { name: 'Other', path: 'other', visibility: 'public' } }))
  ).id;
  for (const [who, level] of [
    ['bob', 30],
    ['carol', 20],
  ] as const)
    await created(api('alice', `/groups/${ids.label}/members`, { method: 'POST', body: { user_id: ids[who], access_level: level } }));
  // Group badges made before the project's own, so id order interleaves the kinds.
  const groupBadge = (groupId: number, name: string) =>
    created<Badge>(
      api('alice', `/groups/${groupId}/badges`, {
        method: 'POST',
        body: {
          name,
          link_url: `https://ci.example.com/${name}/%{project_path}`,
          image_url: `https://img.example.com/${name}/%{commit_sha}.svg`,
        },
      }),
    );
  badges.label = (await groupBadge(ids.label, 'label')).id;
  drive = await created<Project>(
    api('alice', '/projects', { method: 'POST', body: { name: 'Night Drive', namespace_id: ids.roster, visibility: 'public' } }),
  );
  vault = await created<Project>(
    api('alice', '/projects', { method: 'POST', body: { name: 'Vault', namespace_id: ids.roster, visibility: 'private' } }),
  );
  badges.other = (await groupBadge(ids.other, 'other')).id;
  const src = path.join(work, 'drive');
  await git(['init', '-q', src]);
  writeFileSync(path.join(src, 'mix.txt'), 'mix 1\n');
  await git(['add', '.'], src);
  await git(['commit', '-q', '-m', 'Mix 1'], src);
  await git(['push', '-q', withToken(drive.http_url_to_repo, tokens.alice), 'main'], src);
  sha = (await git(['rev-parse', 'HEAD'], src)).trim();
}, 60_000);

afterAll(() => app.close());

describe('project badges: own and inherited', () => {
  it('creates a project badge (201, kind "project") rendered with the project\'s own values', async () => {
    const badge = await created<Badge>(
      api('alice', routeOf(drive), {
        method: 'POST',
        body: {
          name: 'Pipeline',
          link_url: 'https://ci.example.com/%{project_path}/-/%{default_branch}?id=%{project_id}&g=%{group_name}',
          image_url: 'https://img.example.com/%{project_id}/%{commit_sha}.svg',
        },
      }),
    );
    badges.first = badge.id;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(badge).toEqual({
      id: badge.id,
      name: 'Pipeline',
      link_url: 'https://ci.example.com/%{project_path}/-/%{default_branch}?id=%{project_id}&g=%{group_name}',
      image_url: 'https://img.example.com/%{project_id}/%{commit_sha}.svg',
      rendered_link_url: `https://ci.example.com/label/roster/night-drive/-/main?id=${drive.id}&g=label/roster`,
      rendered_image_url: `https://img.example.com/${drive.id}/${sha}.svg`,
      kind: 'project',
    });
    badges.roster = (
      await created<Badge>(
        api('alice', `/groups/${ids.roster}/badges`, {
          method: 'POST',
          body: { name: 'roster', link_url: 'https://ci.example.com/roster', image_url: 'https://img.example.com/roster.svg' },
        }),
      )
    ).id;
    badges.second = (
      await created<Badge>(
        api('alice', routeOf(drive), {
          method: 'POST',
          body: { link_url: 'https://a.example/%{project_id}', image_url: 'https://a.example/b.svg' },
        }),
      )
    ).id;
  });

  it('lists its own badges and those of every ancestor group, in id order, placeholders filled from this project', async () => {
    const res = await api('anonymous', routeOf(drive));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('4');
    const list = await json<Badge[]>(res);
    expect(list.map((b) => [b.id, b.kind, b.name])).toEqual([
      [badges.label, 'group', 'label'],
      [badges.first, 'project', 'Pipeline'],
      [badges.roster, 'group', 'roster'],
      [badges.second, 'project', null],
    ]);
    // A group badge shown in a project takes that project's values, not the group's first project's.
    expect(list[0]).toMatchObject({
      rendered_link_url: 'https://ci.example.com/label/label/roster/night-drive',
      rendered_image_url: `https://img.example.com/label/${sha}.svg`,
    });
    expect(list[3]!.rendered_link_url).toBe(`https://a.example/${drive.id}`);
    // The other group's badge is not the project's.
    expect(list.map((b) => b.id)).not.toContain(badges.other);
    const paged = await api('bob', `${routeOf(drive)}?per_page=2&page=2`);
    expect(paged.headers.get('x-total')).toBe('4');
    expect((await json<Badge[]>(paged)).map((b) => b.id)).toEqual([badges.roster, badges.second]);
    expect((await json<Badge[]>(await api('bob', `${routeOf(drive)}?name=roster`))).map((b) => b.id)).toEqual([badges.roster]);
    expect((await json<Badge[]>(await api('bob', `/projects/label%2Froster%2Fnight-drive/badges?name=Pipeline`))).map((b) => b.id)).toEqual(
      [badges.first],
    );
  });

  it("GET one finds its own and its groups' badges (as GitLab's project.badges); another group's is 404 Not found", async () => {
    expect(await json(await api('carol', `${routeOf(drive)}/${badges.first}`))).toMatchObject({ id: badges.first, kind: 'project' });
    expect(await json(await api('carol', `${routeOf(drive)}/${badges.roster}`))).toMatchObject({ id: badges.roster, kind: 'group' });
    await expectReply(await api('carol', `${routeOf(drive)}/${badges.other}`), 404, { message: '404 Not found' });
    await expectReply(await api('carol', `${routeOf(drive)}/abc`), 400, { error: 'badge_id is invalid' });
  });

  it('a group badge is not edited or deleted through the project (404 Not found), and stays as it was', async () => {
    await expectReply(await api('alice', `${routeOf(drive)}/${badges.roster}`, { method: 'PUT', body: { name: 'hijacked' } }), 404, {
      message: '404 Not found',
    });
    await expectReply(await api('alice', `${routeOf(drive)}/${badges.label}`, { method: 'DELETE' }), 404, { message: '404 Not found' });
    expect(await json(await api('alice', `/groups/${ids.roster}/badges/${badges.roster}`))).toMatchObject({ name: 'roster' });
    expect((await json<Badge[]>(await api('alice', `/groups/${ids.label}/badges`))).map((b) => b.id)).toEqual([badges.label]);
  });

  it('edits (all attributes optional) and deletes (204) its own badges', async () => {
    const edited = {
      id: badges.second,
      name: 'Second',
      link_url: 'https://a.example/%{project_id}',
      image_url: 'https://a.example/%{default_branch}.svg',
      rendered_link_url: `https://a.example/${drive.id}`,
      rendered_image_url: 'https://a.example/main.svg',
      kind: 'project',
    };
    await expectReply(
      await api('alice', `${routeOf(drive)}/${badges.second}`, {
        method: 'PUT',
        body: { name: 'Second', image_url: 'https://a.example/%{default_branch}.svg' },
      }),
      200,
      edited,
    );
    // An edit that sends nothing answers the badge as it was.
    await expectReply(await api('alice', `${routeOf(drive)}/${badges.second}`, { method: 'PUT' }), 200, edited);
    await expectReply(await api('alice', `${routeOf(drive)}/${badges.second}`, { method: 'DELETE' }), 204, null);
    await expectReply(await api('alice', `${routeOf(drive)}/${badges.second}`), 404, { message: '404 Not found' });
    await expectReply(await api('alice', `${routeOf(drive)}/${badges.second}`, { method: 'DELETE' }), 404, { message: '404 Not found' });
  });

  it("render previews with the project's values (BasicBadgeDetails)", async () => {
    const q = `link_url=${encodeURIComponent('https://x.example/%{project_path}')}&image_url=${encodeURIComponent('https://x.example/%{commit_sha}')}`;
    await expectReply(await api('alice', `${routeOf(drive)}/render?${q}`), 200, {
      name: null,
      link_url: 'https://x.example/%{project_path}',
      image_url: 'https://x.example/%{commit_sha}',
      rendered_link_url: 'https://x.example/label/roster/night-drive',
      rendered_image_url: `https://x.example/${sha}`,
    } satisfies BadgeRender);
    await expectReply(await api('anonymous', `${routeOf(drive)}/render?link_url=https://x.example`), 400, {
      error: 'image_url is missing',
    });
    await expectReply(await api('anonymous', `${routeOf(drive)}/render?${q}`), 401, { message: '401 Unauthorized' });
    await expectReply(await api('bob', `${routeOf(drive)}/render?${q}`), 403, { message: '403 Forbidden' });
  });

  it('a personal project has only its own badges; %{group_name} is empty', async () => {
    const own = await created<Project>(api('dave', '/projects', { method: 'POST', body: { name: 'Demo', visibility: 'public' } }));
    const badge = await created<Badge>(
      api('dave', routeOf(own), {
        method: 'POST',
        body: { link_url: 'https://x.example/%{project_path}?g=%{group_name}', image_url: 'https://x.example/i.svg' },
      }),
    );
    expect(badge.rendered_link_url).toBe(`https://x.example/${own.path_with_namespace}?g=`);
    expect((await json<Badge[]>(await api('anonymous', routeOf(own)))).map((b) => b.id)).toEqual([badge.id]);
    // Deleting the project takes its badges with it.
    expect((await api('dave', `/projects/${own.id}`, { method: 'DELETE' })).status).toBe(202);
    expect(app.store.data.projectBadges.some((b) => b.projectId === own.id)).toBe(false);
  });
});

describe('project badge permissions and validation', () => {
  const body = { link_url: 'https://example.com', image_url: 'https://example.com/b.svg' };

  it('maintainers, owners and admins write; developers, reporters and outsiders 403; anonymous 401', async () => {
    expect((await created<Badge>(api('admin', routeOf(drive), { method: 'POST', body }))).kind).toBe('project');
    for (const who of ['bob', 'carol', 'dave'] as const) {
      await expectReply(await api(who, routeOf(drive), { method: 'POST', body }), 403, { message: '403 Forbidden' });
      await expectReply(await api(who, `${routeOf(drive)}/${badges.first}`, { method: 'PUT', body: { name: 'x' } }), 403, {
        message: '403 Forbidden',
      });
      await expectReply(await api(who, `${routeOf(drive)}/${badges.first}`, { method: 'DELETE' }), 403, { message: '403 Forbidden' });
    }
    await expectReply(await api('anonymous', routeOf(drive), { method: 'POST', body }), 401, { message: '401 Unauthorized' });
    await expectReply(await api('anonymous', `${routeOf(drive)}/${badges.first}`, { method: 'DELETE' }), 401, {
      message: '401 Unauthorized',
    });
    // A maintainer of the parent group (not an owner) writes.
    await created(api('alice', `/groups/${ids.label}/members`, { method: 'POST', body: { user_id: ids.erin, access_level: 40 } }));
    expect((await created<Badge>(api('erin', routeOf(drive), { method: 'POST', body }))).kind).toBe('project');
  });

  it('a private project is 404 Project Not Found to those who cannot read it, for every route', async () => {
    const badge = await created<Badge>(api('alice', routeOf(vault), { method: 'POST', body }));
    const notFound = { message: '404 Project Not Found' };
    await expectReply(await api('dave', routeOf(vault)), 404, notFound);
    await expectReply(await api('anonymous', `${routeOf(vault)}/${badge.id}`), 404, notFound);
    await expectReply(await api('dave', routeOf(vault), { method: 'POST', body }), 404, notFound);
    await expectReply(await api('dave', `${routeOf(vault)}/${badge.id}`, { method: 'PUT', body }), 404, notFound);
    await expectReply(await api('dave', `${routeOf(vault)}/${badge.id}`, { method: 'DELETE' }), 404, notFound);
    await expectReply(await api('dave', `${routeOf(vault)}/render?link_url=https://a.example&image_url=https://a.example`), 404, notFound);
    // Members read it: carol (reporter of the parent group) sees the badge and the inherited ones.
    expect((await json<Badge[]>(await api('carol', routeOf(vault)))).map((b) => b.kind)).toEqual(['group', 'group', 'project']);
  });

  it('a read_api token reads but does not write (403 insufficient_scope)', async () => {
    const { token } = await app.identity.createToken(ids.alice, { name: 'reader', scopes: ['read_api'] });
    expect((await callHosting(app, token, routeOf(drive))).status).toBe(200);
    const res = await callHosting(app, token, routeOf(drive), { method: 'POST', body });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe('insufficient_scope');
    // Every read answers; every write is refused for the scope, before the badge is looked at.
    expect((await callHosting(app, token, `${routeOf(drive)}/${badges.first}`)).status).toBe(200);
    const render = `${routeOf(drive)}/render?link_url=https://a.example&image_url=https://a.example/i.svg`;
    expect((await callHosting(app, token, render)).status).toBe(200);
    for (const method of ['PUT', 'DELETE']) {
      const write = await callHosting(app, token, `${routeOf(drive)}/${badges.first}`, { method, body: { name: 'x' } });
      expect(write.status).toBe(403);
      expect(((await write.json()) as { error: string }).error).toBe('insufficient_scope');
    }
    expect(await json(await api('alice', `${routeOf(drive)}/${badges.first}`))).toMatchObject({ name: 'Pipeline' });
    // A token with neither api nor read_api reads nothing either.
    const { token: repoOnly } = await app.identity.createToken(ids.alice, { name: 'repo', scopes: ['read_repository'] });
    for (const route of [routeOf(drive), `${routeOf(drive)}/${badges.first}`, render]) {
      const read = await callHosting(app, repoOnly, route);
      expect(read.status).toBe(403);
      expect(((await read.json()) as { error: string }).error).toBe('insufficient_scope');
    }
  });

  it("hostile input gets the API's 4xx JSON, never a 500", async () => {
    const raw = (route: string, init: RequestInit = {}) =>
      app.fetch(`/api/v4${route}`, { ...init, headers: { 'PRIVATE-TOKEN': tokens.alice, ...(init.headers as Record<string, string>) } });
    const jsonBody = (text: string, method = 'POST') => ({ method, headers: { 'Content-Type': 'application/json' }, body: text });
    const one = `${routeOf(drive)}/${badges.first}`;
    const cases: readonly (readonly [string, Promise<Response>, number, unknown])[] = [
      ['a project id that is not one', raw('/projects/-1/badges'), 404, { message: '404 Project Not Found' }],
      ['a project id past 2^53', raw('/projects/99999999999999999999999/badges'), 404, { message: '404 Project Not Found' }],
      ['a project path climbing out', raw('/projects/..%2F..%2Fetc/badges'), 404, { message: '404 Project Not Found' }],
      ['bad percent-encoding in the project id', raw('/projects/%E0%A4%A/badges'), 400, { error: 'The URL is not valid percent-encoding' }],
      ['a badge id past 2^53', raw(`${routeOf(drive)}/99999999999999999999999`), 400, { error: 'badge_id is invalid' }],
      ['a fractional badge id', raw(`${routeOf(drive)}/1.5`), 400, { error: 'badge_id is invalid' }],
      ['a negative badge id', raw(`${routeOf(drive)}/-1`), 404, { message: '404 Not found' }],
      ['PUT to a badge id that is not a number', raw(`${routeOf(drive)}/x`, jsonBody('{}', 'PUT')), 400, { error: 'badge_id is invalid' }],
      [
        'DELETE of a badge id that is not a number',
        raw(`${routeOf(drive)}/x`, { method: 'DELETE' }),
        400,
        { error: 'badge_id is invalid' },
      ],
      ['a body that is not JSON', raw(routeOf(drive), jsonBody('{"link_url": ')), 400, { error: 'Request body is not valid JSON' }],
      ['an edit whose body is not JSON', raw(one, jsonBody('nope', 'PUT')), 400, { error: 'Request body is not valid JSON' }],
      ['a JSON string as the body', raw(routeOf(drive), jsonBody('"x"')), 400, { error: 'Request body is not valid JSON' }],
      ['a JSON array as the body', raw(routeOf(drive), jsonBody('[1,2]')), 400, { error: 'link_url is missing, image_url is missing' }],
      [
        'link_url an array',
        raw(routeOf(drive), jsonBody(JSON.stringify({ link_url: ['https://a.example'], image_url: 'https://a.example/i' }))),
        400,
        { error: 'link_url is invalid' },
      ],
      [
        'link_url an object',
        raw(routeOf(drive), jsonBody(JSON.stringify({ link_url: { a: 1 }, image_url: 'https://a.example/i' }))),
        400,
        { error: 'link_url is invalid' },
      ],
      [
        'name an object',
        raw(routeOf(drive), jsonBody(JSON.stringify({ name: { a: 1 }, link_url: 'https://a.example', image_url: 'https://a.example/i' }))),
        400,
        { error: 'name is invalid' },
      ],
      ['an edit naming an array', raw(one, jsonBody(JSON.stringify({ name: [1] }), 'PUT')), 400, { error: 'name is invalid' }],
      [
        'an edit with an object image_url',
        raw(one, jsonBody(JSON.stringify({ image_url: { a: 1 } }), 'PUT')),
        400,
        { error: 'image_url is invalid' },
      ],
      [
        'a URL that does not parse, and control characters',
        raw(routeOf(drive), jsonBody(JSON.stringify({ link_url: 'http://[::1', image_url: 'https://a\u0000b' }))),
        400,
        { message: { link_url: ['is blocked: URI is invalid'], image_url: ['is blocked: URI is invalid'] } },
      ],
      [
        'a 200 KB link_url',
        raw(
          routeOf(drive),
          jsonBody(JSON.stringify({ link_url: `https://a.example/${'a'.repeat(200_000)}`, image_url: 'https://a.example/i' })),
        ),
        413,
        { message: '413 Request Entity Too Large' },
      ],
      [
        'a 30 KB render URL',
        raw(`${routeOf(drive)}/render?link_url=https://a.example/${'a'.repeat(30_000)}&image_url=https://a.example/i`),
        431,
        { message: '431 Request Header Fields Too Large' },
      ],
      [
        'render with link_url nested',
        raw(`${routeOf(drive)}/render?link_url[a][b]=x&image_url=https://a.example/i`),
        400,
        { error: 'link_url is invalid' },
      ],
      ['list with name an array', raw(`${routeOf(drive)}?name[]=x`), 400, { error: 'name is invalid' }],
      ['list with per_page not a number', raw(`${routeOf(drive)}?per_page=abc`), 400, { error: 'per_page is invalid' }],
      [
        'a form field nested',
        raw(routeOf(drive), {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'link_url[a]=1&image_url=https://a.example',
        }),
        400,
        { error: 'link_url is invalid' },
      ],
    ];
    const answers = await Promise.all(
      cases.map(async ([what, res, status, expected]) => {
        const r = await res;
        return { what, status: r.status, type: r.headers.get('content-type'), body: await r.json(), expected: { status, body: expected } };
      }),
    );
    for (const a of answers) {
      expect({ what: a.what, status: a.status, body: a.body }).toEqual({ what: a.what, ...a.expected });
      expect(a.type, a.what).toMatch(/^application\/json/);
    }
    // None of it changed the badges.
    expect((await json<Badge[]>(await api('alice', routeOf(drive)))).map((b) => b.name)).toContain('Pipeline');
  });

  it('missing URLs are Grape errors; URLs must be http(s)', async () => {
    await expectReply(await api('alice', routeOf(drive), { method: 'POST', body: {} }), 400, {
      error: 'link_url is missing, image_url is missing',
    });
    await expectReply(
      await api('alice', routeOf(drive), {
        method: 'POST',
        body: { link_url: 'javascript:alert(1)', image_url: 'data:image/svg+xml,<svg/>' },
      }),
      400,
      {
        message: {
          link_url: ['is blocked: Only allowed schemes are http, https'],
          image_url: ['is blocked: Only allowed schemes are http, https'],
        },
      },
    );
    await expectReply(await api('alice', `${routeOf(drive)}/${badges.first}`, { method: 'PUT', body: { image_url: '' } }), 400, {
      message: { image_url: ['must be a valid URL'] },
    });
  });
});

describe('project badges in exports and imports', () => {
  async function importAndWait(archive: Buffer, fields: Record<string, string>): Promise<ProjectImportStatus> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([new Uint8Array(archive)]), 'file.tar.gz');
    const res = await app.fetch('/api/v4/projects/import', { method: 'POST', headers: { 'PRIVATE-TOKEN': tokens.alice }, body: form });
    const result = (await res.json()) as ProjectImportStatus;
    expect(res.status, JSON.stringify(result)).toBe(201);
    await app.jobs.onIdle();
    return json<ProjectImportStatus>(api('alice', `/projects/${result.id}/import`));
  }

  it("an export carries the project's own badges (project_badges.ndjson) and an import brings them back", async () => {
    const before = (await json<Badge[]>(await api('alice', routeOf(drive)))).filter((b) => b.kind === 'project');
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect((await api('alice', `/projects/${drive.id}/export`, { method: 'POST' })).status).toBe(202);
    await app.jobs.onIdle();
    const archive = Buffer.from(await (await api('alice', `/projects/${drive.id}/export/download`)).arrayBuffer());
    const status = await importAndWait(archive, { path: 'night-drive-copy' });
    expect(status.import_status).toBe('finished');
    const after = await json<Badge[]>(await api('alice', `/projects/${status.id}/badges`));
    // A personal project now: only its own badges, the group badges stayed with the groups.
    expect(after.map((b) => [b.kind, b.name, b.link_url, b.image_url])).toEqual(
      before.map((b) => ['project', b.name, b.link_url, b.image_url]),
    );
    expect(after[0]!.rendered_image_url).toContain(`/${status.id}/`);
  });

  it('an archive badge with a javascript: link fails the import with a clear error', async () => {
    const file = path.join(work, 'hostile.tar.gz');
    await writeTarGz(file, [
      { path: 'tree/project.json', data: JSON.stringify({ description: 'x' }), mtime: new Date() },
      {
        path: 'tree/project/project_badges.ndjson',
        data: `${JSON.stringify({ link_url: 'javascript:alert(1)', image_url: 'https://a.example/b.svg' })}\n`,
        mtime: new Date(),
      },
    ]);
    const status = await importAndWait(await readFile(file), { path: 'hostile-badges' });
    expect(status.import_status).toBe('failed');
    expect(status.import_error).toContain('project_badges.ndjson line 1');
    expect(app.store.data.projectBadges.some((b) => b.projectId === status.id)).toBe(false);
  });
});
