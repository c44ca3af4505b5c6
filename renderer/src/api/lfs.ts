// Git LFS from the browser, as git-lfs does it (the basic transfer): ask the project's batch API
// where each object goes, PUT the bytes there, then verify. The GUI's token works here as for git
// over HTTP (sent as PRIVATE-TOKEN); the transfer and verify calls carry the grant the batch answer
// signed. See docs/hosting-api.md, "Git LFS".
import type { LfsBatchObject, LfsBatchResponse } from '../../../server/hosting/api-types.js';
import { ApiError, getJson, putBlobWithProgress, type UploadProgress } from './http';

export type { LfsBatchObject };

const lfsMediaType = 'application/vnd.git-lfs+json';

/** The project's LFS endpoint: `/<namespace>/<project>.git/info/lfs`. */
function lfsBase(pathWithNamespace: string): string {
  return `/${pathWithNamespace.split('/').map(encodeURIComponent).join('/')}.git/info/lfs`;
}

/** POST …/objects/batch for an upload: per object, where to send it, nothing (the server has it) or an error. */
export async function requestLfsUpload(
  token: string,
  pathWithNamespace: string,
  objects: readonly { readonly oid: string; readonly size: number }[],
  signal?: AbortSignal,
): Promise<readonly LfsBatchObject[]> {
  const answer = await getJson<LfsBatchResponse>(`${lfsBase(pathWithNamespace)}/objects/batch`, {
    method: 'POST',
    token,
    tokenStyle: 'private-token',
    headers: { Accept: lfsMediaType, 'Content-Type': lfsMediaType },
    body: JSON.stringify({ operation: 'upload', transfers: ['basic'], objects, hash_algo: 'sha256' }),
    signal,
  });
  return answer.objects;
}

/**
 * Send one object as the batch answer said (upload, then verify when asked), reporting progress.
 * An object without actions is already on the server: nothing to send.
 */
export async function uploadLfsObject(
  object: LfsBatchObject,
  content: Blob,
  onProgress?: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (object.error) throw new ApiError(object.error.code, object.error.message);
  const upload = object.actions?.upload;
  if (upload)
    await putBlobWithProgress(upload.href, content, {
      headers: { ...upload.header, 'Content-Type': 'application/octet-stream' },
      onProgress,
      signal,
    });
  const verify = object.actions?.verify;
  if (verify)
    await getJson<unknown>(verify.href, {
      method: 'POST',
      headers: { ...verify.header, Accept: lfsMediaType, 'Content-Type': lfsMediaType },
      body: JSON.stringify({ oid: object.oid, size: object.size }),
      signal,
    });
  onProgress?.({ loaded: content.size, total: content.size });
}
