/**
 * An empty bare repository laid out from a copy of one that git made, instead of a `git init` per
 * repository. Spawning git costs a fork of the whole server process (tens of milliseconds once its heap
 * holds 100,000 projects); copying the few entries of an empty repository costs a few file writes. The
 * model is made by git itself once per git binary and filesystem (git probes the filesystem for
 * `core.filemode`, `core.ignorecase`…), next to the first repository made on that filesystem, read
 * into memory and removed; only HEAD differs from one new repository to the next.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { acceptHttpPushes } from './repository-command.js';
import { runGit, type GitRunOptions } from './run-git.js';

/** One entry of the model repository: a directory, or a file with its bytes and mode. */
type Entry =
  | { readonly rel: string; readonly dir: true }
  | { readonly rel: string; readonly dir: false; readonly bytes: Buffer; readonly mode: number };

/** The branch the model is made with; its HEAD is rewritten for each repository. */
const modelBranch = 'main';
const modelHead = `ref: refs/heads/${modelBranch}\n`;

/** Models by git binary and filesystem (device id); a promise so concurrent first creates make one. */
const models = new Map<string, Promise<readonly (readonly Entry[])[]>>();

/**
 * Make `target` (absent or an empty directory, its parent existing) an empty bare repository whose HEAD
 * names `branch` (already checked) and which accepts pushes over HTTP: what `git init --bare
 * --template= --initial-branch=<branch>` and `git config http.receivepack true` make.
 */
export async function layOutBareRepository(target: string, branch: string, run: GitRunOptions): Promise<void> {
  const parent = path.dirname(target);
  const [{ dev }] = await Promise.all([stat(parent), mkdir(target, { recursive: true })]);
  const key = `${run.gitPath ?? 'git'}\u0000${dev}`;
  let model = models.get(key);
  if (!model) {
    model = makeModel(parent, run);
    models.set(key, model);
    // A failed attempt (git missing, disk full) is not remembered: the next create tries again.
    model.catch(() => models.delete(key));
  }
  const levels = await model;
  // As a git call would: an aborted caller gets no repository (the caller removes what is there).
  if (run.signal?.aborted) {
    const reason: unknown = run.signal.reason;
    throw reason instanceof AppError ? reason : new AppError('unavailable', 'The git operation was cancelled', { code: 'cancelled' });
  }
  // The entries of one depth at once: a handful of round trips to the file system, not one per entry.
  for (const level of levels)
    await Promise.all(
      level.map((e) => {
        const to = path.join(target, e.rel);
        if (e.dir) return mkdir(to);
        return writeFile(to, e.rel === 'HEAD' ? `ref: refs/heads/${branch}\n` : e.bytes, { mode: e.mode, flag: 'wx' });
      }),
    );
}

/** Let git make the model in `parent` (same filesystem as the repositories), read it, remove it. */
async function makeModel(parent: string, run: GitRunOptions): Promise<readonly (readonly Entry[])[]> {
  // No `.git` suffix: a walk for repositories (reconciliation) never takes it for an unowned one.
  const dir = path.join(parent, `.bare-model-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await runGit(['init', '--bare', '--quiet', '--template=', `--initial-branch=${modelBranch}`, '--', dir], run, { timeoutMs: 30_000 });
    await acceptHttpPushes(dir, run);
    const entries = await readEntries(dir, '');
    const head = entries.find((e) => e.rel === 'HEAD');
    if (!head || head.dir || head.bytes.toString('utf8') !== modelHead)
      throw new Error('git made a HEAD this server does not know how to copy');
    // By depth: parents before children.
    const levels: Entry[][] = [];
    for (const e of entries) (levels[e.rel.split(path.sep).length - 1] ??= []).push(e);
    return levels;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every entry under `dir`, parents before children. */
async function readEntries(root: string, rel: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const d of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const r = path.join(rel, d.name);
    if (d.isDirectory()) out.push({ rel: r, dir: true }, ...(await readEntries(root, r)));
    else if (d.isFile()) {
      const full = path.join(root, r);
      out.push({ rel: r, dir: false, bytes: await readFile(full), mode: (await stat(full)).mode & 0o777 });
    } else throw new Error(`git made ${r}, which is neither a file nor a directory`);
  }
  return out;
}
