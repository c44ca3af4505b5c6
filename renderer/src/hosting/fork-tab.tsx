import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { forkProject, getProject, listNamespaces, type Project } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { Panel } from '../ui/panel';
import { ProgressBar } from '../ui/progress-bar';
import { Busy, Pill, Problem } from '../ui/status';
import { fieldErrorsOf } from './field-errors';
import { namespaceLabel } from './namespace-label';
import { importRunning, pollDelay } from './import-status';
import { Field, hostingKeys, InlineProblem, SubmitButton } from './widgets';

/** Watches a new fork's import_status until the copy is finished (or failed). */
function ForkProgress({ fork }: { readonly fork: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const watched = useQuery({
    queryKey: hostingKeys.project(fork.id),
    queryFn: async ({ signal }) => {
      const project = await getProject(token, fork.id, signal);
      if (!importRunning(project.import_status)) void queryClient.invalidateQueries({ queryKey: hostingKeys.projects });
      return project;
    },
    initialData: fork,
    initialDataUpdatedAt: 0,
    refetchInterval: (query) => (importRunning(query.state.data?.import_status) ? pollDelay(query.state.dataUpdateCount) : false),
  });
  const status = watched.data.import_status;
  return (
    <div className="prj-result" aria-live="polite">
      <p className="prj-subtitle">
        Fork <span className="mono">{watched.data.path_with_namespace}</span>
      </p>
      {importRunning(status) ? (
        <ProgressBar label="Copying the repository" value={null} detail={status === 'scheduled' ? 'Waiting to start' : 'Copying'} />
      ) : null}
      {status === 'finished' || status === 'none' ? (
        <p className="prj-row">
          <Pill tone="ok">Fork ready</Pill>
          <Link to={`/projects/${fork.id}`}>Open the fork</Link>
        </p>
      ) : null}
      {status === 'failed' ? (
        <Problem title="The fork failed.">
          <p>{watched.data.import_error ?? 'The copy could not be made.'}</p>
        </Problem>
      ) : null}
      {watched.isError ? <InlineProblem>{watched.error.message}</InlineProblem> : null}
    </div>
  );
}

/** Fork: copy the project into a namespace the person chooses, then watch the copy finish. */
export function ForkTab({ project }: { readonly project: Project }) {
  const { token, user } = useSignedIn();
  const queryClient = useQueryClient();
  const namespaces = useQuery({ queryKey: hostingKeys.namespaces, queryFn: ({ signal }) => listNamespaces(token, signal) });
  const [namespaceId, setNamespaceId] = useState('');
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const fork = useMutation({
    mutationFn: () =>
      forkProject(token, project.id, {
        namespace_id: Number(namespaceId || defaultNamespace),
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(path.trim() ? { path: path.trim() } : {}),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: hostingKeys.project(project.id) }),
  });
  // Another namespace than the project's own first: a fork next to its source needs a new path.
  const choices = namespaces.data ?? [];
  const defaultNamespace = String(choices.find((n) => n.id !== project.namespace.id)?.id ?? choices[0]?.id ?? '');
  const errors = fieldErrorsOf(fork.error, ['namespace', 'name', 'path'], { namespace_id: 'namespace', namespace_path: 'namespace' });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!fork.isPending) fork.mutate();
  };
  return (
    <Panel title="Fork">
      <p className="prj-lead">
        A fork is your own copy of {project.name_with_namespace}, repository and settings, that remembers where it came from.
      </p>
      {namespaces.isPending ? <Busy>Loading your namespaces…</Busy> : null}
      {namespaces.isError ? <InlineProblem>{namespaces.error.message}</InlineProblem> : null}
      {namespaces.data ? (
        <form className="prj-form prj-form-narrow" onSubmit={submit} noValidate>
          <Field label="Namespace" error={errors.fields.namespace} help="Your own namespace or a group you can create projects in.">
            {(props) => (
              <select
                {...props}
                className="input"
                value={namespaceId || defaultNamespace}
                onChange={(e) => setNamespaceId(e.currentTarget.value)}
              >
                {choices.map((n) => (
                  <option key={n.id} value={n.id}>
                    {namespaceLabel(n, user.username)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div className="prj-grid-2">
            <Field label="Name (optional)" error={errors.fields.name}>
              {(props) => (
                <input
                  {...props}
                  className="input"
                  value={name}
                  placeholder={project.name}
                  onChange={(e) => setName(e.currentTarget.value)}
                  autoComplete="off"
                />
              )}
            </Field>
            <Field label="Path (optional)" error={errors.fields.path}>
              {(props) => (
                <input
                  {...props}
                  className="input mono"
                  value={path}
                  placeholder={project.path}
                  onChange={(e) => setPath(e.currentTarget.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
              )}
            </Field>
          </div>
          <InlineProblem>{errors.general}</InlineProblem>
          <div className="actions">
            <SubmitButton pending={fork.isPending} busyLabel="Forking…">
              Fork project
            </SubmitButton>
          </div>
        </form>
      ) : null}
      {fork.data ? <ForkProgress key={fork.data.id} fork={fork.data} /> : null}
    </Panel>
  );
}
