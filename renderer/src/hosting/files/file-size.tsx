import { useQuery } from '@tanstack/react-query';
import { headFile } from '../../api/repository';
import { formatBytes } from '../../lib/format';
import { useSignedIn } from '../../lib/session-context';
import { repositoryKeys } from './repository-keys';

/** A file's size from a HEAD request (the tree API lists no sizes), shared with the file view's cache. */
export function FileSize({ projectId, refName, path }: { readonly projectId: number; readonly refName: string; readonly path: string }) {
  const { token } = useSignedIn();
  const meta = useQuery({
    queryKey: repositoryKeys.meta(projectId, refName, path),
    queryFn: ({ signal }) => headFile(token, projectId, refName, path, signal),
    staleTime: 60_000,
  });
  return <>{meta.data && Number.isFinite(meta.data.size) ? formatBytes(meta.data.size) : ''}</>;
}
