import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import type { Project } from '../../api/hosting';
import { ApiError } from '../../api/http';
import { getRawFile, listBranches, listTags, listTree, type RepositoryTreeEntry } from '../../api/repository';
import { useSignedIn } from '../../lib/session-context';
import { Busy, Problem } from '../../ui/status';
import { AddFiles } from './add-files';
import { LatestCommit } from './commit-line';
import { FileView } from './file-view';
import { breadcrumbOf, fileKindOf, findReadme, sortEntries } from './file-kinds';
import { FileSize } from './file-size';
import { MarkdownView } from './markdown-view';
import { repositoryKeys } from './repository-keys';
import './files.css';

/** The link to a folder or file of the Files tab at a ref. */
export function filesLink(projectId: number, ref: string, target: { readonly path?: string; readonly file?: string }): string {
  const query = new URLSearchParams({ ref });
  if (target.path) query.set('path', target.path);
  if (target.file) query.set('file', target.file);
  return `/projects/${projectId}/files?${query.toString()}`;
}

/** Branch and tag picker; changing it keeps the folder when the other ref has it (the listing says when not). */
function useRefs(projectId: number) {
  const { token } = useSignedIn();
  return useQuery({
    queryKey: repositoryKeys.refs(projectId),
    queryFn: async ({ signal }) => {
      const [branches, tags] = await Promise.all([listBranches(token, projectId, signal), listTags(token, projectId, signal)]);
      return { branches, tags };
    },
  });
}

function RefPicker({
  project,
  current,
  onChange,
}: {
  readonly project: Project;
  readonly current: string;
  readonly onChange: (ref: string) => void;
}) {
  const refs = useRefs(project.id);
  const branches = refs.data?.branches.map((b) => b.name) ?? [];
  const tags = refs.data?.tags.map((t) => t.name) ?? [];
  const known = branches.includes(current) || tags.includes(current);
  return (
    <label className="fl-ref">
      <span className="visually-hidden">Branch or tag</span>
      <span aria-hidden="true" className="fl-ref-icon">
        ⎇
      </span>
      <select
        className="input fl-ref-select"
        value={current}
        onChange={(event) => onChange(event.currentTarget.value)}
        aria-busy={refs.isPending}
      >
        {!known ? <option value={current}>{current}</option> : null}
        {branches.length > 0 ? (
          <optgroup label="Branches">
            {branches.map((name) => (
              <option key={`b:${name}`} value={name}>
                {name}
              </option>
            ))}
          </optgroup>
        ) : null}
        {tags.length > 0 ? (
          <optgroup label="Tags">
            {tags.map((name) => (
              <option key={`t:${name}`} value={name}>
                {name}
              </option>
            ))}
          </optgroup>
        ) : null}
      </select>
    </label>
  );
}

/** Projects › folder › folder, each a link; the last one is the current place. */
function Breadcrumb({ project, refName, path }: { readonly project: Project; readonly refName: string; readonly path: string }) {
  const crumbs = breadcrumbOf(path);
  return (
    <nav aria-label="Folder" className="fl-crumbs">
      <ol>
        <li>
          {crumbs.length === 0 ? (
            <span aria-current="page">{project.path}</span>
          ) : (
            <Link to={filesLink(project.id, refName, {})}>{project.path}</Link>
          )}
        </li>
        {crumbs.map((crumb, i) => (
          <li key={crumb.path}>
            {i === crumbs.length - 1 ? (
              <span aria-current="page">{crumb.name}</span>
            ) : (
              <Link to={filesLink(project.id, refName, { path: crumb.path })}>{crumb.name}</Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

function EntryIcon({ entry }: { readonly entry: RepositoryTreeEntry }) {
  const kind = entry.type === 'tree' ? 'folder' : entry.type === 'commit' ? 'module' : fileKindOf(entry.name);
  const glyph = { folder: '📁', module: '⧉', audio: '♪', image: '▣', other: '▤' }[kind];
  return (
    <span className={`fl-icon fl-icon-${kind}`} aria-hidden="true">
      {glyph}
    </span>
  );
}

/** Sizes are a HEAD request each: asked for only in folders this small. */
const sizeLimit = 60;

function Listing({
  project,
  refName,
  entries,
}: {
  readonly project: Project;
  readonly refName: string;
  readonly entries: readonly RepositoryTreeEntry[];
}) {
  const sorted = sortEntries(entries);
  const withSizes = sorted.filter((e) => e.type === 'blob').length <= sizeLimit;
  return (
    <ul className="fl-list" aria-label="Files">
      {sorted.map((entry) => (
        <li key={entry.path} className="fl-row">
          <EntryIcon entry={entry} />
          {entry.type === 'commit' ? (
            <span className="fl-name" title="A submodule: its files live in another repository">
              {entry.name} <span className="muted small">(submodule)</span>
            </span>
          ) : (
            <Link
              className="fl-name"
              to={filesLink(project.id, refName, entry.type === 'tree' ? { path: entry.path } : { file: entry.path })}
            >
              {entry.name}
              {entry.type === 'tree' ? '/' : ''}
            </Link>
          )}
          <span className="fl-size muted mono">
            {entry.type === 'blob' && withSizes ? <FileSize projectId={project.id} refName={refName} path={entry.path} /> : null}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Readme({ project, refName, entry }: { readonly project: Project; readonly refName: string; readonly entry: RepositoryTreeEntry }) {
  const { token } = useSignedIn();
  const text = useQuery({
    queryKey: repositoryKeys.text(project.id, refName, entry.path),
    queryFn: async ({ signal }) => (await getRawFile(token, project.id, refName, entry.path, signal)).text(),
  });
  return (
    <section className="panel fl-readme" aria-label={entry.name}>
      <header className="panel-header">
        <h3 className="fl-readme-title">
          <span aria-hidden="true">▤ </span>
          {entry.name}
        </h3>
      </header>
      {text.isPending ? <Busy>Loading {entry.name}…</Busy> : null}
      {text.isError ? <p className="fl-problem">{text.error.message}</p> : null}
      {text.data !== undefined ? <MarkdownView source={text.data} /> : null}
    </section>
  );
}

/** The Files tab: browse the repository at a branch or tag, open files, add files by dropping them. */
export function FilesTab({ project }: { readonly project: Project }) {
  const { token } = useSignedIn();
  const [search, setSearch] = useSearchParams();
  const refName = search.get('ref') || project.default_branch || 'main';
  const path = search.get('path') ?? '';
  const file = search.get('file');
  const tree = useQuery({
    queryKey: repositoryKeys.tree(project.id, refName, path),
    queryFn: ({ signal }) => listTree(token, project.id, refName, path, signal),
    enabled: file === null,
  });
  const refs = useRefs(project.id);
  // Commits go to branches only; an empty repository has none yet, and its first commit makes one.
  const onBranch = refs.data ? refs.data.branches.some((b) => b.name === refName) || refs.data.branches.length === 0 : false;
  const changeRef = (ref: string) => {
    const next = new URLSearchParams(search);
    next.set('ref', ref);
    setSearch(next);
  };
  // An empty repository answers 404 for its tree: that is "no files yet", not a problem.
  const empty = tree.error instanceof ApiError && tree.error.status === 404 && path === '' && project.empty_repo;
  const entries = tree.data ?? [];
  const readme = findReadme(entries);

  return (
    <div className="fl-tab">
      <div className="fl-bar">
        <RefPicker project={project} current={refName} onChange={changeRef} />
        <Breadcrumb project={project} refName={refName} path={file ?? path} />
      </div>
      {file !== null ? (
        <FileView key={`${refName}:${file}`} project={project} refName={refName} path={file} />
      ) : (
        <>
          {tree.isPending ? <Busy>Loading the files…</Busy> : null}
          {tree.isError && !empty ? (
            <Problem title="Could not list this folder.">
              <p>{tree.error.message}</p>
            </Problem>
          ) : null}
          {empty ? <p className="fl-empty muted">No files yet. Drop stems below to make the first commit.</p> : null}
          {tree.data ? <LatestCommit projectId={project.id} refName={refName} path={path} /> : null}
          {tree.data ? (
            entries.length > 0 ? (
              <Listing project={project} refName={refName} entries={entries} />
            ) : (
              <p className="fl-empty muted">This folder is empty.</p>
            )
          ) : null}
          {project.archived ? null : onBranch ? (
            tree.data || empty ? (
              <AddFiles project={project} branch={refName} folder={path} entries={entries} />
            ) : null
          ) : refs.data ? (
            <p className="fl-empty muted">{refName} is not a branch: switch to a branch to add files.</p>
          ) : null}
          {readme ? <Readme project={project} refName={refName} entry={readme} /> : null}
        </>
      )}
    </div>
  );
}
