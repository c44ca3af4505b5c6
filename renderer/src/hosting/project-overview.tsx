import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router';
import {
  deleteProject,
  getProjectNotifications,
  setArchived,
  setProjectNotifications,
  type NotificationLevelName,
  type Project,
} from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { CopyButton } from '../ui/copy-button';
import { Fact } from '../ui/fact';
import { Panel } from '../ui/panel';
import { ProgressBar } from '../ui/progress-bar';
import { Busy, Problem } from '../ui/status';
import { ConfirmDialog, useConfirmedMutation } from './confirm-dialog';
import { NotificationLevelSelect } from './notification-level';
import { importRunning } from './import-status';
import { formatWhen } from './project-list-query';
import { accessLevelName, hostingKeys, InlineProblem, useNow } from './widgets';
import { dayOf, shareState } from './share-expiry';

/** The commands that put a local folder into an empty project (GitLab's "push an existing folder"). */
export function pushInstructions(project: Pick<Project, 'http_url_to_repo' | 'default_branch'>): string {
  const branch = project.default_branch || 'main';
  return [
    `cd my-session`,
    `git init --initial-branch=${branch}`,
    `git remote add origin ${project.http_url_to_repo}`,
    'git add .',
    'git commit -m "First take"',
    `git push --set-upstream origin ${branch}`,
  ].join('\n');
}

function ClonePanel({ project, justCreated }: { readonly project: Project; readonly justCreated: boolean }) {
  return (
    <Panel title="Clone">
      {justCreated ? (
        <p className="prj-status prj-status-ok" role="status">
          Project {project.path_with_namespace} created.
        </p>
      ) : null}
      <label className="label" htmlFor={`clone-${project.id}`}>
        Clone with HTTP
      </label>
      <div className="token-row">
        <input
          id={`clone-${project.id}`}
          className="input mono"
          readOnly
          value={project.http_url_to_repo}
          onFocus={(e) => e.currentTarget.select()}
        />
        <CopyButton text={project.http_url_to_repo} label="Copy URL" />
      </div>
      <p className="prj-help">When git asks for a password, give it a personal access token (any user name works).</p>
      {project.empty_repo ? (
        <div className="prj-instructions">
          <p className="prj-subtitle">The repository is empty. Push an existing folder:</p>
          <pre className="code-block">{pushInstructions(project)}</pre>
          <p className="prj-subtitle">Or clone it and start there:</p>
          <pre className="code-block">{`git clone ${project.http_url_to_repo}`}</pre>
        </div>
      ) : (
        <pre className="code-block">{`git clone ${project.http_url_to_repo}`}</pre>
      )}
    </Panel>
  );
}

function ImportWatch({ project }: { readonly project: Project }) {
  if (project.import_status === 'failed')
    return (
      <Problem title="The import failed.">
        <p>{project.import_error ?? 'Ask a maintainer to check the import status for more details.'}</p>
      </Problem>
    );
  if (!importRunning(project.import_status)) return null;
  return (
    <Panel title="Import">
      <ProgressBar
        label={project.import_status === 'scheduled' ? 'Waiting to start' : 'Copying the repository'}
        value={null}
        detail={`import_status: ${project.import_status}`}
      />
    </Panel>
  );
}

function NotificationPanel({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const setting = useQuery({
    queryKey: hostingKeys.projectNotifications(project.id),
    queryFn: ({ signal }) => getProjectNotifications(token, project.id, signal),
  });
  const save = useMutation({
    mutationFn: (level: NotificationLevelName) => setProjectNotifications(token, project.id, level),
    onSuccess: (data) => queryClient.setQueryData(hostingKeys.projectNotifications(project.id), data),
  });
  return (
    <Panel title="Notifications">
      {setting.isPending ? <Busy>Loading…</Busy> : null}
      {setting.isError ? <InlineProblem>{setting.error.message}</InlineProblem> : null}
      {setting.data ? (
        <NotificationLevelSelect
          label="Notification level for this project"
          scope="project"
          value={save.variables && save.isPending ? save.variables : setting.data.level}
          busy={save.isPending}
          onChange={(level) => save.mutate(level)}
        />
      ) : null}
      <InlineProblem>{save.error?.message}</InlineProblem>
      {save.isSuccess ? (
        <p className="prj-status prj-status-ok" role="status">
          Saved: {save.data.level}.
        </p>
      ) : null}
      <p className="prj-help">
        <Link to="/projects/notifications">Your global level</Link> applies where a project says Global.
      </p>
    </Panel>
  );
}

function DangerZone({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  // Archiving asks first (archive.ask(true)); unarchiving does not (archive.mutation.mutate(false)).
  const archive = useConfirmedMutation({
    mutationFn: (value: boolean) => setArchived(token, project.id, value),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: hostingKeys.project(project.id) }),
        queryClient.invalidateQueries({ queryKey: hostingKeys.projects }),
      ]);
    },
  });
  const remove = useConfirmedMutation({
    mutationFn: (target: Project) => deleteProject(token, target.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: hostingKeys.project(project.id) });
      await queryClient.invalidateQueries({ queryKey: hostingKeys.projects });
      void navigate('/projects', { state: { deleted: project.path_with_namespace } });
    },
  });
  return (
    <Panel title="Archive or delete" className="prj-danger">
      <div className="prj-danger-row">
        <div>
          <p className="prj-subtitle">{project.archived ? 'Unarchive project' : 'Archive project'}</p>
          <p className="prj-help">
            {project.archived
              ? 'Pushes are accepted again.'
              : 'The repository becomes read-only: pushes are refused until you unarchive it.'}
          </p>
        </div>
        <button
          type="button"
          className="button button-secondary prj-small-button"
          aria-disabled={archive.mutation.isPending}
          onClick={() => (project.archived ? !archive.mutation.isPending && archive.mutation.mutate(false) : archive.ask(true))}
        >
          {project.archived ? (archive.mutation.isPending ? 'Unarchiving…' : 'Unarchive') : 'Archive…'}
        </button>
      </div>
      {!archive.dialog.open && !remove.dialog.open ? <InlineProblem>{archive.mutation.error?.message}</InlineProblem> : null}
      <div className="prj-danger-row">
        <div>
          <p className="prj-subtitle">Delete project</p>
          <p className="prj-help">Removes the repository, its uploads, stars, shares and hooks. This cannot be undone.</p>
        </div>
        <button type="button" className="button prj-danger-button prj-small-button" onClick={() => remove.ask(project)}>
          Delete…
        </button>
      </div>
      <ConfirmDialog {...archive.dialog} title="Archive this project?" confirmLabel="Archive">
        <p>
          <strong>{project.path_with_namespace}</strong> becomes read-only: pushes are refused until it is unarchived.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        {...remove.dialog}
        title="Delete this project?"
        confirmLabel="Delete project"
        typeToConfirm={project.path_with_namespace}
      >
        <p>
          This deletes <strong>{project.name_with_namespace}</strong>, its repository and everything attached to it. Forks keep their copies
          but forget their parent.
        </p>
      </ConfirmDialog>
    </Panel>
  );
}

/** Overview: clone URL and instructions, facts, the import's progress, notifications, archive and delete. */
export function ProjectOverview({ project }: { readonly project: Project }) {
  const location = useLocation();
  const justCreated = (location.state as { created?: boolean } | null)?.created === true;
  const now = useNow();
  return (
    <div className="prj-two">
      <div className="stack">
        <ImportWatch project={project} />
        <ClonePanel project={project} justCreated={justCreated} />
        <Panel title="About">
          <dl className="facts">
            <Fact term="Project ID">
              <span className="mono">{project.id}</span>
            </Fact>
            <Fact term="Path">
              <span className="mono truncate">{project.path_with_namespace}</span>
            </Fact>
            <Fact term="Default branch">
              <span className="mono">{project.default_branch}</span>
            </Fact>
            <Fact term="Topics">
              {project.topics.length > 0 ? (
                project.topics.map((t) => (
                  <span key={t} className="prj-tag">
                    {t}
                  </span>
                ))
              ) : (
                <span className="muted">None</span>
              )}
            </Fact>
            <Fact term="Created">
              <time dateTime={project.created_at}>{formatWhen(project.created_at, now)}</time>
            </Fact>
            <Fact term="Last activity">
              <time dateTime={project.last_activity_at}>{formatWhen(project.last_activity_at, now)}</time>
            </Fact>
            <Fact term="Stars and forks">
              {project.star_count} star{project.star_count === 1 ? '' : 's'}, {project.forks_count} fork
              {project.forks_count === 1 ? '' : 's'}
            </Fact>
            <Fact term="Shared with">
              {project.shared_with_groups.length > 0 ? (
                <span className="truncate">
                  {project.shared_with_groups
                    .map((g) =>
                      shareState(g.expires_at, dayOf(new Date())) === 'expired'
                        ? `${g.group_full_path} (expired ${g.expires_at})`
                        : `${g.group_full_path} (${accessLevelName(g.group_access_level)})`,
                    )
                    .join(', ')}
                </span>
              ) : (
                <span className="muted">No groups</span>
              )}
            </Fact>
          </dl>
        </Panel>
      </div>
      <div className="stack">
        <NotificationPanel project={project} />
        <DangerZone project={project} />
      </div>
    </div>
  );
}
