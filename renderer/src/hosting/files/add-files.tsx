import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { Project } from '../../api/hosting';
import type { CommitDetail, RepositoryTreeEntry, UploadProgress } from '../../api/repository';
import { formatBytes } from '../../lib/format';
import { useSignedIn } from '../../lib/session-context';
import { FileDrop } from '../../ui/file-drop';
import { ProgressBar } from '../../ui/progress-bar';
import { commitDrop, defaultJsonLimitBytes, jsonBytesOf, lfsFilesOf, tooLargeSentence, type FileStage } from './commit-drop';
import { defaultCommitMessage, planFiles, type PlannedFile } from './file-kinds';
import { repositoryKeys } from './repository-keys';

interface Staged {
  readonly files: readonly File[];
  readonly planned: readonly PlannedFile[];
}

/** The files' plan against the folder as listed now (a refreshed listing turns a create into an update). */
function planOf(files: readonly File[], folder: string, entries: readonly RepositoryTreeEntry[]): PlannedFile[] {
  const existing = new Set(entries.filter((e) => e.type === 'blob').map((e) => e.path));
  return planFiles(
    files.map((f) => f.name),
    folder,
    existing,
  );
}

/**
 * Drop files (or pick them) onto a folder: they become one commit on the current branch through the
 * commits API, created or updated by whether the folder has them, with a message to edit.
 */
export function AddFiles({
  project,
  branch,
  folder,
  entries,
}: {
  readonly project: Project;
  readonly branch: string;
  readonly folder: string;
  readonly entries: readonly RepositoryTreeEntry[];
}) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const [files, setFiles] = useState<readonly File[] | null>(null);
  // The person's own message; until they type one, the suggestion follows the plan.
  const [typed, setTyped] = useState<string | null>(null);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [done, setDone] = useState<CommitDetail | null>(null);
  // Per file on its way to LFS; kept after a failure so the person sees which one failed.
  const [stages, setStages] = useState<ReadonlyMap<string, FileStage>>(new Map());
  const messageId = useId();

  const staged: Staged | null = files ? { files, planned: planOf(files, folder, entries) } : null;

  const stage = (dropped: File[]) => {
    setFiles(dropped);
    setTyped(null);
    setDone(null);
    setStages(new Map());
    commit.reset();
  };

  const commit = useMutation({
    mutationFn: async (input: { readonly staged: Staged; readonly message: string }) => {
      setStages(new Map());
      return commitDrop({
        token,
        project,
        branch,
        message: input.message,
        drop: input.staged,
        onFileStage: (path, stage) => setStages((before) => new Map(before).set(path, stage)),
        onCommitProgress: setProgress,
      });
    },
    onSuccess: async (result) => {
      setDone(result);
      setFiles(null);
      setStages(new Map());
      setTyped(null);
      await queryClient.invalidateQueries({ queryKey: repositoryKeys.repository(project.id) });
      await queryClient.invalidateQueries({ queryKey: ['hosting', 'project', project.id] });
    },
    // A refusal may come from a listing that was out of date (someone added the file meanwhile): refresh it.
    onError: () => queryClient.invalidateQueries({ queryKey: repositoryKeys.repository(project.id) }),
    onSettled: () => setProgress(null),
  });

  const totalSize = staged?.files.reduce((n, f) => n + f.size, 0) ?? 0;
  const viaLfs = staged ? lfsFilesOf(project, staged.planned) : [];
  const jsonTooLarge = staged !== null && jsonBytesOf(staged.files, staged.planned, viaLfs) > defaultJsonLimitBytes;
  const message = typed ?? (staged ? defaultCommitMessage(staged.planned) : '');
  const canCommit = staged !== null && staged.planned.length > 0 && message.trim() !== '' && !commit.isPending;

  return (
    <section className="panel fl-add" aria-label="Add files">
      <FileDrop
        multiple
        compact
        accept=""
        label={`Drop stems or other files to add them to ${folder ? `${folder}/` : 'the top folder'} on ${branch}`}
        onFiles={stage}
      />
      {staged ? (
        <form
          className="fl-add-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (canCommit) commit.mutate({ staged, message: message.trim() });
          }}
        >
          <ul className="fl-staged" aria-label="Files to commit">
            {staged.planned.map((plan) => (
              <li key={plan.path}>
                <span className={`fl-action fl-action-${plan.action}`}>{plan.action === 'create' ? 'new' : 'update'}</span>
                <span className="fl-staged-name">{plan.path}</span>
                {viaLfs.includes(plan) ? <LfsStage stage={stages.get(plan.path)} size={staged.files[plan.source]?.size ?? 0} /> : null}
              </li>
            ))}
          </ul>
          {jsonTooLarge ? (
            <p className="fl-warning" role="note">
              {tooLargeSentence(project.lfs_enabled)}
            </p>
          ) : null}
          <div className="prj-field">
            <label className="label" htmlFor={messageId}>
              Commit message
            </label>
            <input id={messageId} className="input" value={message} onChange={(event) => setTyped(event.currentTarget.value)} required />
          </div>
          <div className="actions">
            <button type="submit" className="button button-primary" aria-disabled={!canCommit}>
              Commit {staged.planned.length} file{staged.planned.length === 1 ? '' : 's'} to {branch}
            </button>
            <button type="button" className="button button-ghost" onClick={() => setFiles(null)} disabled={commit.isPending}>
              Cancel
            </button>
            <span className="muted small">{formatBytes(totalSize)}</span>
          </div>
        </form>
      ) : null}
      {progress ? (
        <ProgressBar
          label={viaLfs.length > 0 ? 'Committing' : 'Uploading the commit'}
          value={progress.total > 0 ? progress.loaded / progress.total : null}
          detail={`${formatBytes(progress.loaded)} of ${formatBytes(progress.total)}`}
        />
      ) : null}
      {commit.isError ? (
        <p className="fl-problem" role="alert">
          The commit was not made: {commit.error.message}
        </p>
      ) : null}
      {done ? (
        <p className="fl-done" role="status">
          Committed <span className="mono">{done.short_id}</span> “{done.title}” to {branch}.
        </p>
      ) : null}
    </section>
  );
}

/** Where one audio file is on its way to Git LFS, in words and (while it uploads) a bar. */
function LfsStage({ stage, size }: { readonly stage: FileStage | undefined; readonly size: number }) {
  if (!stage) return <span className="fl-lfs muted small">{formatBytes(size)} · Git LFS</span>;
  switch (stage.phase) {
    case 'hashing':
      return <span className="fl-lfs muted small">Preparing…</span>;
    case 'uploading':
      return (
        <span className="fl-lfs fl-lfs-uploading">
          <ProgressBar
            label="Uploading"
            value={stage.total > 0 ? stage.loaded / stage.total : null}
            detail={`${formatBytes(stage.loaded)} of ${formatBytes(stage.total)}`}
          />
        </span>
      );
    case 'stored':
      return <span className="fl-lfs fl-lfs-stored small">Stored in Git LFS</span>;
    case 'failed':
      return <span className="fl-lfs fl-lfs-failed small">Upload failed: {stage.reason}</span>;
  }
}
