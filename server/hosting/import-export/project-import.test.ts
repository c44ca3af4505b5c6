import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, gitClient, readJson, withToken, type CallInit } from '../../test-support/hosting-client.js';
import { startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project, ProjectImportStatus } from '../api-types.js';
import { writeTarGz, type TarInput } from '../../shared/tar-archive.js';

const work = mkdtempSync(path.join(tmpdir(), 'cratehouse-import-'));
let app: TestApp;
let owner: { id: number; token: string };
let developer: { id: number; token: string };
let groupId: number;

const git = gitClient(work).ok;
const api = (token: string | null, route: string, init: CallInit = {}, on = () => app) => callHosting(on(), token, route, init);
const json = readJson;

/** POST /projects/import as python-gitlab sends it: multipart, file part `file.tar.gz`. */
function postImport(token: string, archive: Buffer, fields: Record<string, string>, on = () => app): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([archive], { type: 'application/octet-stream' }), 'file.tar.gz');
  return on().fetch('/api/v4/projects/import', { method: 'POST', headers: { 'PRIVATE-TOKEN': token }, body: form });
}

/** Import and wait for the job; returns the import result and the final import status. */
async function importAndWait(
  token: string,
  archive: Buffer,
  fields: Record<string, string>,
  on = () => app,
): Promise<{ result: ProjectImportStatus; status: ProjectImportStatus }> {
  const res = await postImport(token, archive, fields, on);
  const result = (await res.json()) as ProjectImportStatus;
  expect(res.status, JSON.stringify(result)).toBe(201);
  await on().jobs.onIdle();
  return { result, status: await json<ProjectImportStatus>(api(token, `/projects/${result.id}/import`, {}, on)) };
}

let counter = 0;
/** A tar.gz of these entries, as bytes. */
async function archiveOf(entries: readonly TarInput[]): Promise<Buffer> {
  const file = path.join(work, `archive-${++counter}.tar.gz`);
  await writeTarGz(file, entries);
  return readFile(file);
}

/** A git bundle of a fresh repository with `commits` commits on main; returns it and its log. */
async function bundleOf(commits: number): Promise<{ bundle: Buffer; log: string }> {
  const dir = path.join(work, `repo-${++counter}`);
  await git(['init', '-q', dir]);
  for (let i = 1; i <= commits; i++) {
    writeFileSync(path.join(dir, `bar-${i}.txt`), `bar ${i}\n`);
    await git(['add', '.'], dir);
    await git(['commit', '-q', '-m', `Bar ${i}`], dir);
  }
  await git(['bundle', 'create', '-q', path.join(dir, 'x.bundle'), '--all'], dir);
  return { bundle: await readFile(path.join(dir, 'x.bundle')), log: await git(['log', '--format=%H %s', 'main'], dir) };
}

async function cloneLog(project: Project, token: string): Promise<string> {
  const dir = path.join(work, `clone-${++counter}`);
  await git(['clone', '-q', withToken(project.http_url_to_repo, token), dir]);
  return git(['log', '--format=%H %s', 'main'], dir);
}

/** Every file under a folder with its size, relative, sorted. */
async function listing(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        out.push(`${path.relative(root, full)}/`);
        await walk(full);
      } else out.push(`${path.relative(root, full)} ${(await stat(full)).size}`);
    }
  };
  await walk(root);
  return out.sort();
}

beforeAll(async () => {
  app = await startTestApp();
  owner = await app.addUser('importer');
  developer = await app.addUser('dev');
  groupId = (
    await json<{ id: number }>(
      api(owner.token, '/groups', { method: 'POST', body: { name: 'Crew', path: 'crew', visibility: 'internal' } }),
    )
  ).id;
  await api(owner.token, `/groups/${groupId}/members`, { method: 'POST', body: { user_id: developer.id, access_level: 30 } });
  // A first project, so the user's repositories/ folder exists before the hostile imports.
  await api(owner.token, '/projects', { method: 'POST', body: { name: 'Existing' } });
}, 60_000);

afterAll(() => app.close());

describe('export → download → import round trip', () => {
  it('the imported project has the same settings, hooks (no tokens), uploads and commits', async () => {
    const source = await json<Project>(
      api(owner.token, '/projects', {
        method: 'POST',
        body: {
          name: 'Beat Tape',
          namespace_id: groupId,
          description: 'loops',
          visibility: 'internal',
          issues_enabled: false,
          snippets_enabled: false,
          merge_method: 'rebase_merge',
          tag_list: ['lofi', 'drums'],
          ci_config_path: 'ci/x.yml',
          default_branch: 'main',
        },
      }),
    );
    const src = path.join(work, 'src');
    await git(['init', '-q', src]);
    for (let i = 1; i <= 3; i++) {
      writeFileSync(path.join(src, `take-${i}.txt`), `take ${i}\n`);
      await git(['add', '.'], src);
      await git(['commit', '-q', '-m', `Take ${i}`], src);
    }
    await git(['checkout', '-q', '-b', 'stems'], src);
    await git(['commit', '-q', '--allow-empty', '-m', 'Stems'], src);
    await git(['push', '-q', withToken(source.http_url_to_repo, owner.token), 'main', 'stems'], src);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('808 sample')]), 'kick.wav');
    const upload = (await (
      await app.fetch(`/api/v4/projects/${source.id}/uploads`, { method: 'POST', headers: { 'PRIVATE-TOKEN': owner.token }, body: form })
    ).json()) as { url: string };
    await api(owner.token, `/projects/${source.id}/hooks`, {
      method: 'POST',
      body: {
        url: 'https://ci.example.com/hook',
        token: 'hook-secret',
        push_events: false,
        tag_push_events: true,
        enable_ssl_verification: false,
      },
    });

    expect((await api(owner.token, `/projects/${source.id}/export`, { method: 'POST' })).status).toBe(202);
    await app.jobs.onIdle();
    const archive = Buffer.from(await (await api(owner.token, `/projects/${source.id}/export/download`)).arrayBuffer());

    const { result, status } = await importAndWait(owner.token, archive, { path: 'beat-tape-copy', namespace: 'crew', overwrite: 'False' });
    expect(result).toEqual({
      id: result.id,
      description: null,
      name: 'beat-tape-copy',
      name_with_namespace: 'Crew / beat-tape-copy',
      path: 'beat-tape-copy',
      path_with_namespace: 'crew/beat-tape-copy',
      created_at: expect.any(String),
      import_status: 'scheduled',
    });
    expect(status).toMatchObject({ id: result.id, import_status: 'finished', description: 'loops' });
    expect(status.import_error).toBeUndefined();

    const copy = await json<Project>(api(owner.token, `/projects/${result.id}`));
    const settings = (p: Project) => ({
      description: p.description,
      visibility: p.visibility,
      default_branch: p.default_branch,
      issues_enabled: p.issues_enabled,
      snippets_enabled: p.snippets_enabled,
      wiki_enabled: p.wiki_enabled,
      merge_method: p.merge_method,
      tag_list: p.tag_list,
      ci_config_path: p.ci_config_path,
      empty_repo: p.empty_repo,
    });
    expect(settings(copy)).toEqual(settings(await json<Project>(api(owner.token, `/projects/${source.id}`))));

    const hooks = await json<Record<string, unknown>[]>(api(owner.token, `/projects/${result.id}/hooks`));
    expect(hooks).toEqual([
      expect.objectContaining({
        url: 'https://ci.example.com/hook',
        push_events: false,
        tag_push_events: true,
        enable_ssl_verification: false,
        project_id: result.id,
      }),
    ]);
    expect(app.store.data.hooks.find((h) => h.projectId === result.id)?.token).toBeNull();

    const [, secret, filename] = upload.url.split('/').slice(1);
    expect(app.store.data.uploads.filter((u) => u.projectId === result.id)).toEqual([
      expect.objectContaining({ secret, filename, size: 10 }),
    ]);
    expect(await readFile(path.join(app.projects.uploadsDirOf(result.id), secret!, filename!), 'utf8')).toBe('808 sample');

    expect(await cloneLog(copy, owner.token)).toBe(await git(['log', '--format=%H %s', 'main'], src));
    expect(await git(['ls-remote', '--heads', withToken(copy.http_url_to_repo, owner.token)])).toContain('refs/heads/stems');
  }, 60_000);

  it('override_params beat the archive; overwrite=False on a taken path is 400 "Path has already been taken"', async () => {
    const { bundle } = await bundleOf(1);
    const archive = await archiveOf([
      { path: 'VERSION', data: '0.2.4' },
      {
        path: 'tree/project.json',
        data: JSON.stringify({ description: 'from the archive', visibility: 'internal', wiki_enabled: true, merge_method: 'ff' }),
      },
      { path: 'project.bundle', data: bundle },
    ]);
    const { result, status } = await importAndWait(owner.token, archive, {
      path: 'overridden',
      'override_params[description]': 'from the request',
      'override_params[visibility]': 'private',
      'override_params[wiki_enabled]': 'false',
    });
    expect(status.import_status).toBe('finished');
    expect(await json(api(owner.token, `/projects/${result.id}`))).toMatchObject({
      description: 'from the request',
      visibility: 'private',
      wiki_enabled: false,
      merge_method: 'ff',
    });

    const taken = await postImport(owner.token, archive, { path: 'overridden', overwrite: 'False' });
    expect(taken.status).toBe(400);
    expect(await taken.json()).toEqual({ message: 'Path has already been taken' });
  });

  it('overwrite=True replaces the project at that path once the import succeeded', async () => {
    const first = await bundleOf(1);
    const second = await bundleOf(2);
    const archive = (b: Buffer, description: string) =>
      archiveOf([
        { path: 'tree/project.json', data: JSON.stringify({ description }) },
        { path: 'project.bundle', data: b },
      ]);
    const old = (await importAndWait(owner.token, await archive(first.bundle, 'first'), { path: 'replace-me' })).result;
    const { result, status } = await importAndWait(owner.token, await archive(second.bundle, 'second'), {
      path: 'replace-me',
      overwrite: 'True',
    });
    expect(result.path).toMatch(/^replace-me-import-[0-9a-f]{8}$/);
    expect(status).toMatchObject({
      import_status: 'finished',
      path: 'replace-me',
      name: 'replace-me',
      path_with_namespace: 'importer/replace-me',
    });
    expect((await api(owner.token, `/projects/${old.id}`)).status).toBe(404);
    const now = await json<Project>(api(owner.token, `/projects/${encodeURIComponent('importer/replace-me')}`));
    expect(now).toMatchObject({ id: result.id, description: 'second' });
    expect(await cloneLog(now, owner.token)).toBe(second.log);

    // A failed overwrite leaves the old project alone.
    const bad = await importAndWait(owner.token, await archiveOf([{ path: 'project.bundle', data: 'not a bundle' }]), {
      path: 'replace-me',
      overwrite: 'true',
    });
    expect(bad.status.import_status).toBe('failed');
    expect(await json(api(owner.token, `/projects/${encodeURIComponent('importer/replace-me')}`))).toMatchObject({ id: result.id });
  }, 60_000);

  it("the request's own errors: file, path, namespace, rights, override values", async () => {
    const archive = await archiveOf([{ path: 'tree/project.json', data: '{}' }]);
    let res = await app.fetch('/api/v4/projects/import', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': owner.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ path: 'x' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'file is missing' });
    res = await postImport(owner.token, archive, {});
    expect(await res.json()).toEqual({ error: 'path is missing' });
    res = await postImport(owner.token, archive, { path: 'x', namespace: 'no-such-namespace' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: '404 Namespace Not Found' });
    res = await postImport(developer.token, archive, { path: 'x', namespace: String(groupId) });
    expect(res.status).toBe(403);
    res = await postImport(owner.token, archive, { path: 'x', 'override_params[visibility]': 'secret' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'override_params[visibility] does not have a valid value' });
    res = await postImport(owner.token, archive, { path: 'bad path!' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^Path can only include/);
    expect((await app.fetch('/api/v4/projects/import', { method: 'POST' })).status).toBe(401);
    expect(app.store.data.projects.some((p) => p.path === 'x')).toBe(false);
    expect(await readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
  });
});

describe('archives exported by GitLab', () => {
  const gitlabTree = {
    description: 'Made on GitLab',
    visibility_level: 20,
    archived: false,
    merge_requests_rebase_enabled: false,
    merge_requests_ff_only_enabled: true,
    ci_config_path: '.gitlab/ci.yml',
    public_builds: false,
    only_allow_merge_if_pipeline_succeeds: true,
    request_access_enabled: false,
    printing_merge_request_link_enabled: true,
    auto_cancel_pending_pipelines: 'enabled',
    squash_option: 'default_off',
  };
  const feature = {
    builds_access_level: 20,
    issues_access_level: 0,
    merge_requests_access_level: 20,
    snippets_access_level: 10,
    wiki_access_level: 0,
    project_id: 4,
  };

  it('tree/project.json + tree/project/*.ndjson + project.bundle: settings and repository come across, the rest is ignored', async () => {
    const { bundle, log } = await bundleOf(2);
    const archive = await archiveOf([
      { path: './', type: 'directory' },
      { path: './VERSION', data: '0.2.4' },
      { path: './GITLAB_VERSION', data: '17.2.1' },
      { path: './GITLAB_REVISION', data: 'abc123' },
      { path: './tree/', type: 'directory' },
      { path: './tree/project.json', data: JSON.stringify(gitlabTree) },
      { path: './tree/project/project_feature.ndjson', data: `${JSON.stringify(feature)}\n` },
      { path: './tree/project/issues.ndjson', data: `${JSON.stringify({ title: 'An issue', iid: 1 })}\n` },
      { path: './tree/project/labels.ndjson', data: `${JSON.stringify({ title: 'bug' })}\n` },
      { path: './tree/project/project_members.ndjson', data: `${JSON.stringify({ access_level: 40, user: { id: 1 } })}\n` },
      { path: './lfs-objects.json', data: '{}' },
      { path: './project.wiki.bundle', data: 'ignored' },
      { path: './project.bundle', data: bundle },
    ]);
    const { result, status } = await importAndWait(owner.token, archive, { path: 'from-gitlab' });
    expect(status.import_status).toBe('finished');
    expect(status.import_error).toBeUndefined();
    const project = await json<Project>(api(owner.token, `/projects/${result.id}`));
    expect(project).toMatchObject({
      description: 'Made on GitLab',
      visibility: 'public',
      merge_method: 'ff',
      ci_config_path: '.gitlab/ci.yml',
      public_jobs: false,
      only_allow_merge_if_pipeline_succeeds: true,
      request_access_enabled: false,
      issues_enabled: false,
      wiki_enabled: false,
      snippets_enabled: true,
      jobs_enabled: true,
      default_branch: 'main',
      empty_repo: false,
    });
    expect(await cloneLog(project, owner.token)).toBe(log);
  });

  it('the legacy single project.json (with a nested project_feature) imports the same way', async () => {
    const { bundle, log } = await bundleOf(1);
    const legacy = { ...gitlabTree, visibility_level: 10, project_feature: feature, issues: [{ title: 'old' }], hooks: [], labels: [] };
    const archive = await archiveOf([
      { path: 'VERSION', data: '0.2.4' },
      { path: 'project.json', data: JSON.stringify(legacy) },
      { path: 'project.bundle', data: bundle },
    ]);
    const { result, status } = await importAndWait(owner.token, archive, { path: 'legacy' });
    expect(status.import_status).toBe('finished');
    const project = await json<Project>(api(owner.token, `/projects/${result.id}`));
    expect(project).toMatchObject({ description: 'Made on GitLab', visibility: 'internal', issues_enabled: false, merge_method: 'ff' });
    expect(await cloneLog(project, owner.token)).toBe(log);
  });

  it('an archive with nothing this server can import fails with a note', async () => {
    const archive = await archiveOf([
      { path: 'VERSION', data: '0.2.4' },
      { path: 'tree/project/issues.ndjson', data: '{}\n' },
    ]);
    const { status } = await importAndWait(owner.token, archive, { path: 'nothing' });
    expect(status).toMatchObject({
      import_status: 'failed',
      import_error: 'Nothing could be imported: the archive has no tree/project.json, project.json or project.bundle',
    });
  });
});

describe('hostile archives', () => {
  const secret = 'a'.repeat(32);
  const outside = path.join(tmpdir(), `cratehouse-evil-${randomBytes(6).toString('hex')}.txt`);
  /** What must not change: every table a finished import writes, and every project but the new one. */
  const storeState = (skip: number | null) => {
    const d = app.store.data;
    return JSON.stringify({
      projects: d.projects.filter((p) => p.id !== skip),
      uploads: d.uploads,
      hooks: d.hooks,
      projectExports: d.projectExports,
      stars: d.stars,
      shares: d.projectShares,
    });
  };

  /** Import the archive; it must fail with `message`, leave the data dir and store as they were (but the failed project). */
  async function expectRejected(archive: Buffer, message: RegExp): Promise<void> {
    const pathName = `hostile-${++counter}`;
    const before = await listing(app.dataDir);
    const storeBefore = storeState(null);
    const { result, status } = await importAndWait(owner.token, archive, { path: pathName });
    expect(status.import_status).toBe('failed');
    expect(status.import_error).toMatch(message);
    const record = app.store.data.projects.find((p) => p.id === result.id)!;
    expect(record).toMatchObject({ importStatus: 'failed', emptyRepo: true });
    expect(storeState(result.id)).toBe(storeBefore);
    // The failed project's own empty repository is the only new thing on disk.
    const own = `${path.relative(app.dataDir, app.projects.repositoryOf(record))}/`;
    expect((await listing(app.dataDir)).filter((f) => !f.startsWith(own))).toEqual(before);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(path.join(app.dataDir, 'evil.txt'))).toBe(false);
    // GET /projects/:id tells maintainers why as well.
    expect(await json(api(owner.token, `/projects/${result.id}`))).toMatchObject({
      import_status: 'failed',
      import_error: expect.stringMatching(message),
    });
  }

  it('path traversal', async () => {
    await expectRejected(
      await archiveOf([
        { path: 'VERSION', data: '0.2.4' },
        { path: '../evil.txt', data: 'x' },
      ]),
      /path that leaves the archive \(\.\.\/evil\.txt\)/,
    );
    await expectRejected(await archiveOf([{ path: `uploads/${secret}/../../../../evil.txt`, data: 'x' }]), /path that leaves the archive/);
  });

  it('absolute paths', async () => {
    await expectRejected(
      await archiveOf([
        { path: 'tree/project.json', data: '{}' },
        { path: outside, data: 'x' },
      ]),
      /absolute path/,
    );
  });

  it('symbolic and hard links', async () => {
    await expectRejected(
      await archiveOf([{ path: `uploads/${secret}/passwd`, type: 'symlink', linkTarget: '/etc/passwd' }]),
      /contains a link \(uploads\/a+\/passwd\); links are not allowed/,
    );
    await expectRejected(
      await archiveOf([
        { path: 'tree/project.json', data: '{}' },
        { path: 'project.bundle', type: 'hardlink', linkTarget: '/etc/passwd' },
      ]),
      /links are not allowed/,
    );
  });

  it('device files and FIFOs', async () => {
    await expectRejected(await archiveOf([{ path: 'dev-null', type: 'character-device' }]), /device file \(dev-null\)/);
    await expectRejected(await archiveOf([{ path: 'pipe', type: 'fifo' }]), /FIFO \(pipe\)/);
  });

  it('a huge number of entries', async () => {
    const entries: TarInput[] = [{ path: 'tree/project.json', data: '{}' }];
    for (let i = 0; i < 50_001; i++) entries.push({ path: `many/${i}`, data: '' });
    await expectRejected(await archiveOf(entries), /more than 50000 entries/);
  }, 60_000);

  it('corrupt gzip', async () => {
    const valid = await archiveOf([{ path: 'tree/project.json', data: '{"description":"x"}' }]);
    await expectRejected(Buffer.concat([valid.subarray(0, 10), randomBytes(200)]), /not a valid gzip file/);
    await expectRejected(valid.subarray(0, valid.length - 12), /not a valid gzip file/);
    await expectRejected(randomBytes(300), /not a valid gzip file/);
  });

  it('a corrupt tar inside valid gzip', async () => {
    const header = Buffer.alloc(512, 0x41);
    await expectRejected(gzipSync(Buffer.concat([header, Buffer.alloc(1024)])), /checksum does not match/);
    const valid = (await import('node:zlib')).gunzipSync(await archiveOf([{ path: 'tree/project.json', data: 'x'.repeat(2000) }]));
    await expectRejected(gzipSync(valid.subarray(0, 1000)), /truncated/);
  });

  it('a corrupt bundle', async () => {
    const { bundle } = await bundleOf(3);
    const broken = Buffer.from(bundle);
    for (let i = broken.length - 200; i < broken.length - 20; i++) broken[i] = broken[i]! ^ 0xff;
    await expectRejected(
      await archiveOf([
        { path: 'tree/project.json', data: '{}' },
        { path: 'project.bundle', data: broken },
      ]),
      /^project\.bundle is not a valid git bundle \(git: .+\)$/,
    );
    await expectRejected(
      await archiveOf([{ path: 'project.bundle', data: '# v2 git bundle\nnot-a-sha refs/heads/main\n\nPACKgarbage' }]),
      /^project\.bundle is not a valid git bundle \(git: .+\)$/,
    );
    await expectRejected(
      await archiveOf([{ path: 'project.bundle', data: 'hello' }]),
      /^project\.bundle is not a valid git bundle \(it has no bundle header\)$/,
    );
  });

  it('malformed settings and hooks', async () => {
    await expectRejected(await archiveOf([{ path: 'tree/project.json', data: '{not json' }]), /^tree\/project\.json is not valid JSON$/);
    await expectRejected(
      await archiveOf([
        { path: 'tree/project.json', data: '{}' },
        { path: 'tree/project/project_hooks.ndjson', data: '{"url":"file:///etc/passwd"}\n' },
      ]),
      /line 1 has no valid http\(s\) url/,
    );
  });

  it('an archive larger than the configured limit', async () => {
    const small = await startTestApp({ importLimits: { maxBytes: 64 * 1024, maxEntries: 10 } });
    try {
      const user = await small.addUser('tiny');
      const big = await archiveOf([
        { path: 'tree/project.json', data: '{}' },
        { path: 'project.bundle', data: Buffer.alloc(100 * 1024) },
      ]);
      const { status } = await importAndWait(user.token, big, { path: 'too-big' }, () => small);
      expect(status).toMatchObject({ import_status: 'failed', import_error: 'The archive is larger than 64 KiB uncompressed' });
      const many = await archiveOf(Array.from({ length: 11 }, (_, i) => ({ path: `f${i}`, data: '' })));
      expect((await importAndWait(user.token, many, { path: 'too-many' }, () => small)).status.import_error).toBe(
        'The archive has more than 10 entries',
      );
      expect(await readdir(path.join(small.dataDir, 'tmp'))).toEqual([]);
    } finally {
      await small.close();
    }
  });
});

it('writes nothing that outlives a request: tmp/ is empty after all imports', async () => {
  await app.jobs.onIdle();
  expect(await readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
  await writeFile(path.join(work, 'done'), '');
});
