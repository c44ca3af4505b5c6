import type { Request, Response } from 'express';
import { AppError } from '../../http/errors.js';
import type { ProjectRecord } from '../../store/schema.js';
import type { Params } from '../params.js';
import type { ProjectService } from '../projects/projects.js';
import { readableProjectOf, type RequestLinks } from '../request.js';
import type { ProjectLinks } from './present-repository.js';
import type { RepositoryHistory } from './repository-history.js';
import type { RepositoryWriter } from './repository-writer.js';

/** What the repository history and write routes need. */
export interface HistoryRouteDeps {
  readonly projects: ProjectService;
  readonly history: RepositoryHistory;
  readonly writer: RepositoryWriter;
  readonly links: RequestLinks;
}

/** The readable project of `:id` and the links its entities carry. */
export interface ProjectContext {
  readonly project: Readonly<ProjectRecord>;
  readonly links: ProjectLinks;
}

/** Shared by the route files: the project (404 unless readable) and its links. */
export function projectContext(deps: HistoryRouteDeps, req: Request, res: Response): ProjectContext {
  const project = readableProjectOf(deps.projects, req, res);
  return { project, links: { projectUrl: `${deps.links.baseUrl(req)}/${deps.projects.fullPath(project)}`, projectId: project.id } };
}

/** GitLab's DateTime parameters: anything Ruby's DateTime.parse reads; here ISO 8601 and what Date.parse takes. */
export function dateParam(p: Params, name: string): string | undefined {
  const raw = p.string(name);
  if (raw === undefined || raw === '') return undefined;
  const time = Date.parse(raw);
  if (Number.isNaN(time))
    throw new AppError('invalid', `${name} is invalid`, { issues: [{ loc: [name], msg: 'is invalid', type: 'invalid', input: raw }] });
  return new Date(time).toISOString();
}

/** File content as sent: text, or base64 when `encoding` says so. */
export function contentOf(content: string | undefined, encoding: string | undefined): Buffer {
  return encoding === 'base64' ? Buffer.from(content ?? '', 'base64') : Buffer.from(content ?? '', 'utf8');
}
