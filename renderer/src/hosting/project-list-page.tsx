import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { listProjects, type Project } from '../api/hosting';
import { useSignedIn } from '../lib/session-context';
import { EmptyState, Panel } from '../ui/panel';
import { Busy, Pill, Problem } from '../ui/status';
import { formatWhen, isFiltered, listQueryOf, orderings, pageSizes, withListChange } from './project-list-query';
import { hostingKeys, useNow } from './widgets';

/** The visibility of a project as a pill. */
export function VisibilityPill({ visibility }: { readonly visibility: Project['visibility'] }) {
  const label = visibility === 'public' ? 'Public' : visibility === 'internal' ? 'Internal' : 'Private';
  return <Pill tone={visibility === 'public' ? 'ok' : visibility === 'internal' ? 'warn' : 'neutral'}>{label}</Pill>;
}

function SearchBox({ value, onSearch }: { readonly value: string; readonly onSearch: (value: string) => void }) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  const id = useId();
  // The address changed under the box (Clear the filters, Back): show what the address says.
  if (value !== shown) {
    setShown(value);
    if (value !== text.trim()) setText(value);
  }
  // Ask the server once typing pauses, not on every key.
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onSearch(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text, value, onSearch]);
  return (
    <div className="prj-filter prj-filter-search">
      <label className="label" htmlFor={id}>
        Search
      </label>
      <input
        id={id}
        className="input"
        type="search"
        value={text}
        placeholder="Name, path or description"
        onChange={(event) => setText(event.currentTarget.value)}
      />
    </div>
  );
}

/** The project list: search, filters, sort and GitLab's pagination, all kept in the address. */
export function ProjectListPage() {
  const { token } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const query = listQueryOf(params);
  const ids = { archived: useId(), visibility: useId(), order: useId(), sort: useId(), perPage: useId() };
  const list = useQuery({
    queryKey: [...hostingKeys.projects, query],
    queryFn: ({ signal }) => listProjects(token, query, signal),
    placeholderData: keepPreviousData,
  });
  const change = (values: Record<string, string | null>) => setParams(withListChange(params, values));
  const onSearch = useCallback((search: string) => setParams((current) => withListChange(current, { search })), [setParams]);
  const now = useNow();
  const page = list.data?.page;

  return (
    <Panel
      title="All projects"
      busy={list.isFetching}
      actions={
        <>
          <Link className="button button-secondary prj-small-button" to="/projects/import">
            Import archive
          </Link>
          <Link className="button button-primary prj-small-button" to="/projects/new">
            New project
          </Link>
        </>
      }
    >
      <div className="prj-filters" role="search" aria-label="Filter projects">
        <SearchBox value={query.search ?? ''} onSearch={onSearch} />
        <div className="prj-filter">
          <label className="label" htmlFor={ids.archived}>
            Archived
          </label>
          <select
            id={ids.archived}
            className="input"
            value={query.archived === undefined ? '' : String(query.archived)}
            onChange={(e) => change({ archived: e.currentTarget.value })}
          >
            <option value="">All projects</option>
            <option value="false">Active only</option>
            <option value="true">Archived only</option>
          </select>
        </div>
        <div className="prj-filter">
          <label className="label" htmlFor={ids.visibility}>
            Visibility
          </label>
          <select
            id={ids.visibility}
            className="input"
            value={query.visibility ?? ''}
            onChange={(e) => change({ visibility: e.currentTarget.value })}
          >
            <option value="">Any</option>
            <option value="private">Private</option>
            <option value="internal">Internal</option>
            <option value="public">Public</option>
          </select>
        </div>
        <div className="prj-filter">
          <label className="label" htmlFor={ids.order}>
            Sort by
          </label>
          <select id={ids.order} className="input" value={query.order_by} onChange={(e) => change({ order_by: e.currentTarget.value })}>
            {orderings.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div className="prj-filter">
          <label className="label" htmlFor={ids.sort}>
            Order
          </label>
          <select id={ids.sort} className="input" value={query.sort} onChange={(e) => change({ sort: e.currentTarget.value })}>
            <option value="desc">Descending</option>
            <option value="asc">Ascending</option>
          </select>
        </div>
        <div className="prj-filter prj-filter-checks">
          <label className="prj-check">
            <input
              type="checkbox"
              checked={Boolean(query.starred)}
              onChange={(e) => change({ starred: e.currentTarget.checked ? 'true' : null })}
            />{' '}
            Starred
          </label>
          <label className="prj-check">
            <input
              type="checkbox"
              checked={Boolean(query.owned)}
              onChange={(e) => change({ owned: e.currentTarget.checked ? 'true' : null })}
            />{' '}
            Owned by me
          </label>
        </div>
      </div>

      {list.isPending ? <Busy>Loading projects…</Busy> : null}
      {list.isError ? (
        <Problem title="Could not load the projects.">
          <p>{list.error.message}</p>
        </Problem>
      ) : null}

      {list.data && list.data.items.length === 0 ? (
        isFiltered(query) ? (
          <EmptyState title="No projects match these filters.">
            <button type="button" className="button button-secondary prj-small-button" onClick={() => setParams(new URLSearchParams())}>
              Clear the filters
            </button>
          </EmptyState>
        ) : (
          <EmptyState title="No projects yet.">
            <p>
              Create a project to get a git repository you can clone and push your sessions to, or import a project archive exported from
              Cratehouse or GitLab.
            </p>
            <div className="prj-row prj-center">
              <Link className="button button-primary" to="/projects/new">
                Create a project
              </Link>
              <Link className="button button-secondary" to="/projects/import">
                Import an archive
              </Link>
            </div>
          </EmptyState>
        )
      ) : null}

      {list.data && list.data.items.length > 0 ? (
        <div className="prj-table-wrap">
          <table className="data prj-table">
            <caption className="visually-hidden">Projects</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col">Visibility</th>
                <th scope="col" className="num">
                  Stars
                </th>
                <th scope="col" className="num">
                  Forks
                </th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((project) => (
                <tr key={project.id}>
                  <td className="prj-cell-project">
                    <Link to={`/projects/${project.id}`} className="prj-project-link">
                      <span className="prj-ns">{project.namespace.full_path} /</span> {project.name}
                    </Link>
                    {project.archived ? <span className="prj-tag">Archived</span> : null}
                    {project.forked_from_project ? <span className="prj-tag">Fork</span> : null}
                    {project.description ? <span className="prj-desc">{project.description}</span> : null}
                  </td>
                  <td className="prj-cell-visibility">
                    <VisibilityPill visibility={project.visibility} />
                  </td>
                  <td className="num" data-label="Stars">
                    {project.star_count}
                  </td>
                  <td className="num" data-label="Forks">
                    {project.forks_count}
                  </td>
                  <td data-label="Active">
                    <time dateTime={project.last_activity_at}>{formatWhen(project.last_activity_at, now)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}

      {page && list.data && list.data.items.length > 0 ? (
        <nav className="prj-pager" aria-label="Pages">
          <p className="muted" aria-live="polite">
            Page {page.page}
            {page.totalPages !== null ? ` of ${Math.max(1, page.totalPages)}` : ''}
            {page.total !== null ? ` · ${page.total} project${page.total === 1 ? '' : 's'}` : ''}
          </p>
          <div className="prj-row">
            <label className="prj-inline-label" htmlFor={ids.perPage}>
              Per page
            </label>
            <select
              id={ids.perPage}
              className="input prj-narrow"
              value={query.per_page}
              onChange={(e) => change({ per_page: e.currentTarget.value })}
            >
              {pageSizes.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </select>
            <button
              type="button"
              className="button button-secondary prj-small-button"
              disabled={page.prev === null}
              onClick={() => page.prev !== null && change({ page: String(page.prev) })}
            >
              Previous
            </button>
            <button
              type="button"
              className="button button-secondary prj-small-button"
              disabled={page.next === null}
              onClick={() => page.next !== null && change({ page: String(page.next) })}
            >
              Next
            </button>
          </div>
        </nav>
      ) : null}
    </Panel>
  );
}
