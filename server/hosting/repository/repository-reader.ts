/**
 * The read side of GitLab's repository API over a project's bare repository: trees, files with
 * their metadata, blobs and archives, answered as GitLab does (which ref is read when none is given,
 * which 404 a missing thing is). Bytes are never held whole: content is handed out as streams.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, notFound } from '../../http/errors.js';
import type { ProjectRecord } from '../../store/schema.js';
import * as read from '../git/repository-read.js';
import type { ArchiveFormat, TreeEntry } from '../git/repository-read.js';
import type { ProjectPaths } from '../projects/projects.js';

/** GitLab's file metadata (API::Files#blob_data), in its key order. */
export interface FileMetadata {
  readonly file_name: string;
  readonly file_path: string;
  readonly size: number;
  readonly encoding: 'base64';
  readonly content_sha256: string;
  readonly ref: string;
  readonly blob_id: string;
  readonly commit_id: string;
  readonly last_commit_id: string;
  readonly execute_filemode: boolean;
}

/** A blob ready to be streamed: its id, size and a function that opens its bytes. */
export interface BlobHandle {
  readonly id: string;
  readonly size: number;
  open(): Readable;
}

/** A file at a ref: GitLab's metadata plus its bytes. */
export interface FileHandle extends BlobHandle {
  readonly metadata: FileMetadata;
}

/** An archive ready to be streamed. */
export interface ArchiveHandle {
  /** `<project path>-<ref>-<sha>[-<path>].<ext>` (GitLab's archive prefix and extension). */
  readonly filename: string;
  readonly format: ArchiveFormat;
  readonly commitId: string;
  open(): Readable;
}

/** GitLab's archive formats (Gitlab::PathRegex.archive_formats_regex) and the format each stands for. */
export const archiveFormats: Readonly<Record<string, ArchiveFormat>> = {
  zip: 'zip',
  tar: 'tar',
  'tar.gz': 'tar.gz',
  tgz: 'tar.gz',
  gz: 'tar.gz',
  'tar.bz2': 'tar.bz2',
  tbz: 'tar.bz2',
  tbz2: 'tar.bz2',
  tb2: 'tar.bz2',
  bz2: 'tar.bz2',
};

/** A path parameter that is not a plain relative path: Grape's FilePath validator's answer. */
function invalidFilePath(name: string): AppError {
  return new AppError('invalid', `${name} should be a valid file path`, {
    issues: [{ loc: [name], msg: 'should be a valid file path', type: 'invalid' }],
  });
}

/** Reads project repositories for the repository routes. */
export class RepositoryReader {
  /** sha256 of blobs by object id: a blob never changes, so an entry never goes stale (GitLab caches it too). */
  private readonly sha256s = new Map<string, string>();

  constructor(
    private readonly paths: Pick<ProjectPaths, 'repository'>,
    private readonly gitPath: string,
    private readonly sha256Capacity = 10_000,
  ) {}

  /**
   * Entries of the tree at `path` of `ref` (the default branch when absent), trees first as GitLab
   * (Gitaly's TREES_FIRST) lists them; 404 Tree Not Found for an unknown ref or a path that is not a tree.
   */
  async tree(
    project: Readonly<ProjectRecord>,
    options: { readonly ref?: string; readonly path?: string; readonly recursive: boolean },
  ): Promise<TreeEntry[]> {
    const parts = read.splitRepositoryPath(options.path ?? '');
    if (!parts) throw notFound('Tree');
    const dir = this.paths.repository(project);
    const commit = await this.commitOf(project, options.ref, 'Tree');
    const entries = await this.git(read.listTree(dir, commit, parts, options.recursive, this.run), 'Tree');
    if (!entries) throw notFound('Tree');
    return [...entries.filter((e) => e.type === 'tree'), ...entries.filter((e) => e.type !== 'tree')];
  }

  /** A file at `ref` with GitLab's metadata: 404 Commit Not Found for an unknown ref, 404 File Not Found for no file. */
  async file(
    project: Readonly<ProjectRecord>,
    filePath: string,
    ref: string,
    options: { readonly allowLeadingSlash?: boolean } = {},
  ): Promise<FileHandle> {
    const parts = read.splitRepositoryPath(filePath, options);
    if (!parts || parts.length === 0 || filePath.endsWith('/')) throw invalidFilePath('file_path');
    const dir = this.paths.repository(project);
    const commit = await this.commitOf(project, ref, 'Commit');
    const blob = await this.git(read.findBlobAtPath(dir, commit, parts, this.run), 'File');
    if (!blob) throw notFound('File');
    const [lastCommit, sha256] = await Promise.all([read.lastCommitFor(dir, commit, parts, this.run), this.sha256Of(dir, blob.id)]);
    const metadata: FileMetadata = {
      file_name: parts[parts.length - 1]!,
      file_path: parts.join('/'),
      size: blob.size,
      encoding: 'base64',
      content_sha256: sha256,
      ref,
      blob_id: blob.id,
      commit_id: commit,
      last_commit_id: lastCommit ?? commit,
      execute_filemode: blob.mode === '100755',
    };
    return { id: blob.id, size: blob.size, metadata, open: () => read.streamBlob(dir, blob.id, this.run) };
  }

  /** A blob by its (possibly abbreviated) object name; 404 Blob Not Found when there is none. */
  async blob(project: Readonly<ProjectRecord>, sha: string): Promise<BlobHandle> {
    const dir = this.paths.repository(project);
    const id = await this.git(read.findBlob(dir, sha, this.run), 'Blob');
    if (!id) throw notFound('Blob');
    const size = await read.blobSize(dir, id, this.run);
    return { id, size, open: () => read.streamBlob(dir, id, this.run) };
  }

  /** The sha256 of a blob's bytes, streamed through the hash once and then remembered. */
  async sha256Of(dir: string, blobId: string): Promise<string> {
    const known = this.sha256s.get(blobId);
    if (known) return known;
    const hash = createHash('sha256');
    for await (const chunk of read.streamBlob(dir, blobId, this.run)) hash.update(chunk as Buffer);
    const digest = hash.digest('hex');
    if (this.sha256s.size >= this.sha256Capacity) this.sha256s.delete(this.sha256s.keys().next().value!);
    this.sha256s.set(blobId, digest);
    return digest;
  }

  /**
   * An archive of `sha` (a branch, tag or commit; the default branch when absent), limited to `path`
   * when given, named and prefixed as GitLab does (append_sha: true). 404 File Not Found when the
   * ref or the path does not exist (GitLab rescues every failure to that).
   */
  async archive(
    project: Readonly<ProjectRecord>,
    options: { readonly sha?: string; readonly format: ArchiveFormat; readonly path?: string },
  ): Promise<ArchiveHandle> {
    const parts = read.splitRepositoryPath(options.path ?? '', { allowLeadingSlash: true });
    if (!parts) throw notFound('File');
    const dir = this.paths.repository(project);
    const ref = options.sha || project.defaultBranch;
    const commit = await this.commitOf(project, ref, 'File');
    if (parts.length > 0 && !(await this.git(read.findPathType(dir, commit, parts, this.run), 'File'))) throw notFound('File');
    const segments = [project.path, ref.replace(/\//g, '-'), commit, ...(parts.length > 0 ? [parts.join('-')] : [])];
    const prefix = segments.join('-');
    return {
      filename: `${prefix}.${options.format}`,
      format: options.format,
      commitId: commit,
      open: () => read.streamArchive(dir, commit, options.format, prefix, parts, this.run),
    };
  }

  private get run() {
    return { gitPath: this.gitPath };
  }

  /** The commit `ref` names (the default branch when absent); `what` Not Found when none. */
  private async commitOf(project: Readonly<ProjectRecord>, ref: string | undefined, what: string): Promise<string> {
    const commit = await this.git(read.findCommit(this.paths.repository(project), ref || project.defaultBranch, this.run), what);
    if (!commit) throw notFound(what);
    return commit;
  }

  /** A repository that does not exist yet (a fork or import still to run) has nothing: `what` Not Found. */
  private async git<T>(call: Promise<T>, what: string): Promise<T> {
    try {
      return await call;
    } catch (e) {
      if (e instanceof AppError && e.kind === 'not-found') throw notFound(what);
      throw e;
    }
  }
}
