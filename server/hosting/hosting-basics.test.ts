// Integration tests over real HTTP for the hosting basics GitLab clients call first: version, current
// user, token auth, users, personal access tokens, groups, members, namespaces, pagination and the
// protocol details (error bodies, headers, body formats). Every expected value is written out here;
// nothing is computed with the code under test.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminToken, startTestApp, type TestApp } from '../test-support/test-app.js';
import type { Group, GroupMember, PersonalAccessToken, UserDetail } from './api-types.js';

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: unknown;
}

type TokenForm = 'header' | 'bearer' | 'param';

interface CallOptions {
  readonly method?: string;
  readonly token?: string;
  readonly tokenForm?: TokenForm;
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, string>>;
  readonly raw?: { readonly body: string; readonly type: string };
  readonly headers?: Readonly<Record<string, string>>;
}

let app: TestApp;

beforeEach(async () => {
  app = await startTestApp();
});

afterEach(async () => {
  await app.close();
});

/** Call the API under /api/v4 and read the whole reply. */
async function call(path: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  let url = `/api/v4${path}`;
  if (o.token !== undefined) {
    const form = o.tokenForm ?? 'header';
    if (form === 'header') headers['PRIVATE-TOKEN'] = o.token;
    else if (form === 'bearer') headers.Authorization = `Bearer ${o.token}`;
    else url += `${url.includes('?') ? '&' : '?'}private_token=${encodeURIComponent(o.token)}`;
  }
  let body: string | undefined;
  if (o.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(o.json);
  } else if (o.form !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(o.form).toString();
  } else if (o.raw !== undefined) {
    headers['Content-Type'] = o.raw.type;
    body = o.raw.body;
  }
  const res = await app.fetch(url, { method: o.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** The pagination headers of a reply, by name. */
function pageHeaders(r: Reply): Record<string, string | null> {
  return {
    'x-total': r.headers.get('x-total'),
    'x-total-pages': r.headers.get('x-total-pages'),
    'x-page': r.headers.get('x-page'),
    'x-per-page': r.headers.get('x-per-page'),
    'x-next-page': r.headers.get('x-next-page'),
    'x-prev-page': r.headers.get('x-prev-page'),
  };
}

/** Create a user through the API (admin) and give them a token; returns id and token. */
async function user(username: string): Promise<{ readonly id: number; readonly token: string }> {
  return app.addUser(username);
}

/** Create a group through the API as `token`. */
async function group(token: string, fields: Record<string, unknown>): Promise<Group> {
  const r = await call('/groups', { token, json: fields });
  expect(r.status).toBe(201);
  return r.body as Group;
}

/** Add `userId` to a group as `token`. */
async function addMember(token: string, groupId: number, userId: number, accessLevel: number): Promise<void> {
  const r = await call(`/groups/${groupId}/members`, { token, json: { user_id: userId, access_level: accessLevel } });
  expect(r.status).toBe(201);
}

const todayUtc = () => new Date().toISOString().slice(0, 10);
const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const userBasicKeys = ['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url'];
const userPublicKeys = [...userBasicKeys, 'bio', 'created_at', 'public_email'].sort();
const groupKeys = [
  'avatar_url',
  'created_at',
  'description',
  'full_name',
  'full_path',
  'id',
  'name',
  'parent_id',
  'path',
  'visibility',
  'web_url',
];
const tokenKeys = ['active', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id'];

describe('GET /version', () => {
  it('answers version and revision to a signed-in caller', async () => {
    const r = await call('/version', { token: adminToken });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body).toEqual({ version: '17.0.0', revision: 'cratehouse-0.0.0-test' });
  });

  it('is 401 without a token, as GitLab (lib/api/version.rb authenticates)', async () => {
    const r = await call('/version');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('GET /user and token authentication', () => {
  it('is 401 {"message":"401 Unauthorized"} without a token', async () => {
    const r = await call('/user');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: '401 Unauthorized' });
  });

  it.each<TokenForm>(['header', 'bearer', 'param'])('accepts the token as %s', async (tokenForm) => {
    const r = await call('/user', { token: adminToken, tokenForm });
    expect(r.status).toBe(200);
    const me = r.body as UserDetail;
    expect(me.id).toBe(1);
    expect(me.username).toBe('root');
    expect(me.name).toBe('Administrator');
    expect(me.email).toBe('root@example.com');
    expect(me.is_admin).toBe(true);
    expect(me.web_url).toBe(`${app.url}/root`);
  });

  it.each<TokenForm>(['header', 'bearer', 'param'])('refuses an unknown token (%s) with 401 even on public reads', async (tokenForm) => {
    const pub = await group(adminToken, { name: 'Open', path: 'open', visibility: 'public' });
    expect((await call(`/groups/${pub.id}`)).status).toBe(200);
    for (const path of ['/user', `/groups/${pub.id}`, '/groups', '/users?username=root']) {
      const r = await call(path, { token: 'not-a-token', tokenForm });
      expect(r.status, path).toBe(401);
      expect(r.body, path).toEqual({ message: '401 Unauthorized' });
    }
  });

  it('refuses a revoked token with the invalid_token body', async () => {
    const alice = await user('alice');
    const own = (await call('/personal_access_tokens', { token: alice.token })).body as PersonalAccessToken[];
    expect(own).toHaveLength(1);
    expect((await call(`/personal_access_tokens/${own[0]?.id}`, { method: 'DELETE', token: alice.token })).status).toBe(204);
    const r = await call('/user', { token: alice.token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' });
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses an expired token with the invalid_token body', async () => {
    const alice = await user('alice');
    const { token } = await app.identity.createToken(alice.id, { name: 'old', scopes: ['api'], expiresAt: daysFromToday(-1) });
    const r = await call('/user', { token, tokenForm: 'bearer' });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      error: 'invalid_token',
      error_description: 'Token is expired. You can either do re-authorization or token refresh.',
    });
  });

  it('treats a token as expired from midnight UTC of its expires_at date (GitLab: expires_at <= now)', async () => {
    const alice = await user('alice');
    const { token } = await app.identity.createToken(alice.id, { name: 'ends today', scopes: ['api'], expiresAt: todayUtc() });
    const r = await call('/user', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      error: 'invalid_token',
      error_description: 'Token is expired. You can either do re-authorization or token refresh.',
    });
    const { token: tomorrow } = await app.identity.createToken(alice.id, {
      name: 'ends later',
      scopes: ['api'],
      expiresAt: daysFromToday(2),
    });
    expect((await call('/user', { token: tomorrow })).status).toBe(200);
  });

  it('looks tokens up in GitLab order: Bearer, then private_token, then PRIVATE-TOKEN', async () => {
    const alice = await user('alice');
    const paramWins = await call(`/user?private_token=${alice.token}`, { headers: { 'PRIVATE-TOKEN': adminToken } });
    expect(paramWins.status).toBe(200);
    expect((paramWins.body as UserDetail).username).toBe('alice');
    const bearerWins = await call(`/user?private_token=${adminToken}`, { headers: { Authorization: `Bearer ${alice.token}` } });
    expect(bearerWins.status).toBe(200);
    expect((bearerWins.body as UserDetail).username).toBe('alice');
  });
});

describe('users', () => {
  it('GET /users shows emails to admins only', async () => {
    const alice = await user('alice');
    const asAdmin = await call('/users', { token: adminToken });
    expect(asAdmin.status).toBe(200);
    const adminView = asAdmin.body as UserDetail[];
    expect(adminView.map((u) => u.username)).toEqual(['root', 'alice']);
    expect(adminView.map((u) => u.email)).toEqual(['root@example.com', 'alice@example.com']);

    const asAlice = await call('/users', { token: alice.token });
    expect(asAlice.status).toBe(200);
    const plain = asAlice.body as Record<string, unknown>[];
    expect(plain).toHaveLength(2);
    for (const u of plain) expect(Object.keys(u).sort()).toEqual(userBasicKeys);
    expect(plain[1]).toEqual({
      id: 2,
      username: 'alice',
      name: 'alice',
      state: 'active',
      locked: false,
      avatar_url: null,
      web_url: `${app.url}/alice`,
    });
  });

  it('GET /users filters by username, search and python-gitlab style booleans', async () => {
    const alice = await user('alice');
    await user('bob');
    const byName = await call('/users?username=ALICE', { token: alice.token });
    expect((byName.body as UserDetail[]).map((u) => u.username)).toEqual(['alice']);
    const search = await call('/users?search=bo', { token: alice.token });
    expect((search.body as UserDetail[]).map((u) => u.username)).toEqual(['bob']);
    const active = await call('/users?active=True&blocked=False', { token: alice.token });
    expect(active.status).toBe(200);
    expect((active.body as UserDetail[]).map((u) => u.username)).toEqual(['root', 'alice', 'bob']);
    const bad = await call('/users?active=maybe', { token: alice.token });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'active is invalid' });
  });

  it('GET /users/:id hides private fields from other non-admins', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const other = await call(`/users/${bob.id}`, { token: alice.token });
    expect(other.status).toBe(200);
    expect(Object.keys(other.body as object).sort()).toEqual(userPublicKeys);
    expect((other.body as UserDetail).username).toBe('bob');

    const self = await call(`/users/${alice.id}`, { token: alice.token });
    expect((self.body as UserDetail).email).toBe('alice@example.com');
    const admin = await call(`/users/${bob.id}`, { token: adminToken });
    expect((admin.body as UserDetail).email).toBe('bob@example.com');
  });

  it('GET /users/:id is 404 {"message":"404 User Not Found"} for an unknown id and 400 for a non-integer one', async () => {
    const missing = await call('/users/999', { token: adminToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
    const bad = await call('/users/abc', { token: adminToken });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'id is invalid' });
  });

  it('POST /users creates a user (admin) with a 201 and the admin view', async () => {
    const r = await call('/users', {
      token: adminToken,
      json: { email: 'carol@example.com', name: 'Carol C', username: 'carol', password: 'longenough' },
    });
    expect(r.status).toBe(201);
    const carol = r.body as UserDetail;
    expect(carol).toMatchObject({
      id: 2,
      username: 'carol',
      name: 'Carol C',
      email: 'carol@example.com',
      state: 'active',
      is_admin: false,
      web_url: `${app.url}/carol`,
    });
    // No password (hash) ever leaves the server.
    expect(r.text).not.toContain('longenough');
    expect(r.text).not.toContain('scrypt');
  });

  it('POST /users is 401 anonymous and 403 {"message":"403 Forbidden"} for a non-admin', async () => {
    const alice = await user('alice');
    const payload = { email: 'x@example.com', name: 'X', username: 'x', password: 'longenough' };
    const anonymous = await call('/users', { json: payload });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
    const forbidden = await call('/users', { token: alice.token, json: payload });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: '403 Forbidden' });
  });

  it('POST /users reports each missing parameter separately, as Grape does', async () => {
    const r = await call('/users', { token: adminToken, json: { password: 'longenough' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'email is missing, name is missing, username is missing' });
    const onlyName = await call('/users', { token: adminToken, json: { email: 'y@example.com', username: 'y', reset_password: true } });
    expect(onlyName.status).toBe(400);
    expect(onlyName.body).toEqual({ error: 'name is missing' });
  });

  it('POST /users with nothing reports every rule in declaration order (at_least_one_of for the password)', async () => {
    const r = await call('/users', { token: adminToken, json: {} });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error:
        'email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing',
    });
  });

  it('POST /users is 409 for a taken email or username (case-insensitive)', async () => {
    await user('alice');
    const email = await call('/users', {
      token: adminToken,
      json: { email: 'ALICE@example.com', name: 'A2', username: 'alice2', password: 'longenough' },
    });
    expect(email.status).toBe(409);
    expect(email.body).toEqual({ message: 'Email has already been taken' });
    const username = await call('/users', {
      token: adminToken,
      json: { email: 'a3@example.com', name: 'A3', username: 'Alice', password: 'longenough' },
    });
    expect(username.status).toBe(409);
    expect(username.body).toEqual({ message: 'Username has already been taken' });
  });

  it('POST /users is 400 {"message":{"username":[...]}} for a bad username and a short password', async () => {
    const r = await call('/users', {
      token: adminToken,
      json: { email: 'z@example.com', name: 'Z', username: '-bad name', password: 'longenough' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      message: {
        username: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."],
      },
    });
    const short = await call('/users', {
      token: adminToken,
      json: { email: 'z@example.com', name: 'Z', username: 'zed', password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ message: { password: ['is too short (minimum is 8 characters)'] } });
  });

  it('POST /users takes a form-encoded body with python-gitlab booleans', async () => {
    const r = await call('/users', {
      token: adminToken,
      form: { email: 'dan@example.com', name: 'Dan', username: 'dan', password: 'longenough', admin: 'True' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ username: 'dan', is_admin: true });
    const notAdmin = await call('/users', {
      token: adminToken,
      form: { email: 'eve@example.com', name: 'Eve', username: 'eve', reset_password: 'True', admin: 'False' },
    });
    expect(notAdmin.status).toBe(201);
    expect(notAdmin.body).toMatchObject({ username: 'eve', is_admin: false });
  });
});

describe('personal access tokens', () => {
  it('POST /users/:id/personal_access_tokens returns the token once; it authenticates; only a digest is stored', async () => {
    const alice = await user('alice');
    const r = await call(`/users/${alice.id}/personal_access_tokens`, {
      token: adminToken,
      json: { name: 'ci', scopes: ['api', 'read_user'], expires_at: '2999-01-01' },
    });
    expect(r.status).toBe(201);
    const created = r.body as PersonalAccessToken;
    expect(Object.keys(created).sort()).toEqual([...tokenKeys, 'token'].sort());
    expect(created).toMatchObject({
      name: 'ci',
      revoked: false,
      scopes: ['api', 'read_user'],
      user_id: alice.id,
      last_used_at: null,
      active: true,
      expires_at: '2999-01-01',
    });
    const token = created.token ?? '';
    expect(token).toMatch(/^chpat-[A-Za-z0-9_-]{32}$/);

    const me = await call('/user', { token, tokenForm: 'bearer' });
    expect(me.status).toBe(200);
    expect((me.body as UserDetail).username).toBe('alice');

    const record = app.store.data.tokens.find((t) => t.id === created.id);
    expect(record).toBeDefined();
    expect(Object.keys(record ?? {}).sort()).toEqual([
      'createdAt',
      'digest',
      'expiresAt',
      'id',
      'lastUsedAt',
      'name',
      'revoked',
      'scopes',
      'userId',
    ]);
    expect(record?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(record?.digest).not.toBe(token);
    expect(JSON.stringify(app.store.data)).not.toContain(token);
    await app.store.flush();
    expect(JSON.stringify(await app.adapter.read())).not.toContain(token);

    // Listing never shows the token again.
    const list = await call('/personal_access_tokens', { token });
    expect(list.text).not.toContain(token);
    for (const t of list.body as Record<string, unknown>[]) expect(Object.keys(t).sort()).toEqual(tokenKeys);
  });

  it('POST /users/:id/personal_access_tokens takes form-encoded scopes[]', async () => {
    const alice = await user('alice');
    const r = await call(`/users/${alice.id}/personal_access_tokens`, {
      token: adminToken,
      raw: { type: 'application/x-www-form-urlencoded', body: 'name=form&scopes%5B%5D=read_api&scopes%5B%5D=read_user' },
    });
    expect(r.status).toBe(201);
    expect((r.body as PersonalAccessToken).scopes).toEqual(['read_api', 'read_user']);
  });

  it('POST /users/:id/personal_access_tokens is admin only, 404 for an unknown user, 400 for bad params', async () => {
    const alice = await user('alice');
    const anonymous = await call(`/users/${alice.id}/personal_access_tokens`, { json: { name: 'x', scopes: ['api'] } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
    const own = await call(`/users/${alice.id}/personal_access_tokens`, { token: alice.token, json: { name: 'x', scopes: ['api'] } });
    expect(own.status).toBe(403);
    expect(own.body).toEqual({ message: '403 Forbidden' });
    const unknown = await call('/users/999/personal_access_tokens', { token: adminToken, json: { name: 'x', scopes: ['api'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 User Not Found' });
    const missing = await call(`/users/${alice.id}/personal_access_tokens`, { token: adminToken, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'name is missing, scopes is missing' });
    const badScope = await call(`/users/${alice.id}/personal_access_tokens`, {
      token: adminToken,
      json: { name: 'x', scopes: ['everything'] },
    });
    expect(badScope.status).toBe(400);
    expect(badScope.body).toEqual({ error: 'scopes does not have a valid value' });
    const badDate = await call(`/users/${alice.id}/personal_access_tokens`, {
      token: adminToken,
      json: { name: 'x', scopes: ['api'], expires_at: 'soon' },
    });
    expect(badDate.status).toBe(400);
    expect(badDate.body).toEqual({ error: 'expires_at is invalid' });
  });

  it("GET /personal_access_tokens lists the caller's own tokens; admins see all and can filter by user_id", async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const mine = await call('/personal_access_tokens', { token: alice.token });
    expect(mine.status).toBe(200);
    expect((mine.body as PersonalAccessToken[]).map((t) => t.user_id)).toEqual([alice.id]);
    const all = await call('/personal_access_tokens', { token: adminToken });
    expect((all.body as PersonalAccessToken[]).map((t) => t.user_id)).toEqual([1, alice.id, bob.id]);
    const bobs = await call(`/personal_access_tokens?user_id=${bob.id}`, { token: adminToken });
    expect((bobs.body as PersonalAccessToken[]).map((t) => t.user_id)).toEqual([bob.id]);
    expect((await call('/personal_access_tokens')).status).toBe(401);
  });

  it('DELETE /personal_access_tokens/:id is 204 with no body, then the token is refused', async () => {
    const alice = await user('alice');
    const r = await call(`/users/${alice.id}/personal_access_tokens`, { token: adminToken, json: { name: 'temp', scopes: ['api'] } });
    const created = r.body as PersonalAccessToken;
    expect((await call('/user', { token: created.token ?? '' })).status).toBe(200);
    const del = await call(`/personal_access_tokens/${created.id}`, { method: 'DELETE', token: alice.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const refused = await call('/user', { token: created.token ?? '' });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
    const listed = (await call(`/personal_access_tokens?user_id=${alice.id}`, { token: adminToken })).body as PersonalAccessToken[];
    expect(listed.find((t) => t.id === created.id)).toMatchObject({ revoked: true, active: false });
    // Alice's other token still works.
    expect((await call('/user', { token: alice.token })).status).toBe(200);
  });

  it('DELETE /personal_access_tokens/:id is 404 for an unknown id and 401 anonymous', async () => {
    const missing = await call('/personal_access_tokens/999', { method: 'DELETE', token: adminToken });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Token Not Found' });
    const anonymous = await call('/personal_access_tokens/1', { method: 'DELETE' });
    expect(anonymous.status).toBe(401);
  });
});

describe('groups', () => {
  it('POST /groups creates a private group owned by the caller', async () => {
    const alice = await user('alice');
    const r = await call('/groups', { token: alice.token, json: { name: 'Beat Makers', path: 'beat-makers', description: 'drums' } });
    expect(r.status).toBe(201);
    const g = r.body as Group;
    expect(Object.keys(g).sort()).toEqual(groupKeys);
    expect(g).toMatchObject({
      id: 3,
      web_url: `${app.url}/groups/beat-makers`,
      name: 'Beat Makers',
      path: 'beat-makers',
      description: 'drums',
      visibility: 'private',
      full_name: 'Beat Makers',
      full_path: 'beat-makers',
      parent_id: null,
      avatar_url: null,
    });
    const members = await call(`/groups/${g.id}/members`, { token: alice.token });
    expect((members.body as GroupMember[]).map((m) => [m.username, m.access_level])).toEqual([['alice', 50]]);
  });

  it('GET /groups/:id finds a group by numeric id, by path and by URL-encoded full path', async () => {
    const parent = await group(adminToken, { name: 'Parent', path: 'parent', visibility: 'public' });
    const child = await group(adminToken, { name: 'Child', path: 'child', parent_id: parent.id, visibility: 'public' });
    expect(child).toMatchObject({
      parent_id: parent.id,
      full_path: 'parent/child',
      full_name: 'Parent / Child',
      web_url: `${app.url}/groups/parent/child`,
    });
    for (const id of [String(child.id), 'parent%2Fchild', 'PARENT%2FChild']) {
      const r = await call(`/groups/${id}`);
      expect(r.status, id).toBe(200);
      expect((r.body as Group).id, id).toBe(child.id);
    }
    expect(((await call('/groups/parent')).body as Group).id).toBe(parent.id);
    // A raw slash is two path segments: no route.
    const raw = await call('/groups/parent/child');
    expect(raw.status).toBe(404);
    expect(raw.body).toEqual({ error: '404 Not Found' });
    const missing = await call('/groups/9999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Group Not Found' });
  });

  it('a private group is 404 for anonymous users and non-members, visible to members and admins', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const secret = await group(alice.token, { name: 'Secret', path: 'secret' });
    for (const id of [String(secret.id), 'secret']) {
      for (const token of [undefined, bob.token]) {
        const r = await call(`/groups/${id}`, { token });
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ message: '404 Group Not Found' });
      }
      expect((await call(`/groups/${id}`, { token: alice.token })).status).toBe(200);
      expect((await call(`/groups/${id}`, { token: adminToken })).status).toBe(200);
    }
    const members = await call(`/groups/${secret.id}/members`, { token: bob.token });
    expect(members.status).toBe(404);
    expect(members.body).toEqual({ message: '404 Group Not Found' });
    await addMember(alice.token, secret.id, bob.id, 10);
    expect((await call(`/groups/${secret.id}`, { token: bob.token })).status).toBe(200);
  });

  it('GET /groups: anonymous sees public groups, members their groups (all_available adds the rest), admins all', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    await group(adminToken, { name: 'Pub', path: 'pub', visibility: 'public' });
    await group(adminToken, { name: 'Int', path: 'int', visibility: 'internal' });
    await group(adminToken, { name: 'Priv', path: 'priv', visibility: 'private' });
    await group(alice.token, { name: 'Alices', path: 'alices', visibility: 'private' });
    const names = async (path: string, token?: string) => ((await call(path, { token })).body as Group[]).map((g) => g.path);
    expect(await names('/groups')).toEqual(['pub']);
    expect(await names('/groups', alice.token)).toEqual(['alices']);
    expect(await names('/groups?all_available=True', alice.token)).toEqual(['alices', 'int', 'pub']);
    expect(await names('/groups', bob.token)).toEqual([]);
    expect(await names('/groups?all_available=true', bob.token)).toEqual(['int', 'pub']);
    expect(await names('/groups', adminToken)).toEqual(['alices', 'int', 'priv', 'pub']);
    expect(await names('/groups?owned=True', alice.token)).toEqual(['alices']);
    expect(await names('/groups?search=PR', adminToken)).toEqual(['priv']);
    expect(await names('/groups?order_by=id&sort=desc', adminToken)).toEqual(['alices', 'priv', 'int', 'pub']);
  });

  it('GET /groups lists the parent of a subgroup the caller belongs to', async () => {
    const alice = await user('alice');
    const top = await group(adminToken, { name: 'Top', path: 'top', visibility: 'private' });
    const sub = await group(adminToken, { name: 'Sub', path: 'sub', parent_id: top.id, visibility: 'private' });
    await addMember(adminToken, sub.id, alice.id, 30);
    const r = await call('/groups', { token: alice.token });
    expect((r.body as Group[]).map((g) => g.full_path)).toEqual(['top/sub', 'top']);
  });

  it('POST /groups reports each missing parameter separately', async () => {
    const both = await call('/groups', { token: adminToken, json: {} });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'name is missing, path is missing' });
    const path = await call('/groups', { token: adminToken, json: { name: 'Only Name' } });
    expect(path.status).toBe(400);
    expect(path.body).toEqual({ error: 'path is missing' });
  });

  it('POST /groups is 400 for a taken path, a bad visibility, and 401 anonymous', async () => {
    await group(adminToken, { name: 'Taken', path: 'taken' });
    const dup = await call('/groups', { token: adminToken, json: { name: 'Other', path: 'TAKEN' } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: { path: ['has already been taken'] } });
    const userPath = await call('/groups', { token: adminToken, json: { name: 'Root', path: 'root' } });
    expect(userPath.status).toBe(400);
    expect(userPath.body).toEqual({ message: { path: ['has already been taken'] } });
    const vis = await call('/groups', { token: adminToken, json: { name: 'V', path: 'v', visibility: 'secret' } });
    expect(vis.status).toBe(400);
    expect(vis.body).toEqual({ error: 'visibility does not have a valid value' });
    const anonymous = await call('/groups', { json: { name: 'A', path: 'a' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
  });

  it('POST /groups with parent_id: 404 Group Not Found for an unknown or unreadable parent, 403 below maintainer, inherited owners may nest', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const unknown = await call('/groups', { token: alice.token, json: { name: 'X', path: 'x', parent_id: 999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 Group Not Found' });
    const top = await group(alice.token, { name: 'Top', path: 'top' });
    const hidden = await call('/groups', { token: bob.token, json: { name: 'X', path: 'x', parent_id: top.id } });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Group Not Found' });
    await addMember(alice.token, top.id, bob.id, 30);
    const developer = await call('/groups', { token: bob.token, json: { name: 'X', path: 'x', parent_id: top.id } });
    expect(developer.status).toBe(403);
    expect(developer.body).toEqual({ message: '403 Forbidden' });
    const mid = await group(alice.token, { name: 'Mid', path: 'mid', parent_id: top.id });
    // Alice owns `top` only directly; her ownership of `top/mid` is inherited.
    const deep = await call('/groups', { token: alice.token, json: { name: 'Deep', path: 'deep', parent_id: mid.id } });
    expect(deep.status).toBe(201);
    expect((deep.body as Group).full_path).toBe('top/mid/deep');
    expect((deep.body as Group).full_name).toBe('Top / Mid / Deep');
    expect(((await call('/groups/top%2Fmid%2Fdeep', { token: alice.token })).body as Group).id).toBe((deep.body as Group).id);
  });

  it('POST /groups takes a form-encoded body', async () => {
    const r = await call('/groups', { token: adminToken, form: { name: 'Form Group', path: 'form-group', visibility: 'public' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'Form Group', path: 'form-group', visibility: 'public' });
  });
});

describe('group members', () => {
  it('POST /groups/:id/members adds a member (201); GET lists members', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const g = await group(alice.token, { name: 'Band', path: 'band' });
    const r = await call(`/groups/${g.id}/members`, { token: alice.token, json: { user_id: bob.id, access_level: 30 } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body as object).sort()).toEqual([...userBasicKeys, 'access_level', 'created_at', 'expires_at'].sort());
    expect(r.body).toMatchObject({ id: bob.id, username: 'bob', access_level: 30, expires_at: null });
    const list = await call(`/groups/${g.id}/members`, { token: bob.token });
    expect(list.status).toBe(200);
    expect((list.body as GroupMember[]).map((m) => [m.username, m.access_level])).toEqual([
      ['alice', 50],
      ['bob', 30],
    ]);
    expect(list.headers.get('x-total')).toBe('2');
  });

  it('POST /groups/:id/members accepts username and form-encoded bodies', async () => {
    await user('bob');
    const g = await group(adminToken, { name: 'Band', path: 'band' });
    const r = await call(`/groups/band/members`, { token: adminToken, form: { username: 'bob', access_level: '20' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ username: 'bob', access_level: 20 });
    expect((await call(`/groups/${g.id}/members`, { token: adminToken })).body as GroupMember[]).toHaveLength(2);
  });

  it('POST /groups/:id/members: 409 when already a member, 400 for a bad access_level, 404 for an unknown user', async () => {
    const bob = await user('bob');
    const g = await group(adminToken, { name: 'Band', path: 'band' });
    await addMember(adminToken, g.id, bob.id, 30);
    const dup = await call(`/groups/${g.id}/members`, { token: adminToken, json: { user_id: bob.id, access_level: 40 } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Member already exists' });
    const carol = await user('carol');
    const level = await call(`/groups/${g.id}/members`, { token: adminToken, json: { user_id: carol.id, access_level: 35 } });
    expect(level.status).toBe(400);
    expect(level.body).toEqual({ error: 'access_level does not have a valid value' });
    const notInt = await call(`/groups/${g.id}/members`, { token: adminToken, json: { user_id: carol.id, access_level: 'lots' } });
    expect(notInt.status).toBe(400);
    expect(notInt.body).toEqual({ error: 'access_level is invalid' });
    const unknown = await call(`/groups/${g.id}/members`, { token: adminToken, json: { user_id: 999, access_level: 30 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 User Not Found' });
    const unknownName = await call(`/groups/${g.id}/members`, { token: adminToken, json: { username: 'nobody', access_level: 30 } });
    expect(unknownName.status).toBe(404);
    expect(unknownName.body).toEqual({ message: '404 User Not Found' });
  });

  it('POST /groups/:id/members needs owner, maintainer or admin', async () => {
    const owner = await user('owner');
    const maint = await user('maint');
    const dev = await user('dev');
    const outsider = await user('outsider');
    const target = await user('target');
    const g = await group(owner.token, { name: 'Band', path: 'band', visibility: 'public' });
    await addMember(owner.token, g.id, maint.id, 40);
    await addMember(owner.token, g.id, dev.id, 30);
    for (const token of [dev.token, outsider.token]) {
      const r = await call(`/groups/${g.id}/members`, { token, json: { user_id: target.id, access_level: 10 } });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ message: '403 Forbidden' });
      // Permission is checked before the user is looked up, as in GitLab.
      const unknown = await call(`/groups/${g.id}/members`, { token, json: { user_id: 999, access_level: 10 } });
      expect(unknown.status).toBe(403);
    }
    expect((await call(`/groups/${g.id}/members`, { json: { user_id: target.id, access_level: 10 } })).status).toBe(401);
    const byMaintainer = await call(`/groups/${g.id}/members`, { token: maint.token, json: { user_id: target.id, access_level: 10 } });
    expect(byMaintainer.status).toBe(201);
    const extra = await user('extra');
    expect((await call(`/groups/${g.id}/members`, { token: adminToken, json: { user_id: extra.id, access_level: 50 } })).status).toBe(201);
  });
});

describe('GET /namespaces', () => {
  it("lists the caller's namespace and the groups they develop in; admins see all; search filters", async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const dev = await group(adminToken, { name: 'Dev Group', path: 'devgroup' });
    const rep = await group(adminToken, { name: 'Reporter Group', path: 'repgroup' });
    await group(adminToken, { name: 'Other', path: 'other' });
    await addMember(adminToken, dev.id, alice.id, 30);
    await addMember(adminToken, rep.id, alice.id, 20);
    const sub = await group(adminToken, { name: 'Sub', path: 'sub', parent_id: dev.id });

    const r = await call('/namespaces', { token: alice.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      {
        id: 2,
        name: 'alice',
        path: 'alice',
        kind: 'user',
        full_path: 'alice',
        parent_id: null,
        avatar_url: null,
        web_url: `${app.url}/alice`,
      },
      {
        id: dev.id,
        name: 'Dev Group',
        path: 'devgroup',
        kind: 'group',
        full_path: 'devgroup',
        parent_id: null,
        avatar_url: null,
        web_url: `${app.url}/groups/devgroup`,
      },
      {
        id: sub.id,
        name: 'Sub',
        path: 'sub',
        kind: 'group',
        full_path: 'devgroup/sub',
        parent_id: dev.id,
        avatar_url: null,
        web_url: `${app.url}/groups/devgroup/sub`,
      },
    ]);
    expect(r.headers.get('x-total')).toBe('3');

    const all = await call('/namespaces', { token: adminToken });
    expect((all.body as { full_path: string }[]).map((n) => n.full_path)).toEqual([
      'root',
      'alice',
      'bob',
      'devgroup',
      'repgroup',
      'other',
      'devgroup/sub',
    ]);
    const search = await call('/namespaces?search=SUB', { token: alice.token });
    expect((search.body as { full_path: string }[]).map((n) => n.full_path)).toEqual(['devgroup/sub']);
    const bobs = await call('/namespaces', { token: bob.token });
    expect((bobs.body as { full_path: string }[]).map((n) => n.full_path)).toEqual(['bob']);
    const anonymous = await call('/namespaces');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
  });
});

describe('pagination', () => {
  const link = (path: string, rels: [number, string][]) =>
    rels.map(([page, rel]) => `<${app.url}/api/v4${path.replace('PAGE', String(page))}>; rel="${rel}"`).join(', ');

  async function seedUsers(n: number): Promise<void> {
    for (let i = 1; i <= n; i++) await user(`user${String(i).padStart(2, '0')}`);
  }

  it('a middle page carries every header, and Link keeps the other params sorted', async () => {
    await seedUsers(25);
    const r = await call('/users?search=user&per_page=10&page=2&active=true', { token: adminToken });
    expect(r.status).toBe(200);
    expect((r.body as UserDetail[]).map((u) => u.username)).toEqual([
      'user11',
      'user12',
      'user13',
      'user14',
      'user15',
      'user16',
      'user17',
      'user18',
      'user19',
      'user20',
    ]);
    expect(pageHeaders(r)).toEqual({
      'x-total': '25',
      'x-total-pages': '3',
      'x-page': '2',
      'x-per-page': '10',
      'x-next-page': '3',
      'x-prev-page': '1',
    });
    expect(r.headers.get('link')).toBe(
      link('/users?active=true&page=PAGE&per_page=10&search=user', [
        [1, 'prev'],
        [3, 'next'],
        [1, 'first'],
        [3, 'last'],
      ]),
    );
  });

  it('the first page has no prev and the last no next (empty strings in the headers)', async () => {
    await seedUsers(25);
    const first = await call('/users?per_page=10', { token: adminToken });
    expect((first.body as UserDetail[]).map((u) => u.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(pageHeaders(first)).toEqual({
      'x-total': '26',
      'x-total-pages': '3',
      'x-page': '1',
      'x-per-page': '10',
      'x-next-page': '2',
      'x-prev-page': '',
    });
    expect(first.headers.get('link')).toBe(
      link('/users?page=PAGE&per_page=10', [
        [2, 'next'],
        [1, 'first'],
        [3, 'last'],
      ]),
    );
    const last = await call('/users?per_page=10&page=3', { token: adminToken });
    expect((last.body as UserDetail[]).map((u) => u.id)).toEqual([21, 22, 23, 24, 25, 26]);
    expect(pageHeaders(last)).toEqual({
      'x-total': '26',
      'x-total-pages': '3',
      'x-page': '3',
      'x-per-page': '10',
      'x-next-page': '',
      'x-prev-page': '2',
    });
    expect(last.headers.get('link')).toBe(
      link('/users?page=PAGE&per_page=10', [
        [2, 'prev'],
        [1, 'first'],
        [3, 'last'],
      ]),
    );
  });

  it('defaults to 20 per page and caps per_page at 100', async () => {
    await seedUsers(25);
    const def = await call('/users', { token: adminToken });
    expect(def.body as unknown[]).toHaveLength(20);
    expect(pageHeaders(def)).toEqual({
      'x-total': '26',
      'x-total-pages': '2',
      'x-page': '1',
      'x-per-page': '20',
      'x-next-page': '2',
      'x-prev-page': '',
    });
    const big = await call('/users?per_page=500', { token: adminToken });
    expect(big.body as unknown[]).toHaveLength(26);
    expect(pageHeaders(big)).toEqual({
      'x-total': '26',
      'x-total-pages': '1',
      'x-page': '1',
      'x-per-page': '100',
      'x-next-page': '',
      'x-prev-page': '',
    });
    expect(big.headers.get('link')).toBe(
      link('/users?page=PAGE&per_page=100', [
        [1, 'first'],
        [1, 'last'],
      ]),
    );
  });

  it('an out-of-range page is an empty array with no next or prev', async () => {
    await seedUsers(25);
    const r = await call('/users?per_page=10&page=9', { token: adminToken });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    expect(pageHeaders(r)).toEqual({
      'x-total': '26',
      'x-total-pages': '3',
      'x-page': '9',
      'x-per-page': '10',
      'x-next-page': '',
      'x-prev-page': '',
    });
    expect(r.headers.get('link')).toBe(
      link('/users?page=PAGE&per_page=10', [
        [1, 'first'],
        [3, 'last'],
      ]),
    );
  });

  it('an empty list still has one page', async () => {
    const r = await call('/namespaces?search=nothing-matches', { token: adminToken });
    expect(r.body).toEqual([]);
    expect(pageHeaders(r)).toEqual({
      'x-total': '0',
      'x-total-pages': '1',
      'x-page': '1',
      'x-per-page': '20',
      'x-next-page': '',
      'x-prev-page': '',
    });
    expect(r.headers.get('link')).toBe(
      link('/namespaces?page=PAGE&per_page=20&search=nothing-matches', [
        [1, 'first'],
        [1, 'last'],
      ]),
    );
  });

  it.each([
    ['per_page=0', { error: 'per_page has a value not allowed' }],
    ['page=-1', { error: 'page does not have a valid value' }],
    ['page=0', { error: 'page does not have a valid value' }],
    ['per_page=-5', { error: 'per_page does not have a valid value' }],
    ['page=abc', { error: 'page is invalid' }],
    ['per_page=1.5', { error: 'per_page is invalid' }],
  ])('rejects %s with 400', async (query, body) => {
    const r = await call(`/users?${query}`, { token: adminToken });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(body);
  });

  it('pages groups (25 of them, ordered by name)', async () => {
    for (let i = 1; i <= 25; i++)
      await group(adminToken, { name: `G${String(i).padStart(2, '0')}`, path: `g${String(i).padStart(2, '0')}`, visibility: 'public' });
    const r = await call('/groups?per_page=10&page=3');
    expect((r.body as Group[]).map((g) => g.path)).toEqual(['g21', 'g22', 'g23', 'g24', 'g25']);
    expect(pageHeaders(r)).toEqual({
      'x-total': '25',
      'x-total-pages': '3',
      'x-page': '3',
      'x-per-page': '10',
      'x-next-page': '',
      'x-prev-page': '2',
    });
    expect(r.headers.get('link')).toBe(
      link('/groups?page=PAGE&per_page=10', [
        [2, 'prev'],
        [1, 'first'],
        [3, 'last'],
      ]),
    );
  });

  it('every list endpoint is paginated', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const g = await group(adminToken, { name: 'Band', path: 'band' });
    await group(adminToken, { name: 'Band2', path: 'band2' });
    await addMember(adminToken, g.id, alice.id, 30);
    await addMember(adminToken, g.id, bob.id, 30);
    await app.identity.createToken(1, { name: 'second', scopes: ['api'] });
    const lists: [string, string][] = [
      ['/users', '3'],
      ['/groups', '2'],
      [`/groups/${g.id}/members`, '3'],
      ['/namespaces', '5'],
      ['/personal_access_tokens?user_id=1', '2'],
    ];
    for (const [path, total] of lists) {
      const r = await call(`${path}${path.includes('?') ? '&' : '?'}per_page=1&page=2`, { token: adminToken });
      expect(r.status, path).toBe(200);
      expect(r.body as unknown[], path).toHaveLength(1);
      expect(pageHeaders(r), path).toEqual({
        'x-total': total,
        'x-total-pages': total,
        'x-page': '2',
        'x-per-page': '1',
        'x-next-page': total === '2' ? '' : '3',
        'x-prev-page': '1',
      });
      expect(r.headers.get('link'), path).toContain('rel="first"');
    }
  });

  it('builds Link URLs on the configured public URL, keeping its path prefix', async () => {
    const proxied = await startTestApp({ publicUrl: 'https://git.example.com/cratehouse' });
    try {
      await proxied.addUser('alice');
      await proxied.addUser('bob');
      const res = await proxied.fetch('/api/v4/users?per_page=1&page=2', { headers: { 'PRIVATE-TOKEN': adminToken } });
      expect(res.headers.get('link')).toBe(
        [
          '<https://git.example.com/cratehouse/api/v4/users?page=1&per_page=1>; rel="prev"',
          '<https://git.example.com/cratehouse/api/v4/users?page=3&per_page=1>; rel="next"',
          '<https://git.example.com/cratehouse/api/v4/users?page=1&per_page=1>; rel="first"',
          '<https://git.example.com/cratehouse/api/v4/users?page=3&per_page=1>; rel="last"',
        ].join(', '),
      );
      const body = (await res.json()) as UserDetail[];
      expect(body[0]?.web_url).toBe('https://git.example.com/cratehouse/alice');
    } finally {
      await proxied.close();
    }
  });
});

describe('protocol', () => {
  it('an unknown route under /api/v4 is 404 {"error":"404 Not Found"}', async () => {
    for (const token of [undefined, adminToken]) {
      const r = await call('/no/such/thing', { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: '404 Not Found' });
    }
  });

  it('/api/v3 is gone (410)', async () => {
    const res = await app.fetch('/api/v3/projects');
    expect(res.status).toBe(410);
    expect(await res.json()).toEqual({ error: 'API V3 is no longer supported. Use API V4 instead.' });
  });

  it('invalid JSON is a 400 in GitLab shape, not a 500 or an HTML page', async () => {
    const r = await call('/groups', { token: adminToken, raw: { type: 'application/json', body: '{"name": "x", ' } });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(r.body as object)).toEqual(['error']);
    expect(typeof (r.body as { error: unknown }).error).toBe('string');
    expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(app.store.data.groups).toEqual([]);
  });

  it('a JSON body over the limit (64 KB here) is 413 {"message":"413 Request Entity Too Large"}', async () => {
    const r = await call('/groups', { token: adminToken, json: { name: 'big', path: 'big', description: 'x'.repeat(70 * 1024) } });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ message: '413 Request Entity Too Large' });
    expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const form = await call('/groups', { token: adminToken, form: { name: 'big', path: 'big', description: 'x'.repeat(70 * 1024) } });
    expect(form.status).toBe(413);
    expect(form.body).toEqual({ message: '413 Request Entity Too Large' });
    expect(app.store.data.groups).toEqual([]);
  });

  it('sets X-Frame-Options and X-Content-Type-Options on every API answer', async () => {
    const replies = [
      await call('/user', { token: adminToken }),
      await call('/user'),
      await call('/nope'),
      await call('/users/999', { token: adminToken }),
      await call('/users?page=0', { token: adminToken }),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 401, 404, 404, 400]);
    for (const r of replies) {
      expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('accepts JSON null for optional parameters', async () => {
    const r = await call('/groups', {
      token: adminToken,
      json: { name: 'Nulls', path: 'nulls', description: null, visibility: null, parent_id: null },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ description: '', visibility: 'private', parent_id: null });
  });
});
