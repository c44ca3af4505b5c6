import type { Response, Router } from 'express';
import { paramsOf, readableProjectOf } from '../request.js';
import type { ProjectService } from '../projects/projects.js';
import { jsonAround } from './base64-json.js';
import { sendBase64Json, sendBlobOrLfsObject } from './blob-routes.js';
import type { LfsContent } from './lfs-content.js';
import type { FileMetadata, RepositoryReader } from './repository-reader.js';

/** What the file routes need. */
export interface FileRouteDeps {
  readonly projects: ProjectService;
  readonly reader: RepositoryReader;
  readonly lfsContent: LfsContent;
}

/**
 * GET and HEAD /projects/:id/repository/files/:file_path (metadata and base64 content; HEAD: the
 * metadata in X-Gitlab-* headers) and GET …/:file_path/raw (the bytes). `:file_path` is URL-encoded
 * (`lib%2Fclass.rb`), as in GitLab. The write side (POST, PUT, DELETE) lives elsewhere.
 */
export function mountFileRoutes(router: Router, deps: FileRouteDeps): void {
  const { projects, reader, lfsContent } = deps;

  router.head('/projects/:id/repository/files/:file_path', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const params = paramsOf(req);
    const [ref] = params.require('ref').checked(params.string('ref'));
    const file = await reader.file(project, String(req.params.file_path), ref);
    setFileHeaders(res, file.metadata);
    res.status(200).end();
  });

  router.get('/projects/:id/repository/files/:file_path', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const params = paramsOf(req);
    const [ref] = params.require('ref').checked(params.string('ref'));
    const file = await reader.file(project, String(req.params.file_path), ref);
    setFileHeaders(res, file.metadata);
    const { head, tail } = jsonAround({ ...file.metadata }, 'content');
    await sendBase64Json(req, res, head, file, tail);
  });

  router.get('/projects/:id/repository/files/:file_path/raw', async (req, res) => {
    const project = readableProjectOf(projects, req, res);
    const params = paramsOf(req);
    const ref = params.string('ref');
    // lfs=true: a pointer to an object the project has is answered with the object (GitLab's send_lfs_object).
    const lfs = params.bool('lfs') === true;
    params.check();
    const file = await reader.file(project, String(req.params.file_path), ref || project.defaultBranch, { allowLeadingSlash: true });
    setFileHeaders(res, file.metadata);
    await sendBlobOrLfsObject(req, res, file, file.metadata.file_name, lfs ? { project, lfsContent } : null);
  });
}

/** GitLab's set_http_headers: every metadata field as `X-Gitlab-File-Name` and so on. */
function setFileHeaders(res: Response, metadata: FileMetadata): void {
  for (const [key, value] of Object.entries(metadata)) {
    const name = `X-Gitlab-${key
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('-')}`;
    res.setHeader(name, headerValue(String(value)));
  }
}

/** A header value as GitLab sends it (UTF-8 bytes), with control characters, which no header may carry, as `?`. */
function headerValue(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a header cannot hold
  return Buffer.from(text.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '?'), 'utf8').toString('latin1');
}
