import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAudioRouter } from './audio/http/routes.js';
import { allowingScopes, familyOf, hostingScopeRules } from './auth/scopes.js';
import { createRepositoryRouter } from './hosting/git/repository-routes.js';
import { createHostingRouter } from './hosting/routes.js';
import { callHosting, gitClient, readJson, withToken } from './test-support/hosting-client.js';
import { adminToken, startTestApp, type TestApp } from './test-support/test-app.js';

// Token scopes against every mounted route, as GitLab has them (lib/api/api.rb, lib/api/users.rb,
// lib/api/version.rb, lib/gitlab/auth.rb): `api` everything; `read_api` GET/HEAD; `read_user` reads of
// the user endpoints; `read_repository`/`write_repository` git over HTTP (and read_repository the reads
// of API::Files, lib/api/files.rb); `sudo` and `admin_mode`
// nothing on their own (no Sudo header, no admin mode here). These lists are this test's own: a route
// that is mounted but not listed fails the test until someone decides its scopes.

const scopes = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode'] as const;
type Scope = (typeof scopes)[number];

/** GitLab's API::Users and API::Version: read_user allows their GETs. */
const hostingUserRoutes = [
  'GET /version',
  'GET /user',
  'GET /users',
  'GET /users/:id',
  'POST /users',
  'POST /users/:id/personal_access_tokens',
];
/** Everything else under /api/v4: api, and read_api for GETs. */
const hostingOtherRoutes = [
  'GET /personal_access_tokens',
  'DELETE /personal_access_tokens/:id',
  'GET /groups',
  'POST /groups',
  'GET /groups/:id',
  'GET /groups/:id/members',
  'POST /groups/:id/members',
  'GET /namespaces',
  'GET /namespaces/:id',
  'POST /projects/import',
  'GET /projects/:id/import',
  'POST /projects/:id/export',
  'GET /projects/:id/export',
  'GET /projects/:id/export/download',
  'GET /projects',
  'POST /projects',
  'POST /projects/user/:user_id',
  'GET /users/:user_id/projects',
  'GET /users/:user_id/starred_projects',
  'GET /projects/:id',
  'PUT /projects/:id',
  'DELETE /projects/:id',
  'GET /projects/:id/users',
  'POST /projects/:id/star',
  'POST /projects/:id/unstar',
  'POST /projects/:id/archive',
  'POST /projects/:id/unarchive',
  'POST /projects/:id/share',
  'DELETE /projects/:id/share/:group_id',
  'POST /projects/:id/fork',
  'GET /projects/:id/forks',
  'POST /projects/:id/fork/:forked_from_id',
  'DELETE /projects/:id/fork',
  'POST /projects/:id/housekeeping',
  'GET /projects/:id/snapshot',
  'POST /projects/:id/uploads',
  'GET /projects/:id/custom_attributes',
  'PUT /projects/:id/custom_attributes/:key',
  'DELETE /projects/:id/custom_attributes/:key',
  'GET /groups/:id/badges',
  'GET /groups/:id/badges/render',
  'GET /groups/:id/badges/:badge_id',
  'POST /groups/:id/badges',
  'PUT /groups/:id/badges/:badge_id',
  'DELETE /groups/:id/badges/:badge_id',
  'GET /notification_settings',
  'PUT /notification_settings',
  'GET /groups/:id/notification_settings',
  'PUT /groups/:id/notification_settings',
  'GET /projects/:id/notification_settings',
  'PUT /projects/:id/notification_settings',
  'GET /projects/:id/hooks',
  'GET /projects/:id/hooks/:hook_id',
  'POST /projects/:id/hooks',
  'PUT /projects/:id/hooks/:hook_id',
  'DELETE /projects/:id/hooks/:hook_id',
  'POST /projects/:id/hooks/:hook_id/test/:trigger',
  'GET /projects/:id/repository/tree',
  'GET /projects/:id/repository/blobs/:sha',
  'GET /projects/:id/repository/blobs/:sha/raw',
  'GET /projects/:id/repository/archive',
  'GET /projects/:id/repository/archive.:format',
  'GET /groups/:id/projects',
  'GET /search',
  'GET /projects/:id/repository/commits',
  'POST /projects/:id/repository/commits',
  'GET /projects/:id/repository/commits/:sha',
  'GET /projects/:id/repository/commits/:sha/diff',
  'GET /projects/:id/repository/branches',
  'GET /projects/:id/repository/branches/:branch',
  'POST /projects/:id/repository/branches',
  'DELETE /projects/:id/repository/branches/:branch',
  'GET /projects/:id/repository/tags',
  'GET /projects/:id/repository/tags/:tag_name',
  'POST /projects/:id/repository/tags',
  'GET /projects/:id/repository/compare',
  'GET /projects/:id/repository/contributors',
  'POST /projects/:id/repository/files/:file_path',
  'PUT /projects/:id/repository/files/:file_path',
  'DELETE /projects/:id/repository/files/:file_path',
];
/** GitLab's API::Files: read_repository reads too (allow_access_with_scope, GET and HEAD); so does the analysis of a file (a Cratehouse extension). */
const hostingFileRoutes = [
  'HEAD /projects/:id/repository/files/:file_path',
  'GET /projects/:id/repository/files/:file_path',
  'GET /projects/:id/repository/files/:file_path/raw',
  'GET /projects/:id/repository/files/:file_path/analysis',
];
/** /audio/v1 without a token at all. */
const audioPublicRoutes = ['GET /healthz', 'GET /openapi.json'];
/** Reads and analyses: api or read_api. */
const audioReadRoutes = [
  'GET /me',
  'GET /jobs/:job_id',
  'GET /artifacts/:content_id/:name',
  'POST /loudness',
  'POST /waveform',
  'POST /spectrum',
  'POST /onsets',
  'POST /grade',
  'POST /analyze/samples',
  'POST /naming',
  'POST /features',
  'POST /analyze/emotion',
  'POST /analyze',
  'POST /separate',
  // The library's reads.
  'GET /library/items',
  'GET /library/items/:id',
  'GET /library/items/:id/audio',
  'GET /library/items/:id/similar',
  'GET /library/collections',
  'GET /library/tags',
  'GET /library/folders',
];
/** Writes: api only. */
const audioWriteRoutes = [
  'DELETE /jobs/:job_id',
  'POST /sources',
  // The library's writes.
  'POST /library/items',
  'PATCH /library/items/:id',
  'DELETE /library/items/:id',
  'POST /library/collections',
  'PATCH /library/collections/:id',
  'DELETE /library/collections/:id',
  'POST /library/collections/:id/items',
  'DELETE /library/collections/:id/items/:item_id',
  'POST /library/folders',
  'DELETE /library/folders/:id',
];

const hostingAllowed = (method: string, users: boolean, files = false): readonly Scope[] =>
  method === 'GET' || method === 'HEAD'
    ? ['api', 'read_api', ...(users ? (['read_user'] as const) : []), ...(files ? (['read_repository'] as const) : [])]
    : ['api'];
const gitRead: readonly Scope[] = ['api', 'read_api', 'read_repository', 'write_repository'];
const gitWrite: readonly Scope[] = ['api', 'write_repository'];

const insufficient = 'The request requires higher privileges than provided by the access token.';

/** `METHOD path` of every route an Express router mounts. */
function mountedRoutes(router: { stack: unknown[] }): string[] {
  return (router.stack as { route?: { path: unknown; methods: Record<string, boolean> } }[])
    .filter((layer) => layer.route)
    .flatMap((layer) => Object.keys(layer.route!.methods).map((m) => `${m.toUpperCase()} ${String(layer.route!.path)}`));
}

const fill = (route: string) =>
  route.replace(/:(\w+)/g, (_m, name: string) => (name === 'name' || name === 'trigger' || name === 'key' ? 'x' : '999999'));

let app: TestApp;
const tokenFor = {} as Record<Scope, string>;
let projectPath = '';

beforeAll(async () => {
  app = await startTestApp({ jsDecoder: true });
  // An administrator's tokens, so that admin-only routes get past their own checks when a scope allows them.
  for (const scope of scopes) tokenFor[scope] = (await app.identity.createToken(1, { name: scope, scopes: [scope] })).token;
  const created = await readJson<{ path_with_namespace: string }>(
    callHosting(app, adminToken, '/projects', { method: 'POST', body: { name: 'Scoped' } }),
  );
  projectPath = created.path_with_namespace;
}, 30_000);

afterAll(() => app.close());

describe('token scopes', () => {
  it('every mounted route is classified by this test', () => {
    expect(mountedRoutes(createHostingRouter(app.hostingDeps)).sort()).toEqual(
      [...hostingUserRoutes, ...hostingOtherRoutes, ...hostingFileRoutes].sort(),
    );
    expect(mountedRoutes(createAudioRouter(app.audioDeps)).sort()).toEqual(
      [...audioPublicRoutes, ...audioReadRoutes, ...audioWriteRoutes].sort(),
    );
    // The root router: project uploads as a route; git's smart HTTP is one middleware (the four requests below).
    expect(mountedRoutes(createRepositoryRouter(app.repositoryDeps))).toHaveLength(1);
  });

  it('/api/v4: every route against every scope', async () => {
    const failures: string[] = [];
    for (const route of [...hostingUserRoutes, ...hostingOtherRoutes, ...hostingFileRoutes]) {
      const [method = '', routePath = ''] = route.split(' ');
      const files = hostingFileRoutes.includes(route);
      const allowed = hostingAllowed(method, hostingUserRoutes.includes(route), files);
      // The seven scopes of one route at once; routes one after another (some change what others see).
      const answers = await Promise.all(
        scopes.map(async (scope) => {
          const res = await callHosting(app, tokenFor[scope], fill(routePath), {
            method,
            body: method === 'GET' || method === 'HEAD' ? undefined : {},
          });
          return { scope, res, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
        }),
      );
      for (const { scope, res, body } of answers) {
        // A HEAD answer has no body: its refusal shows in the status and the challenge alone.
        const refused =
          res.status === 403 &&
          (method === 'HEAD' ? /insufficient_scope/.test(res.headers.get('www-authenticate') ?? '') : body?.error === 'insufficient_scope');
        if (allowed.includes(scope) === refused) failures.push(`${route} with ${scope}: ${res.status} ${JSON.stringify(body)}`);
        if (refused) {
          const registered = hostingUserRoutes.includes(route)
            ? 'read_user api read_api'
            : files
              ? 'read_repository api read_api'
              : 'api read_api';
          if (method !== 'HEAD') expect(body).toEqual({ error: 'insufficient_scope', error_description: insufficient, scope: registered });
          expect(res.headers.get('www-authenticate')).toBe(
            `Bearer realm="Cratehouse", error="insufficient_scope", error_description="${insufficient}", scope="${registered}"`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('/audio/v1: every route against every scope', async () => {
    const failures: string[] = [];
    for (const route of [...audioPublicRoutes, ...audioReadRoutes, ...audioWriteRoutes]) {
      const [method = '', routePath = ''] = route.split(' ');
      const allowed: readonly Scope[] = audioPublicRoutes.includes(route)
        ? scopes
        : audioReadRoutes.includes(route)
          ? ['api', 'read_api']
          : ['api'];
      const answers = await Promise.all(
        scopes.map(async (scope) => {
          const res = await app.fetch(`/audio/v1${fill(routePath)}`, { method, headers: { Authorization: `Bearer ${tokenFor[scope]}` } });
          return { scope, res, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
        }),
      );
      for (const { scope, res, body } of answers) {
        const refused = res.status === 403 && body?.code === 'insufficient_scope';
        if (allowed.includes(scope) === refused) failures.push(`${route} with ${scope}: ${res.status} ${JSON.stringify(body)}`);
        if (refused) expect(body).toEqual({ detail: insufficient, code: 'insufficient_scope' });
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('git over HTTP and project uploads against every scope', async () => {
    const requests = [
      {
        what: 'ref advertisement for fetch',
        method: 'GET',
        path: `/${projectPath}.git/info/refs?service=git-upload-pack`,
        allowed: gitRead,
      },
      { what: 'fetch', method: 'POST', path: `/${projectPath}.git/git-upload-pack`, allowed: gitRead },
      {
        what: 'ref advertisement for push',
        method: 'GET',
        path: `/${projectPath}.git/info/refs?service=git-receive-pack`,
        allowed: gitWrite,
      },
      { what: 'push', method: 'POST', path: `/${projectPath}.git/git-receive-pack`, allowed: gitWrite },
    ];
    const failures: string[] = [];
    for (const r of requests) {
      for (const scope of scopes) {
        const res = await app.fetch(r.path, {
          method: r.method,
          headers: { Authorization: `Basic ${Buffer.from(`oauth2:${tokenFor[scope]}`).toString('base64')}` },
          body: r.method === 'POST' ? '' : undefined,
        });
        const text = await res.text();
        const refused = res.status === 403 && text.includes(insufficient);
        if (r.allowed.includes(scope) === refused) failures.push(`${r.what} with ${scope}: ${res.status} ${text.slice(0, 200)}`);
      }
    }
    for (const scope of scopes) {
      const res = await app.fetch(`/${projectPath}/uploads/${'0'.repeat(32)}/notes.txt`, { headers: { 'PRIVATE-TOKEN': tokenFor[scope] } });
      const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
      const refused = res.status === 403 && body?.error === 'insufficient_scope';
      if ((['api', 'read_api'] as Scope[]).includes(scope) === refused)
        failures.push(`upload with ${scope}: ${res.status} ${JSON.stringify(body)}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it("an administrator's read_user token cannot mint a token, and read_api cannot write", async () => {
    const before = app.identity.listTokens(app.identity.getUser(1)).length;
    const mint = await callHosting(app, tokenFor.read_user, '/users/1/personal_access_tokens', {
      method: 'POST',
      body: { name: 'escalate', scopes: ['api'] },
    });
    expect(mint.status).toBe(403);
    expect(await mint.json()).toEqual({ error: 'insufficient_scope', error_description: insufficient, scope: 'read_user api read_api' });
    expect(app.identity.listTokens(app.identity.getUser(1)).length).toBe(before);
    // read_user still reads the user endpoints.
    expect(await readJson(callHosting(app, tokenFor.read_user, '/user'))).toMatchObject({ username: 'root' });

    const create = await callHosting(app, tokenFor.read_api, '/projects', { method: 'POST', body: { name: 'Not Allowed' } });
    expect(create.status).toBe(403);
    expect(await create.json()).toEqual({ error: 'insufficient_scope', error_description: insufficient, scope: 'api read_api' });
    const names = (await readJson<{ name: string }[]>(callHosting(app, tokenFor.read_api, '/projects'))).map((p) => p.name);
    expect(names).toContain('Scoped');
    expect(names).not.toContain('Not Allowed');

    const source = await app.fetch('/audio/v1/sources', {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor.read_api}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/x.wav' }),
    });
    expect(source.status).toBe(403);
    expect(app.store.data.jobs).toHaveLength(0);
  });

  it('a real git client: read_repository clones but cannot push, write_repository pushes', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-scopes-'));
    const git = gitClient(work);
    const url = `${app.url}/${projectPath}.git`;
    const src = path.join(work, 'src');
    await git.ok(['init', '-q', src]);
    writeFileSync(path.join(src, 'a.txt'), 'a\n');
    await git.ok(['add', '.'], src);
    await git.ok(['commit', '-q', '-m', 'first'], src);

    const refused = await git.run(['push', '-q', withToken(url, tokenFor.read_repository), 'main'], src);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(insufficient);
    await git.ok(['push', '-q', withToken(url, tokenFor.write_repository), 'main'], src);
    await git.ok(['clone', '-q', withToken(url, tokenFor.read_repository), path.join(work, 'clone')]);
    const userOnly = await git.run(['clone', '-q', withToken(url, tokenFor.read_user), path.join(work, 'clone2')]);
    expect(userOnly.status).not.toBe(0);
  }, 30_000);
});

describe('the Repository Files API', () => {
  it('reads with read_repository too (lib/api/files.rb); writes need api', () => {
    const file = '/projects/7/repository/files/stems%2Fkick.wav';
    expect(allowingScopes(familyOf(hostingScopeRules, 'GET', file), 'GET')).toEqual(['read_repository', 'api', 'read_api']);
    expect(allowingScopes(familyOf(hostingScopeRules, 'HEAD', `${file}/raw`), 'HEAD')).toEqual(['read_repository', 'api', 'read_api']);
    expect(allowingScopes(familyOf(hostingScopeRules, 'GET', `${file}/analysis`), 'GET')).toEqual(['read_repository', 'api', 'read_api']);
    expect(allowingScopes(familyOf(hostingScopeRules, 'PUT', file), 'PUT')).toEqual(['api']);
    expect(allowingScopes(familyOf(hostingScopeRules, 'GET', '/projects/7/repository/commits'), 'GET')).toEqual(['api', 'read_api']);
  });
});
