import { useQuery } from '@tanstack/react-query';
import { listCommits, type Commit } from '../../api/repository';
import { useSignedIn } from '../../lib/session-context';
import { repositoryKeys } from './repository-keys';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** One commit in a line: title, short id, author and date. */
export function CommitSummary({ commit }: { readonly commit: Commit }) {
  return (
    <>
      <span className="fl-commit-title">{commit.title}</span>
      <span className="fl-commit-meta muted small">
        <span className="mono">{commit.short_id}</span> · {commit.author_name} ·{' '}
        <time dateTime={commit.committed_date}>{dateFormat.format(new Date(commit.committed_date))}</time>
      </span>
    </>
  );
}

/** The commits that touched a path on a ref (the whole ref for ""), newest first. */
export function useCommits(projectId: number, refName: string, path: string) {
  const { token } = useSignedIn();
  return useQuery({
    queryKey: repositoryKeys.commits(projectId, refName, path),
    queryFn: ({ signal }) => listCommits(token, projectId, { ref: refName, path: path || undefined }, signal),
  });
}

/** The last commit of a folder, above its listing. */
export function LatestCommit({
  projectId,
  refName,
  path,
}: {
  readonly projectId: number;
  readonly refName: string;
  readonly path: string;
}) {
  const commits = useCommits(projectId, refName, path);
  const latest = commits.data?.[0];
  if (!latest) return null;
  return (
    <p className="fl-latest" data-testid="latest-commit">
      <CommitSummary commit={latest} />
    </p>
  );
}

/** A file's history: the commits that changed it. */
export function FileHistory({ projectId, refName, path }: { readonly projectId: number; readonly refName: string; readonly path: string }) {
  const commits = useCommits(projectId, refName, path);
  return (
    <section className="panel fl-history" aria-label="History">
      <header className="panel-header">
        <h3>History</h3>
      </header>
      {commits.isPending ? <p className="muted">Loading the history…</p> : null}
      {commits.isError ? <p className="fl-problem">{commits.error.message}</p> : null}
      {commits.data ? (
        commits.data.length === 0 ? (
          <p className="muted">No commits on this ref touch this file.</p>
        ) : (
          <ol className="fl-commits">
            {commits.data.map((commit) => (
              <li key={commit.id}>
                <CommitSummary commit={commit} />
              </li>
            ))}
          </ol>
        )
      ) : null}
    </section>
  );
}
