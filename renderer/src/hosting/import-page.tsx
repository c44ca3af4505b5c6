import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { UploadProgress } from '../api/http';
import { deleteProject, getImportStatus, importProject, listNamespaces, type ProjectImportStatus } from '../api/hosting';
import { formatCount } from '../lib/format';
import { useSignedIn } from '../lib/session-context';
import { Panel } from '../ui/panel';
import { ProgressBar } from '../ui/progress-bar';
import { Busy, Pill, Problem } from '../ui/status';
import { fieldErrorsOf } from './field-errors';
import { namespaceLabel } from './namespace-label';
import { importRunning, pathFromArchiveName, pollDelay } from './import-status';
import { Field, hostingKeys, InlineProblem, SubmitButton } from './widgets';

function ImportProgress({ result, onRetry }: { readonly result: ProjectImportStatus; readonly onRetry: () => void }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: hostingKeys.importStatus(result.id),
    queryFn: async ({ signal }) => {
      const answer = await getImportStatus(token, result.id, signal);
      if (!importRunning(answer.import_status)) {
        void queryClient.invalidateQueries({ queryKey: hostingKeys.projects });
        void queryClient.invalidateQueries({ queryKey: hostingKeys.project(result.id) });
      }
      return answer;
    },
    initialData: result,
    initialDataUpdatedAt: 0,
    refetchInterval: (query) => (importRunning(query.state.data?.import_status) ? pollDelay(query.state.dataUpdateCount) : false),
  });
  const removal = useMutation({
    mutationFn: () => deleteProject(token, result.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: hostingKeys.projects }),
  });
  const current = status.data.import_status;
  const where = <span className="mono">{status.data.path_with_namespace}</span>;
  if (current === 'failed')
    return (
      <div className="prj-result" aria-live="polite">
        <Problem title="The import failed.">
          <p>{status.data.import_error ?? 'The archive could not be imported.'}</p>
          {removal.isSuccess ? (
            <p>The empty project {where} was deleted. Choose another archive, or import this one again.</p>
          ) : (
            <>
              <p>Nothing was imported; the project {where} was left empty. Delete it, or import again over it.</p>
              <div className="actions">
                <button
                  type="button"
                  className="button"
                  aria-disabled={removal.isPending}
                  onClick={() => !removal.isPending && removal.mutate()}
                >
                  {removal.isPending ? 'Deleting…' : 'Delete the empty project'}
                </button>
                <button type="button" className="button button-primary" onClick={onRetry}>
                  Import again over it
                </button>
              </div>
            </>
          )}
          {removal.isError ? <InlineProblem>{removal.error.message}</InlineProblem> : null}
        </Problem>
      </div>
    );
  return (
    <div className="prj-result" aria-live="polite">
      <p className="prj-subtitle">
        {importRunning(current) ? 'Importing as' : 'Imported as'} {where}
      </p>
      {importRunning(current) ? (
        <ProgressBar label={current === 'scheduled' ? 'Waiting to start' : 'Unpacking the archive'} value={null} />
      ) : null}
      {current === 'finished' || current === 'none' ? (
        <p className="prj-row">
          <Pill tone="ok">Import finished</Pill>
          <Link to={`/projects/${result.id}`}>Open {status.data.name}</Link>
        </p>
      ) : null}
      {status.isError ? <InlineProblem>{status.error.message}</InlineProblem> : null}
    </div>
  );
}

/** Import: upload an export archive (with progress) as a new project, then watch it finish. */
export function ImportPage() {
  const { token, user } = useSignedIn();
  const namespaces = useQuery({ queryKey: hostingKeys.namespaces, queryFn: ({ signal }) => listNamespaces(token, signal) });
  const [file, setFile] = useState<File | null>(null);
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [namespace, setNamespace] = useState('');
  const [overwrite, setOverwrite] = useState(false);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const fileInput = useRef<HTMLInputElement>(null);
  const fileId = useId();
  const upload = useMutation({
    mutationFn: (input: { readonly file: File; readonly overwrite: boolean }) =>
      importProject(
        token,
        input.file,
        input.file.name,
        {
          path: path.trim() || pathFromArchiveName(input.file.name),
          name: name.trim() || undefined,
          namespace: namespace || undefined,
          overwrite: input.overwrite,
        },
        setProgress,
      ),
  });
  const errors = fieldErrorsOf(upload.error, ['file', 'path', 'name', 'namespace']);
  const own = namespaces.data?.find((n) => n.kind === 'user' && n.path === user.username);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (upload.isPending) return;
    const found: Record<string, string> = {};
    if (!file) found.file = 'Choose an export archive (.tar.gz) first.';
    setProblems(found);
    if (!file) {
      fileInput.current?.focus();
      return;
    }
    setProgress(null);
    upload.mutate({ file, overwrite });
  };
  // After a failed import: the same archive again, over the empty project it left.
  const retryOver = () => {
    if (!file || upload.isPending) return;
    setOverwrite(true);
    setProgress(null);
    upload.mutate({ file, overwrite: true });
  };
  const suggested = file ? pathFromArchiveName(file.name) : '';

  return (
    <div className="prj-two">
      <Panel title="Import a project">
        <p className="prj-lead">
          Upload an archive exported from Cratehouse or GitLab. It becomes a new project with its repository, settings, hooks and uploads.
        </p>
        <form className="prj-form" onSubmit={submit} noValidate aria-busy={upload.isPending}>
          <div className="prj-field">
            <label className="label" htmlFor={fileId}>
              Export archive
            </label>
            <input
              ref={fileInput}
              id={fileId}
              className="prj-file"
              type="file"
              accept=".tar.gz,.tgz,application/gzip,application/x-gzip"
              aria-invalid={problems.file || errors.fields.file ? true : undefined}
              aria-describedby={problems.file || errors.fields.file ? `${fileId}-error` : undefined}
              onChange={(e) => {
                const chosen = e.currentTarget.files?.[0] ?? null;
                setFile(chosen);
                setProblems({});
                upload.reset();
              }}
            />
            {file ? <p className="prj-help">{`${file.name}, ${formatCount(file.size)} bytes`}</p> : null}
            {problems.file || errors.fields.file ? (
              <p className="prj-field-error" id={`${fileId}-error`}>
                {problems.file ?? errors.fields.file}
              </p>
            ) : null}
          </div>
          <div className="prj-grid-2">
            <Field
              label="Project path"
              error={errors.fields.path}
              help={suggested ? `Left empty: ${suggested}.` : 'The path of the new project.'}
            >
              {(props) => (
                <input
                  {...props}
                  className="input mono"
                  value={path}
                  placeholder={suggested}
                  onChange={(e) => setPath(e.currentTarget.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
              )}
            </Field>
            <Field label="Project name (optional)" error={errors.fields.name} help="Left empty: the same as the path, as GitLab does.">
              {(props) => (
                <input {...props} className="input" value={name} onChange={(e) => setName(e.currentTarget.value)} autoComplete="off" />
              )}
            </Field>
          </div>
          {namespaces.isPending ? <Busy>Loading your namespaces…</Busy> : null}
          {namespaces.data ? (
            <Field label="Namespace" error={errors.fields.namespace}>
              {(props) => (
                <select
                  {...props}
                  className="input"
                  value={namespace || own?.full_path || ''}
                  onChange={(e) => setNamespace(e.currentTarget.value)}
                >
                  {namespaces.data.map((n) => (
                    <option key={n.id} value={n.full_path}>
                      {namespaceLabel(n, user.username)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          ) : null}
          <label className="prj-check prj-check-long">
            <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.currentTarget.checked)} />
            <span>
              Replace a project with the same path
              <span className="prj-help">
                {' '}
                The old project is replaced only once the import succeeded; without this, a taken path is refused.
              </span>
            </span>
          </label>
          <InlineProblem>{errors.general}</InlineProblem>
          {upload.isPending && progress ? (
            <ProgressBar
              label="Uploading"
              value={progress.total > 0 ? progress.loaded / progress.total : null}
              detail={`${formatCount(progress.loaded)} of ${formatCount(progress.total)} bytes`}
            />
          ) : null}
          {upload.isPending && !progress ? <Busy>Starting the upload…</Busy> : null}
          <div className="actions">
            <SubmitButton pending={upload.isPending} busyLabel="Uploading…">
              Import project
            </SubmitButton>
          </div>
        </form>
      </Panel>
      <Panel title="Import status">
        {upload.data ? (
          <ImportProgress key={upload.data.id} result={upload.data} onRetry={retryOver} />
        ) : (
          <p className="prj-help">After the upload, the import runs on the server; its status shows here until it is finished.</p>
        )}
      </Panel>
    </div>
  );
}
