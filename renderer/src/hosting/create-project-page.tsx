import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { createProject, listNamespaces } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { Panel } from '../ui/panel';
import { Busy, Problem } from '../ui/status';
import { ProjectForm } from './project-form';
import { emptyProjectForm } from './project-form-model';
import { hostingKeys } from './widgets';

/** New project: the form, then the project's page with its clone instructions. */
export function CreateProjectPage() {
  const { token, user } = useSignedIn();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const namespaces = useQuery({ queryKey: hostingKeys.namespaces, queryFn: ({ signal }) => listNamespaces(token, signal) });
  // The person's own namespace first, as GitLab preselects it.
  const own = namespaces.data?.find((n) => n.kind === 'user' && n.path === user.username) ?? namespaces.data?.[0] ?? null;

  return (
    <Panel title="New project">
      <p className="prj-lead">
        A project is a git repository on this server with GitLab's project settings. Create it here, then push to it from your computer.
      </p>
      {namespaces.isPending ? <Busy>Loading your namespaces…</Busy> : null}
      {namespaces.isError ? (
        <Problem title="Could not load your namespaces.">
          <p>{namespaces.error.message}</p>
        </Problem>
      ) : null}
      {namespaces.data ? (
        <ProjectForm
          mode="create"
          initial={emptyProjectForm(own?.id ?? null)}
          namespaces={namespaces.data}
          submitLabel="Create project"
          onSubmit={(payload) => createProject(token, payload)}
          onDone={(project) => {
            void queryClient.invalidateQueries({ queryKey: hostingKeys.projects });
            queryClient.setQueryData(hostingKeys.project(project.id), project);
            void navigate(`/projects/${project.id}`, { state: { created: true } });
          }}
        />
      ) : null}
    </Panel>
  );
}
