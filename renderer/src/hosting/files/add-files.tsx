import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { Project } from '../../api/hosting';
import { createCommit, type CommitDetail, type RepositoryTreeEntry, type UploadProgress } from '../../api/repository';
import { formatBytes } from '../../lib/format';
import { useSignedIn } from '../../lib/session-context';
import { FileDrop } from '../../ui/file-drop';
import { ProgressBar } from '../../ui/progress-bar';
import { base64Of, defaultCommitMessage, planFiles, type PlannedFile } from './file-kinds';
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
  const messageId = useId();

  const staged: Staged | null = files ? { files, planned: planOf(files, folder, entries) } : null;

  const stage = (dropped: File[]) => {
    setFiles(dropped);
    setTyped(null);
    setDone(null);
    commit.reset();
  };

  const commit = useMutation({
    mutationFn: async (input: { readonly staged: Staged; readonly message: string }) => {
      setProgress({ loaded: 0, total: input.staged.files.reduce((n, f) => n + f.size, 0) });
      const actions = await Promise.all(
        input.staged.planned.map(async (plan) => {
          const bytes = new Uint8Array((await input.staged.files[plan.source]?.arrayBuffer()) ?? new ArrayBuffer(0));
          return { action: plan.action, file_path: plan.path, encoding: 'base64' as const, content: base64Of(bytes) };
        }),
      );
      return createCommit(token, project.id, { branch, commit_message: input.message, actions }, setProgress);
    },
    onSuccess: async (result) => {
      setDone(result);
      setFiles(null);
      setTyped(null);
      await queryClient.invalidateQueries({ queryKey: repositoryKeys.repository(project.id) });
      await queryClient.invalidateQueries({ queryKey: ['hosting', 'project', project.id] });
    },
    // A refusal may come from a listing that was out of date (someone added the file meanwhile): refresh it.
    onError: () => queryClient.invalidateQueries({ queryKey: repositoryKeys.repository(project.id) }),
    onSettled: () => setProgress(null),
  });

  const totalSize = staged?.files.reduce((n, f) => n + f.size, 0) ?? 0;
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
              </li>
            ))}
          </ul>
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
          label="Uploading the commit"
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
