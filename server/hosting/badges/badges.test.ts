import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, type CallInit } from '../../test-support/hosting-client.js';
import { addUsers, adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { BadgeRender, GroupBadge, Project } from '../api-types.js';

let app: TestApp;
const tokens: Record<'alice' | 'bob' | 'carol', string> = { alice: '', bob: '', carol: '' };
const ids = { alice: 0, bob: 0, carol: 0, band: 0, vault: 0, mixed: 0, coverage: 0, plain: 0 };
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-badges-'));

type Who = keyof typeof tokens | 'admin' | 'anonymous';
const api = (who: Who, route: string, init: CallInit = {}) =>
  callHosting(app, who === 'anonymous' ? null : who === 'admin' ? adminToken : tokens[who], route, init);
const json = readJson;
const expectReply = async (res: Response, status: number, body: unknown) => {
  expect({ status: res.status, body: res.status === 204 ? null : await res.json() }).toEqual({ status, body });
};
const createBadge = async (who: Who, groupId: number, body: Record<string, unknown>) => {
  const res = await api(who, `/groups/${groupId}/badges`, { method: 'POST', body });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  return json<GroupBadge>(res);
};
const createProject = async (body: Record<string, unknown>) => {
  const res = await api('alice', '/projects', { method: 'POST', body });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  return json<Project>(res);
};
const renderQuery = (link: string, image: string) => `link_url=${encodeURIComponent(link)}&image_url=${encodeURIComponent(image)}`;

const git = gitClient(work, { name: 'Badge Maker', email: 'badges@example.com' }).ok;

/** Every placeholder, in the path and in the query, plus one GitLab does not know. */
const allPlaceholders =
  'https://ci.example.com/%{project_path}/%{project_id}/%{default_branch}/%{commit_sha}?name=%{project_name}&title=%{project_title}&ns=%{project_namespace}&group=%{group_name}&server=%{gitlab_server}&x=%{unknown}';

beforeAll(async () => {
  app = await startTestApp();
  await addUsers(app, ['alice', 'bob', 'carol'], tokens, ids);
  // band (public): alice owns, bob reports. vault (private): alice only. mixed (public): a private project first.
  for (const [key, visibility] of [
    ['band', 'public'],
    ['vault', 'private'],
    ['mixed', 'public'],
  ] as const) {
    const res = await api('alice', '/groups', { method: 'POST', body: { name: key, path: key, visibility } });
    expect(res.status).toBe(201);
    ids[key] = (await json(res)).id as number;
  }
  expect((await api('alice', `/groups/${ids.band}/members`, { method: 'POST', body: { user_id: ids.bob, access_level: 20 } })).status).toBe(
    201,
  );
}, 30_000);

afterAll(() => app.close());

describe('group badges without a project in the group', () => {
  it('creates badges (201) with the GitLab entity; the URLs stay unreplaced; unknown attributes like position are ignored', async () => {
    const badge = await createBadge('alice', ids.band, {
      link_url: allPlaceholders,
      image_url: 'https://img.example.com/%{project_id}.svg',
      name: 'Coverage',
      position: 0,
    });
    expect(badge).toEqual({
      id: expect.any(Number),
      name: 'Coverage',
      link_url: allPlaceholders,
      image_url: 'https://img.example.com/%{project_id}.svg',
      rendered_link_url: allPlaceholders,
      rendered_image_url: 'https://img.example.com/%{project_id}.svg',
      kind: 'group',
    });
    ids.coverage = badge.id;
    const plain = await createBadge('alice', ids.band, { link_url: 'http://example.com/plain', image_url: 'http://example.com/plain.png' });
    expect(plain.name).toBeNull();
    ids.plain = plain.id;
  });

  it('render without a project answers the URLs as given, name null', async () => {
    const res = await api(
      'alice',
      `/groups/${ids.band}/badges/render?${renderQuery(allPlaceholders, 'https://img.example.com/%{commit_sha}')}`,
    );
    await expectReply(res, 200, {
      name: null,
      link_url: allPlaceholders,
      image_url: 'https://img.example.com/%{commit_sha}',
      rendered_link_url: allPlaceholders,
      rendered_image_url: 'https://img.example.com/%{commit_sha}',
    });
  });
});

describe("group badges rendered from the group's first project", () => {
  let sha: string;
  let album: Project;

  beforeAll(async () => {
    album = await createProject({ name: 'Album One', namespace_id: ids.band, visibility: 'public' });
    const src = path.join(work, 'album');
    await git(['init', '-q', src]);
    writeFileSync(path.join(src, 'track.txt'), 'take 1\n');
    await git(['add', '.'], src);
    await git(['commit', '-q', '-m', 'Take 1'], src);
    await git(['push', '-q', album.http_url_to_repo.replace('http://', `http://oauth2:${tokens.alice}@`), 'main'], src);
    sha = (await git(['rev-parse', 'HEAD'], src)).trim();
    // A later project never becomes the context: the first one by creation date does.
    await createProject({ name: 'Later', namespace_id: ids.band, visibility: 'public' });
  }, 30_000);

  const expectedLink = () =>
    `https://ci.example.com/band/album-one/${album.id}/main/${sha}?name=album-one&title=Album%20One&ns=band&group=band&server=${new URL(app.url).host}&x=%{unknown}`;

  it("replaces every placeholder with the first project's values, the commit sha being the real last commit", async () => {
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const badge = await json<GroupBadge>(await api('alice', `/groups/${ids.band}/badges/${ids.coverage}`));
    expect(badge).toMatchObject({
      link_url: allPlaceholders,
      rendered_link_url: expectedLink(),
      rendered_image_url: `https://img.example.com/${album.id}.svg`,
    });
  });

  it('render replaces them too', async () => {
    const res = await api(
      'alice',
      `/groups/band/badges/render?${renderQuery(allPlaceholders, 'https://img.example.com/%{commit_sha}/%{default_branch}.svg')}`,
    );
    await expectReply(res, 200, {
      name: null,
      link_url: allPlaceholders,
      image_url: 'https://img.example.com/%{commit_sha}/%{default_branch}.svg',
      rendered_link_url: expectedLink(),
      rendered_image_url: `https://img.example.com/${sha}/main.svg`,
    });
  });

  it('lists oldest first, paginated, filtered by exact name; anonymous callers read public groups', async () => {
    const res = await api('anonymous', `/groups/${ids.band}/badges?per_page=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    expect(res.headers.get('x-next-page')).toBe('2');
    const [first] = await json<GroupBadge[]>(res);
    expect(first).toMatchObject({ id: ids.coverage, rendered_link_url: expectedLink() });
    const all = await json<GroupBadge[]>(await api('bob', `/groups/${ids.band}/badges`));
    expect(all.map((b) => b.id)).toEqual([ids.coverage, ids.plain]);
    expect((await json<GroupBadge[]>(await api('bob', `/groups/${ids.band}/badges?name=Coverage`))).map((b) => b.id)).toEqual([
      ids.coverage,
    ]);
    expect(await json(await api('bob', `/groups/${ids.band}/badges?name=Cover`))).toEqual([]);
  });

  it('takes the first project the caller can see: a private one is not revealed to anonymous readers', async () => {
    const secret = await createProject({ name: 'Secret', namespace_id: ids.mixed, visibility: 'private' });
    const open = await createProject({ name: 'Open', namespace_id: ids.mixed, visibility: 'public' });
    await createBadge('alice', ids.mixed, {
      link_url: 'https://x.example/%{project_path}',
      image_url: 'https://x.example/%{project_id}/%{commit_sha}.svg',
    });
    const [forOwner] = await json<GroupBadge[]>(await api('alice', `/groups/${ids.mixed}/badges`));
    expect(forOwner).toMatchObject({
      rendered_link_url: 'https://x.example/mixed/Secret',
      rendered_image_url: `https://x.example/${secret.id}/.svg`,
    });
    const [forAnonymous] = await json<GroupBadge[]>(await api('anonymous', `/groups/${ids.mixed}/badges`));
    expect(forAnonymous).toMatchObject({
      rendered_link_url: 'https://x.example/mixed/Open',
      rendered_image_url: `https://x.example/${open.id}/.svg`,
    });
  });

  it('edits (200, all attributes optional) and deletes (204) badges', async () => {
    const res = await api('alice', `/groups/${ids.band}/badges/${ids.plain}`, {
      method: 'PUT',
      body: { image_url: 'https://example.com/%{default_branch}.png' },
    });
    await expectReply(res, 200, {
      id: ids.plain,
      name: null,
      link_url: 'http://example.com/plain',
      image_url: 'https://example.com/%{default_branch}.png',
      rendered_link_url: 'http://example.com/plain',
      rendered_image_url: 'https://example.com/main.png',
      kind: 'group',
    });
    expect(
      await json(await api('alice', `/groups/${ids.band}/badges/${ids.plain}`, { method: 'PUT', body: { name: 'Plain' } })),
    ).toMatchObject({ name: 'Plain', image_url: 'https://example.com/%{default_branch}.png' });
    expect((await api('alice', `/groups/${ids.band}/badges/${ids.plain}`, { method: 'PUT' })).status).toBe(200);
    await expectReply(await api('alice', `/groups/${ids.band}/badges/${ids.plain}`, { method: 'DELETE' }), 204, null);
    await expectReply(await api('alice', `/groups/${ids.band}/badges/${ids.plain}`), 404, { message: '404 Not found' });
    await expectReply(await api('alice', `/groups/${ids.band}/badges/${ids.plain}`, { method: 'DELETE' }), 404, {
      message: '404 Not found',
    });
  });
});

describe('group badge permissions', () => {
  const body = { link_url: 'https://example.com', image_url: 'https://example.com/b.svg' };
  const render = `render?${renderQuery(body.link_url, body.image_url)}`;

  it('owners and admins write; readers and outsiders get 403, anonymous callers 401', async () => {
    expect((await createBadge('admin', ids.band, body)).kind).toBe('group');
    for (const who of ['bob', 'carol'] as const) {
      await expectReply(await api(who, `/groups/${ids.band}/badges`, { method: 'POST', body }), 403, { message: '403 Forbidden' });
      await expectReply(await api(who, `/groups/${ids.band}/badges/${ids.coverage}`, { method: 'PUT', body: { name: 'x' } }), 403, {
        message: '403 Forbidden',
      });
      await expectReply(await api(who, `/groups/${ids.band}/badges/${ids.coverage}`, { method: 'DELETE' }), 403, {
        message: '403 Forbidden',
      });
      await expectReply(await api(who, `/groups/${ids.band}/badges/${render}`), 403, { message: '403 Forbidden' });
    }
    await expectReply(await api('anonymous', `/groups/${ids.band}/badges`, { method: 'POST', body }), 401, { message: '401 Unauthorized' });
    await expectReply(await api('anonymous', `/groups/${ids.band}/badges/${ids.coverage}`, { method: 'DELETE' }), 401, {
      message: '401 Unauthorized',
    });
    await expectReply(await api('anonymous', `/groups/${ids.band}/badges/${render}`), 401, { message: '401 Unauthorized' });
    expect((await api('admin', `/groups/${ids.band}/badges/${render}`)).status).toBe(200);
  });

  it('readers (members, outsiders of public groups, anonymous) list and get', async () => {
    for (const who of ['bob', 'carol', 'anonymous'] as const) {
      expect((await api(who, `/groups/${ids.band}/badges`)).status).toBe(200);
      expect((await json(await api(who, `/groups/${ids.band}/badges/${ids.coverage}`))).id).toBe(ids.coverage);
    }
  });

  it('a group the caller cannot read is 404 Group Not Found for every route', async () => {
    const badge = await createBadge('alice', ids.vault, body);
    const notFound = { message: '404 Group Not Found' };
    await expectReply(await api('carol', `/groups/${ids.vault}/badges`), 404, notFound);
    await expectReply(await api('anonymous', `/groups/${ids.vault}/badges/${badge.id}`), 404, notFound);
    await expectReply(await api('carol', `/groups/${ids.vault}/badges`, { method: 'POST', body }), 404, notFound);
    await expectReply(await api('carol', `/groups/${ids.vault}/badges/${badge.id}`, { method: 'PUT', body }), 404, notFound);
    await expectReply(await api('carol', `/groups/${ids.vault}/badges/${badge.id}`, { method: 'DELETE' }), 404, notFound);
    await expectReply(await api('carol', `/groups/${ids.vault}/badges/${render}`), 404, notFound);
    await expectReply(await api('alice', '/groups/nope/badges'), 404, notFound);
    // A badge of another group is not found through this one.
    await expectReply(await api('alice', `/groups/${ids.band}/badges/${badge.id}`), 404, { message: '404 Not found' });
  });
});

describe('group badge validation', () => {
  it('missing URLs are Grape errors, in declaration order', async () => {
    await expectReply(await api('alice', `/groups/${ids.band}/badges`, { method: 'POST', body: {} }), 400, {
      error: 'link_url is missing, image_url is missing',
    });
    await expectReply(
      await api('alice', `/groups/${ids.band}/badges`, { method: 'POST', body: { link_url: 'https://example.com' } }),
      400,
      { error: 'image_url is missing' },
    );
    await expectReply(await api('alice', `/groups/${ids.band}/badges/render`), 400, { error: 'link_url is missing, image_url is missing' });
    // Render validates its parameters before it authenticates, as GitLab's endpoint does.
    await expectReply(await api('anonymous', `/groups/${ids.band}/badges/render?link_url=https://example.com`), 400, {
      error: 'image_url is missing',
    });
  });

  it('URLs must be http(s): the model errors, field by field', async () => {
    await expectReply(
      await api('alice', `/groups/${ids.band}/badges`, {
        method: 'POST',
        body: { link_url: 'ftp://example.com/x', image_url: 'not a url' },
      }),
      400,
      {
        message: {
          link_url: ['is blocked: Only allowed schemes are http, https'],
          image_url: ['is blocked: Only allowed schemes are http, https'],
        },
      },
    );
    await expectReply(
      await api('alice', `/groups/${ids.band}/badges`, { method: 'POST', body: { link_url: 'https://example.com', image_url: 'http://' } }),
      400,
      { message: { image_url: ['is blocked: URI is invalid'] } },
    );
    await expectReply(await api('alice', `/groups/${ids.band}/badges/${ids.coverage}`, { method: 'PUT', body: { link_url: '' } }), 400, {
      message: { link_url: ['must be a valid URL'] },
    });
    await expectReply(
      await api('alice', `/groups/${ids.band}/badges/render?${renderQuery('javascript:alert(1)', 'https://example.com')}`),
      400,
      { message: { link_url: ['is blocked: Only allowed schemes are http, https'] } },
    );
    // Placeholders may stand anywhere, the host included.
    expect(
      (
        await createBadge('alice', ids.band, {
          link_url: 'https://%{gitlab_server}/%{project_path}',
          image_url: 'http://example.com/%{commit_sha}',
        })
      ).rendered_link_url,
    ).toBe(`https://${new URL(app.url).host}/band/album-one`);
  });

  it('badge_id must be an integer; the edit left nothing changed', async () => {
    await expectReply(await api('alice', `/groups/${ids.band}/badges/abc`), 400, { error: 'badge_id is invalid' });
    await expectReply(await api('alice', `/groups/${ids.band}/badges/999999`), 404, { message: '404 Not found' });
    expect((await json<GroupBadge>(await api('alice', `/groups/${ids.band}/badges/${ids.coverage}`))).link_url).toBe(allPlaceholders);
  });

  it('render type: the answer has only the BasicBadgeDetails keys', async () => {
    const body = await json<BadgeRender>(
      await api('alice', `/groups/${ids.band}/badges/render?${renderQuery('https://a.example', 'https://b.example')}`),
    );
    expect(Object.keys(body).sort()).toEqual(['image_url', 'link_url', 'name', 'rendered_image_url', 'rendered_link_url']);
  });
});
