import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callHosting, readJson } from '../../test-support/hosting-client.js';
import { adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';
import { gitOps } from '../set-up-hosting.js';
import { createProjectsRepo } from './projects-repo.js';
import { projectPaths, ProjectService, type RepositoryOps } from './projects.js';

const git = promisify(execFile);
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(() => app.close());

it('an edit of default_branch during a first push is applied after the push chose its default, not overwritten by it', async () => {
  const project = await readJson<Project>(callHosting(app, adminToken, '/projects', { method: 'POST', body: { name: 'Race Tape' } }));
  const root = app.identity.getUser('root');
  // The first push: branches alpha and zeta, none named main (the project's default so far). It
  // goes straight to the bare repository so that the push's bookkeeping below is the one racing.
  const work = await mkdtemp(path.join(tmpdir(), 'cratehouse-race-'));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'T',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'T',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
  await git('git', ['init', '-q', '-b', 'alpha', work], { env });
  await writeFile(path.join(work, 'a.txt'), 'a\n');
  await git('git', ['add', 'a.txt'], { cwd: work, env });
  await git('git', ['commit', '-q', '-m', 'A'], { cwd: work, env });
  await git('git', ['branch', 'zeta'], { cwd: work, env });
  const paths = projectPaths(app.dataDir, app.identity);
  const repo = createProjectsRepo(app.store);
  const dir = paths.repository(repo.byId(project.id)!);
  await git('git', ['push', '-q', dir, 'alpha', 'zeta'], { cwd: work, env });

  // The same service over real git, where the push's move of HEAD to the branch it chose (alpha)
  // waits for the edit to finish (or, when the edit waits for the push, for 2 s): the worst
  // interleaving, every time.
  const real = gitOps('git', true);
  let reading!: () => void;
  let editSettled!: () => void;
  const started = new Promise<void>((resolve) => (reading = resolve));
  const edited = new Promise<void>((resolve) => (editSettled = resolve));
  const slow: RepositoryOps = {
    ...real,
    setHead: async (d, branch) => {
      if (branch === 'alpha') {
        reading();
        await Promise.race([edited, new Promise((r) => setTimeout(r, 2000))]);
      }
      return real.setHead(d, branch);
    },
  };
  const service = new ProjectService(app.identity, { repo, git: slow, paths }, app.jobs);

  const push = service.recordPush(repo.byId(project.id)!);
  await started;
  const edit = service.update(service.policy.viewer(root), repo.byId(project.id)!, { defaultBranch: 'zeta' }).finally(editSettled);
  await Promise.all([push, edit]);

  expect(repo.byId(project.id)!.defaultBranch).toBe('zeta');
  expect((await git('git', ['--git-dir', dir, 'symbolic-ref', 'HEAD'])).stdout.trim()).toBe('refs/heads/zeta');
  expect(repo.byId(project.id)!.emptyRepo).toBe(false);
});
