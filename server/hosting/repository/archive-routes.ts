import type { Request, Response, Router } from 'express';
import { AppError } from '../../http/errors.js';
import { contentDispositionOf } from '../../http/serve-user-content.js';
import { paramsOf, readableProjectOf } from '../request.js';
import type { ProjectService } from '../projects/projects.js';
import { sendStream } from './blob-routes.js';
import { archiveFormats, type RepositoryReader } from './repository-reader.js';

/** What the archive routes need. */
export interface ArchiveRouteDeps {
  readonly projects: ProjectService;
  readonly reader: RepositoryReader;
}

/**
 * GET /projects/:id/repository/archive[.format] (`format` in the path or the query; `sha`, `path`):
 * streamed as `git archive` writes it, as an attachment named like GitLab's.
 */
export function mountArchiveRoutes(router: Router, deps: ArchiveRouteDeps): void {
  const { projects, reader } = deps;
  const answer = async (req: Request, res: Response, formatInPath: string | undefined) => {
    const project = readableProjectOf(projects, req, res);
    const params = paramsOf(req);
    const sha = params.string('sha');
    const path = params.string('path');
    const formatName = formatInPath ?? params.string('format') ?? 'tar.gz';
    params.bool('include_lfs_blobs');
    params.check();
    // An allow-list: only these formats (and their aliases) ever reach git.
    const format = Object.hasOwn(archiveFormats, formatName.toLowerCase()) ? archiveFormats[formatName.toLowerCase()] : undefined;
    if (!format)
      throw new AppError('invalid', 'format does not have a valid value', {
        issues: [{ loc: ['format'], msg: 'does not have a valid value', type: 'value', input: formatName }],
      });
    const archive = await reader.archive(project, { sha, format, path });
    res.status(200).set({
      'Content-Type': format === 'zip' ? 'application/zip' : 'application/octet-stream',
      'Content-Disposition': contentDispositionOf('attachment', archive.filename),
      'Content-Transfer-Encoding': 'binary',
      'Cache-Control': 'private, no-cache',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    await sendStream(res, archive.open());
  };
  router.get('/projects/:id/repository/archive', (req, res) => answer(req, res, undefined));
  // GitLab's route requirement: only its archive formats match the path form; anything else is the API's 404.
  router.get('/projects/:id/repository/archive.:format', async (req, res, next) => {
    const format = String(req.params.format);
    if (!Object.hasOwn(archiveFormats, format)) return next();
    await answer(req, res, format);
  });
}
