/**
 * Whole-repository copies: fork (through git's transport), import from a URL (under the outbound
 * rules), snapshot tar, and bundles for export and import. Each new repository is standalone: no
 * remote left behind, pushes accepted over HTTP.
 */
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError, notFound } from '../../http/errors.js';
import { resolvePublicAddress, type OutboundPolicy } from '../../http/outbound.js';
import { pinnedCloneArgs, pinnedCloneEnv, scrubSecrets, splitCredentials } from './remote-url.js';
import {
  acceptHttpPushes,
  assertAbsent,
  exists,
  failure,
  git,
  LONG_MS,
  QUICK_MS,
  scrubPaths,
  setHeadRef,
  streamOutput,
  symbolicHead,
} from './repository-command.js';
import { GitCommandError, lastLine, runGit, type GitRunOptions } from './run-git.js';

/**
 * Copy every ref of `sourceDir` into a new, independent bare repository at `targetDir` with the
 * same HEAD. The copy goes through git's transport (`--no-local`), not hard links or a file copy,
 * so only reachable objects travel: a fork never inherits objects its source had dropped from
 * history (a secret that was force-pushed away).
 */
export async function forkRepository(sourceDir: string, targetDir: string, run: GitRunOptions = {}): Promise<void> {
  const source = path.resolve(sourceDir);
  const target = path.resolve(targetDir);
  const head = await symbolicHead(source, run);
  await cloneInto(
    target,
    ['clone', '--mirror', '--no-local', '--quiet', '--template=', '--', source, target],
    run,
    'The repository could not be forked',
    [source],
  );
  if (head) await setHeadRef(target, head, run);
}

/** Options for importing a repository from a URL: the outbound rules plus the run options. */
export interface ImportOptions extends GitRunOptions, Pick<OutboundPolicy, 'resolve' | 'isAllowedAddress'> {
  /** Allow private and loopback hosts (the desktop app; tests); false on a public server. */
  readonly allowPrivate: boolean;
}

/**
 * Clone a remote http(s) repository (branches, tags and HEAD) into a new bare repository. The host
 * is checked under the outbound rules and git is pinned to the checked address, with redirects,
 * proxies, other transports and credential helpers off. Credentials in the URL
 * (https://user:token@host/…) are used but never stored, logged or repeated in messages.
 */
export async function importRepository(url: string, targetDir: string, options: ImportOptions): Promise<void> {
  const target = path.resolve(targetDir);
  await assertAbsent(target);
  const destination = await resolvePublicAddress(url, {
    allowPrivate: options.allowPrivate,
    resolve: options.resolve,
    isAllowedAddress: options.isAllowedAddress,
    allowCredentials: true,
  });
  const credentials = splitCredentials(destination.url);
  const args = [...pinnedCloneArgs(destination), 'clone', '--bare', '--quiet', '--template=', '--', credentials.publicUrl, target];
  const run: GitRunOptions = { ...options, timeoutMs: options.timeoutMs ?? LONG_MS };
  try {
    await cloneInto(target, args, run, 'The repository could not be imported', [], pinnedCloneEnv(credentials));
  } catch (e) {
    throw importFailure(e, credentials.publicUrl, credentials.secrets);
  }
}

/**
 * An uncompressed tar of the repository as GitLab's snapshot has it (HEAD, packed-refs, refs/,
 * objects/, shallow; not config or hooks), paths relative to the repository, produced by the system
 * `tar` and streamed. A failing tar destroys the stream with an AppError; destroying the stream
 * stops tar. There is no default timeout: how long it streams is up to the client reading it.
 */
export async function snapshotTar(
  dir: string,
  run: Omit<GitRunOptions, 'gitPath'> & { readonly tarPath?: string } = {},
): Promise<Readable> {
  const target = path.resolve(dir);
  if (!(await exists(path.join(target, 'HEAD')))) throw notFound('Repository');
  const entries: string[] = [];
  for (const name of ['HEAD', 'packed-refs', 'refs', 'objects', 'shallow']) if (await exists(path.join(target, name))) entries.push(name);
  return streamOutput(
    run.tarPath ?? 'tar',
    ['-cf', '-', '-C', target, '--', ...entries],
    run,
    null,
    (_code, stderr) =>
      new AppError('unavailable', `The repository snapshot could not be written (tar: ${scrubPaths(lastLine(stderr), [target])})`),
  );
}

/**
 * Write every ref (and HEAD) of a repository into a bundle file, for project export. Returns false,
 * writing nothing, when the repository has no refs: git cannot bundle an empty repository, and an
 * export of one simply has no bundle.
 */
export async function createBundle(dir: string, file: string, run: GitRunOptions = {}): Promise<boolean> {
  const source = path.resolve(dir);
  const out = path.resolve(file);
  const refs = await git(source, ['for-each-ref', '--count=1', '--format=%(refname)'], run, 'The repository could not be read');
  if (refs.stdout.toString('utf8').trim() === '') return false;
  await mkdir(path.dirname(out), { recursive: true });
  await git(
    source,
    ['bundle', 'create', out, '--all'],
    { ...run, timeoutMs: run.timeoutMs ?? LONG_MS },
    'The repository could not be bundled',
    [out],
  );
  return true;
}

/** Create a new bare repository at `targetDir` from a bundle file (all its refs and its HEAD). */
export async function restoreFromBundle(file: string, targetDir: string, run: GitRunOptions = {}): Promise<void> {
  const bundle = path.resolve(file);
  const target = path.resolve(targetDir);
  if (!(await exists(bundle))) throw notFound('Bundle');
  // git's own complaint about a file that is no bundle is a chain of confusing lines; say it plainly.
  if (!(await isBundleFile(bundle))) throw new AppError('invalid', 'The file is not a git bundle', { code: 'invalid_bundle' });
  await cloneInto(
    target,
    ['clone', '--mirror', '--quiet', '--template=', '--', bundle, target],
    { ...run, timeoutMs: run.timeoutMs ?? LONG_MS },
    'The repository could not be restored from its bundle',
    [bundle],
  );
}

/**
 * Clone into a directory that must not exist yet, then make the result a standalone repository of
 * ours: no remote left behind (its URL points at another repository or host), pushes accepted over
 * HTTP. A failure at any step removes the half-made target.
 */
async function cloneInto(
  target: string,
  args: readonly string[],
  run: GitRunOptions,
  sentence: string,
  otherPaths: readonly string[],
  env?: Record<string, string>,
): Promise<void> {
  await assertAbsent(target);
  await mkdir(path.dirname(target), { recursive: true });
  try {
    await runGit(args, run, { timeoutMs: LONG_MS, env });
    await dropRemote(target, run);
    await acceptHttpPushes(target, run);
  } catch (e) {
    await rm(target, { recursive: true, force: true });
    if (e instanceof GitCommandError && env) throw e; // the caller (an import) words remote failures itself
    throw failure(e, sentence, [target, ...otherPaths]);
  }
}

async function dropRemote(target: string, run: GitRunOptions): Promise<void> {
  try {
    await runGit(['--git-dir=' + target, 'config', '--remove-section', 'remote.origin'], run, { timeoutMs: QUICK_MS });
  } catch (e) {
    // No such section (exit 128 with "no such section") means there was nothing to drop.
    if (!(e instanceof GitCommandError && /no such section/i.test(e.stderr))) throw e;
  }
}

/** True when a file starts with a v2 or v3 bundle signature. */
async function isBundleFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(16);
    const { bytesRead } = await handle.read(head, 0, 16, 0);
    return /^# v[23] git bundle\n/.test(head.subarray(0, bytesRead).toString('latin1'));
  } finally {
    await handle.close();
  }
}

/** Words an import's failure for a person, naming the URL without credentials. */
function importFailure(e: unknown, publicUrl: string, secrets: readonly string[]): unknown {
  if (!(e instanceof GitCommandError)) return e;
  const said = scrubSecrets(e.stderr, secrets);
  const clean = (message: string, kind: 'invalid' | 'unavailable', code: string) =>
    new AppError(kind, scrubSecrets(message, secrets), { code, cause: new Error(scrubSecrets(e.message, secrets)) });
  if (/terminal prompts disabled|Authentication failed|could not read (Username|Password)|returned error: 40[13]/i.test(said))
    return clean(
      `${publicUrl} needs credentials that were missing or not accepted (put them in the URL: https://user:token@host/path.git)`,
      'invalid',
      'import_auth',
    );
  if (/returned error: 30\d|redirect/i.test(said))
    return clean(
      `${publicUrl} redirects elsewhere; redirects are not followed, so use the repository's final URL`,
      'invalid',
      'import_redirect',
    );
  if (/returned error: 404|not found|does not appear to be a git repository/i.test(said))
    return clean(`No git repository was found at ${publicUrl}`, 'invalid', 'import_not_found');
  if (/Failed to connect|Connection refused|Could not resolve|timed out|Connection reset/i.test(said))
    return clean(`Could not connect to ${new URL(publicUrl).host} to import ${publicUrl}`, 'unavailable', 'import_unreachable');
  const reason = lastLine(said).replace(/^(fatal|error): /, '');
  return clean(`The repository at ${publicUrl} could not be imported${reason ? `: ${reason}` : ''}`, 'invalid', 'import_failed');
}
