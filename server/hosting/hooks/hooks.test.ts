import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, type CallInit } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';
import { waitFor as poll } from '../../test-support/wait-for.js';

interface Received {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

let app: TestApp;
let owner: string;
let developer: string;
let outsider: string;
let project: Project;
const received: Received[] = [];
/** Requests to /hold, unanswered until releaseHeld(); `abandoned` when the sender gave up on one first. */
const held: { answer(): void; abandoned: boolean }[] = [];
let heldReleased = false;
let receiver: http.Server;
let hookBase: string;
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-hooks-'));
const zero = '0'.repeat(40);

const api = (token: string | null, route: string, init: CallInit = {}) => callHosting(app, token, route, init);

/** Answer the held /hold requests, and any later ones at once. */
function releaseHeld(): void {
  heldReleased = true;
  for (const h of held) h.answer();
}

/** git as a client, with the author the payload assertions expect. */
const git = gitClient(work, { name: 'Hook Tester', email: 'hooks@example.com' }).ok;

const waitFor = <T>(find: () => T | undefined) => poll(find, { timeoutMs: 10_000 });

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(body || '{}') as Record<string, unknown> });
      const answer = () => res.writeHead(req.url?.startsWith('/fail') ? 500 : 200).end('ok');
      if (!req.url?.startsWith('/hold') || heldReleased) return answer();
      const entry = { answer, abandoned: false };
      res.on('close', () => (entry.abandoned = !res.writableFinished));
      held.push(entry);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  // A delivery's timeout beyond the held receiver's release timer, so a slow machine cannot make the held request time out.
  app = await startTestApp({ hookDelivery: { maxAttempts: 3, backoffMs: 20, timeoutMs: 20_000 } });
  owner = (await app.addUser('hooker')).token;
  developer = (await app.addUser('devon')).token;
  outsider = (await app.addUser('outsider')).token;
  const group = (await (await api(owner, '/groups', { method: 'POST', body: { name: 'Label', path: 'label' } })).json()) as { id: number };
  const devId = app.identity.getUser('devon').id;
  await api(owner, `/groups/${group.id}/members`, { method: 'POST', body: { user_id: devId, access_level: 30 } });
  project = (await (await api(owner, '/projects', { method: 'POST', body: { name: 'Hooked', namespace_id: group.id } })).json()) as Project;
}, 30_000);

afterAll(async () => {
  await app.close();
  await new Promise<void>((r) => receiver.close(() => r()));
  rmSync(work, { recursive: true, force: true });
});

describe('hook CRUD', () => {
  it('maintainers create, read, edit and delete; the token is never shown', async () => {
    const res = await api(owner, `/projects/${project.id}/hooks`, {
      method: 'POST',
      body: { url: `${hookBase}/crud`, token: 's3cret', tag_push_events: true },
    });
    expect(res.status).toBe(201);
    const hook = (await res.json()) as Record<string, unknown>;
    expect(hook).toMatchObject({
      url: `${hookBase}/crud`,
      project_id: project.id,
      push_events: true,
      tag_push_events: true,
      issues_events: false,
      confidential_issues_events: false,
      merge_requests_events: false,
      note_events: false,
      job_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      enable_ssl_verification: true,
    });
    expect(hook).not.toHaveProperty('token');
    expect(JSON.stringify(await (await api(owner, `/projects/${project.id}/hooks`)).json())).not.toContain('s3cret');

    const edited = await api(owner, `/projects/${project.id}/hooks/${String(hook.id)}`, {
      method: 'PUT',
      body: { url: `${hookBase}/crud2`, wiki_events: true, push_events: false },
    });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({
      url: `${hookBase}/crud2`,
      wiki_page_events: true,
      push_events: false,
      tag_push_events: true,
    });
    expect(
      await (await api(owner, `/projects/${project.id}/hooks/${String(hook.id)}`, { method: 'PUT', body: { push_events: true } })).json(),
    ).toEqual({ error: 'url is missing' });

    const del = await api(owner, `/projects/${project.id}/hooks/${String(hook.id)}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.json()).toMatchObject({ id: hook.id, url: `${hookBase}/crud2` });
    const again = await api(owner, `/projects/${project.id}/hooks/${String(hook.id)}`, { method: 'DELETE' });
    expect(again.status).toBe(204);
    expect(await again.text()).toBe('');
    const gone = await api(owner, `/projects/${project.id}/hooks/${String(hook.id)}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ message: '404 Not found' });
  });

  it('GitLab errors: url missing (400), invalid url (422), developer 403, outsider 404, anonymous 401', async () => {
    expect(await (await api(owner, `/projects/${project.id}/hooks`, { method: 'POST', body: {} })).json()).toEqual({
      error: 'url is missing',
    });
    const bad = await api(owner, `/projects/${project.id}/hooks`, { method: 'POST', body: { url: 'ftp://example.com/x' } });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({ error: 'Invalid url given' });
    expect((await api(developer, `/projects/${project.id}/hooks`)).status).toBe(403);
    expect((await api(outsider, `/projects/${project.id}/hooks`)).status).toBe(404);
    expect((await api(null, `/projects/${project.id}/hooks`)).status).toBe(401);
  });
});

describe('hooks fire on git push', () => {
  let pushHookId: number;
  let silentHookId: number;
  let failingHookId: number;
  let head1: string;

  it("a push delivers GitLab's Push Hook and Tag Push Hook to the hooks switched on, and nothing to the others", async () => {
    pushHookId = (
      (await (
        await api(owner, `/projects/${project.id}/hooks`, {
          method: 'POST',
          body: { url: `${hookBase}/push`, token: 'tok', tag_push_events: true },
        })
      ).json()) as { id: number }
    ).id;
    silentHookId = (
      (await (
        await api(owner, `/projects/${project.id}/hooks`, { method: 'POST', body: { url: `${hookBase}/silent`, push_events: false } })
      ).json()) as { id: number }
    ).id;
    const filtered = (
      (await (
        await api(owner, `/projects/${project.id}/hooks`, {
          method: 'POST',
          body: { url: `${hookBase}/release-only`, push_events_branch_filter: 'release/*' },
        })
      ).json()) as { id: number }
    ).id;
    failingHookId = (
      (await (await api(owner, `/projects/${project.id}/hooks`, { method: 'POST', body: { url: `${hookBase}/fail` } })).json()) as {
        id: number;
      }
    ).id;
    const holdHookId = (
      (await (await api(owner, `/projects/${project.id}/hooks`, { method: 'POST', body: { url: `${hookBase}/hold` } })).json()) as {
        id: number;
      }
    ).id;

    const src = path.join(work, 'src');
    await git(['init', '-q', src]);
    writeFileSync(path.join(src, 'a.txt'), 'a\n');
    writeFileSync(path.join(src, 'b.txt'), 'b\n');
    await git(['add', '.'], src);
    await git(['commit', '-q', '-m', 'First take'], src);
    writeFileSync(path.join(src, 'c.txt'), 'c\n');
    await git(['add', '.'], src);
    await git(['commit', '-q', '-m', 'Second take\n\nWith a body.'], src);
    await git(['tag', '-a', 'v1', '-m', 'Version 1'], src);
    // Should the push wait for the receiver that holds its answer, it returns only after this release.
    let releasedByTimer = false;
    const timer = setTimeout(() => ((releasedByTimer = true), releaseHeld()), 15_000);
    const started = Date.now();
    try {
      await git(['push', '-q', project.http_url_to_repo.replace('http://', `http://oauth2:${developer}@`), 'main', 'v1'], src);
    } finally {
      clearTimeout(timer);
    }
    // The push does not wait for receivers (one of them fails three times).
    expect(Date.now() - started).toBeLessThan(5000);
    // Nor for one that holds its answer: the push returned before the release, with that delivery still
    // waiting (not given up on), and the delivery's one attempt succeeds once the receiver answers.
    expect(releasedByTimer).toBe(false);
    expect(heldReleased).toBe(false);
    const holding = await waitFor(() => held[0]);
    expect(holding.abandoned).toBe(false);
    releaseHeld();
    await waitFor(() => app.hooks.deliveries(holdHookId)[0]);
    expect(app.hooks.deliveries(holdHookId)).toEqual([
      { hookId: holdHookId, event: 'Push Hook', attempts: 1, status: 200, error: null, delivered: true },
    ]);
    expect(held).toHaveLength(1);
    expect((await api(owner, `/projects/${project.id}/hooks/${holdHookId}`, { method: 'DELETE' })).status).toBe(200);
    head1 = (await git(['rev-parse', 'HEAD'], src)).trim();
    const first = (await git(['rev-parse', 'HEAD~1'], src)).trim();

    const push = await waitFor(() => received.find((r) => r.path === '/push' && r.headers['x-gitlab-event'] === 'Push Hook'));
    expect(push.headers['x-gitlab-token']).toBe('tok');
    expect(push.headers['content-type']).toBe('application/json');
    expect(push.headers['x-gitlab-event-uuid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(push.headers['x-gitlab-instance']).toBe(app.url);
    expect(push.body).toMatchObject({
      object_kind: 'push',
      event_name: 'push',
      before: zero,
      after: head1,
      ref: 'refs/heads/main',
      checkout_sha: head1,
      user_username: 'devon',
      user_email: 'devon@example.com',
      project_id: project.id,
      total_commits_count: 2,
      project: {
        id: project.id,
        name: 'Hooked',
        path_with_namespace: 'label/Hooked',
        git_http_url: `${app.url}/label/Hooked.git`,
        web_url: `${app.url}/label/Hooked`,
        visibility_level: 0,
        default_branch: 'main',
        namespace: 'Label',
      },
      repository: { name: 'Hooked', git_http_url: `${app.url}/label/Hooked.git` },
    });
    expect(push.body.commits).toEqual([
      {
        id: first,
        message: 'First take\n',
        title: 'First take',
        timestamp: expect.any(String),
        url: `${app.url}/label/Hooked/-/commit/${first}`,
        author: { name: 'Hook Tester', email: 'hooks@example.com' },
        added: ['a.txt', 'b.txt'],
        modified: [],
        removed: [],
      },
      {
        id: head1,
        message: 'Second take\n\nWith a body.\n',
        title: 'Second take',
        timestamp: expect.any(String),
        url: `${app.url}/label/Hooked/-/commit/${head1}`,
        author: { name: 'Hook Tester', email: 'hooks@example.com' },
        added: ['c.txt'],
        modified: [],
        removed: [],
      },
    ]);

    const tag = await waitFor(() => received.find((r) => r.path === '/push' && r.headers['x-gitlab-event'] === 'Tag Push Hook'));
    expect(tag.body).toMatchObject({
      object_kind: 'tag_push',
      ref: 'refs/tags/v1',
      before: zero,
      checkout_sha: head1,
      commits: [],
      total_commits_count: 0,
    });

    await app.hooks.onIdle();
    expect(received.filter((r) => r.path === '/push')).toHaveLength(2);
    expect(received.filter((r) => r.path === '/silent')).toHaveLength(0);
    expect(received.filter((r) => r.path === '/release-only')).toHaveLength(0);
    expect(app.hooks.deliveries(filtered)).toEqual([]);
    expect(app.hooks.deliveries(silentHookId)).toEqual([]);
  });

  it('a failing receiver is retried, then given up on; the push was not affected', async () => {
    await app.hooks.onIdle();
    const attempts = received.filter((r) => r.path === '/fail');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.headers['x-gitlab-event-uuid'])).size).toBe(1);
    expect(app.hooks.deliveries(failingHookId)).toEqual([
      { hookId: failingHookId, event: 'Push Hook', attempts: 3, status: 500, error: 'Receiver answered HTTP 500', delivered: false },
    ]);
    const p = (await (await api(owner, `/projects/${project.id}`)).json()) as Project;
    expect(p.empty_repo).toBe(false);
  });

  it('a second push lists exactly what changed: added, modified, removed', async () => {
    const src = path.join(work, 'src');
    writeFileSync(path.join(src, 'a.txt'), 'a changed\n');
    await git(['rm', '-q', 'b.txt'], src);
    writeFileSync(path.join(src, 'd.txt'), 'd\n');
    await git(['add', '.'], src);
    await git(['commit', '-q', '-m', 'Third take'], src);
    await git(['push', '-q', project.http_url_to_repo.replace('http://', `http://oauth2:${owner}@`), 'main'], src);
    const head2 = (await git(['rev-parse', 'HEAD'], src)).trim();
    const push = await waitFor(() => received.find((r) => r.path === '/push' && r.body.after === head2));
    expect(push.body).toMatchObject({ before: head1, after: head2, total_commits_count: 1, user_username: 'hooker' });
    expect(push.body.commits).toMatchObject([{ id: head2, added: ['d.txt'], modified: ['a.txt'], removed: ['b.txt'] }]);
  });

  it('POST …/test/:trigger delivers sample data from the repository; failures are 422', async () => {
    const before = received.length;
    const ok = await api(owner, `/projects/${project.id}/hooks/${pushHookId}/test/push_events`, { method: 'POST' });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toEqual({ message: '201 Created' });
    const sample = received.slice(before).find((r) => r.path === '/push')!;
    expect(sample.headers['x-gitlab-event']).toBe('Push Hook');
    expect((sample.body.commits as unknown[]).length).toBe(3);
    const tagTest = await api(owner, `/projects/${project.id}/hooks/${pushHookId}/test/tag_push_events`, { method: 'POST' });
    expect(tagTest.status).toBe(201);
    const failing = await api(owner, `/projects/${project.id}/hooks/${failingHookId}/test/push_events`, { method: 'POST' });
    expect(failing.status).toBe(422);
    expect(await failing.json()).toEqual({ message: 'Receiver answered HTTP 500' });
    const issues = await api(owner, `/projects/${project.id}/hooks/${pushHookId}/test/issues_events`, { method: 'POST' });
    expect(issues.status).toBe(422);
    expect(await issues.json()).toEqual({ message: 'Ensure the project has issues.' });
    expect((await api(owner, `/projects/${project.id}/hooks/${pushHookId}/test/nonsense`, { method: 'POST' })).status).toBe(400);
    expect((await api(developer, `/projects/${project.id}/hooks/${pushHookId}/test/push_events`, { method: 'POST' })).status).toBe(403);
    const empty = (await (await api(owner, '/projects', { method: 'POST', body: { name: 'Empty' } })).json()) as Project;
    const emptyHook = (
      (await (await api(owner, `/projects/${empty.id}/hooks`, { method: 'POST', body: { url: `${hookBase}/push` } })).json()) as {
        id: number;
      }
    ).id;
    expect(await (await api(owner, `/projects/${empty.id}/hooks/${emptyHook}/test/push_events`, { method: 'POST' })).json()).toEqual({
      message: 'Ensure the project has at least one commit.',
    });
  });
});

describe('enable_ssl_verification', () => {
  it('a self-signed receiver is refused while verification is on and reached when it is off', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cratehouse-tls-'));
    await new Promise<void>((resolve, reject) =>
      execFile(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=127.0.0.1',
          '-days',
          '1',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ],
        (e) => (e ? reject(e) : resolve()),
      ),
    );
    const { readFileSync } = await import('node:fs');
    const https = await import('node:https');
    const seen: string[] = [];
    const tls = https.createServer(
      { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
      (req, res) => {
        seen.push(req.url ?? '');
        req.resume();
        res.writeHead(200).end();
      },
    );
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const base = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    try {
      const verified = (
        (await (await api(owner, `/projects/${project.id}/hooks`, { method: 'POST', body: { url: `${base}/verified` } })).json()) as {
          id: number;
        }
      ).id;
      const unverified = (
        (await (
          await api(owner, `/projects/${project.id}/hooks`, {
            method: 'POST',
            body: { url: `${base}/unverified`, enable_ssl_verification: false },
          })
        ).json()) as { id: number }
      ).id;
      const strict = await api(owner, `/projects/${project.id}/hooks/${verified}/test/push_events`, { method: 'POST' });
      expect(strict.status).toBe(422);
      expect(((await strict.json()) as { message: string }).message).toMatch(/self[- ]signed|certificate/i);
      expect((await api(owner, `/projects/${project.id}/hooks/${unverified}/test/push_events`, { method: 'POST' })).status).toBe(201);
      expect(seen).toEqual(['/unverified']);
      await api(owner, `/projects/${project.id}/hooks/${verified}`, { method: 'DELETE' });
      await api(owner, `/projects/${project.id}/hooks/${unverified}`, { method: 'DELETE' });
    } finally {
      await new Promise<void>((r) => tls.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('outbound rules', () => {
  // Names the strict server resolves without DNS. 93.184.215.14 is a public address: hooks to it are
  // only stored, never delivered to, in these tests. `rebind.test` is public when the hook is
  // stored and loopback afterwards (DNS rebinding), so delivery must check again.
  const names: Readonly<Record<string, readonly string[]>> = {
    'public.test': ['93.184.215.14'],
    'intranet.test': ['10.1.2.3'],
    'mixed.test': ['93.184.215.14', '192.168.1.5'],
  };
  let rebindLookups = 0;
  const resolve = async (host: string) => {
    if (host === 'rebind.test') return [{ address: rebindLookups++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    const listed = names[host];
    return listed ? listed.map((address) => ({ address, family: 4 })) : lookup(host, { all: true });
  };
  const privateUrls = [
    'http://127.0.0.1:9/x',
    'http://10.0.0.1/x',
    'http://[::1]/x',
    'http://localhost/x',
    'http://intranet.test/x',
    'http://mixed.test/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:127.0.0.1]/x',
  ];
  let strict: TestApp;
  let call: (route: string, init?: { method?: string; body?: unknown }) => Promise<Response>;
  let strictToken: string;
  let strictProject: Project;

  beforeAll(async () => {
    strict = await startTestApp({ sources: { allowPrivate: false }, hooks: { resolve } });
    strictToken = (await strict.addUser('strict')).token;
    call = (route, init = {}) =>
      strict.fetch(`/api/v4${route}`, {
        method: init.method ?? 'GET',
        headers: { 'PRIVATE-TOKEN': strictToken, 'Content-Type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    strictProject = (await (await call('/projects', { method: 'POST', body: { name: 'Strict' } })).json()) as Project;
  });
  afterAll(() => strict.close());

  it("refuses hook URLs that are or resolve to private addresses when created (422, GitLab's body) and stores nothing", async () => {
    for (const url of privateUrls) {
      const res = await call(`/projects/${strictProject.id}/hooks`, { method: 'POST', body: { url } });
      expect({ url, status: res.status, body: (await res.json()) as unknown }).toEqual({
        url,
        status: 422,
        body: { error: 'Invalid url given' },
      });
    }
    expect(await (await call(`/projects/${strictProject.id}/hooks`)).json()).toEqual([]);
  });

  it('refuses them when a hook is edited, keeping the URL it had', async () => {
    const created = await call(`/projects/${strictProject.id}/hooks`, { method: 'POST', body: { url: 'http://public.test/hook' } });
    expect(created.status).toBe(201);
    const literal = await call(`/projects/${strictProject.id}/hooks`, { method: 'POST', body: { url: 'https://93.184.215.14/hook' } });
    expect(literal.status).toBe(201);
    const id = ((await created.json()) as { id: number }).id;
    for (const url of privateUrls) {
      const res = await call(`/projects/${strictProject.id}/hooks/${id}`, { method: 'PUT', body: { url } });
      expect({ url, status: res.status, body: (await res.json()) as unknown }).toEqual({
        url,
        status: 422,
        body: { error: 'Invalid url given' },
      });
    }
    expect(await (await call(`/projects/${strictProject.id}/hooks/${id}`)).json()).toMatchObject({ url: 'http://public.test/hook' });
    for (const hook of [id, ((await literal.json()) as { id: number }).id])
      await call(`/projects/${strictProject.id}/hooks/${hook}`, { method: 'DELETE' });
  });

  it('accepts private targets when the hooks setting allows them, whatever the fetch setting says', async () => {
    const open = await startTestApp({ sources: { allowPrivate: false }, hooks: { allowPrivate: true } });
    try {
      const t = (await open.addUser('open')).token;
      const headers = { 'PRIVATE-TOKEN': t, 'Content-Type': 'application/json' };
      const p = (await (
        await open.fetch('/api/v4/projects', { method: 'POST', headers, body: JSON.stringify({ name: 'Open' }) })
      ).json()) as Project;
      for (const url of ['http://10.0.0.1/x', 'http://[::1]/x', 'http://localhost/x']) {
        const res = await open.fetch(`/api/v4/projects/${p.id}/hooks`, { method: 'POST', headers, body: JSON.stringify({ url }) });
        expect({ url, status: res.status }).toEqual({ url, status: 201 });
      }
    } finally {
      await open.close();
    }
  });

  it('checks the address again at delivery: a name that rebinds to loopback after the hook was stored is refused', async () => {
    const created = await call(`/projects/${strictProject.id}/hooks`, {
      method: 'POST',
      body: { url: `http://rebind.test:${new URL(hookBase).port}/strict` },
    });
    expect(created.status).toBe(201);
    const hook = ((await created.json()) as { id: number }).id;
    const src = path.join(work, 'strict');
    await git(['init', '-q', src]);
    writeFileSync(path.join(src, 'x.txt'), 'x\n');
    await git(['add', '.'], src);
    await git(['commit', '-q', '-m', 'x'], src);
    await git(['push', '-q', strictProject.http_url_to_repo.replace('http://', `http://oauth2:${strictToken}@`), 'main'], src);
    await waitFor(() => (strict.hooks.deliveries(hook).length > 0 ? true : undefined));
    await strict.hooks.onIdle();
    const [delivery] = strict.hooks.deliveries(hook);
    expect(delivery).toMatchObject({ delivered: false, status: null });
    expect(delivery!.error).toContain('Refusing to connect to rebind.test (127.0.0.1)');
    expect(received.filter((r) => r.path === '/strict')).toHaveLength(0);
    const tested = await call(`/projects/${strictProject.id}/hooks/${hook}/test/push_events`, { method: 'POST' });
    expect(tested.status).toBe(422);
  });
});
