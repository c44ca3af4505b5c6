import type { Request, Response, Router } from 'express';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { streamUserContent } from '../../http/serve-user-content.js';
import type { ProjectRecord } from '../../store/schema.js';
import { paramsOf, readableProjectOf } from '../request.js';
import type { ProjectService } from '../projects/projects.js';
import { base64Length, jsonAround, streamBase64Json } from './base64-json.js';
import type { LfsContent } from './lfs-content.js';
import type { BlobHandle, RepositoryReader } from './repository-reader.js';

/** What the blob routes need. */
export interface BlobRouteDeps {
  readonly projects: ProjectService;
  readonly reader: RepositoryReader;
  readonly lfsContent: LfsContent;
}

/**
 * A repository's bytes are readable by anyone who may read the project: no shared cache may keep
 * them, and they are revalidated by their object id (a strong validator: the id is the content).
 */
export const repositoryContentCacheControl = 'private, no-cache';

/** GET /projects/:id/repository/blobs/:sha (GitLab's {size, encoding, content, sha}) and its /raw. */
export function mountBlobRoutes(router: Router, deps: BlobRouteDeps): void {
  const { projects, reader, lfsContent } = deps;

  router.get('/projects/:id/repository/blobs/:sha', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const blob = await reader.blob(project, String(req.params.sha));
    const { head, tail } = jsonAround({ size: blob.size, encoding: 'base64' }, 'content', { sha: blob.id });
    await sendBase64Json(req, res, head, blob, tail);
  });

  router.get('/projects/:id/repository/blobs/:sha/raw', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const params = paramsOf(req);
    const lfs = params.bool('lfs') === true;
    params.check();
    const blob = await reader.blob(project, String(req.params.sha));
    // A blob has no name: it downloads as its id (GitLab names it so too).
    await sendBlobOrLfsObject(req, res, blob, blob.id, lfs ? { project, lfsContent } : null);
  });
}

/**
 * Stream a blob's bytes, ranges included; with `lfs`, a pointer to an object the project links is
 * answered with the object's bytes instead (validated by its oid).
 */
export async function sendBlobOrLfsObject(
  req: Request,
  res: Response,
  blob: BlobHandle,
  filename: string,
  lfs: { readonly project: Readonly<ProjectRecord>; readonly lfsContent: LfsContent } | null,
): Promise<void> {
  const object = lfs ? await lfs.lfsContent.objectOf(lfs.project, blob) : undefined;
  if (object) {
    const source = { size: object.size, open: () => createReadStream(object.path, { highWaterMark: 256 * 1024 }) };
    await streamUserContent(req, res, source, filename, { cacheControl: repositoryContentCacheControl, etag: `"${object.oid}"` });
    return;
  }
  await streamUserContent(req, res, blob, filename, { cacheControl: repositoryContentCacheControl, etag: `"${blob.id}"` });
}

/** Answer a JSON document whose `content` is a blob in base64, streamed, with its exact length. */
export async function sendBase64Json(req: Request, res: Response, head: string, blob: BlobHandle, tail: string): Promise<void> {
  const length = Buffer.byteLength(head) + base64Length(blob.size) + Buffer.byteLength(tail);
  // GitLab's JSON type exactly, without the charset express would add (python-gitlab 3.x needs it so).
  res.status(200).setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', String(length));
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await sendStream(res, streamBase64Json(head, blob.open(), tail));
}

/** Pipe a stream into the response; a client that went away is not an error, a failing source is. */
export async function sendStream(res: Response, body: Readable): Promise<void> {
  try {
    await pipeline(body, res);
  } catch (error) {
    if (res.destroyed && !body.errored) return;
    throw error;
  }
}
