import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { listGroups, listProjects } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Busy } from '../ui/status';
import { BadgeManager } from './badge-widgets';
import { hostingKeys, InlineProblem } from './widgets';

/**
 * Badges of a group (shown on all its projects) or of one project (its own, listed after the ones it
 * inherits). `?project=<id>` picks a project's badges, else `?group=<id>` (or the first group) a group's.
 */
export function BadgesPage() {
  const { token } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const groups = useQuery({ queryKey: hostingKeys.groups, queryFn: ({ signal }) => listGroups(token, {}, signal) });
  const projects = useQuery({
    queryKey: [...hostingKeys.projects, 'badges-choice'],
    queryFn: ({ signal }) => listProjects(token, { page: 1, per_page: 100, order_by: 'name', sort: 'asc' }, signal),
  });
  const selectId = useId();
  const groupList = groups.data ?? [];
  const projectList = projects.data?.items ?? [];
  const kind: 'group' | 'project' = params.has('project') || (groups.isSuccess && groupList.length === 0) ? 'project' : 'group';
  const chosenGroup = groupList.find((g) => String(g.id) === params.get('group')) ?? groupList[0] ?? null;
  const chosenProject = projectList.find((p) => String(p.id) === params.get('project')) ?? projectList[0] ?? null;
  const options =
    kind === 'group'
      ? groupList.map((g) => ({ id: g.id, label: g.full_path }))
      : projectList.map((p) => ({ id: p.id, label: p.path_with_namespace }));
  const chosenId = kind === 'group' ? chosenGroup?.id : chosenProject?.id;
  const loading = kind === 'group' ? groups.isPending : projects.isPending;
  const failure = kind === 'group' ? groups.error : projects.error;
  return (
    <div className="stack">
      <Panel title="Whose badges">
        <div className="prj-badge-kinds" role="group" aria-label="Badges of">
          {(['group', 'project'] as const).map((k) => (
            <button
              key={k}
              type="button"
              className="prj-tab"
              aria-pressed={kind === k}
              onClick={() =>
                setParams(
                  k === 'group' ? (chosenGroup ? { group: String(chosenGroup.id) } : {}) : { project: String(chosenProject?.id ?? '') },
                )
              }
            >
              {k === 'group' ? 'A group' : 'A project'}
            </button>
          ))}
        </div>
        {loading ? <Busy>{kind === 'group' ? 'Loading groups…' : 'Loading projects…'}</Busy> : null}
        {failure ? <InlineProblem>{failure.message}</InlineProblem> : null}
        {!loading && !failure && options.length === 0 ? (
          kind === 'group' ? (
            <EmptyState title="You are in no group yet.">
              <p>
                Group badges show on every project of a group. <Link to="/projects/groups">Create a group</Link>, then come back here.
              </p>
            </EmptyState>
          ) : (
            <EmptyState title="No project yet.">
              <p>
                <Link to="/projects/new">Create a project</Link>, then give it badges here.
              </p>
            </EmptyState>
          )
        ) : null}
        {options.length > 0 ? (
          <div className="prj-field prj-form-narrow">
            <label className="label" htmlFor={selectId}>
              {kind === 'group' ? 'Group' : 'Project'}
            </label>
            <select id={selectId} className="input" value={chosenId ?? ''} onChange={(e) => setParams({ [kind]: e.currentTarget.value })}>
              {options.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.label}
                </option>
              ))}
            </select>
            <p className="prj-help">
              {kind === 'group'
                ? 'Badges show on every project of the group.'
                : "The project's own badges; the badges of its groups show with them and are changed on the group."}{' '}
              <Link to="/projects">Back to the projects</Link>
            </p>
          </div>
        ) : null}
      </Panel>
      {kind === 'group' && chosenGroup ? (
        <BadgeManager
          key={`g${chosenGroup.id}`}
          owner={{ kind: 'group', id: chosenGroup.id }}
          title={`Badges of ${chosenGroup.full_path}`}
        />
      ) : null}
      {kind === 'project' && chosenProject ? (
        <BadgeManager
          key={`p${chosenProject.id}`}
          owner={{ kind: 'project', id: chosenProject.id }}
          title={`Badges of ${chosenProject.name}`}
        />
      ) : null}
    </div>
  );
}
