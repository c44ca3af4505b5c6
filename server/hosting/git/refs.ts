/**
 * Branches and tags of a bare repository: listing, and creating or deleting one ref at a time with
 * `update-ref` given the value it must have before (zero: must not exist), so a concurrent push is
 * never overwritten. Names are checked with git-names.ts before they reach git.
 */
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { assertBranchName, isValidBranchName, ZERO_SHA } from './git-names.js';
import { failure, gitIn } from './repository-command.js';
import { GitCommandError, type GitRunOptions } from './run-git.js';

/** A branch: its name and the commit it points at. */
export interface BranchRef {
  readonly name: string;
  readonly commitId: string;
}

/** A tag: the object it names (a tag object when annotated), the commit it peels to, and an annotated tag's message and date. */
export interface TagRef {
  readonly name: string;
  readonly target: string;
  readonly commitId: string;
  readonly annotated: boolean;
  /** An annotated tag's message ('' for a lightweight tag). */
  readonly message: string;
  /** An annotated tag's tagger date (ISO 8601), else null. */
  readonly createdAt: string | null;
}

/** Every branch, by name. */
export async function listBranches(dir: string, run: GitRunOptions = {}): Promise<BranchRef[]> {
  const out = await gitIn(
    dir,
    ['for-each-ref', '--sort=refname', '--format=%(refname)%00%(objectname)%00', 'refs/heads/'],
    run,
    'The branches could not be read',
  );
  const fields = out.stdout.toString('utf8').split('\0');
  const branches: BranchRef[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const ref = fields[i]!.replace(/^\n/, '');
    if (ref.startsWith('refs/heads/')) branches.push({ name: ref.slice('refs/heads/'.length), commitId: fields[i + 1]! });
  }
  return branches;
}

/** Names of the branches whose head is reachable from `commit` (GitLab's `merged`). */
export async function branchesMergedInto(dir: string, commit: string, run: GitRunOptions = {}): Promise<Set<string>> {
  const out = await gitIn(
    dir,
    ['for-each-ref', `--merged=${commit}`, '--format=%(refname)', 'refs/heads/'],
    run,
    'The branches could not be read',
  );
  return new Set(
    out.stdout
      .toString('utf8')
      .split('\n')
      .filter((r) => r.startsWith('refs/heads/'))
      .map((r) => r.slice('refs/heads/'.length)),
  );
}

/** Every tag (sorted by name), peeled to its commit; tags of trees or blobs are left out. */
export async function listTags(dir: string, run: GitRunOptions = {}): Promise<TagRef[]> {
  const format =
    '%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)%00%(taggerdate:iso-strict)%00%(contents)%00%1e';
  const out = await gitIn(dir, ['for-each-ref', '--sort=refname', `--format=${format}`, 'refs/tags/'], run, 'The tags could not be read');
  const tags: TagRef[] = [];
  for (const record of out.stdout.toString('utf8').split('\x1e')) {
    const [ref = '', target = '', type = '', peeled = '', peeledType = '', date = '', contents = ''] = record
      .replace(/^\n/, '')
      .split('\0');
    if (!ref.startsWith('refs/tags/')) continue;
    const annotated = type === 'tag';
    const commitId = annotated ? (peeledType === 'commit' ? peeled : '') : type === 'commit' ? target : '';
    if (!commitId) continue;
    tags.push({
      name: ref.slice('refs/tags/'.length),
      target,
      commitId,
      annotated,
      message: annotated ? contents.replace(/\n+$/, '') : '',
      createdAt: annotated && date ? date : null,
    });
  }
  return tags;
}

/** Create `refs/heads/<name>` at `commit`; a `conflict` when it already exists (also when another writer made it first). */
export async function createBranch(dir: string, name: string, commit: string, run: GitRunOptions = {}): Promise<void> {
  assertBranchName(name);
  await updateRef(dir, `refs/heads/${name}`, commit, ZERO_SHA, run, 'Branch already exists');
}

/** Delete `refs/heads/<name>` if it still points at `expected`. */
export async function deleteBranch(dir: string, name: string, expected: string, run: GitRunOptions = {}): Promise<void> {
  assertBranchName(name);
  try {
    await gitIn(dir, ['update-ref', '-d', '--', `refs/heads/${name}`, expected], run, 'The branch could not be deleted', { raw: true });
  } catch (e) {
    if (e instanceof GitCommandError)
      throw new AppError('conflict', `Could not update refs/heads/${name}. Please refresh and try again.`, { cause: e });
    throw failure(e, 'The branch could not be deleted', [path.resolve(dir)]);
  }
}

/** Who made an annotated tag, and when (Unix seconds). */
export interface Tagger {
  readonly name: string;
  readonly email: string;
  readonly when: Date;
}

/**
 * Create `refs/tags/<name>` at `commit`: lightweight, or annotated (a tag object written with
 * mktag) when a message is given. A `conflict` when the tag exists.
 */
export async function createTag(
  dir: string,
  name: string,
  commit: string,
  annotation: { readonly message: string; readonly tagger: Tagger } | null,
  run: GitRunOptions = {},
): Promise<void> {
  if (!isValidBranchName(name)) throw new AppError('invalid', 'Tag name invalid', { code: 'render_api_error' });
  let target = commit;
  if (annotation) {
    const { tagger } = annotation;
    const body = `object ${commit}\ntype commit\ntag ${name}\ntagger ${identityLine(tagger.name, tagger.email)} ${Math.floor(tagger.when.getTime() / 1000)} +0000\n\n${annotation.message.replace(/\n*$/, '\n')}`;
    target = (await gitIn(dir, ['mktag'], run, 'The tag could not be written', { input: body })).stdout.toString('utf8').trim();
  }
  await updateRef(dir, `refs/tags/${name}`, target, ZERO_SHA, run, `Tag ${name} already exists`);
}

/**
 * Point `ref` at `value` only if it now holds `expected` (zero: does not exist). A ref that moved
 * meanwhile is a `conflict` saying `raced`: the caller lost a race, and nothing was overwritten.
 */
export async function updateRef(
  dir: string,
  ref: string,
  value: string,
  expected: string,
  run: GitRunOptions,
  raced: string,
): Promise<void> {
  try {
    await gitIn(dir, ['update-ref', '--', ref, value, expected], run, 'The ref could not be updated', { raw: true });
  } catch (e) {
    if (
      e instanceof GitCommandError &&
      /cannot lock ref|reference already exists|is at .* but expected|unable to resolve reference/.test(e.stderr)
    )
      throw new AppError('conflict', raced, { cause: e });
    throw failure(e, 'The ref could not be updated', [path.resolve(dir)]);
  }
}

/** `Name <email>` with the characters git forbids in an identity taken out. */
export function identityLine(name: string, email: string): string {
  // eslint-disable-next-line no-control-regex -- git refuses these in identities
  const clean = (s: string) => s.replace(/[<>\n\r\x00]/g, '').trim();
  return `${clean(name) || 'unknown'} <${clean(email)}>`;
}
