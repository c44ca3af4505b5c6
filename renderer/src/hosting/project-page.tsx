import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, NavLink, Navigate, Route, Routes, useParams } from 'react-router';
import { getProject, isStarred, setStarred, type Project } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { Busy, Pill, Problem } from '../ui/status';
import { ExportTab } from './export-tab';
import { importRunning, pollDelay } from './import-status';
import { FilesTab } from './files/files-tab';
import { ForkTab } from './fork-tab';
import { HooksTab } from './hooks-tab';
import { ProjectOverview } from './project-overview';
import { VisibilityPill } from './project-list-page';
import { ProjectSettingsTab } from './project-settings-tab';
import { ShareTab } from './share-tab';
import { hostingKeys, InlineProblem } from './widgets';

const tabs = [
  { to: '', label: 'Overview' },
  { to: 'files', label: 'Files' },
  { to: 'edit', label: 'Settings' },
  { to: 'share', label: 'Sharing' },
  { to: 'hooks', label: 'Hooks' },
  { to: 'export', label: 'Export' },
  { to: 'fork', label: 'Fork' },
] as const;

function StarButton({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const queryClient = useQueryClient();
  const starred = useQuery({ queryKey: hostingKeys.starred(project.id), queryFn: ({ signal }) => isStarred(token, project.id, signal) });
  const toggle = useMutation({
    mutationFn: (value: boolean) => setStarred(token, project.id, value),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: hostingKeys.starred(project.id) }),
        queryClient.invalidateQueries({ queryKey: hostingKeys.project(project.id) }),
        queryClient.invalidateQueries({ queryKey: hostingKeys.projects }),
      ]),
  });
  const on = starred.data === true;
  return (
    <div className="prj-star">
      <button
        type="button"
        className={`button button-secondary prj-small-button${on ? ' prj-starred' : ''}`}
        aria-pressed={on}
        aria-disabled={toggle.isPending || starred.isPending}
        onClick={() => !toggle.isPending && !starred.isPending && toggle.mutate(!on)}
      >
        <span aria-hidden="true">{on ? '★' : '☆'}</span> {on ? 'Starred' : 'Star'}
        <span className="prj-count" aria-label={`${project.star_count} stars`}>
          {project.star_count}
        </span>
      </button>
      <InlineProblem>{toggle.error?.message}</InlineProblem>
    </div>
  );
}

/** One project: its header, star, tabs (overview, files, settings, sharing, hooks, export, fork). */
export function ProjectPage() {
  const { token } = useSignedIn();
  const id = Number(useParams().id);
  const project = useQuery({
    queryKey: hostingKeys.project(id),
    queryFn: ({ signal }) => getProject(token, id, signal),
    enabled: Number.isInteger(id) && id > 0,
    // A fork or an import fills the repository in the background: watch it until it is done.
    refetchInterval: (query) => (importRunning(query.state.data?.import_status) ? pollDelay(query.state.dataUpdateCount) : false),
  });
  if (!Number.isInteger(id) || id <= 0) return <Navigate to="/projects" replace />;
  if (project.isPending) return <Busy>Loading the project…</Busy>;
  if (project.isError)
    return (
      <Problem title="Could not load this project.">
        <p>{project.error.message}</p>
        <p>
          <Link to="/projects">Back to all projects</Link>
        </p>
      </Problem>
    );
  const p = project.data;
  return (
    <div className="prj-project">
      <header className="prj-project-header">
        <div className="prj-project-heading">
          <p className="prj-breadcrumb">
            <Link to="/projects">Projects</Link> <span aria-hidden="true">/</span> <span className="mono">{p.namespace.full_path}</span>
          </p>
          <h2 className="prj-project-title">{p.name}</h2>
          <div className="prj-row prj-pills">
            <VisibilityPill visibility={p.visibility} />
            {p.archived ? <Pill tone="warn">Archived</Pill> : null}
            {importRunning(p.import_status) ? <Pill tone="warn">Import {p.import_status}</Pill> : null}
            {p.import_status === 'failed' ? <Pill tone="bad">Import failed</Pill> : null}
            {p.forked_from_project ? (
              <span className="muted small">
                Forked from <Link to={`/projects/${p.forked_from_project.id}`}>{p.forked_from_project.path_with_namespace}</Link>
              </span>
            ) : null}
          </div>
          {p.description ? <p className="prj-project-desc">{p.description}</p> : null}
        </div>
        <StarButton project={p} />
      </header>
      <nav className="prj-tabs" aria-label="Project">
        {tabs.map((tab) => (
          <NavLink key={tab.to} to={tab.to === '' ? `/projects/${p.id}` : `/projects/${p.id}/${tab.to}`} end className="prj-tab">
            {tab.label}
          </NavLink>
        ))}
      </nav>
      <Routes>
        <Route index element={<ProjectOverview project={p} />} />
        <Route path="files" element={<FilesTab key={p.id} project={p} />} />
        <Route path="edit" element={<ProjectSettingsTab key={p.id} project={p} />} />
        <Route path="share" element={<ShareTab project={p} />} />
        <Route path="hooks" element={<HooksTab project={p} />} />
        <Route path="export" element={<ExportTab project={p} />} />
        <Route path="fork" element={<ForkTab project={p} />} />
        <Route path="*" element={<Navigate to={`/projects/${p.id}`} replace />} />
      </Routes>
    </div>
  );
}
