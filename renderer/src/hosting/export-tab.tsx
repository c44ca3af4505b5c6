import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { downloadExport, getExportStatus, scheduleExport, type Project, type ProjectExportStatus } from '../api/hosting';
import { saveBlob } from '../lib/save-blob';
import { useSignedIn } from '../lib/session-context';
import { Fact } from '../ui/fact';
import { Panel } from '../ui/panel';
import { ProgressBar } from '../ui/progress-bar';
import { Busy, Pill } from '../ui/status';
import { pollDelay } from './import-status';
import { Field, hostingKeys, InlineProblem, SubmitButton } from './widgets';

const running = (status: ProjectExportStatus['export_status'] | undefined) => status === 'started' || status === 'after_export_action';

function StatusPill({ status }: { readonly status: ProjectExportStatus['export_status'] }) {
  if (status === 'finished') return <Pill tone="ok">Finished</Pill>;
  if (status === 'failed') return <Pill tone="bad">Failed</Pill>;
  if (status === 'none') return <Pill tone="neutral">Not exported yet</Pill>;
  return <Pill tone="warn">{status === 'started' ? 'Exporting' : 'Finishing'}</Pill>;
}

/** Export: schedule an archive of the project, watch its status, download it. */
export function ExportTab({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const [description, setDescription] = useState('');
  const status = useQuery({
    queryKey: hostingKeys.exportStatus(project.id),
    queryFn: ({ signal }) => getExportStatus(token, project.id, signal),
    refetchInterval: (query) => (running(query.state.data?.export_status) ? pollDelay(query.state.dataUpdateCount) : false),
  });
  const schedule = useMutation({
    mutationFn: () => scheduleExport(token, project.id, description.trim() || undefined),
    // The export starts at once: show "started" and let polling follow it.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: hostingKeys.exportStatus(project.id) }),
  });
  const download = useMutation({
    mutationFn: () => downloadExport(token, project.id),
    onSuccess: ({ blob, fileName }) => saveBlob(blob, fileName),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!schedule.isPending && !running(status.data?.export_status)) schedule.mutate();
  };
  const current = status.data?.export_status;
  return (
    <div className="prj-two">
      <Panel title="Export project">
        <p className="prj-lead">
          An export is a .tar.gz archive of the repository, settings, hooks (without their secrets) and uploads. Import it here or into
          GitLab.
        </p>
        <form className="prj-form" onSubmit={submit} noValidate>
          <Field label="Description in the archive (optional)" help="Left empty: the project's own description.">
            {(props) => (
              <input
                {...props}
                className="input"
                value={description}
                placeholder={project.description ?? ''}
                onChange={(e) => setDescription(e.currentTarget.value)}
              />
            )}
          </Field>
          <InlineProblem>{schedule.error?.message}</InlineProblem>
          <div className="actions">
            <SubmitButton pending={schedule.isPending} busyLabel="Scheduling…" blocked={running(current)}>
              {current === 'finished' ? 'Export again' : 'Export project'}
            </SubmitButton>
          </div>
        </form>
      </Panel>
      <Panel title="Export status" busy={status.isFetching}>
        {status.isPending ? <Busy>Loading the export status…</Busy> : null}
        {status.isError ? <InlineProblem>{status.error.message}</InlineProblem> : null}
        {status.data ? (
          <div aria-live="polite">
            <dl className="facts">
              <Fact term="Status">
                <StatusPill status={status.data.export_status} />
              </Fact>
              <Fact term="Project">
                <span className="mono truncate">{status.data.path_with_namespace}</span>
              </Fact>
            </dl>
            {running(current) ? (
              <div className="prj-gap">
                <ProgressBar label="Building the archive" value={null} />
              </div>
            ) : null}
            {current === 'failed' ? <InlineProblem>{status.data.export_error ?? 'The export failed.'}</InlineProblem> : null}
            {current === 'finished' ? (
              <div className="actions">
                <button
                  type="button"
                  className="button button-primary"
                  aria-disabled={download.isPending}
                  onClick={() => !download.isPending && download.mutate()}
                >
                  {download.isPending ? 'Downloading…' : 'Download archive'}
                </button>
                <Link className="button button-secondary" to="/projects/import">
                  Import an archive…
                </Link>
              </div>
            ) : null}
            {download.isSuccess ? (
              <p className="prj-status prj-status-ok" role="status">
                Saved {download.data.fileName}.
              </p>
            ) : null}
            <InlineProblem>{download.error?.message}</InlineProblem>
          </div>
        ) : null}
      </Panel>
    </div>
  );
}
