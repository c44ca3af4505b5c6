// A drop of files becomes one commit. Audio in a project with Git LFS goes the way git-lfs sends
// it: each file is hashed (WebCrypto), its bytes go to the project's LFS store through the batch
// API (basic transfer, per-file progress), and the commit carries only pointer files plus the
// `.gitattributes` line that tracks the extension. So stems of any size get past the JSON limit of
// the commits API, which only small files (and every file of a project without LFS) still travel in.
import type { Project } from '../../api/hosting';
import { ApiError, type UploadProgress } from '../../api/http';
import { requestLfsUpload, uploadLfsObject } from '../../api/lfs';
import { createCommit, getRawFile, type CommitAction, type CommitDetail } from '../../api/repository';
import { base64Of, fileKindOf, type PlannedFile } from './file-kinds';
import { gitattributesTracking, lfsOidOf, lfsPointerText } from './lfs-plan';

/** Where one audio file is on its way to LFS. */
export type FileStage =
  | { readonly phase: 'hashing' }
  | { readonly phase: 'uploading'; readonly loaded: number; readonly total: number }
  | { readonly phase: 'stored' }
  | { readonly phase: 'failed'; readonly reason: string };

/** A drop to commit: the files and where each goes. */
export interface DropToCommit {
  readonly files: readonly File[];
  readonly planned: readonly PlannedFile[];
}

/** The server's JSON limit unless configured otherwise (CRATEHOUSE_MAX_JSON_KB). */
export const defaultJsonLimitBytes = 1024 * 1024;

const gitattributesPath = '.gitattributes';

/** The files of a drop that go through LFS: audio, when the project has LFS on. */
export function lfsFilesOf(project: Pick<Project, 'lfs_enabled'>, planned: readonly PlannedFile[]): readonly PlannedFile[] {
  return project.lfs_enabled ? planned.filter((p) => fileKindOf(p.path) === 'audio') : [];
}

/** Roughly the bytes of the JSON a commit of these files sends (base64 is 4/3 of the bytes). */
export function jsonBytesOf(files: readonly File[], planned: readonly PlannedFile[], viaLfs: readonly PlannedFile[]): number {
  return planned.filter((p) => !viaLfs.includes(p)).reduce((n, p) => n + Math.ceil((files[p.source]?.size ?? 0) / 3) * 4 + 200, 0);
}

/** The sentence for a commit the JSON limit refused. */
export function tooLargeSentence(lfs: boolean): string {
  const limit = `The server takes at most ${defaultJsonLimitBytes / 1024 / 1024} MB per commit request (CRATEHOUSE_MAX_JSON_KB)`;
  return lfs
    ? `${limit}, and the files that are not audio are larger than that together. Commit them in smaller groups, or push them with git.`
    : `${limit}, and this project does not use Git LFS for large files. Turn on Git LFS in the project’s settings, or push the stems with git.`;
}

/** Why one upload failed, in words: a transfer cut off mid-way says so (the server may well be up). */
function failureReason(error: unknown): string {
  if (error instanceof ApiError && error.status === 0) return 'the connection broke off before the file was sent.';
  return error instanceof Error ? error.message : String(error);
}

async function existingAttributes(token: string, project: Project, branch: string, drop: DropToCommit): Promise<string | undefined> {
  const dropped = drop.planned.find((p) => p.path === gitattributesPath);
  if (dropped) return (await drop.files[dropped.source]?.text()) ?? '';
  try {
    return await (await getRawFile(token, project.id, branch, gitattributesPath)).text();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * Send the drop's audio to LFS (those already on the server are not sent again), then commit the
 * pointers, `.gitattributes` and the other files as one commit. A failed upload throws before
 * anything is committed, with every file still staged: committing again retries only what is missing.
 */
export async function commitDrop(input: {
  readonly token: string;
  readonly project: Project;
  readonly branch: string;
  readonly message: string;
  readonly drop: DropToCommit;
  readonly onFileStage: (path: string, stage: FileStage) => void;
  readonly onCommitProgress: (progress: UploadProgress) => void;
}): Promise<CommitDetail> {
  const { token, project, branch, drop } = input;
  const viaLfs = lfsFilesOf(project, drop.planned);
  const pointers = new Map<string, string>();
  if (viaLfs.length > 0) {
    const objects: { path: string; oid: string; size: number; file: File }[] = [];
    for (const plan of viaLfs) {
      const file = drop.files[plan.source]!;
      input.onFileStage(plan.path, { phase: 'hashing' });
      objects.push({ path: plan.path, oid: await lfsOidOf(file), size: file.size, file });
    }
    const answers = await requestLfsUpload(
      token,
      project.path_with_namespace,
      objects.map((o) => ({ oid: o.oid, size: o.size })),
    );
    let failed = 0;
    for (const object of objects) {
      const answer = answers.find((a) => a.oid === object.oid);
      try {
        if (!answer) throw new Error('The server did not answer for this file.');
        input.onFileStage(object.path, { phase: 'uploading', loaded: 0, total: object.size });
        await uploadLfsObject(answer, object.file, (p) =>
          input.onFileStage(object.path, { phase: 'uploading', loaded: p.loaded, total: object.size }),
        );
        input.onFileStage(object.path, { phase: 'stored' });
        pointers.set(object.path, lfsPointerText(object));
      } catch (error) {
        failed += 1;
        input.onFileStage(object.path, { phase: 'failed', reason: failureReason(error) });
      }
    }
    if (failed > 0)
      throw new Error(
        `${failed} of ${objects.length} uploads failed, so nothing was committed. Commit again to retry: files already stored are not sent again.`,
      );
  }
  const actions: CommitAction[] = [];
  for (const plan of drop.planned) {
    if (plan.path === gitattributesPath && viaLfs.length > 0) continue; // merged below
    const pointer = pointers.get(plan.path);
    if (pointer !== undefined) {
      actions.push({ action: plan.action, file_path: plan.path, encoding: 'text', content: pointer });
      continue;
    }
    const bytes = new Uint8Array((await drop.files[plan.source]?.arrayBuffer()) ?? new ArrayBuffer(0));
    actions.push({ action: plan.action, file_path: plan.path, encoding: 'base64', content: base64Of(bytes) });
  }
  if (viaLfs.length > 0) {
    const existing = await existingAttributes(token, project, branch, drop);
    const dropped = drop.planned.find((p) => p.path === gitattributesPath);
    const onBranch = dropped ? dropped.action === 'update' : existing !== undefined;
    const content =
      gitattributesTracking(
        existing,
        viaLfs.map((p) => p.path),
      ) ?? (dropped ? existing : undefined);
    if (content !== undefined)
      actions.push({ action: onBranch ? 'update' : 'create', file_path: gitattributesPath, encoding: 'text', content });
  }
  try {
    return await createCommit(token, project.id, { branch, commit_message: input.message, actions }, input.onCommitProgress);
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) throw new ApiError(413, tooLargeSentence(project.lfs_enabled), error.body);
    throw error;
  }
}
