import { createHash } from 'node:crypto';
import { serveBytes, startMediaServer } from './media-server.js';
import { encodeWav, sine } from './signals.js';

/** A deployment seeded through the HTTP APIs: its callers' tokens and the ids the reads need. */
export interface SeededDeployment {
  readonly tokens: { readonly admin: string; readonly alice: string; readonly aliceRead: string; readonly bob: string };
  readonly users: { readonly alice: number; readonly bob: number };
  readonly groups: readonly { readonly id: number; readonly fullPath: string }[];
  readonly projects: readonly { readonly id: number; readonly path: string; readonly visibility: string }[];
  readonly hooks: readonly { readonly projectId: number; readonly id: number }[];
  readonly badges: readonly { readonly kind: 'groups' | 'projects'; readonly ownerId: number; readonly id: number }[];
  readonly jobs: readonly { readonly token: string; readonly id: string }[];
  readonly artifact: string;
}

interface Json {
  readonly [key: string]: unknown;
}

/** A server answering one WAV at /tone.wav, for a source job. */
export async function serveWav(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const media = await startMediaServer();
  media.route('/tone.wav', serveBytes(encodeWav([sine(44_100, 1, 440, 0.5), sine(44_100, 1, 660, 0.4)], 44_100), 'audio/wav'));
  return { url: `${media.url}/tone.wav`, close: () => media.close() };
}

/** The audio API takes a bearer token, the hosting API PRIVATE-TOKEN. */
function authHeader(route: string, token: string | null): Record<string, string> {
  if (!token) return {};
  return route.startsWith('/audio/') ? { Authorization: `Bearer ${token}` } : { 'PRIVATE-TOKEN': token };
}

/** A client of one server: JSON calls that must succeed, with the token they are made with. */
function clientOf(base: string) {
  const call = async (token: string | null, method: string, route: string, body?: unknown): Promise<Response> =>
    fetch(`${base}${route}`, {
      method,
      headers: {
        ...authHeader(route, token),
        ...(body !== undefined && !(body instanceof FormData) ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
    });
  const ok = async (token: string | null, method: string, route: string, body?: unknown): Promise<Json> => {
    const res = await call(token, method, route, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : {}) as Json;
  };
  /** Poll a GET until `done` holds (jobs run in the background). */
  const until = async (token: string, route: string, done: (body: Json) => boolean): Promise<Json> => {
    for (let i = 0; i < 600; i++) {
      const body = await ok(token, 'GET', route);
      if (done(body)) return body;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${route} did not finish`);
  };
  return { call, ok, until };
}

/**
 * Seed every kind of record through the APIs (as users would): users, tokens (one revoked), groups
 * and a subgroup with members, public/internal/private projects with README commits and files,
 * stars, a share, custom attributes, an archived project, a fork, an export and an import, hooks,
 * group and project badges, uploads, notification settings, Git LFS objects and a lock, a source
 * job with its artifact, and usage. `actualBase` is where the server listens; links it answers may
 * name a public URL instead (rewritten here to reach it).
 */
export async function seedDeployment(actualBase: string, adminToken: string, wavUrl: string): Promise<SeededDeployment> {
  const { ok, until } = clientOf(actualBase);
  const api = '/api/v4';
  const user = async (username: string) => {
    const u = await ok(adminToken, 'POST', `${api}/users`, {
      username,
      name: username.toUpperCase(),
      email: `${username}@example.com`,
      force_random_password: true,
    });
    const t = await ok(adminToken, 'POST', `${api}/users/${u.id as number}/personal_access_tokens`, { name: 'laptop', scopes: ['api'] });
    return { id: u.id as number, token: t.token as string };
  };
  const alice = await user('alice');
  const bob = await user('bob');
  const aliceRead = await ok(adminToken, 'POST', `${api}/users/${alice.id}/personal_access_tokens`, {
    name: 'reader',
    scopes: ['read_api'],
  });
  const revoked = await ok(adminToken, 'POST', `${api}/users/${bob.id}/personal_access_tokens`, {
    name: 'old',
    scopes: ['api'],
    expires_at: '2031-01-01',
  });
  await ok(adminToken, 'DELETE', `${api}/personal_access_tokens/${revoked.id as number}`);

  const label = await ok(alice.token, 'POST', `${api}/groups`, {
    name: 'Label',
    path: 'label',
    visibility: 'public',
    description: 'A label',
  });
  const vault = await ok(alice.token, 'POST', `${api}/groups`, {
    name: 'Vault',
    path: 'vault',
    visibility: 'private',
    parent_id: label.id,
  });
  const crew = await ok(bob.token, 'POST', `${api}/groups`, { name: 'Crew', path: 'crew', visibility: 'public' });
  await ok(alice.token, 'POST', `${api}/groups/${label.id as number}/members`, { user_id: bob.id, access_level: 30 });
  await ok(alice.token, 'POST', `${api}/groups/${vault.id as number}/members`, {
    user_id: bob.id,
    access_level: 20,
    expires_at: '2031-06-30',
  });

  const project = async (token: string, body: Json) => ok(token, 'POST', `${api}/projects`, { initialize_with_readme: true, ...body });
  const tape = await project(alice.token, { name: 'Beat Tape', visibility: 'public', description: 'Loops', tag_list: 'house,loops' });
  const album = await project(alice.token, { name: 'Album', visibility: 'private', namespace_id: label.id });
  const single = await project(alice.token, { name: 'Single', path: 'synthwave-single', visibility: 'internal', namespace_id: label.id });
  const secret = await project(alice.token, { name: 'Secret Stems', visibility: 'private', namespace_id: vault.id });
  const kit = await project(bob.token, { name: 'Kit', visibility: 'public', namespace_id: crew.id });
  const empty = await ok(bob.token, 'POST', `${api}/projects`, { name: 'Empty', visibility: 'public' });
  for (const [p, file] of [
    [tape, 'notes/ideas.md'],
    [album, 'tracklist.txt'],
    [kit, 'kit/README.txt'],
  ] as const)
    await ok(
      p === kit ? bob.token : alice.token,
      'POST',
      `${api}/projects/${p.id as number}/repository/files/${encodeURIComponent(file)}`,
      {
        branch: 'main',
        content: `contents of ${file}\n`,
        commit_message: `Add ${file}`,
      },
    );
  await ok(adminToken, 'PUT', `${api}/projects/${tape.id as number}/custom_attributes/genre`, { value: 'house' });
  await ok(alice.token, 'PUT', `${api}/projects/${single.id as number}`, { topics: 'synthwave', merge_method: 'ff' });
  await ok(bob.token, 'POST', `${api}/projects/${tape.id as number}/star`);
  await ok(alice.token, 'POST', `${api}/projects/${tape.id as number}/star`);
  await ok(bob.token, 'POST', `${api}/projects/${single.id as number}/star`);
  await ok(alice.token, 'POST', `${api}/projects/${kit.id as number}/star`);
  await ok(alice.token, 'POST', `${api}/projects/${album.id as number}/share`, { group_id: crew.id, group_access: 30 });
  await ok(bob.token, 'POST', `${api}/projects/${empty.id as number}/archive`);

  // A hook that is never delivered during the test: only tag pushes, and no tag is pushed.
  const hookBody = { url: 'http://127.0.0.1:9/hook', push_events: false, tag_push_events: true, token: 'hook-secret' };
  const hook1 = await ok(alice.token, 'POST', `${api}/projects/${tape.id as number}/hooks`, hookBody);
  const hook2 = await ok(alice.token, 'POST', `${api}/projects/${album.id as number}/hooks`, {
    ...hookBody,
    push_events_branch_filter: 'main',
  });
  const badge = (link: string) => ({
    link_url: `https://example.com/${link}/%{project_path}`,
    image_url: `https://img.example.com/${link}.svg`,
    name: link,
  });
  const gBadge = await ok(alice.token, 'POST', `${api}/groups/${label.id as number}/badges`, badge('label'));
  const pBadge = await ok(alice.token, 'POST', `${api}/projects/${album.id as number}/badges`, badge('album'));
  const kBadge = await ok(bob.token, 'POST', `${api}/projects/${kit.id as number}/badges`, badge('kit'));

  const form = new FormData();
  form.set('file', new Blob([Buffer.from('cover art')]), 'cover.txt');
  await ok(alice.token, 'POST', `${api}/projects/${tape.id as number}/uploads`, form);
  await ok(alice.token, 'PUT', `${api}/notification_settings?level=watch&notification_email=alice@example.com`);
  await ok(bob.token, 'PUT', `${api}/projects/${tape.id as number}/notification_settings?level=disabled`);

  // Git LFS: an object uploaded through the batch API (linked to the project), and a lock.
  const lfs = `${actualBase}/label/synthwave-single.git/info/lfs`;
  const lfsHeaders = {
    Accept: 'application/vnd.git-lfs+json',
    'Content-Type': 'application/vnd.git-lfs+json',
    Authorization: `Basic ${Buffer.from(`oauth2:${alice.token}`).toString('base64')}`,
  };
  const bytes = Buffer.from('an LFS object the test uploads');
  const oid = createHash('sha256').update(bytes).digest('hex');
  const batch = (await (
    await fetch(`${lfs}/objects/batch`, {
      method: 'POST',
      headers: lfsHeaders,
      body: JSON.stringify({ operation: 'upload', transfers: ['basic'], objects: [{ oid, size: bytes.length }] }),
    })
  ).json()) as { objects: { actions: { upload: { href: string; header: Record<string, string> } } }[] };
  const put = batch.objects[0]!.actions.upload;
  const stored = await fetch(new URL(new URL(put.href).pathname, actualBase), {
    method: 'PUT',
    headers: { ...put.header, 'Content-Type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  });
  if (!stored.ok) throw new Error(`LFS PUT answered ${stored.status}`);
  const locked = await fetch(`${lfs}/locks`, { method: 'POST', headers: lfsHeaders, body: JSON.stringify({ path: 'stems/kick.wav' }) });
  if (locked.status !== 201) throw new Error(`LFS lock answered ${locked.status}`);

  // Background work: a fork, an export and an import of that export, a source job.
  const fork = await ok(bob.token, 'POST', `${api}/projects/${tape.id as number}/fork`, {});
  await until(bob.token, `${api}/projects/${fork.id as number}`, (b) => b.import_status === 'finished');
  await ok(alice.token, 'POST', `${api}/projects/${album.id as number}/export`, { description: 'album export' });
  await until(alice.token, `${api}/projects/${album.id as number}/export`, (b) => b.export_status === 'finished');
  const archive = await fetch(`${actualBase}${api}/projects/${album.id as number}/export/download`, {
    headers: { 'PRIVATE-TOKEN': alice.token },
  });
  const importForm = new FormData();
  importForm.set('file', new Blob([new Uint8Array(await archive.arrayBuffer())]), 'album.tar.gz');
  importForm.set('path', 'album-copy');
  const imported = await ok(bob.token, 'POST', `${api}/projects/import`, importForm);
  await until(bob.token, `${api}/projects/${imported.id as number}/import`, (b) => b.import_status === 'finished');
  const source = await ok(alice.token, 'POST', '/audio/v1/sources', { url: wavUrl });
  const sourceJob = source.job_id as string;
  const done = await until(alice.token, `/audio/v1/jobs/${sourceJob}`, (b) => b.status === 'done' || b.status === 'error');
  if (done.status !== 'done') throw new Error(`source job failed: ${JSON.stringify(done)}`);
  const result = done.result as { content_id: string; name: string };
  // Every token used once now: a token's first use sets its last_used_at, which reads would otherwise show changing.
  await ok(aliceRead.token as string, 'GET', `${api}/user`);

  const projects = [tape, album, single, secret, kit, empty, fork, imported].map((p) => ({
    id: p.id as number,
    path: p.path_with_namespace as string,
    visibility: p.visibility as string,
  }));
  return {
    tokens: { admin: adminToken, alice: alice.token, aliceRead: aliceRead.token as string, bob: bob.token },
    users: { alice: alice.id, bob: bob.id },
    groups: [label, vault, crew].map((g) => ({ id: g.id as number, fullPath: g.full_path as string })),
    projects,
    hooks: [
      { projectId: tape.id as number, id: hook1.id as number },
      { projectId: album.id as number, id: hook2.id as number },
    ],
    badges: [
      { kind: 'groups', ownerId: label.id as number, id: gBadge.id as number },
      { kind: 'projects', ownerId: album.id as number, id: pBadge.id as number },
      { kind: 'projects', ownerId: kit.id as number, id: kBadge.id as number },
    ],
    jobs: [{ token: alice.token, id: sourceJob }],
    artifact: `/audio/v1/artifacts/${result.content_id}/${encodeURIComponent(result.name)}`,
  };
}

/** One recorded read: status, the paging headers and the body. */
export interface RecordedRead {
  readonly status: number;
  readonly paging: Readonly<Record<string, string | null>>;
  readonly body: string;
}

const pagingHeaders = ['x-total', 'x-total-pages', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'link', 'content-type'];

/** Every read of the list, as each caller (null: anonymous); keyed `caller GET path`. */
export function readsOf(
  d: SeededDeployment,
): readonly { readonly caller: keyof SeededDeployment['tokens'] | 'anonymous'; readonly path: string }[] {
  const api = '/api/v4';
  const shared: string[] = [
    '/version',
    '/users',
    '/users?username=alice',
    ...Object.values(d.users).flatMap((id) => [`/users/${id}`, `/users/${id}/projects`, `/users/${id}/starred_projects`]),
    '/projects',
    '/projects?simple=true&per_page=100',
    '/projects?owned=true',
    '/projects?starred=true',
    '/projects?membership=true',
    '/projects?visibility=public',
    '/projects?order_by=name&sort=asc',
    '/projects?order_by=star_count',
    '/projects?search=beat',
    '/projects?archived=true',
    '/projects?topic=synthwave',
    '/projects?per_page=2&page=2',
    '/projects?statistics=true',
    '/projects?with_custom_attributes=true&custom_attributes[genre]=house',
    '/groups',
    '/groups?all_available=true',
    '/groups?order_by=id&sort=desc',
    '/namespaces',
    '/search?scope=projects&search=a',
    '/personal_access_tokens',
    '/notification_settings',
    '/user',
    ...d.groups.flatMap((g) => [
      `/groups/${g.id}`,
      `/groups/${encodeURIComponent(g.fullPath)}`,
      `/groups/${g.id}/members`,
      `/groups/${g.id}/projects`,
      `/groups/${g.id}/projects?include_subgroups=true`,
      `/groups/${g.id}/badges`,
      `/groups/${g.id}/badges/render?link_url=https://x.example/%25{project_path}&image_url=https://x.example/b.svg`,
      `/namespaces/${g.id}`,
    ]),
    ...d.projects.flatMap((p) => [
      `/projects/${p.id}`,
      `/projects/${encodeURIComponent(p.path)}`,
      `/projects/${p.id}/users`,
      `/projects/${p.id}/forks`,
      `/projects/${p.id}/hooks`,
      `/projects/${p.id}/badges`,
      `/projects/${p.id}/badges/render?link_url=https://x.example/%25{project_path}&image_url=https://x.example/b.svg`,
      `/projects/${p.id}/custom_attributes`,
      `/projects/${p.id}/export`,
      `/projects/${p.id}/import`,
      `/projects/${p.id}/notification_settings`,
      `/projects/${p.id}/repository/tree?recursive=true`,
      `/projects/${p.id}/repository/files/README.md?ref=main`,
    ]),
    ...d.hooks.map((h) => `/projects/${h.projectId}/hooks/${h.id}`),
    ...d.badges.map((b) => `/${b.kind}/${b.ownerId}/badges/${b.id}`),
  ].map((p) => `${api}${p}`);
  const audio = ['/audio/v1/me', ...d.jobs.map((j) => `/audio/v1/jobs/${j.id}`), d.artifact, '/audio/v1/library/items'];
  const callers = ['admin', 'alice', 'aliceRead', 'bob', 'anonymous'] as const;
  return callers.flatMap((caller) => [...shared, ...(caller === 'anonymous' ? [] : audio)].map((path) => ({ caller, path })));
}

/** Make every read of the list against a server (four at a time); each answer's status, paging headers and body. */
export async function recordReads(base: string, d: SeededDeployment): Promise<Map<string, RecordedRead>> {
  const reads = readsOf(d);
  const answers: RecordedRead[] = new Array<RecordedRead>(reads.length);
  let next = 0;
  const reader = async () => {
    for (let i = next++; i < reads.length; i = next++) {
      const { caller, path } = reads[i]!;
      const res = await fetch(`${base}${path}`, { headers: authHeader(path, caller === 'anonymous' ? null : d.tokens[caller]) });
      const body = Buffer.from(await res.arrayBuffer());
      const text = /json|text|svg/.test(res.headers.get('content-type') ?? '')
        ? body.toString('utf8')
        : createHash('sha256').update(body).digest('hex');
      answers[i] = { status: res.status, paging: Object.fromEntries(pagingHeaders.map((h) => [h, res.headers.get(h)])), body: text };
    }
  };
  await Promise.all([reader(), reader(), reader(), reader()]);
  return new Map(reads.map((r, i) => [`${r.caller} GET ${r.path}`, answers[i]!]));
}
