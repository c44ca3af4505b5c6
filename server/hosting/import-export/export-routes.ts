import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Request, Response, Router } from 'express';
import { AppError } from '../../http/errors.js';
import { receiveUpload } from '../../http/multipart.js';
import type { MergeMethod, ProjectRecord, Visibility } from '../../store/schema.js';
import type { ProjectExportStatus, ProjectIdentity, ProjectImportStatus } from '../api-types.js';
import { isValidBranchName } from '../git/git-names.js';
import { Params } from '../params.js';
import type { ExportRequest, ProjectExportService } from './project-export.js';
import { firstFullMessage, type ImportOverrides, type ProjectImportService } from './project-import.js';
import { httpUrlProblem } from '../projects/project-rules.js';
import { pickSettings, type ProjectService } from '../projects/projects.js';
import { requireUser, viewerOf, visibilities, type RequestLinks } from '../request.js';

/** What the export and import routes need. */
export interface ExportRouteDeps {
  readonly projects: ProjectService;
  readonly exports: ProjectExportService;
  readonly imports: ProjectImportService;
  /** Where the uploaded archive streams to while it arrives. */
  readonly tmpDir: string;
  readonly links: RequestLinks;
}

const mergeMethods = ['merge', 'rebase_merge', 'ff'] as const;

/**
 * Mount project export (`/projects/:id/export`, `…/export/download`) and import (`/projects/import`,
 * `/projects/:id/import`). Mount before the project routes: `/projects/import` must win over `/projects/:id`.
 */
export function mountExportRoutes(router: Router, deps: ExportRouteDeps): void {
  const { projects, exports, imports } = deps;
  /** Export endpoints are for maintainers (GitLab's authorize_admin_project), unreadable projects are 404. */
  const exportable = (req: Request, res: Response) => {
    requireUser(res);
    const viewer = viewerOf(projects, res);
    const project = projects.policy.readable(viewer, String(req.params.id));
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
    return project;
  };

  /** GitLab's ProjectIdentity. */
  const identityOf = (p: Readonly<ProjectRecord>): ProjectIdentity => {
    const namespaceName = projects.namespaceName(projects.namespaceOf(p));
    return {
      id: p.id,
      description: p.description,
      name: p.name,
      name_with_namespace: `${namespaceName} / ${p.name}`,
      path: p.path,
      path_with_namespace: projects.fullPath(p),
      created_at: p.createdAt,
    };
  };
  const importStatusOf = (p: Readonly<ProjectRecord>, res: Response): ProjectImportStatus => {
    const viewer = viewerOf(projects, res);
    const error =
      p.importStatus === 'failed'
        ? viewer.canAdmin(p)
          ? (p.importError ?? 'The import failed')
          : 'Ask a maintainer to check the import status for more details.'
        : null;
    return { ...identityOf(p), import_status: p.importStatus, ...(error !== null ? { import_error: error } : {}) };
  };

  router.post('/projects/import', async (req, res) => {
    const user = requireUser(res);
    const upload = await receiveUpload(req, {
      tmpDir: deps.tmpDir,
      maxBytes: imports.limits.maxBytes,
      field: 'file',
      missingIssue: { loc: ['file'], msg: 'is missing', type: 'missing' },
    });
    let project: Readonly<ProjectRecord>;
    try {
      const p = new Params({ ...(req.query as Record<string, unknown>), ...upload.fields });
      p.require('path');
      const required = [p.string('path')] as const;
      const rest = { name: p.string('name'), namespace: p.string('namespace'), overwrite: p.bool('overwrite') ?? false };
      const overrides = overridesOf(p, upload.fields);
      const [path] = p.checked(...required);
      const input = { path, ...rest };
      project = await imports.schedule(projects.policy.viewer(user), {
        archive: upload.path,
        ...input,
        name: input.name === '' ? undefined : input.name,
        namespace: input.namespace === '' ? undefined : input.namespace,
        overrides,
      });
    } catch (error) {
      await upload.discard();
      // GitLab answers a project that cannot be created with its first full message.
      if (error instanceof AppError && error.options.fields)
        throw new AppError('invalid', firstFullMessage(error.options.fields), { code: 'render_api_error', cause: error });
      throw error;
    }
    res.status(201).json(importStatusOf(project, res));
  });

  router.get('/projects/:id/import', (req, res) => {
    const project = projects.policy.readable(viewerOf(projects, res), String(req.params.id));
    res.json(importStatusOf(project, res));
  });

  router.post('/projects/:id/export', async (req, res) => {
    const project = exportable(req, res);
    const raw = { ...(req.query as Record<string, unknown>), ...((req.body as Record<string, unknown> | undefined) ?? {}) };
    const request = exportRequestOf(raw);
    await exports.schedule(viewerOf(projects, res), project, request);
    res.status(202).json({ message: '202 Accepted' });
  });

  router.get('/projects/:id/export', (req, res) => {
    const project = exportable(req, res);
    const record = exports.findExport(project);
    const status = record?.status ?? 'none';
    const body: ProjectExportStatus = {
      ...identityOf(project),
      export_status: status,
      ...(status === 'failed' && record?.error ? { export_error: record.error } : {}),
      ...(status === 'finished'
        ? {
            _links: {
              api_url: `${deps.links.baseUrl(req)}/api/v4/projects/${project.id}/export/download`,
              web_url: `${deps.links.baseUrl(req)}/${projects.fullPath(project)}/download_export`,
            },
          }
        : {}),
    };
    res.json(body);
  });

  router.get('/projects/:id/export/download', async (req, res) => {
    const project = exportable(req, res);
    const found = exports.download(project);
    if (found === 'not-ready')
      throw new AppError('not-found', 'The project export file is not available yet', { code: 'render_api_error' });
    const size =
      found === 'none'
        ? null
        : await stat(found.file).then(
            (s) => s.size,
            () => null,
          );
    if (found === 'none' || size === null) throw new AppError('not-found', 'Not found or has expired');
    res.set({
      'Content-Type': 'application/gzip',
      'Content-Length': String(size),
      'Content-Disposition': `attachment; filename="${found.fileName}"; filename*=UTF-8''${encodeURIComponent(found.fileName)}`,
      'Content-Transfer-Encoding': 'binary',
      'Cache-Control': 'private',
    });
    const stream = createReadStream(found.file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
}

/**
 * The export request: `description`, and `upload[url]` / `upload[http_method]` as a nested hash
 * (JSON, form) or flat keys (query string). Grape's messages for a missing URL or another method.
 */
function exportRequestOf(raw: Readonly<Record<string, unknown>>): ExportRequest {
  const nested = raw.upload;
  const hash = typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : {};
  const url = hash.url ?? raw['upload[url]'];
  const method = hash.http_method ?? raw['upload[http_method]'];
  const given = nested !== undefined || url !== undefined || method !== undefined;
  const p = new Params({ description: raw.description, 'upload[url]': url, 'upload[http_method]': method });
  const description = p.string('description');
  if (given) p.require('upload[url]');
  const target = p.string('upload[url]');
  const httpMethod = p.oneOf('upload[http_method]', ['PUT', 'POST'] as const) ?? 'PUT';
  p.check();
  if (!given || target === undefined) return { description };
  if (httpUrlProblem(target) !== null)
    throw new AppError('invalid', 'upload[url] is invalid', { issues: [{ loc: ['upload[url]'], msg: 'is invalid', type: 'invalid' }] });
  return { description, upload: { url: target, method: httpMethod } };
}

/** `override_params[...]`: the `P` attributes, checked like a create request's. */
function overridesOf(p: Params, fields: Readonly<Record<string, string>>): ImportOverrides {
  const key = (name: string) => `override_params[${name}]`;
  const has = (name: string) => fields[key(name)] !== undefined;
  const defaultBranch = p.string(key('default_branch'));
  if (defaultBranch !== undefined && !isValidBranchName(defaultBranch))
    throw new AppError('invalid', `${key('default_branch')} is invalid`, {
      issues: [{ loc: [key('default_branch')], msg: 'is invalid', type: 'invalid' }],
    });
  const tags = has('tag_list') ? p.list(key('tag_list')) : has('topics') ? p.list(key('topics')) : undefined;
  const settings = pickSettings((k) => p.bool(key(k)));
  return {
    ...(has('description') ? { description: p.string(key('description')) ?? null } : {}),
    ...(has('visibility') ? { visibility: p.oneOf<Visibility>(key('visibility'), visibilities) } : {}),
    ...(defaultBranch !== undefined ? { defaultBranch } : {}),
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(has('merge_method') ? { mergeMethod: p.oneOf<MergeMethod>(key('merge_method'), mergeMethods) } : {}),
    ...(tags !== undefined ? { tagList: tags.map((t) => t.trim()).filter((t) => t !== '') } : {}),
    ...(has('ci_config_path') ? { ciConfigPath: p.string(key('ci_config_path')) || null } : {}),
  };
}
