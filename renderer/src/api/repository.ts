// The repository part of the hosting API (/api/v4/projects/:id/repository/…): what the Files tab
// reads (tree, refs, files, history, analysis) and the one write it makes (a commit of file actions).
import type { AnalyzeResponse, WaveformResponse } from '../../../server/audio/api-types.js';
import type { Branch, Commit, CommitDetail, RepositoryFileAnalysis, RepositoryTreeEntry, Tag } from '../../../server/hosting/api-types.js';
import { failureOf, getJson, postJsonWithProgress, requestJson, send, type UploadProgress } from './http';

export type { UploadProgress };

export type { Branch, Commit, CommitDetail, RepositoryTreeEntry, Tag };

/** The analysis answer with the audio API's bodies in it. */
export type FileAnalysis = RepositoryFileAnalysis<AnalyzeResponse, WaveformResponse>;

const auth = (token: string) => ({ token, tokenStyle: 'private-token' as const });
const repo = (projectId: number) => `/api/v4/projects/${projectId}/repository`;
/** A file path as the Files API takes it: one URL-encoded segment, slashes included. */
const filePath = (path: string) => encodeURIComponent(path);

/** GET …/tree of one folder (every page: a folder of stems is small, and the listing sorts it whole). */
export async function listTree(
  token: string,
  projectId: number,
  ref: string,
  path: string,
  signal?: AbortSignal,
): Promise<readonly RepositoryTreeEntry[]> {
  const entries: RepositoryTreeEntry[] = [];
  for (let page = 1; page <= 50; page++) {
    const response = await requestJson<RepositoryTreeEntry[]>(`${repo(projectId)}/tree`, {
      ...auth(token),
      query: { ref, path, page, per_page: 100 },
      signal,
    });
    entries.push(...(response.body ?? []));
    const next = response.headers.get('x-next-page');
    if (!next) break;
  }
  return entries;
}

/** GET …/branches (first 100, by name). */
export function listBranches(token: string, projectId: number, signal?: AbortSignal): Promise<readonly Branch[]> {
  return getJson<Branch[]>(`${repo(projectId)}/branches`, { ...auth(token), query: { per_page: 100 }, signal });
}

/** GET …/tags (first 100, newest first). */
export function listTags(token: string, projectId: number, signal?: AbortSignal): Promise<readonly Tag[]> {
  return getJson<Tag[]>(`${repo(projectId)}/tags`, { ...auth(token), query: { per_page: 100 }, signal });
}

/** A file's metadata from HEAD …/files/:path (no content). */
export interface FileMeta {
  readonly size: number;
  readonly blobId: string;
  readonly lastCommitId: string;
}

/** HEAD …/files/:path?ref: size, blob id and last commit, from GitLab's X-Gitlab-* headers. */
export async function headFile(token: string, projectId: number, ref: string, path: string, signal?: AbortSignal): Promise<FileMeta> {
  const response = await send(`${repo(projectId)}/files/${filePath(path)}`, { ...auth(token), method: 'HEAD', query: { ref }, signal });
  if (!response.ok) throw await failureOf(response);
  const blobSize = Number(response.headers.get('x-gitlab-size') ?? NaN);
  return {
    size: blobSize < maxLfsPointerBytes ? await lfsSizeOf(token, projectId, ref, path, blobSize, signal) : blobSize,
    blobId: response.headers.get('x-gitlab-blob-id') ?? '',
    lastCommitId: response.headers.get('x-gitlab-last-commit-id') ?? '',
  };
}

/** A Git LFS pointer file is smaller than this (the spec's limit). */
const maxLfsPointerBytes = 1024;

/** The size of the file a small blob stands for: the LFS object's when it is a pointer (HEAD of raw with lfs=true), else its own. */
async function lfsSizeOf(
  token: string,
  projectId: number,
  ref: string,
  path: string,
  blobSize: number,
  signal?: AbortSignal,
): Promise<number> {
  const response = await send(rawFileUrl(projectId, ref, path), { ...auth(token), method: 'HEAD', signal });
  const length = Number(response.headers.get('content-length') ?? NaN);
  return response.ok && Number.isFinite(length) ? length : blobSize;
}

/** The URL of GET …/files/:path/raw (LFS pointers resolved); it needs the token in a header, so fetch it. */
export function rawFileUrl(projectId: number, ref: string, path: string): string {
  return `${repo(projectId)}/files/${filePath(path)}/raw?ref=${encodeURIComponent(ref)}&lfs=true`;
}

/** GET …/files/:path/raw as a Blob (the token cannot ride on an <audio> or <a> URL). */
export async function getRawFile(token: string, projectId: number, ref: string, path: string, signal?: AbortSignal): Promise<Blob> {
  const response = await send(rawFileUrl(projectId, ref, path), { ...auth(token), signal });
  if (!response.ok) throw await failureOf(response);
  return response.blob();
}

/** GET …/files/:path/analysis: ready (200), pending (202, poll again), or an ApiError (422 not audio, 404). */
export async function getFileAnalysis(
  token: string,
  projectId: number,
  ref: string,
  path: string,
  signal?: AbortSignal,
): Promise<FileAnalysis> {
  return getJson<FileAnalysis>(`${repo(projectId)}/files/${filePath(path)}/analysis`, { ...auth(token), query: { ref }, signal });
}

/** GET …/commits on a ref, narrowed to one path when given (first page). */
export function listCommits(
  token: string,
  projectId: number,
  query: { readonly ref: string; readonly path?: string; readonly perPage?: number },
  signal?: AbortSignal,
): Promise<readonly Commit[]> {
  return getJson<Commit[]>(`${repo(projectId)}/commits`, {
    ...auth(token),
    query: { ref_name: query.ref, path: query.path, per_page: query.perPage ?? 20 },
    signal,
  });
}

/** One action of POST …/commits: binary content in base64, text (a Git LFS pointer, `.gitattributes`) as it is. */
export interface CommitAction {
  readonly action: 'create' | 'update';
  readonly file_path: string;
  readonly content: string;
  readonly encoding: 'base64' | 'text';
}

/** POST …/commits: one commit of several file actions on a branch, reporting upload progress. */
export async function createCommit(
  token: string,
  projectId: number,
  input: { readonly branch: string; readonly commit_message: string; readonly actions: readonly CommitAction[] },
  onProgress?: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<CommitDetail> {
  return (await postJsonWithProgress<CommitDetail>(`${repo(projectId)}/commits`, input, { ...auth(token), onProgress, signal })).body;
}
