/**
 * Project export: `POST /projects/:id/export` schedules a job that writes GitLab's archive layout
 * (VERSION, GITLAB_VERSION, tree/project.json, tree/project/*.ndjson, uploads/, lfs-objects/, project.bundle)
 * under the data dir's exports/<project id>/, optionally sends it to `upload[url]`, and records
 * the state in the project's export row (none → started → after_export_action → finished, or failed).
 */
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { outboundRequest } from '../../http/outbound.js';
import type { JobContext, JobOutcome, JobRunner } from '../../queue/job-runner.js';
import type { ExportStatus, ProjectBadgeRecord, ProjectExportRecord, ProjectHookRecord, ProjectRecord } from '../../store/schema.js';
import { writeTarGz, type TarInput } from '../../shared/tar-archive.js';
import type { ExportsRepo } from './exports-repo.js';
import { gitlabCompatibleVersion } from '../gitlab-version.js';
import type { Viewer } from '../projects/project-access.js';
import { visibilityLevels } from '../projects/project-rules.js';
import type { ProjectService, ProjectStores } from '../projects/projects.js';

/** Job type of an export. */
export const exportJobType = 'project-export';

/** The import/export format version GitLab writes (and reads) today. */
export const archiveFormatVersion = '0.2.4';

/** An archive larger than this is not read into memory to be uploaded (the outbound client sends buffers). */
const MAX_UPLOAD_BYTES = 2 * 1024 ** 3 - 1;

/** Where to send a finished archive. */
export interface ExportUpload {
  readonly url: string;
  readonly method: 'PUT' | 'POST';
}

/** What `POST /projects/:id/export` asks for. */
export interface ExportRequest {
  /** Replaces the project's description inside the archive. */
  readonly description?: string;
  readonly upload?: ExportUpload;
}

/** How the export service reaches git, the disk and the network. */
export interface ExportOptions {
  /** The data dir: archives go to exports/, work folders to tmp/. */
  readonly dataDir: string;
  /** Outbound rule for `upload[url]` (the server's CRATEHOUSE_FETCH_ALLOW_PRIVATE). */
  readonly allowPrivate: boolean;
  /** Write a git bundle of a repository; false when it has no refs (nothing is written). */
  readonly bundle: (repositoryDir: string, file: string, signal: AbortSignal) => Promise<boolean>;
  readonly uploadTimeoutMs?: number;
  readonly now?: () => Date;
  /** The Git LFS object files a project links (written as `lfs-objects/<oid>`). */
  readonly lfsObjects?: (projectId: number) => Promise<readonly LfsFile[]>;
}

/** A Git LFS object file to export. */
type LfsFile = { readonly oid: string; readonly file: string };

interface ExportJobParams {
  readonly projectId: number;
  /** The export row this job serves; a newer export makes the job stale. */
  readonly startedAt: string;
}

/** Builds, stores and delivers project archives. */
export class ProjectExportService {
  private readonly now: () => Date;
  readonly exportsDir: string;
  private readonly tmpDir: string;

  constructor(
    private readonly projects: ProjectService,
    private readonly stores: ProjectStores,
    private readonly repo: ExportsRepo,
    private readonly jobs: JobRunner,
    private readonly options: ExportOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.exportsDir = path.join(options.dataDir, 'exports');
    this.tmpDir = path.join(options.dataDir, 'tmp');
  }

  /** The project's export record (its state, error and archive), or undefined before the first export. */
  findExport(project: Readonly<ProjectRecord>): Readonly<ProjectExportRecord> | undefined {
    return this.repo.byProject(project.id);
  }

  /** The export state GitLab reports: `none` until the first export. */
  status(project: Readonly<ProjectRecord>): ExportStatus {
    return this.repo.byProject(project.id)?.status ?? 'none';
  }

  /** Schedule an export (maintainers). The previous archive of the project is dropped. */
  async schedule(viewer: Viewer, project: Readonly<ProjectRecord>, request: ExportRequest): Promise<void> {
    const user = viewer.user;
    if (!user) throw new AppError('unauthorized', 'Unauthorized');
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
    const current = this.repo.byProject(project.id);
    if (current && (current.status === 'started' || current.status === 'after_export_action')) {
      throw new AppError('invalid', 'This project is already being exported', { code: 'export_in_progress' });
    }
    await this.forget(project.id);
    const startedAt = this.now().toISOString();
    await this.repo.put({
      projectId: project.id,
      status: 'started',
      file: null,
      fileName: null,
      upload: request.upload ? { url: request.upload.url, method: request.upload.method } : null,
      description: request.description ?? null,
      error: null,
      requestedBy: user.id,
      startedAt,
      finishedAt: null,
    });
    try {
      await this.jobs.submit({
        type: exportJobType,
        tenant: user.tenant,
        params: { projectId: project.id, startedAt } satisfies ExportJobParams,
      });
    } catch (error) {
      await this.repo.update(project.id, { status: 'failed', error: 'The export could not be scheduled' });
      throw error;
    }
  }

  /** The finished archive of a project: its file and download name, or why there is none. */
  download(project: Readonly<ProjectRecord>): { readonly file: string; readonly fileName: string } | 'not-ready' | 'none' {
    const record = this.repo.byProject(project.id);
    if (!record) return 'none';
    if (record.status === 'started' || record.status === 'after_export_action') return 'not-ready';
    if (record.status !== 'finished' || !record.file || !record.fileName) return 'none';
    return { file: this.archivePath(record.file), fileName: record.fileName };
  }

  /** Remove a project's archives (before a new export, or once the project is deleted). */
  async forget(projectId: number): Promise<void> {
    await rm(path.join(this.exportsDir, String(projectId)), { recursive: true, force: true });
  }

  /** The job: write the archive, upload it if asked, record the outcome. */
  async run(ctx: JobContext): Promise<JobOutcome> {
    const { projectId, startedAt } = ctx.params as ExportJobParams;
    const project = this.stores.repo.byId(projectId);
    const record = this.repo.byProject(projectId);
    if (!project || !record || record.startedAt !== startedAt)
      return { result: { project_id: projectId, skipped: 'superseded or deleted' } };
    const work = path.join(this.tmpDir, `export-${ctx.jobId}`);
    const dir = path.join(this.exportsDir, String(projectId));
    const partial = path.join(dir, `.partial-${ctx.jobId}`);
    await rm(work, { recursive: true, force: true });
    await rm(partial, { force: true });
    await mkdir(work, { recursive: true, mode: 0o700 });
    try {
      ctx.checkpoint(0);
      const bundle = path.join(work, 'project.bundle');
      const hasBundle = await this.options.bundle(this.stores.paths.repository(project), bundle, ctx.signal);
      ctx.checkpoint(0.4);
      const fileName = exportFileName(this.projects.fullPath(project), this.now());
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeTarGz(
        partial,
        this.entries(project, record, hasBundle ? bundle : null, (await this.options.lfsObjects?.(project.id)) ?? []),
      );
      await rename(partial, path.join(dir, fileName));
      const file = `${projectId}/${fileName}`;
      ctx.checkpoint(0.7);
      if (record.upload) {
        if (!(await this.stillCurrent(projectId, startedAt, { status: 'after_export_action', file, fileName })))
          return { result: { project_id: projectId, skipped: 'superseded or deleted' } };
        await this.upload(path.join(dir, fileName), record.upload, ctx.signal);
      }
      if (!(await this.stillCurrent(projectId, startedAt, { status: 'finished', file, fileName, finishedAt: this.now().toISOString() })))
        return { result: { project_id: projectId, skipped: 'superseded or deleted' } };
      return { result: { project_id: projectId, export_status: 'finished', file_name: fileName } };
    } catch (error) {
      await rm(partial, { force: true });
      const message = error instanceof Error ? error.message : String(error);
      // Interrupted by a stopping server, the job is resumed at the next start and finishes the row then.
      if (this.repo.byProject(projectId)?.startedAt === startedAt)
        await this.repo.update(projectId, { status: 'failed', error: message, finishedAt: this.now().toISOString() });
      throw error instanceof AppError ? error : new AppError('unavailable', message, { cause: error });
    } finally {
      await rm(work, { recursive: true, force: true });
      // The project may have been deleted while its archive was written.
      if (!this.stores.repo.byId(projectId)) await this.forget(projectId);
    }
  }

  /** Patch the row if this job still owns it. */
  private async stillCurrent(projectId: number, startedAt: string, patch: Partial<ProjectExportRecord>): Promise<boolean> {
    if (this.repo.byProject(projectId)?.startedAt !== startedAt) return false;
    return (await this.repo.update(projectId, patch)) !== undefined;
  }

  private entries(
    project: Readonly<ProjectRecord>,
    record: Readonly<ProjectExportRecord>,
    bundle: string | null,
    lfs: readonly LfsFile[],
  ): TarInput[] {
    const mtime = this.now();
    const json = (value: unknown) => JSON.stringify(value);
    const hooks = this.repo.hooksOf(project.id).map((h) => json(exportedHook(h)));
    const badges = this.repo.badgesOf(project.id).map((b) => json(exportedBadge(b)));
    const entries: TarInput[] = [
      { path: 'VERSION', data: archiveFormatVersion, mtime },
      { path: 'GITLAB_VERSION', data: gitlabCompatibleVersion, mtime },
      { path: 'tree/project.json', data: json(projectTree(project, record.description)), mtime },
      { path: 'tree/project/project_feature.ndjson', data: `${json(projectFeature(project))}\n`, mtime },
      { path: 'tree/project/project_hooks.ndjson', data: hooks.length > 0 ? `${hooks.join('\n')}\n` : '', mtime },
      { path: 'tree/project/project_badges.ndjson', data: badges.length > 0 ? `${badges.join('\n')}\n` : '', mtime },
    ];
    const uploadsDir = this.stores.paths.uploads(project.id);
    for (const u of this.stores.repo.uploadsOf(project.id)) {
      entries.push({
        path: `uploads/${u.secret}/${u.filename}`,
        source: path.join(uploadsDir, u.secret, u.filename),
        mtime: new Date(u.createdAt),
      });
    }
    for (const o of lfs) entries.push({ path: `lfs-objects/${o.oid}`, source: o.file, mtime });
    // GitLab's map of oid → repository types.
    if (lfs.length > 0)
      entries.push({ path: 'lfs-objects.json', data: json(Object.fromEntries(lfs.map((o) => [o.oid, ['project']]))), mtime });
    if (bundle) entries.push({ path: 'project.bundle', source: bundle, mtime });
    return entries;
  }

  private async upload(file: string, upload: ExportUpload, signal: AbortSignal): Promise<void> {
    const size = (await stat(file)).size;
    if (size > MAX_UPLOAD_BYTES) throw new AppError('too-large', 'The export is too large to be uploaded');
    const body = await readFile(file);
    const res = await outboundRequest(
      upload.url,
      { method: upload.method, body, headers: { 'Content-Type': 'application/gzip', 'Content-Length': String(body.length) }, signal },
      { allowPrivate: this.options.allowPrivate, maxRedirects: 3, timeoutMs: this.options.uploadTimeoutMs ?? 120_000 },
    );
    res.body.resume();
    if (res.status < 200 || res.status >= 300) {
      throw new AppError('unavailable', `The export could not be uploaded: ${new URL(res.url).host} answered ${res.status}`, {
        code: 'export_upload_failed',
      });
    }
  }

  private archivePath(relative: string): string {
    const full = path.resolve(this.exportsDir, relative);
    if (!full.startsWith(path.resolve(this.exportsDir) + path.sep)) throw new Error('export file outside exports/');
    return full;
  }
}

/** GitLab's archive name: `<YYYY-MM-DD_HH-MM-mmm>_<full path, / → _>` cut to 51 characters, then `_export.tar.gz`. */
export function exportFileName(fullPath: string, at: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${at.getUTCFullYear()}-${p(at.getUTCMonth() + 1)}-${p(at.getUTCDate())}_${p(at.getUTCHours())}-${p(at.getUTCMinutes())}-${p(at.getUTCMilliseconds(), 3)}`;
  return `${`${stamp}_${fullPath.replace(/\//g, '_')}`.slice(0, 51)}_export.tar.gz`;
}

/** tree/project.json: the settings under GitLab's attribute names (and the API's, which we read first). */
export function projectTree(project: Readonly<ProjectRecord>, descriptionOverride: string | null): Record<string, unknown> {
  const s = project.settings;
  return {
    description: descriptionOverride ?? project.description,
    visibility: project.visibility,
    visibility_level: visibilityLevels[project.visibility],
    archived: project.archived,
    default_branch: project.defaultBranch,
    merge_method: project.mergeMethod,
    merge_requests_rebase_enabled: project.mergeMethod === 'rebase_merge',
    merge_requests_ff_only_enabled: project.mergeMethod === 'ff',
    tag_list: [...project.tagList],
    topics: [...project.tagList],
    ci_config_path: project.ciConfigPath,
    public_builds: s.public_jobs,
    ...s,
  };
}

/** GitLab's project_feature row: access levels 0 (disabled) or 20 (enabled). */
function projectFeature(project: Readonly<ProjectRecord>): Record<string, number> {
  const level = (on: boolean) => (on ? 20 : 0);
  const s = project.settings;
  return {
    issues_access_level: level(s.issues_enabled),
    merge_requests_access_level: level(s.merge_requests_enabled),
    builds_access_level: level(s.jobs_enabled),
    wiki_access_level: level(s.wiki_enabled),
    snippets_access_level: level(s.snippets_enabled),
    repository_access_level: 20,
    container_registry_access_level: level(s.container_registry_enabled),
  };
}

/** A project badge as GitLab's export writes it (a `ProjectBadge` row of `project_badges.ndjson`). */
function exportedBadge(b: Readonly<ProjectBadgeRecord>): Record<string, unknown> {
  return {
    type: 'ProjectBadge',
    name: b.name,
    link_url: b.linkUrl,
    image_url: b.imageUrl,
    created_at: b.createdAt,
    updated_at: b.createdAt,
  };
}

/** A hook as the archive keeps it: GitLab's column names, never the token. */
function exportedHook(h: Readonly<ProjectHookRecord>): Record<string, unknown> {
  return {
    type: 'ProjectHook',
    url: h.url,
    ...h.events,
    enable_ssl_verification: h.enableSslVerification,
    push_events_branch_filter: h.pushEventsBranchFilter,
    created_at: h.createdAt,
  };
}
