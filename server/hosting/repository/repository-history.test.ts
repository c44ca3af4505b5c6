import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, readJson, withToken, type CallInit } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Branch, Commit, CommitDetail, Compare, Contributor, Diff, Project, Tag } from '../api-types.js';

let app: TestApp;
let owner: string;
let ownerId: number;
let stranger: string;
let project: Project;
const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-history-'));
const src = path.join(work, 'src');
const api = (token: string | null, route: string, init: CallInit = {}) => callHosting(app, token, route, init);
const repo = (route: string) => `/projects/${project.id}/repository${route}`;

/** The git CLI with a fixed author, committer and date: the commits the API must then describe. */
function git(
  args: readonly string[],
  who: { name: string; email: string; date: string } = {
    name: 'Ada Producer',
    email: 'ada@example.com',
    date: '2020-01-01T10:00:00+02:00',
  },
  cwd = src,
): Promise<string> {
  const env = {
    ...process.env,
    HOME: work,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_AUTHOR_DATE: who.date,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_COMMITTER_DATE: who.date,
  };
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'init.defaultBranch=main', '-c', 'credential.helper=', ...args],
      { cwd, env, encoding: 'utf8' },
      (e, out, err) => (e ? reject(new Error(`git ${args.join(' ')}: ${err}`)) : resolve(out)),
    );
  });
}
const bare = (args: readonly string[]) =>
  git([`--git-dir=${app.projects.repositoryOf(app.projects.policy.find(String(project.id))!)}`, ...args], undefined, work);

const ada = (date: string) => ({ name: 'Ada Producer', email: 'ada@example.com', date });
const sha: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  const o = await app.addUser('producer');
  owner = o.token;
  ownerId = o.id;
  stranger = (await app.addUser('stranger')).token;
  project = await readJson<Project>(api(owner, '/projects', { method: 'POST', body: { name: 'album', visibility: 'private' } }));
  await git(['init', '-q', src], undefined, work);
  writeFileSync(path.join(src, 'a.txt'), 'one\n');
  await git(['add', '.'], ada('2020-01-01T10:00:00+02:00'));
  await git(['commit', '-q', '-m', 'First take'], ada('2020-01-01T10:00:00+02:00'));
  writeFileSync(path.join(src, 'a.txt'), 'one\ntwo\n');
  writeFileSync(path.join(src, 'b.txt'), 'bee\n');
  await git(['add', '.'], ada('2021-06-01T12:00:00-07:00'));
  await git(['commit', '-q', '-m', 'Second take\n\nReviewed-by: Bob <bob@example.com>'], ada('2021-06-01T12:00:00-07:00'));
  await git(['tag', 'v1', 'HEAD~1']);
  await git(['tag', '-a', 'v2', '-m', 'Release 2'], ada('2021-06-02T00:00:00Z'));
  await git(['checkout', '-q', '-b', 'feature']);
  writeFileSync(path.join(src, 'c.txt'), 'sea\n');
  await git(['add', '.'], { name: 'Bob', email: 'bob@example.com', date: '2022-01-01T00:00:00Z' });
  await git(['commit', '-q', '-m', 'Feature'], { name: 'Bob', email: 'bob@example.com', date: '2022-01-01T00:00:00Z' });
  await git(['push', '-q', withToken(project.http_url_to_repo, owner), 'main', 'feature', 'v1', 'v2']);
  for (const [name, rev] of [
    ['c1', 'main~1'],
    ['c2', 'main'],
    ['c3', 'feature'],
    ['v2', 'v2'],
  ])
    sha[name!] = (await git(['rev-parse', rev!])).trim();
}, 60_000);

afterAll(() => app.close());

describe('commits', () => {
  it('lists the default branch newest first with GitLab pagination; ref_name, since, until, path and all filter it', async () => {
    const res = await api(owner, repo('/commits'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('2');
    const list = (await res.json()) as Commit[];
    expect(list.map((c) => c.id)).toEqual([sha.c2, sha.c1]);
    expect(list[1]).toMatchObject({
      title: 'First take',
      message: 'First take\n',
      parent_ids: [],
      author_name: 'Ada Producer',
      author_email: 'ada@example.com',
      authored_date: '2020-01-01T10:00:00.000+02:00',
      committed_date: '2020-01-01T10:00:00.000+02:00',
      created_at: '2020-01-01T10:00:00.000+02:00',
      short_id: sha.c1!.slice(0, 8),
      trailers: {},
    });
    const ids = async (query: string) => ((await readJson<Commit[]>(api(owner, repo(`/commits?${query}`)))) as Commit[]).map((c) => c.id);
    expect(await ids('ref_name=feature')).toEqual([sha.c3, sha.c2, sha.c1]);
    expect(await ids('since=2021-01-01T00:00:00Z')).toEqual([sha.c2]);
    expect(await ids('until=2020-12-31T00:00:00Z')).toEqual([sha.c1]);
    expect(await ids('path=b.txt')).toEqual([sha.c2]);
    expect(await ids('all=true')).toEqual([sha.c3, sha.c2, sha.c1]);
    expect(await ids('ref_name=main..feature')).toEqual([sha.c3]);
    expect(await ids('ref_name=no-such-branch')).toEqual([]);
    const page2 = await api(owner, repo('/commits?per_page=1&page=2'));
    expect([page2.headers.get('x-total'), page2.headers.get('x-total-pages'), ((await page2.json()) as Commit[]).map((c) => c.id)]).toEqual(
      ['2', '2', [sha.c1]],
    );
    const withTrailers = await readJson<Commit[]>(api(owner, repo('/commits?trailers=true&per_page=1')));
    expect(withTrailers[0]!.trailers).toEqual({ 'Reviewed-by': 'Bob <bob@example.com>' });
    expect((await api(owner, repo('/commits?since=yesterday-ish'))).status).toBe(400);
  }, 120_000);

  it('gets one commit by SHA, short SHA or branch, with stats; 404 for none', async () => {
    const byBranch = await readJson<CommitDetail>(api(owner, repo('/commits/main')));
    expect(byBranch).toMatchObject({
      id: sha.c2,
      parent_ids: [sha.c1],
      stats: { additions: 2, deletions: 0, total: 2 },
      project_id: project.id,
      status: null,
      last_pipeline: null,
      trailers: { 'Reviewed-by': 'Bob <bob@example.com>' },
    });
    expect((await readJson<CommitDetail>(api(owner, repo(`/commits/${sha.c1!.slice(0, 10)}`)))).id).toBe(sha.c1);
    expect('stats' in (await readJson<CommitDetail>(api(owner, repo('/commits/main?stats=false'))))).toBe(false);
    const none = await api(owner, repo('/commits/0123456789abcdef'));
    expect([none.status, await none.json()]).toEqual([404, { message: '404 Commit Not Found' }]);
    expect((await api(owner, repo('/commits/--output=x'))).status).toBe(404);
  }, 120_000);

  it("a commit's diff: one entry per file, hunks as git prints them", async () => {
    const diffs = await readJson<Diff[]>(api(owner, repo(`/commits/${sha.c2}/diff`)));
    expect(diffs).toEqual([
      {
        diff: '@@ -1 +1,2 @@\n one\n+two\n',
        collapsed: false,
        too_large: false,
        new_path: 'a.txt',
        old_path: 'a.txt',
        a_mode: '100644',
        b_mode: '100644',
        new_file: false,
        renamed_file: false,
        deleted_file: false,
        generated_file: false,
      },
      {
        diff: '@@ -0,0 +1 @@\n+bee\n',
        collapsed: false,
        too_large: false,
        new_path: 'b.txt',
        old_path: 'b.txt',
        a_mode: '0',
        b_mode: '100644',
        new_file: true,
        renamed_file: false,
        deleted_file: false,
        generated_file: false,
      },
    ]);
    const root = await readJson<Diff[]>(api(owner, repo(`/commits/${sha.c1}/diff`)));
    expect(root.map((d) => [d.new_path, d.new_file, d.diff])).toEqual([['a.txt', true, '@@ -0,0 +1 @@\n+one\n']]);
  }, 120_000);

  it('private projects: strangers and anonymous callers get 404; read_repository tokens are not API tokens', async () => {
    expect((await api(stranger, repo('/commits'))).status).toBe(404);
    expect((await api(null, repo('/branches'))).status).toBe(404);
    const repoOnly = await app.identity.createToken(ownerId, { name: 'git', scopes: ['read_repository'] });
    expect((await api(repoOnly.token, repo('/commits'))).status).toBe(403);
  }, 120_000);
});

describe('branches', () => {
  it('lists and gets branches with their commit, default and merged flags; search narrows', async () => {
    const list = await readJson<Branch[]>(api(owner, repo('/branches')));
    expect(list.map((b) => [b.name, b.commit.id, b.default, b.merged, b.can_push])).toEqual([
      ['feature', sha.c3, false, false, true],
      ['main', sha.c2, true, false, true],
    ]);
    expect(list[1]!.web_url).toBe(`${app.url}/${project.path_with_namespace}/-/tree/main`);
    expect((await readJson<Branch[]>(api(owner, repo('/branches?search=^feat')))).map((b) => b.name)).toEqual(['feature']);
    expect((await readJson<Branch>(api(owner, repo('/branches/feature')))).commit.id).toBe(sha.c3);
    const none = await api(owner, repo('/branches/nope'));
    expect([none.status, await none.json()]).toEqual([404, { message: '404 Branch Not Found' }]);
  }, 120_000);

  it('creates a branch from a tag and deletes it; refuses as GitLab does', async () => {
    const created = await api(owner, repo('/branches'), { method: 'POST', body: { branch: 'hotfix', ref: 'v1' } });
    expect(created.status).toBe(201);
    expect(((await created.json()) as Branch).commit.id).toBe(sha.c1);
    expect((await bare(['rev-parse', 'refs/heads/hotfix'])).trim()).toBe(sha.c1);
    expect((await readJson<Branch>(api(owner, repo('/branches/hotfix')))).merged).toBe(true);
    const refuse = async (body: Record<string, unknown>) => {
      const r = await api(owner, repo('/branches'), { method: 'POST', body });
      return [r.status, await r.json()];
    };
    expect(await refuse({ branch: 'hotfix', ref: 'main' })).toEqual([400, { message: 'Branch already exists' }]);
    expect(await refuse({ branch: 'other', ref: 'nope' })).toEqual([400, { message: 'Invalid reference name: nope' }]);
    expect(await refuse({ branch: 'a..b', ref: 'main' })).toEqual([400, { message: 'Branch name is invalid' }]);
    expect(await refuse({ branch: 'x' })).toEqual([400, { error: 'ref is missing' }]);
    expect((await api(owner, repo('/branches/hotfix'), { method: 'DELETE' })).status).toBe(204);
    expect(await bare(['for-each-ref', '--format=%(refname)', 'refs/heads/'])).toBe('refs/heads/feature\nrefs/heads/main\n');
    const main = await api(owner, repo('/branches/main'), { method: 'DELETE' });
    expect([main.status, await main.json()]).toEqual([405, { message: 'The default branch of a project cannot be deleted.' }]);
    expect((await api(owner, repo('/branches/hotfix'), { method: 'DELETE' })).status).toBe(404);
  }, 120_000);
});

describe('tags', () => {
  it('lists tags (newest commit first), annotated ones with their message and tag object', async () => {
    const tags = await readJson<Tag[]>(api(owner, repo('/tags')));
    expect(tags.map((t) => [t.name, t.target, t.commit.id, t.message])).toEqual([
      ['v2', sha.v2, sha.c2, 'Release 2'],
      ['v1', sha.c1, sha.c1, ''],
    ]);
    expect(tags[0]!.created_at).toBe('2021-06-02T00:00:00.000+00:00');
    expect((await readJson<Tag[]>(api(owner, repo('/tags?order_by=name&sort=asc')))).map((t) => t.name)).toEqual(['v1', 'v2']);
    expect((await readJson<Tag>(api(owner, repo('/tags/v1')))).commit.id).toBe(sha.c1);
    expect((await api(owner, repo('/tags/v9'))).status).toBe(404);
  }, 120_000);

  it('creates annotated and lightweight tags; a taken name is refused', async () => {
    const annotated = await api(owner, repo('/tags'), { method: 'POST', body: { tag_name: 'v3', ref: 'feature', message: 'Three' } });
    expect(annotated.status).toBe(201);
    const tag = (await annotated.json()) as Tag;
    expect([tag.name, tag.message, tag.commit.id]).toEqual(['v3', 'Three', sha.c3]);
    expect((await bare(['cat-file', '-t', 'v3'])).trim()).toBe('tag');
    expect(await bare(['for-each-ref', '--format=%(contents:subject)|%(taggername)|%(*objectname)', 'refs/tags/v3'])).toBe(
      `Three|producer|${sha.c3}\n`,
    );
    expect(tag.target).toBe((await bare(['rev-parse', 'v3'])).trim());
    const light = await readJson<Tag>(api(owner, repo('/tags'), { method: 'POST', body: { tag_name: 'v4', ref: sha.c1 } }));
    expect([light.target, light.message]).toEqual([sha.c1, '']);
    expect((await bare(['cat-file', '-t', 'v4'])).trim()).toBe('commit');
    const again = await api(owner, repo('/tags'), { method: 'POST', body: { tag_name: 'v3', ref: 'main' } });
    expect([again.status, await again.json()]).toEqual([400, { message: 'Tag v3 already exists' }]);
    const badRef = await api(owner, repo('/tags'), { method: 'POST', body: { tag_name: 'v5', ref: 'nope' } });
    expect([badRef.status, await badRef.json()]).toEqual([400, { message: 'Target nope is invalid' }]);
  }, 120_000);
});

describe('compare and contributors', () => {
  it('compares from the merge base, or straight', async () => {
    const ahead = await readJson<Compare>(api(owner, repo('/compare?from=main&to=feature')));
    expect(ahead.commits.map((c) => c.id)).toEqual([sha.c3]);
    expect(ahead.commit?.id).toBe(sha.c3);
    expect(ahead.diffs.map((d) => [d.new_path, d.new_file])).toEqual([['c.txt', true]]);
    expect([ahead.compare_same_ref, ahead.compare_timeout, ahead.web_url]).toEqual([
      false,
      false,
      `${app.url}/${project.path_with_namespace}/-/compare/main...feature`,
    ]);
    const behind = await readJson<Compare>(api(owner, repo('/compare?from=feature&to=main')));
    expect([behind.commits, behind.diffs, behind.commit]).toEqual([[], [], null]);
    const straight = await readJson<Compare>(api(owner, repo('/compare?from=feature&to=main&straight=true')));
    expect(straight.diffs.map((d) => [d.old_path, d.deleted_file])).toEqual([['c.txt', true]]);
    expect((await readJson<Compare>(api(owner, repo('/compare?from=main&to=main')))).compare_same_ref).toBe(true);
    const none = await api(owner, repo('/compare?from=main&to=nope'));
    expect([none.status, await none.json()]).toEqual([404, { message: '404 Ref Not Found' }]);
    const missing = await api(owner, repo('/compare?from=main'));
    expect([missing.status, await missing.json()]).toEqual([400, { error: 'to is missing' }]);
  }, 120_000);

  it('contributors of the default branch or a ref, ordered', async () => {
    expect(await readJson<Contributor[]>(api(owner, repo('/contributors')))).toEqual([
      { name: 'Ada Producer', email: 'ada@example.com', commits: 2, additions: 0, deletions: 0 },
    ]);
    const feature = await readJson<Contributor[]>(api(owner, repo('/contributors?ref=feature&order_by=commits&sort=desc')));
    expect(feature.map((c) => [c.name, c.commits])).toEqual([
      ['Ada Producer', 2],
      ['Bob', 1],
    ]);
    const byName = await readJson<Contributor[]>(api(owner, repo('/contributors?ref=feature&order_by=name&sort=desc')));
    expect(byName.map((c) => c.name)).toEqual(['Bob', 'Ada Producer']);
  }, 120_000);
});
