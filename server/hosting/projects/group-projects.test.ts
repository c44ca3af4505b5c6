import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, readJson, type CallInit } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Group, Project } from '../api-types.js';

let app: TestApp;
let owner: string;
let stranger: string;
const api = (token: string | null, route: string, init: CallInit = {}) => callHosting(app, token, route, init);
const names = async (token: string | null, route: string) => (await readJson<Project[]>(api(token, route))).map((p) => p.name).sort();

beforeAll(async () => {
  app = await startTestApp();
  owner = (await app.addUser('label')).token;
  stranger = (await app.addUser('outsider')).token;
  const band = await readJson<Group>(api(owner, '/groups', { method: 'POST', body: { name: 'Band', path: 'band', visibility: 'public' } }));
  const live = await readJson<Group>(
    api(owner, '/groups', { method: 'POST', body: { name: 'Live', path: 'live', visibility: 'public', parent_id: band.id } }),
  );
  const secret = await readJson<Group>(
    api(owner, '/groups', { method: 'POST', body: { name: 'Secret', path: 'secret', visibility: 'private' } }),
  );
  const make = (name: string, namespace_id: number | undefined, visibility: string) =>
    readJson<Project>(api(owner, '/projects', { method: 'POST', body: { name, visibility, ...(namespace_id ? { namespace_id } : {}) } }));
  await make('Album Demo', band.id, 'public');
  await make('Album Vault', band.id, 'private');
  await make('Tour Set', live.id, 'public');
  await make('Hidden', secret.id, 'private');
  const solo = await make('Solo Album', undefined, 'public');
  expect((await api(owner, `/projects/${solo.id}/share`, { method: 'POST', body: { group_id: band.id, group_access: 30 } })).status).toBe(
    201,
  );
}, 30_000);

afterAll(() => app.close());

describe('GET /groups/:id/projects', () => {
  it("lists the group's projects the caller may read, with subgroups and shared projects as GitLab's flags say", async () => {
    expect(await names(owner, '/groups/band/projects')).toEqual(['Album Demo', 'Album Vault', 'Solo Album']);
    expect(await names(owner, '/groups/band/projects?with_shared=false')).toEqual(['Album Demo', 'Album Vault']);
    expect(await names(owner, '/groups/band/projects?include_subgroups=true&with_shared=false')).toEqual([
      'Album Demo',
      'Album Vault',
      'Tour Set',
    ]);
    expect(await names(stranger, '/groups/band/projects?include_subgroups=true')).toEqual(['Album Demo', 'Solo Album', 'Tour Set']);
    expect(await names(null, '/groups/band%2Flive/projects')).toEqual(['Tour Set']);
    expect(await names(owner, '/groups/band/projects?search=vault')).toEqual(['Album Vault']);
    const page = await api(owner, '/groups/band/projects?per_page=1');
    expect([page.headers.get('x-total'), ((await page.json()) as Project[]).length]).toEqual(['3', 1]);
  });

  it('a group the caller cannot read is a 404', async () => {
    const res = await api(stranger, '/groups/secret/projects');
    expect([res.status, await res.json()]).toEqual([404, { message: '404 Group Not Found' }]);
    expect(await names(owner, '/groups/secret/projects')).toEqual(['Hidden']);
  });
});

describe('GET /search?scope=projects', () => {
  it('searches the projects the caller may read; other scopes are empty; anonymous callers are refused', async () => {
    expect(await names(owner, '/search?scope=projects&search=album')).toEqual(['Album Demo', 'Album Vault', 'Solo Album']);
    expect(await names(stranger, '/search?scope=projects&search=album')).toEqual(['Album Demo', 'Solo Album']);
    expect(await readJson(api(owner, '/search?scope=issues&search=album'))).toEqual([]);
    expect((await api(null, '/search?scope=projects&search=album')).status).toBe(401);
    const bad = await api(owner, '/search?scope=planets&search=x');
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'scope does not have a valid value' }]);
  });
});
