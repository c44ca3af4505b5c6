import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBare } from './repositories.js';
import { cli, tempDir } from './test-support/git-fixtures.js';

let tmp: { dir: string; remove: () => Promise<void> };
let home: string;

beforeAll(async () => {
  tmp = await tempDir();
  home = path.join(tmp.dir, 'home');
  await mkdir(home, { recursive: true });
});
afterAll(async () => {
  await tmp.remove();
});

/** Every entry under `dir` with its kind, mode and (files) contents, sorted by path. */
async function layout(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, d.name);
    const full = path.join(dir, r);
    const mode = ((await stat(full)).mode & 0o777).toString(8);
    if (d.isDirectory()) out.push(`${r}/ ${mode}`, ...(await layout(dir, r)));
    else out.push(`${r} ${mode} ${JSON.stringify(await readFile(full, 'utf8'))}`);
  }
  return out.sort();
}

describe('initBare without a git process per repository', () => {
  it('makes exactly what git init --bare --template= and http.receivepack make, for any branch', async () => {
    for (const branch of ['main', 'studio/mixdown', 'ünïcode']) {
      const expected = path.join(tmp.dir, 'by-git', `${branch.replace(/\W/g, '_')}.git`);
      await cli(home, ['init', '--bare', '--quiet', '--template=', `--initial-branch=${branch}`, expected]);
      await cli(home, [`--git-dir=${expected}`, 'config', 'http.receivepack', 'true']);
      const made = path.join(tmp.dir, 'by-server', `${branch.replace(/\W/g, '_')}.git`);
      await initBare(made, branch);
      expect(await layout(made)).toEqual(await layout(expected));
      // And git takes it as a repository it can push to.
      expect((await cli(home, [`--git-dir=${made}`, 'symbolic-ref', 'HEAD'])).stdout.trim()).toBe(`refs/heads/${branch}`);
    }
    // The model git made was removed: only the repositories are left beside it.
    expect((await readdir(path.join(tmp.dir, 'by-server'))).sort()).toEqual(['_n_code.git', 'main.git', 'studio_mixdown.git']);
  });

  it('runs git once per filesystem, not once per repository', async () => {
    // A git that logs every run, then runs the real one.
    const log = path.join(tmp.dir, 'git-runs.log');
    const counting = path.join(tmp.dir, 'counting-git');
    await writeFile(counting, `#!/bin/sh\necho "$*" >> '${log}'\nexec git "$@"\n`);
    await chmod(counting, 0o755);
    for (let i = 0; i < 6; i++) await initBare(path.join(tmp.dir, 'counted', `r${i}.git`), 'main', { gitPath: counting });
    const runs = (await readFile(log, 'utf8')).trim().split('\n');
    // The model: one init and one config; on the old code, two runs per repository (12).
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatch(/^init --bare/);
    for (let i = 0; i < 6; i++)
      expect(
        (await cli(home, [`--git-dir=${path.join(tmp.dir, 'counted', `r${i}.git`)}`, 'rev-parse', '--is-bare-repository'])).stdout.trim(),
      ).toBe('true');
  });
});
