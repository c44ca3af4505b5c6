import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, readJson, type CallInit } from '../../test-support/hosting-client.js';
import { adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';

let app: TestApp;
const tokens: Record<'alice' | 'bob' | 'carol' | 'dave', string> = { alice: '', bob: '', carol: '', dave: '' };
const ids: Record<string, number> = {};

type Who = keyof typeof tokens | 'admin' | 'anonymous';
const headers = (who: Who): Record<string, string> =>
  who === 'anonymous' ? {} : { 'PRIVATE-TOKEN': who === 'admin' ? adminToken : tokens[who] };
const api = (who: Who, route: string, init: CallInit = {}) =>
  callHosting(app, who === 'anonymous' ? null : who === 'admin' ? adminToken : tokens[who], route, init);
const json = readJson;
const create = async (who: Who, body: Record<string, unknown>) => {
  const res = await api(who, '/projects', { method: 'POST', body });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  return json<Project>(res);
};

beforeAll(async () => {
  app = await startTestApp();
  for (const name of ['alice', 'bob', 'carol', 'dave'] as const) {
    const u = await app.addUser(name);
    tokens[name] = u.token;
    ids[name] = u.id;
  }
  // band: alice owns, bob develops; friends: carol reports.
  const band = await json(await api('alice', '/groups', { method: 'POST', body: { name: 'Band', path: 'band', visibility: 'private' } }));
  ids.band = band.id as number;
  expect((await api('alice', `/groups/${ids.band}/members`, { method: 'POST', body: { user_id: ids.bob, access_level: 30 } })).status).toBe(
    201,
  );
  const friends = await json(
    await api('carol', '/groups', { method: 'POST', body: { name: 'Friends', path: 'friends', visibility: 'internal' } }),
  );
  ids.friends = friends.id as number;

  ids.secret = (await create('alice', { name: 'Secret Beats' })).id;
  ids.open = (await create('alice', { name: 'Open Loops', visibility: 'public', description: 'free loops' })).id;
  ids.album = (await create('alice', { name: 'Album', namespace_id: ids.band, visibility: 'private' })).id;
  ids.internal = (await create('bob', { path: 'stems', visibility: 'internal' })).id;
}, 60_000);

afterAll(() => app.close());

describe('POST /projects', () => {
  it('creates a private project in the caller namespace with GitLab defaults and a bare repository', async () => {
    const p = await json<Project>(await api('alice', `/projects/${ids.secret}`));
    expect(p).toMatchObject({
      name: 'Secret Beats',
      path: 'secret-beats',
      path_with_namespace: 'alice/secret-beats',
      name_with_namespace: 'alice / Secret Beats',
      visibility: 'private',
      default_branch: 'main',
      archived: false,
      import_status: 'none',
      empty_repo: true,
      star_count: 0,
      forks_count: 0,
      merge_method: 'merge',
      issues_enabled: true,
      namespace: { kind: 'user', path: 'alice', full_path: 'alice' },
      owner: { username: 'alice' },
      shared_with_groups: [],
      creator_id: ids.alice,
    });
    expect(p.http_url_to_repo).toBe(`${app.url}/alice/secret-beats.git`);
    expect(p.web_url).toBe(`${app.url}/alice/secret-beats`);
    expect(p._links.self).toBe(`${app.url}/api/v4/projects/${ids.secret}`);
    expect(existsSync(path.join(app.dataDir, 'repositories', 'alice', 'secret-beats.git', 'HEAD'))).toBe(true);
  });

  it('derives name from path and keeps a name that already is a path', async () => {
    expect(await create('dave', { path: 'only-path' })).toMatchObject({ name: 'only-path', path: 'only-path' });
    expect(await create('dave', { name: 'MyProj' })).toMatchObject({ name: 'MyProj', path: 'MyProj' });
    expect(await create('dave', { name: 'Déjà Vu  Mix' })).toMatchObject({ name: 'Déjà Vu  Mix', path: 'deja-vu-mix' });
    expect(await json(await api('dave', '/projects', { method: 'POST', body: { name: 'Hits!' } }))).toEqual({
      message: { name: [expect.stringContaining("can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces")] },
    });
  });

  it('answers GitLab errors: missing, invalid values, taken, namespace, visibility in a group, anonymous', async () => {
    const cases: [Who, Record<string, unknown>, number, unknown][] = [
      ['dave', {}, 400, { error: 'name, path are missing, at least one parameter must be provided' }],
      ['dave', { name: 'x', visibility: 'secret' }, 400, { error: 'visibility does not have a valid value' }],
      ['dave', { name: 'x', merge_method: 'squash' }, 400, { error: 'merge_method does not have a valid value' }],
      ['dave', { name: 'x', issues_enabled: 'maybe' }, 400, { error: 'issues_enabled is invalid' }],
      [
        'dave',
        { name: 'bad', path: '-bad-' },
        400,
        { message: { path: [expect.stringContaining('can only include non-accented letters')] } },
      ],
      ['dave', { name: 'tree', path: 'tree' }, 400, { message: { path: ['tree is a reserved name'] } }],
      ['alice', { name: 'Secret Beats' }, 400, { message: { name: ['has already been taken'], path: ['has already been taken'] } }],
      ['alice', { name: 'Other', path: 'SECRET-BEATS' }, 400, { message: { path: ['has already been taken'] } }],
      ['carol', { name: 'intruder', namespace_id: ids.band }, 400, { message: { namespace: ['is not valid'] } }],
      [
        'alice',
        { name: 'loud', namespace_id: ids.band, visibility: 'public' },
        400,
        { message: { visibility_level: ['public is not allowed in a private group.'] } },
      ],
      ['anonymous', { name: 'anon' }, 401, { message: '401 Unauthorized' }],
    ];
    for (const [who, body, status, expected] of cases) {
      const res = await api(who, '/projects', { method: 'POST', body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(await res.json(), JSON.stringify(body)).toEqual(expected);
    }
  });

  it('admins create for another user; others may not', async () => {
    const res = await api('admin', `/projects/user/${ids.carol}`, { method: 'POST', body: { name: 'Gift' } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ path_with_namespace: 'carol/Gift', owner: { username: 'carol' }, creator_id: 1 });
    expect((await api('alice', `/projects/user/${ids.carol}`, { method: 'POST', body: { name: 'Nope' } })).status).toBe(403);
    expect((await api('admin', '/projects/user/9999', { method: 'POST', body: { name: 'Nope' } })).status).toBe(404);
  });
});

describe('GET /projects/:id: visibility and roles', () => {
  const get = (who: Who, id: string | number | undefined) => api(who, `/projects/${String(id)}`);

  it('resolves numeric ids and URL-encoded paths; a bare path never resolves', async () => {
    expect((await json(await get('alice', 'alice%2Fsecret-beats'))).id).toBe(ids.secret);
    expect((await json(await get('alice', 'ALICE%2FSecret-Beats'))).id).toBe(ids.secret);
    expect((await get('alice', 'secret-beats')).status).toBe(404);
    expect((await get('alice', 'band%2Falbum')).status).toBe(200);
    expect((await get('alice', 'band%2FAlbum')).status).toBe(200);
  });

  it('a private project: 404 for anonymous and non-members, 200 with permissions for members, owners and admins', async () => {
    for (const who of ['anonymous', 'carol'] as const) {
      const res = await get(who, ids.album);
      expect(res.status, who).toBe(404);
      expect(await res.json()).toEqual({ message: '404 Project Not Found' });
    }
    expect(await json(await get('bob', ids.album))).toMatchObject({
      permissions: { project_access: null, group_access: { access_level: 30, notification_level: 3 } },
    });
    expect(await json(await get('alice', ids.album))).toMatchObject({
      permissions: { project_access: null, group_access: { access_level: 50 } },
    });
    expect(await json(await get('alice', ids.secret))).toMatchObject({
      permissions: { project_access: { access_level: 50 }, group_access: null },
    });
    const admin = await json(await get('admin', ids.album));
    expect(admin).toMatchObject({
      id: ids.album,
      permissions: { project_access: null, group_access: null },
      runners_token: expect.any(String),
    });
    expect(admin.owner).toBeUndefined();
  });

  it("permissions carry the caller's notification levels for the project and its group", async () => {
    expect((await api('alice', `/projects/${ids.secret}/notification_settings?level=watch`, { method: 'PUT' })).status).toBe(200);
    expect((await api('bob', `/groups/${ids.band}/notification_settings?level=disabled`, { method: 'PUT' })).status).toBe(200);
    expect((await json<Project>(await get('alice', ids.secret))).permissions?.project_access?.notification_level).toBe(2);
    expect((await json<Project>(await get('bob', ids.album))).permissions?.group_access?.notification_level).toBe(0);
    expect((await json<Project>(await get('alice', ids.album))).permissions?.group_access?.notification_level).toBe(3);
  });

  it('internal: signed-in users only; public: everyone, anonymous without permissions or secrets', async () => {
    expect((await get('anonymous', ids.internal)).status).toBe(404);
    expect((await get('carol', ids.internal)).status).toBe(200);
    const anon = await json(await get('anonymous', ids.open));
    expect(anon).toMatchObject({ id: ids.open, path_with_namespace: 'alice/open-loops' });
    expect(anon.permissions).toBeUndefined();
    expect(anon.runners_token).toBeUndefined();
    expect((await json(await get('carol', ids.open))).runners_token).toBeUndefined();
  });

  it('an unknown token is a 401 even on a public project', async () => {
    const res = await app.fetch(`/api/v4/projects/${ids.open}`, { headers: { 'PRIVATE-TOKEN': 'nope' } });
    expect(res.status).toBe(401);
  });

  it('statistics come from the repository when asked', async () => {
    const p = await json<Project>(await get('alice', `${ids.secret}?statistics=true`));
    expect(p.statistics).toMatchObject({ commit_count: 0, uploads_size: 0 });
    expect(p.statistics!.repository_size).toBeGreaterThan(0);
    expect((await json<Project>(await get('alice', ids.secret))).statistics).toBeUndefined();
  });
});

describe('GET /projects: lists, filters, pagination', () => {
  const list = async (who: Who, query = '') => {
    const res = await api(who, `/projects${query}`);
    expect(res.status, query).toBe(200);
    return { res, items: await json<Project[]>(res) };
  };

  it('anonymous callers see public projects only; users see public, internal and their own', async () => {
    expect(pathsOf((await list('anonymous')).items)).toEqual(['alice/open-loops']);
    const carol = pathsOf((await list('carol', '?per_page=100')).items);
    expect(carol).toContain('bob/stems');
    expect(carol).toContain('carol/Gift');
    expect(carol).not.toContain('alice/secret-beats');
    expect(carol).not.toContain('band/Album');
    expect(pathsOf((await list('admin', '?per_page=100')).items)).toEqual(
      expect.arrayContaining(['alice/secret-beats', 'band/Album', 'bob/stems']),
    );
  });

  it('defaults to created_at desc, with permissions on authenticated items and none on anonymous ones', async () => {
    const { items } = await list('alice', '?per_page=100');
    const created = items.map((p) => p.id);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(items[0]!.permissions).toBeDefined();
    expect((await list('anonymous')).items[0]!.permissions).toBeUndefined();
  });

  it('paginates with X-Total, X-Next-Page and Link over more than one page', async () => {
    const { res, items } = await list('admin', '?per_page=2&order_by=id&sort=asc');
    const total = Number(res.headers.get('x-total'));
    expect(total).toBeGreaterThan(4);
    expect(items).toHaveLength(2);
    expect(res.headers.get('x-page')).toBe('1');
    expect(res.headers.get('x-per-page')).toBe('2');
    expect(res.headers.get('x-next-page')).toBe('2');
    expect(res.headers.get('x-prev-page')).toBe('');
    expect(res.headers.get('x-total-pages')).toBe(String(Math.ceil(total / 2)));
    const link = res.headers.get('link')!;
    expect(link).toContain(`<${app.url}/api/v4/projects?order_by=id&page=2&per_page=2&sort=asc>; rel="next"`);
    expect(link).toContain('rel="first"');
    expect(link).toContain(`page=${Math.ceil(total / 2)}&per_page=2&sort=asc>; rel="last"`);
    // Walking the pages gives every project once.
    const seen: number[] = [];
    for (let page = 1; page <= Math.ceil(total / 2); page++)
      seen.push(...(await list('admin', `?per_page=2&order_by=id&sort=asc&page=${page}`)).items.map((p) => p.id));
    expect(seen).toEqual([...new Set(seen)].sort((a, b) => a - b));
    expect(seen).toHaveLength(total);
  });

  it('filters: visibility, search, owned, membership, order_by name, simple', async () => {
    expect(pathsOf((await list('alice', '?visibility=public')).items)).toEqual(['alice/open-loops']);
    expect(pathsOf((await list('carol', '?search=LOOPS')).items)).toEqual(['alice/open-loops']);
    expect(pathsOf((await list('carol', '?search=free')).items)).toEqual(['alice/open-loops']);
    expect(pathsOf((await list('bob', '?owned=true')).items)).toEqual(['bob/stems']);
    expect(pathsOf((await list('bob', '?membership=true&order_by=name&sort=asc')).items)).toEqual(['band/Album', 'bob/stems']);
    const simple = (await list('carol', '?simple=true&search=loops')).items[0]!;
    expect(Object.keys(simple).sort()).toEqual(
      [
        'id',
        'description',
        'name',
        'name_with_namespace',
        'path',
        'path_with_namespace',
        'created_at',
        'default_branch',
        'tag_list',
        'topics',
        'ssh_url_to_repo',
        'http_url_to_repo',
        'web_url',
        'readme_url',
        'avatar_url',
        'forks_count',
        'star_count',
        'last_activity_at',
        'namespace',
      ].sort(),
    );
    expect((await api('alice', '/projects?order_by=size')).status).toBe(400);
    expect((await api('alice', '/projects?archived=perhaps')).status).toBe(400);
  });

  it('GET /users/:user_id/projects by id or username, with the same visibility rules', async () => {
    expect(pathsOf(await json<Project[]>(await api('anonymous', '/users/alice/projects')))).toEqual(['alice/open-loops']);
    expect(pathsOf(await json<Project[]>(await api('alice', `/users/${ids.alice}/projects?order_by=name&sort=asc`)))).toEqual([
      'alice/open-loops',
      'alice/secret-beats',
    ]);
    expect((await api('alice', '/users/nobody/projects')).status).toBe(404);
  });

  it('custom attributes: admins set them and filter by them; others are ignored', async () => {
    expect(
      (await api('admin', `/projects/${ids.internal}/custom_attributes/genre`, { method: 'PUT', body: { value: 'house' } })).status,
    ).toBe(200);
    expect(
      (await api('alice', `/projects/${ids.internal}/custom_attributes/genre`, { method: 'PUT', body: { value: 'techno' } })).status,
    ).toBe(403);
    const filtered = await json<Project[]>(await api('admin', '/projects?custom_attributes[genre]=house&with_custom_attributes=true'));
    expect(filtered.map((p) => p.id)).toEqual([ids.internal]);
    expect(filtered[0]!.custom_attributes).toEqual([{ key: 'genre', value: 'house' }]);
    const ignored = await json<Project[]>(await api('carol', '/projects?custom_attributes[genre]=house&per_page=100'));
    expect(ignored.length).toBeGreaterThan(1);
  });
});

describe('PUT /projects/:id', () => {
  it('maintainers edit; developers get 403; strangers 404; nothing sent is a 400', async () => {
    const res = await api('alice', `/projects/${ids.album}`, {
      method: 'PUT',
      body: { description: 'LP one', wiki_enabled: false, tag_list: ['lp', 'house'], merge_method: 'ff' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      description: 'LP one',
      wiki_enabled: false,
      tag_list: ['lp', 'house'],
      merge_method: 'ff',
      name: 'Album',
    });
    expect((await api('bob', `/projects/${ids.album}`, { method: 'PUT', body: { description: 'mine' } })).status).toBe(403);
    expect((await api('carol', `/projects/${ids.album}`, { method: 'PUT', body: { description: 'mine' } })).status).toBe(404);
    const empty = await api('alice', `/projects/${ids.album}`, { method: 'PUT', body: {} });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: string }).error).toMatch(/at least one parameter must be provided$/);
  });

  it('renaming the path moves the repository', async () => {
    const p = await create('dave', { name: 'Rename Me' });
    const res = await api('dave', `/projects/${p.id}`, { method: 'PUT', body: { path: 'renamed' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      path: 'renamed',
      path_with_namespace: 'dave/renamed',
      http_url_to_repo: `${app.url}/dave/renamed.git`,
    });
    expect(existsSync(path.join(app.dataDir, 'repositories', 'dave', 'renamed.git', 'HEAD'))).toBe(true);
    expect(existsSync(path.join(app.dataDir, 'repositories', 'dave', 'rename-me.git'))).toBe(false);
  });
});

describe('star, archive, share', () => {
  it('star answers 200 Project then 304; unstar the same; star_count follows', async () => {
    const star = await api('carol', `/projects/${ids.open}/star`, { method: 'POST' });
    expect(star.status).toBe(200);
    expect(await star.json()).toMatchObject({ id: ids.open, star_count: 1 });
    const again = await api('carol', `/projects/${ids.open}/star`, { method: 'POST' });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(pathsOf(await json<Project[]>(await api('carol', '/projects?starred=true')))).toEqual(['alice/open-loops']);
    expect((await api('anonymous', `/projects/${ids.open}/star`, { method: 'POST' })).status).toBe(401);
    expect((await api('carol', `/projects/${ids.secret}/star`, { method: 'POST' })).status).toBe(404);
    const unstar = await api('carol', `/projects/${ids.open}/unstar`, { method: 'POST' });
    expect(unstar.status).toBe(200);
    expect(await unstar.json()).toMatchObject({ star_count: 0 });
    expect((await api('carol', `/projects/${ids.open}/unstar`, { method: 'POST' })).status).toBe(304);
  });

  it('archive: owner and admin only, idempotent, filterable', async () => {
    expect((await api('bob', `/projects/${ids.album}/archive`, { method: 'POST' })).status).toBe(403);
    for (let i = 0; i < 2; i++) {
      const res = await api('alice', `/projects/${ids.album}/archive`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ archived: true });
    }
    expect(pathsOf(await json<Project[]>(await api('bob', '/projects?archived=true')))).toEqual(['band/Album']);
    const un = await api('admin', `/projects/${ids.album}/unarchive`, { method: 'POST' });
    expect(await un.json()).toMatchObject({ archived: false });
    expect((await api('alice', `/projects/${ids.album}/unarchive`, { method: 'POST' })).status).toBe(200);
  });

  it('share with a group grants its members the lower of the two levels; unshare takes it back', async () => {
    expect((await api('carol', `/projects/${ids.secret}`)).status).toBe(404);
    const res = await api('alice', `/projects/${ids.secret}/share`, {
      method: 'POST',
      body: { group_id: ids.friends, group_access: 20, expires_at: null },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ project_id: ids.secret, group_id: ids.friends, group_access: 20, expires_at: null });
    const seen = await json<Project>(await api('carol', `/projects/${ids.secret}`));
    expect(seen.permissions).toEqual({ project_access: null, group_access: { access_level: 20, notification_level: 3 } });
    expect((await json<Project>(await api('alice', `/projects/${ids.secret}`))).shared_with_groups).toEqual([
      { group_id: ids.friends, group_name: 'Friends', group_full_path: 'friends', group_access_level: 20, expires_at: null },
    ]);
    expect((await api('carol', `/projects/${ids.secret}/archive`, { method: 'POST' })).status).toBe(403);

    const dup = await api('alice', `/projects/${ids.secret}/share`, { method: 'POST', body: { group_id: ids.friends, group_access: 30 } });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toEqual({ message: 'Project already shared with this group' });
    expect(
      await json(
        await api('alice', `/projects/${ids.secret}/share`, { method: 'POST', body: { group_id: ids.friends, group_access: 35 } }),
      ),
    ).toEqual({ error: 'group_access does not have a valid value' });
    expect(await json(await api('alice', `/projects/${ids.secret}/share`, { method: 'POST', body: { group_access: 30 } }))).toEqual({
      error: 'group_id is missing',
    });
    expect(
      (await api('alice', `/projects/${ids.secret}/share`, { method: 'POST', body: { group_id: 9999, group_access: 30 } })).status,
    ).toBe(404);
    const own = await api('alice', `/projects/${ids.album}/share`, { method: 'POST', body: { group_id: ids.band, group_access: 30 } });
    expect(own.status).toBe(409);

    expect((await api('alice', `/projects/${ids.secret}/share/${ids.friends}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await api('alice', `/projects/${ids.secret}/share/${ids.friends}`, { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ message: '404 Group Link Not Found' });
    expect((await api('carol', `/projects/${ids.secret}`)).status).toBe(404);
  });

  it('GET /projects/:id/users lists members, with search', async () => {
    const users = await json<{ username: string }[]>(await api('alice', `/projects/${ids.album}/users`));
    expect(users.map((u) => u.username)).toEqual(['alice', 'bob']);
    expect(
      (await json<{ username: string }[]>(await api('alice', `/projects/${ids.album}/users?search=BO`))).map((u) => u.username),
    ).toEqual(['bob']);
    expect((await api('carol', `/projects/${ids.album}/users`)).status).toBe(404);
  });
});

describe('forks', () => {
  it('forks asynchronously, lists forks, counts them; admin fork relations', async () => {
    const res = await api('carol', `/projects/${ids.open}/fork`, { method: 'POST', body: { namespace: 'carol' } });
    expect(res.status).toBe(201);
    const fork = await json<Project>(res);
    expect(fork).toMatchObject({
      path_with_namespace: 'carol/open-loops',
      visibility: 'public',
      forked_from_project: { id: ids.open, path_with_namespace: 'alice/open-loops' },
    });
    expect(['scheduled', 'started', 'finished']).toContain(fork.import_status);
    await app.jobs.onIdle();
    expect(await json(await api('carol', `/projects/${fork.id}`))).toMatchObject({ import_status: 'finished' });
    expect((await json<Project[]>(await api('anonymous', `/projects/${ids.open}/forks`))).map((p) => p.id)).toEqual([fork.id]);
    expect(await json(await api('alice', `/projects/${ids.open}`))).toMatchObject({ forks_count: 1 });

    const taken = await api('carol', `/projects/${ids.open}/fork`, { method: 'POST', body: { namespace: 'carol' } });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
    expect((await api('carol', `/projects/${ids.open}/fork`, { method: 'POST', body: { namespace: 'band' } })).status).toBe(404);
    expect((await api('carol', `/projects/${ids.secret}/fork`, { method: 'POST', body: { namespace: 'carol' } })).status).toBe(404);

    expect((await api('alice', `/projects/${ids.internal}/fork/${ids.open}`, { method: 'POST' })).status).toBe(403);
    const linked = await api('admin', `/projects/${ids.internal}/fork/${ids.open}`, { method: 'POST' });
    expect(linked.status).toBe(201);
    expect(await linked.json()).toMatchObject({ forked_from_project: { id: ids.open } });
    expect(await json(await api('admin', `/projects/${ids.internal}/fork/${ids.open}`, { method: 'POST' }))).toEqual({
      message: 'Project already forked',
    });
    expect((await api('admin', `/projects/${ids.internal}/fork`, { method: 'DELETE' })).status).toBe(204);
    expect((await api('admin', `/projects/${ids.internal}/fork`, { method: 'DELETE' })).status).toBe(304);
  });
});

describe('uploads', () => {
  it('stores a file and serves it back under the project read rules', async () => {
    const form = new FormData();
    form.append('file', new Blob(['kick drum notes']), 'kick notes.txt');
    const res = await app.fetch(`/api/v4/projects/${ids.secret}/uploads`, { method: 'POST', headers: headers('alice'), body: form });
    expect(res.status).toBe(201);
    const body = await json<{ alt: string; url: string; markdown: string; full_path: string }>(res);
    expect(body.alt).toBe('kick_notes.txt');
    expect(body.url).toMatch(/^\/uploads\/[0-9a-f]{32}\/kick_notes\.txt$/);
    expect(body.markdown).toBe(`[kick_notes.txt](${body.url})`);
    expect(body.full_path).toBe(`/alice/secret-beats${body.url}`);
    const served = await app.fetch(`/alice/secret-beats${body.url}`, { headers: headers('alice') });
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('kick drum notes');
    expect((await app.fetch(`/alice/secret-beats${body.url}`)).status).toBe(404);
    expect((await app.fetch(`/alice/secret-beats${body.url}`, { headers: headers('carol') })).status).toBe(404);

    const image = new FormData();
    image.append('file', new Blob([new Uint8Array([0x89, 0x50])]), 'cover.png');
    const img = await json<{ alt: string; markdown: string; url: string }>(
      await app.fetch(`/api/v4/projects/${ids.secret}/uploads`, { method: 'POST', headers: headers('alice'), body: image }),
    );
    expect(img.markdown).toBe(`![cover](${img.url})`);
    const missing = await app.fetch(`/api/v4/projects/${ids.secret}/uploads`, {
      method: 'POST',
      headers: headers('alice'),
      body: new FormData(),
    });
    expect(missing.status).toBe(400);
  });
});

describe('housekeeping, snapshot, delete', () => {
  it('housekeeping for maintainers; snapshot for admins only', async () => {
    expect((await api('alice', `/projects/${ids.album}/housekeeping`, { method: 'POST' })).status).toBe(201);
    expect((await api('bob', `/projects/${ids.album}/housekeeping`, { method: 'POST' })).status).toBe(403);
    expect((await api('alice', `/projects/${ids.album}/snapshot`)).status).toBe(403);
    const snap = await api('admin', `/projects/${ids.album}/snapshot`);
    expect(snap.status).toBe(200);
    expect(snap.headers.get('content-type')).toBe('application/x-tar');
    expect(snap.headers.get('content-disposition')).toBe('attachment; filename="snapshot.tar"');
    expect((await snap.arrayBuffer()).byteLength % 512).toBe(0);
  });

  it('delete: owners only; everything of the project goes', async () => {
    const p = await create('alice', { name: 'Doomed', visibility: 'public' });
    await api('carol', `/projects/${p.id}/star`, { method: 'POST' });
    expect((await api('carol', `/projects/${p.id}`, { method: 'DELETE' })).status).toBe(403);
    const res = await api('alice', `/projects/${p.id}`, { method: 'DELETE' });
    expect(res.status, await res.clone().text()).toBe(202);
    expect(await res.json()).toEqual({ message: '202 Accepted' });
    expect((await api('alice', `/projects/${p.id}`)).status).toBe(404);
    expect(existsSync(path.join(app.dataDir, 'repositories', 'alice', 'doomed.git'))).toBe(false);
    expect(app.store.data.stars.some((s) => s.projectId === p.id)).toBe(false);
  });
});

function pathsOf(items: readonly Project[]): string[] {
  return items.map((p) => p.path_with_namespace);
}

describe('role matrix on a private group project (anonymous, non-member, member, owner, admin)', () => {
  // bob is a developer of band; alice owns it; carol and dave are outsiders; anonymous has no token.
  const roles: readonly Who[] = ['anonymous', 'carol', 'bob', 'alice', 'admin'];
  const matrix: readonly { name: string; method: string; route: (id: number) => string; body?: unknown; expected: readonly number[] }[] = [
    { name: 'read', method: 'GET', route: (id) => `/projects/${id}`, expected: [404, 404, 200, 200, 200] },
    { name: 'list its users', method: 'GET', route: (id) => `/projects/${id}/users`, expected: [404, 404, 200, 200, 200] },
    { name: 'edit', method: 'PUT', route: (id) => `/projects/${id}`, body: { description: 'x' }, expected: [401, 404, 403, 200, 200] },
    { name: 'star', method: 'POST', route: (id) => `/projects/${id}/star`, expected: [401, 404, 200, 200, 200] },
    { name: 'archive', method: 'POST', route: (id) => `/projects/${id}/archive`, expected: [401, 404, 403, 200, 200] },
    { name: 'unarchive', method: 'POST', route: (id) => `/projects/${id}/unarchive`, expected: [401, 404, 403, 200, 200] },
    { name: 'housekeeping', method: 'POST', route: (id) => `/projects/${id}/housekeeping`, expected: [401, 404, 403, 201, 201] },
    { name: 'snapshot', method: 'GET', route: (id) => `/projects/${id}/snapshot`, expected: [401, 404, 403, 403, 200] },
    { name: 'list forks', method: 'GET', route: (id) => `/projects/${id}/forks`, expected: [404, 404, 200, 200, 200] },
    { name: 'delete', method: 'DELETE', route: (id) => `/projects/${id}`, expected: [401, 404, 403, 202, 404] },
  ];

  it.each(matrix.map((m) => [m.name, m] as const))('%s', async (_name, m) => {
    const project = await create('alice', { name: `Matrix ${m.name}`, namespace_id: ids.band });
    for (const [i, who] of roles.entries()) {
      const res = await api(who, m.route(project.id), { method: m.method, body: m.body });
      expect(res.status, `${m.name} as ${who}`).toBe(m.expected[i]);
      await res.arrayBuffer();
    }
  });
});
