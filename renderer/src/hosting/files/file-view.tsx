import { useMutation, useQuery } from '@tanstack/react-query';
import type { Project } from '../../api/hosting';
import { getRawFile, headFile } from '../../api/repository';
import { formatBytes } from '../../lib/format';
import { saveBlob } from '../../lib/save-blob';
import { useSignedIn } from '../../lib/session-context';
import { Busy, Problem } from '../../ui/status';
import { AudioFile } from './audio-file';
import { FileHistory } from './commit-line';
import { fileKindOf, looksLikeText } from './file-kinds';
import { repositoryKeys } from './repository-keys';

/** Text files up to this size are shown; larger ones are offered as a download. */
const textLimit = 1000 * 1000;

function TextOrBinary({
  project,
  refName,
  path,
  size,
}: {
  readonly project: Project;
  readonly refName: string;
  readonly path: string;
  readonly size: number;
}) {
  const { token } = useSignedIn();
  const content = useQuery({
    queryKey: repositoryKeys.text(project.id, refName, path),
    queryFn: async ({ signal }) => {
      const bytes = new Uint8Array(await (await getRawFile(token, project.id, refName, path, signal)).arrayBuffer());
      return looksLikeText(bytes) ? new TextDecoder().decode(bytes) : null;
    },
    enabled: size <= textLimit,
  });
  if (size > textLimit) return <p className="muted">{formatBytes(size)}: too large to show here. Download it to open it.</p>;
  if (content.isPending) return <Busy>Loading the file…</Busy>;
  if (content.isError) return <p className="fl-problem">{content.error.message}</p>;
  if (content.data === null) return <p className="muted">A binary file of {formatBytes(size)}. Download it to open it.</p>;
  return (
    <pre className="fl-text" data-testid="file-text">
      {content.data}
    </pre>
  );
}

/** One file: audio gets the player and analysis, text is shown as text, anything else is a download. */
export function FileView({ project, refName, path }: { readonly project: Project; readonly refName: string; readonly path: string }) {
  const { token } = useSignedIn();
  const name = path.split('/').pop() ?? path;
  const kind = fileKindOf(name);
  const meta = useQuery({
    queryKey: repositoryKeys.meta(project.id, refName, path),
    queryFn: ({ signal }) => headFile(token, project.id, refName, path, signal),
  });
  const download = useMutation({
    mutationFn: async () => saveBlob(await getRawFile(token, project.id, refName, path), name),
  });
  const size = meta.data && Number.isFinite(meta.data.size) ? meta.data.size : null;

  if (meta.isError)
    return (
      <Problem title="Could not open this file.">
        <p>{meta.error.message}</p>
      </Problem>
    );
  return (
    <div className="fl-file">
      <section className="panel fl-file-panel" aria-label={name}>
        <header className="fl-file-header">
          <h3 className="fl-file-name">{name}</h3>
          <span className="muted mono small">{size !== null ? formatBytes(size) : ''}</span>
          <button
            type="button"
            className="button button-secondary fl-download"
            onClick={() => download.mutate()}
            aria-disabled={download.isPending}
          >
            {download.isPending ? 'Downloading…' : 'Download'}
          </button>
        </header>
        {download.isError ? <p className="fl-problem">The download failed: {download.error.message}</p> : null}
        {kind === 'audio' ? (
          <AudioFile project={project} refName={refName} path={path} size={size} />
        ) : kind === 'image' ? (
          <p className="muted">
            Images are not shown here: files from a repository never render inside Cratehouse. Download it to look at it.
          </p>
        ) : meta.isPending ? (
          <Busy>Loading the file…</Busy>
        ) : size !== null ? (
          <TextOrBinary project={project} refName={refName} path={path} size={size} />
        ) : null}
      </section>
      <FileHistory projectId={project.id} refName={refName} path={path} />
    </div>
  );
}
