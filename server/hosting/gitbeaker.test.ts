import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Gitlab, GitbeakerRequestError } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { startServer, type RunningServer } from '../start-server.js';
import { memoryLogger } from '../test-support/test-app.js';

const adminToken = 'gitbeaker-admin';
/** git's object id of a blob, worked out here from its definition (sha1 of "blob <size>\0" and the bytes), not asked of the server. */
const blobId = (bytes: Buffer) => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
/** Every file under `dir`, as relative paths, sorted. */
const filesUnder = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

describe('@gitbeaker/rest (the npm GitLab client) against the hosting API', () => {
  let server: RunningServer;
  let work: string;
  let api: InstanceType<typeof Gitlab<false>>;
  let username: string;

  /** Run git (asynchronously: the server runs in this process) and expect success. */
  const git = async (args: readonly string[], cwd = work) => {
    const env = {
      ...process.env,
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    return promisify(execFile)('git', args, { cwd, env, encoding: 'utf8' });
  };
  const cloneUrl = (project: { http_url_to_repo: string }, token: string) => project.http_url_to_repo.replace('://', `://oauth2:${token}@`);
  /** The branch HEAD names in the server's repository, as a clone sees it. */
  const remoteHead = async (url: string) =>
    /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec((await git(['ls-remote', '--symref', url, 'HEAD'])).stdout)?.[1];
  let token: string;

  beforeAll(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-gitbeaker-'));
    work = await mkdtemp(path.join(tmpdir(), 'cratehouse-gitbeaker-work-'));
    server = await startServer(loadConfig({}, { dataDir, port: 0, adminToken }), {
      log: memoryLogger(),
      rendererDir: null,
      meterFlushMs: 60_000,
    });
    const admin = new Gitlab({ host: server.url, token: adminToken });
    username = `beaker${Date.now().toString(36)}`;
    const user = await admin.Users.create({
      email: `${username}@example.com`,
      username,
      name: 'Beaker Producer',
      password: 'long-enough-password',
    });
    // An admin makes the user's token as python-gitlab's smoke test does (the endpoint gitbeaker names differently across versions).
    const res = await fetch(`${server.url}/api/v4/users/${user.id}/personal_access_tokens`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': adminToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'beaker', scopes: ['api'] }),
    });
    token = ((await res.json()) as { token: string }).token;
    api = new Gitlab({ host: server.url, token });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('Projects.create({ initializeWithReadme: true }) commits README.md to the default branch', async () => {
    const project = await api.Projects.create({ name: 'Stem Pack', description: 'drums and bass', initializeWithReadme: true });
    expect(project).toMatchObject({ path: 'stem-pack', default_branch: 'main', empty_repo: false });
    expect(project.readme_url).toBe(`${project.web_url}/-/blob/main/README.md`);
    expect((await api.Projects.show(project.id, { statistics: true })).statistics).toMatchObject({ commit_count: 1 });
    const dir = path.join(work, 'stem-pack');
    await git(['clone', '-q', cloneUrl(project, token), dir]);
    expect(await readFile(path.join(dir, 'README.md'), 'utf8')).toBe('# Stem Pack\n\ndrums and bass\n');
    expect((await git(['log', '--format=%an <%ae> %s'], dir)).stdout.trim()).toBe(
      `Beaker Producer <${username}@example.com> Initial commit`,
    );
    expect((await git(['ls-files'], dir)).stdout.trim()).toBe('README.md');
  }, 120_000);

  it('Projects.create with a blank defaultBranch takes the default (GitLab: default_branch.presence)', async () => {
    const project = await api.Projects.create({ name: 'Blank Branch', defaultBranch: '' });
    expect(project).toMatchObject({ default_branch: 'main', empty_repo: true });
  }, 120_000);

  it('Projects.edit({ defaultBranch }) to a branch that does not exist is a 400 and keeps HEAD; to one that exists moves it', async () => {
    const project = await api.Projects.create({ name: 'Head Keeper', initializeWithReadme: true });
    const url = cloneUrl(project, token);
    const error = await api.Projects.edit(project.id, { defaultBranch: 'nope' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitbeakerRequestError);
    const cause = (error as GitbeakerRequestError).cause as { description: string; response: Response };
    expect(cause.response.status).toBe(400);
    expect(JSON.parse(cause.description)).toEqual({ base: ["Could not change HEAD: branch 'nope' does not exist"] });
    expect((await api.Projects.show(project.id)).default_branch).toBe('main');
    expect(await remoteHead(url)).toBe('main');

    const dir = path.join(work, 'head-keeper');
    await git(['clone', '-q', url, dir]);
    await git(['checkout', '-q', '-b', 'mixdown'], dir);
    await writeFile(path.join(dir, 'mix.txt'), 'v1\n');
    await git(['add', 'mix.txt'], dir);
    await git(['commit', '-q', '-m', 'Mixdown'], dir);
    await git(['push', '-q', 'origin', 'mixdown'], dir);
    expect((await api.Projects.edit(project.id, { defaultBranch: 'mixdown' })).default_branch).toBe('mixdown');
    expect(await remoteHead(url)).toBe('mixdown');
  }, 120_000);

  describe('the repository through gitbeaker: commits, files, archives, contributors, forks', () => {
    // The bytes pushed, known here: a binary stem (every byte value, then random), a text file, a README.
    const stem = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(4096)]);
    const notes = '120 bpm, F minor\n';
    let project: { id: number; path: string; web_url: string };
    let first: { id: string };
    let second: { id: string };

    beforeAll(async () => {
      project = await api.Projects.create({ name: 'Beat Tape' });
    }, 60_000);

    it('Commits.create with several actions (one base64) is one commit holding exactly those bytes', async () => {
      first = await api.Commits.create(project.id, 'main', 'Stems and notes', [
        { action: 'create', filePath: 'stems/kick.wav', content: stem.toString('base64'), encoding: 'base64' },
        { action: 'create', filePath: 'notes.txt', content: notes },
        { action: 'create', filePath: 'README.md', content: '# Beat Tape\n' },
      ]);
      expect(first).toMatchObject({ title: 'Stems and notes', parent_ids: [], author_email: `${username}@example.com` });
      const dir = path.join(work, 'beat-tape');
      await git(['clone', '-q', cloneUrl((await api.Projects.show(project.id)) as { http_url_to_repo: string }, token), dir]);
      expect((await git(['rev-parse', 'HEAD'], dir)).stdout.trim()).toBe(first.id);
      expect(await filesUnder(dir).then((f) => f.filter((x) => !x.startsWith('.git/')))).toEqual([
        'README.md',
        'notes.txt',
        'stems/kick.wav',
      ]);
      expect((await readFile(path.join(dir, 'stems/kick.wav'))).equals(stem)).toBe(true);

      second = await api.Commits.create(
        project.id,
        'main',
        'Louder kick, drop notes',
        [
          { action: 'update', filePath: 'stems/kick.wav', content: Buffer.concat([stem, stem]).toString('base64'), encoding: 'base64' },
          { action: 'delete', filePath: 'notes.txt' },
          { action: 'move', filePath: 'docs/README.md', previousPath: 'README.md' },
        ],
        { authorName: 'Dee Bass', authorEmail: 'dee@example.com' },
      );
      expect(second).toMatchObject({ parent_ids: [first.id], author_name: 'Dee Bass', committer_email: `${username}@example.com` });
    }, 120_000);

    it('Commits.all with refName and path, Commits.show and Commits.showDiff answer what was committed', async () => {
      const all = await api.Commits.all(project.id, { refName: 'main' });
      expect(all.map((c) => c.id)).toEqual([second.id, first.id]);
      const touchingNotes = await api.Commits.all(project.id, { refName: 'main', path: 'notes.txt' });
      expect(touchingNotes.map((c) => c.id)).toEqual([second.id, first.id]);
      const touchingDocs = await api.Commits.all(project.id, { refName: 'main', path: 'docs' });
      expect(touchingDocs.map((c) => c.id)).toEqual([second.id]);
      expect(await api.Commits.all(project.id, { refName: first.id })).toHaveLength(1);

      const shown = await api.Commits.show(project.id, first.id);
      // Added lines, counted here: notes.txt 1, README.md 1, the binary stem none.
      expect(shown).toMatchObject({ id: first.id, message: 'Stems and notes', stats: { additions: 2, deletions: 0, total: 2 } });
      const diff = await api.Commits.showDiff(project.id, second.id);
      const byPath = Object.fromEntries(diff.map((d) => [d.new_path, d]));
      expect(Object.keys(byPath).sort()).toEqual(['docs/README.md', 'notes.txt', 'stems/kick.wav']);
      expect(byPath['notes.txt']).toMatchObject({ deleted_file: true, old_path: 'notes.txt', diff: `@@ -1 +0,0 @@\n-${notes}` });
      expect(byPath['docs/README.md']).toMatchObject({ renamed_file: true, old_path: 'README.md' });
      expect(byPath['stems/kick.wav']).toMatchObject({ new_file: false, deleted_file: false });
    }, 120_000);

    it('RepositoryFiles create, show, edit, showRaw and remove: each one commit, the content as sent', async () => {
      const created = await api.RepositoryFiles.create(project.id, 'lyrics/verse one.txt', 'main', 'first take\n', 'Add verse');
      expect(created).toEqual({ file_path: 'lyrics/verse one.txt', branch: 'main' });
      const shown = await api.RepositoryFiles.show(project.id, 'lyrics/verse one.txt', 'main');
      const bytes = Buffer.from('first take\n');
      expect(shown).toMatchObject({
        file_name: 'verse one.txt',
        file_path: 'lyrics/verse one.txt',
        size: bytes.length,
        encoding: 'base64',
        content: bytes.toString('base64'),
        content_sha256: createHash('sha256').update(bytes).digest('hex'),
        blob_id: blobId(bytes),
        ref: 'main',
      });
      expect(shown.last_commit_id).toBe(shown.commit_id);

      await api.RepositoryFiles.edit(project.id, 'lyrics/verse one.txt', 'main', 'second take\n', 'Retake', {
        lastCommitId: shown.last_commit_id,
      });
      const raw = await api.RepositoryFiles.showRaw(project.id, 'lyrics/verse one.txt', 'main');
      expect(typeof raw === 'string' ? raw : await raw.text()).toBe('second take\n');
      const stale = await api.RepositoryFiles.edit(project.id, 'lyrics/verse one.txt', 'main', 'x', 'Stale', {
        lastCommitId: shown.last_commit_id,
      }).then(
        () => undefined,
        (e: unknown) => e as GitbeakerRequestError,
      );
      expect(stale?.cause?.response.status).toBe(400);

      await api.RepositoryFiles.remove(project.id, 'lyrics/verse one.txt', 'main', 'Cut the verse');
      const gone = await api.RepositoryFiles.show(project.id, 'lyrics/verse one.txt', 'main').then(
        () => undefined,
        (e: unknown) => e as GitbeakerRequestError,
      );
      expect(gone?.cause?.response.status).toBe(404);
      const titles = (await api.Commits.all(project.id, { refName: 'main', path: 'lyrics' })).map((c) => c.title);
      expect(titles).toEqual(['Cut the verse', 'Retake', 'Add verse']);
    }, 120_000);

    it('Repositories.showArchive as tar.gz and zip holds the files of the branch, byte for byte', async () => {
      const head = (await api.Commits.all(project.id, { refName: 'main', perPage: 1, maxPages: 1 }))[0]!.id;
      const prefix = `${project.path}-main-${head}`;
      const expected = { 'stems/kick.wav': Buffer.concat([stem, stem]), 'docs/README.md': Buffer.from('# Beat Tape\n') };
      for (const fileType of ['tar.gz', 'zip'] as const) {
        const blob = await api.Repositories.showArchive(project.id, { fileType });
        const file = path.join(work, `archive.${fileType}`);
        await writeFile(file, Buffer.from(await blob.arrayBuffer()));
        const out = path.join(work, `archive-${fileType}`);
        await mkdir(out, { recursive: true });
        if (fileType === 'zip') await promisify(execFile)('unzip', ['-q', file, '-d', out]);
        else await promisify(execFile)('tar', ['-xzf', file, '-C', out]);
        expect(await readdir(out)).toEqual([prefix]);
        expect(await filesUnder(path.join(out, prefix))).toEqual(Object.keys(expected).sort());
        for (const [name, bytes] of Object.entries(expected))
          expect((await readFile(path.join(out, prefix, name))).equals(bytes)).toBe(true);
      }
      // `sha` picks the commit; members are named <path>-<sha as given>-<commit>/… as GitLab names them.
      const old = path.join(work, 'first.zip');
      await writeFile(
        old,
        Buffer.from(await (await api.Repositories.showArchive(project.id, { fileType: 'zip', sha: first.id })).arrayBuffer()),
      );
      const listed = (await promisify(execFile)('unzip', ['-Z1', old], { encoding: 'utf8' })).stdout
        .split('\n')
        .filter((n) => n && !n.endsWith('/'));
      expect(listed.sort()).toEqual(
        ['README.md', 'notes.txt', 'stems/kick.wav'].map((n) => `${project.path}-${first.id}-${first.id}/${n}`),
      );
    }, 120_000);

    it('Repositories.allContributors groups the authors of the default branch with their commit counts', async () => {
      const byName = await api.Repositories.allContributors(project.id, { orderBy: 'name', sort: 'asc' });
      // Authors, counted from the commits above: the user made four (one via Commits.create, three via RepositoryFiles), Dee one.
      expect(byName).toEqual([
        { name: 'Beaker Producer', email: `${username}@example.com`, commits: 4, additions: 0, deletions: 0 },
        { name: 'Dee Bass', email: 'dee@example.com', commits: 1, additions: 0, deletions: 0 },
      ]);
      const byCommits = await api.Repositories.allContributors(project.id, { orderBy: 'commits', sort: 'desc' });
      expect(byCommits.map((c) => c.name)).toEqual(['Beaker Producer', 'Dee Bass']);
    }, 120_000);

    it('Projects.fork, then Projects.allForks and the fork’s commits: the same history under a new path', async () => {
      const fork = await api.Projects.fork(project.id, { name: 'Beat Tape Remix', path: 'beat-tape-remix' });
      expect(fork).toMatchObject({ path_with_namespace: `${username}/beat-tape-remix`, forked_from_project: { id: project.id } });
      for (let i = 0; i < 100 && (await api.Projects.show(fork.id)).import_status !== 'finished'; i++)
        await new Promise((r) => setTimeout(r, 200));
      expect((await api.Projects.show(fork.id)).import_status).toBe('finished');
      expect((await api.Projects.allForks(project.id)).map((p) => p.id)).toEqual([fork.id]);
      const source = (await api.Commits.all(project.id, { refName: 'main' })).map((c) => c.id);
      expect((await api.Commits.all(fork.id, { refName: 'main' })).map((c) => c.id)).toEqual(source);
      const searched = await api.Projects.all({ search: 'remix', owned: true });
      expect(searched.map((p) => p.id)).toEqual([fork.id]);
    }, 120_000);
  });
});
