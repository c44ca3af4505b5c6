/**
 * Project import from an archive (`POST /projects/import`): the request creates the project with
 * `import_status: scheduled`; a job reads the untrusted archive into a folder of its own under the
 * data dir's tmp/, then moves the settings, hooks (without tokens), uploads and repository (from
 * `project.bundle`) into the new project. Archives of ours and GitLab's own (`tree/project.json` +
 * `tree/project/*.ndjson`, or the legacy root `project.json`) are read; other relations are ignored.
 *
 * A failed import leaves the project record (`import_status: failed`, `import_error` saying why)
 * with an empty repository, as GitLab keeps a failed import; its uploads and hooks are not written,
 * the store gets no half of them (they land in one mutation), and the work folder is removed.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { accessLevels, type IdentityService } from '../../auth/identity.js';
import { AppError, notFound } from '../../http/errors.js';
import type { JobContext, JobOutcome, JobRunner } from '../../queue/job-runner.js';
import type { NamespaceRecord, ProjectRecord, Visibility } from '../../store/schema.js';
import { ArchiveError, defaultArchiveLimits, type ArchiveLimits } from '../../shared/tar-archive.js';
import type { ExportsRepo } from './exports-repo.js';
import { readArchive } from './gitlab-archive.js';
import type { Viewer } from '../projects/project-access.js';
import { mostRestrictive } from '../projects/project-rules.js';
import type { ProjectInput, ProjectService, ProjectStores } from '../projects/projects.js';

/** Job type of an archive import (`project-import` is the import from a URL). */
export const archiveImportJobType = 'project-archive-import';

/** Project attributes from `override_params[...]`; they beat the archive's values. */
export type ImportOverrides = Pick<
  ProjectInput,
  'description' | 'visibility' | 'defaultBranch' | 'settings' | 'mergeMethod' | 'tagList' | 'ciConfigPath'
>;

/** What `POST /projects/import` asks for; the service owns `archive` (a temp file) from then on. */
export interface ImportRequest {
  readonly archive: string;
  readonly path: string;
  readonly name?: string;
  /** Namespace id or full path; the caller's own namespace when absent. */
  readonly namespace?: string;
  readonly overwrite: boolean;
  readonly overrides: ImportOverrides;
}

/** How the import service reaches git and the disk. */
export interface ImportOptions {
  /** The data dir: work folders go to tmp/. */
  readonly dataDir: string;
  readonly limits?: ArchiveLimits;
  /** Create a repository from a bundle (git clone, which checks every object). */
  readonly restoreBundle: (file: string, targetDir: string, signal: AbortSignal) => Promise<void>;
  /** Store an archive's Git LFS object for a project, checking it against its oid (throws when it does not match). */
  readonly storeLfsObject?: (
    projectId: number,
    object: { readonly oid: string; readonly file: string; readonly size: number },
  ) => Promise<void>;
  /** What else must go when a project replaced by `overwrite` is deleted (its exports). */
  readonly onProjectRemoved?: (projectId: number) => Promise<void>;
  readonly now?: () => Date;
}

interface ImportJobParams {
  readonly projectId: number;
  readonly userId: number;
  readonly archive: string;
  readonly overrides: ImportOverrides;
  /** With `overwrite`: the project this import replaces once it succeeded. */
  readonly replace: { readonly projectId: number; readonly path: string; readonly name: string } | null;
}

/** Imports archives into new projects. */
export class ProjectImportService {
  private readonly now: () => Date;
  private readonly tmpDir: string;
  readonly limits: ArchiveLimits;

  constructor(
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    private readonly stores: ProjectStores,
    private readonly repo: ExportsRepo,
    private readonly jobs: JobRunner,
    private readonly options: ImportOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.tmpDir = path.join(options.dataDir, 'tmp');
    this.limits = options.limits ?? defaultArchiveLimits;
  }

  /**
   * Create the project and schedule its import. Name and path follow the project rules; an existing
   * path is an error unless `overwrite`, which imports under a temporary path and replaces the old
   * project only once the import succeeded (GitLab's overwrite does the same).
   */
  async schedule(viewer: Viewer, request: ImportRequest): Promise<Readonly<ProjectRecord>> {
    const user = viewer.user;
    if (!user) throw new AppError('unauthorized', 'Unauthorized');
    let project: Readonly<ProjectRecord>;
    let replace: ImportJobParams['replace'] = null;
    try {
      const ns = this.targetNamespace(viewer, request.namespace);
      const name = request.name ?? request.path;
      let createPath = request.path;
      let createName = name;
      const existing = this.stores.repo.byPath(ns.id, request.path);
      if (existing && request.overwrite) {
        if (!viewer.isOwner(existing)) throw new AppError('forbidden', 'Forbidden');
        const other = this.stores.repo.byName(ns.id, name);
        if (other && other.id !== existing.id)
          throw new AppError('invalid', 'project is invalid', { fields: { name: ['has already been taken'] } });
        const suffix = randomBytes(4).toString('hex');
        createPath = `${request.path}-import-${suffix}`;
        createName = `${name}-import-${suffix}`;
        replace = { projectId: existing.id, path: request.path, name };
      }
      project = await this.projects.create(
        viewer,
        {
          name: createName,
          path: createPath,
          namespaceId: ns.id,
          visibility: request.overrides.visibility,
          description: request.overrides.description,
        },
        user,
      );
    } catch (error) {
      await rm(request.archive, { force: true });
      throw error;
    }
    try {
      const scheduled = await this.stores.repo.update(project.id, { importStatus: 'scheduled', importError: null });
      const params: ImportJobParams = {
        projectId: project.id,
        userId: user.id,
        archive: request.archive,
        overrides: request.overrides,
        replace,
      };
      await this.jobs.submit({ type: archiveImportJobType, tenant: user.tenant, params });
      return scheduled;
    } catch (error) {
      // No job, no project: the request failed as a whole.
      await this.stores.repo.remove(project.id);
      await this.stores.git.remove(this.stores.paths.repository(project));
      await rm(request.archive, { force: true });
      throw error;
    }
  }

  /** The job: read the archive, fill the project, or record why not. */
  async run(ctx: JobContext): Promise<JobOutcome> {
    const params = ctx.params as ImportJobParams;
    const { projectId } = params;
    const project = this.stores.repo.byId(projectId);
    if (!project) {
      await rm(params.archive, { force: true });
      return { result: { project_id: projectId, skipped: 'project deleted' } };
    }
    const user = this.identity.findUserById(params.userId);
    const viewer = this.projects.policy.viewer(user ?? null);
    const work = path.join(this.tmpDir, `import-${ctx.jobId}`);
    const uploadsDir = this.stores.paths.uploads(projectId);
    await this.stores.repo.update(projectId, { importStatus: 'started', importError: null });
    await rm(work, { recursive: true, force: true });
    try {
      if (!user) throw new ArchiveError('The user who started the import no longer exists');
      ctx.checkpoint(0);
      if (!(await exists(params.archive)))
        throw new ArchiveError('The uploaded archive is no longer available (the server restarted before the import ran); import it again');
      const root = path.join(work, 'archive');
      const contents = await readArchive(params.archive, root, this.limits, this.now());
      if (!contents.settings && !contents.bundle && contents.uploads.length === 0) {
        throw new ArchiveError('Nothing could be imported: the archive has no tree/project.json, project.json or project.bundle');
      }
      ctx.checkpoint(0.3);

      const target = this.stores.paths.repository(project);
      const settings = contents.settings ?? { settings: {} };
      const desiredBranch = params.overrides.defaultBranch ?? settings.defaultBranch ?? project.defaultBranch;
      await this.stores.git.remove(target);
      if (contents.bundle) {
        try {
          await this.options.restoreBundle(contents.bundle, target, ctx.signal);
        } catch (error) {
          const said = (error instanceof Error ? error.message : String(error)).replace(
            /^The repository could not be restored from its bundle: /,
            '',
          );
          throw new ArchiveError(
            `project.bundle is not a valid git bundle (${said === 'The file is not a git bundle' ? 'it has no bundle header' : `git: ${said}`})`,
          );
        }
      } else await this.stores.git.init(target, desiredBranch);
      const stats = await this.stores.git.stats(target, desiredBranch);
      let defaultBranch = desiredBranch;
      if (stats.empty || stats.branches.includes(desiredBranch)) await this.stores.git.setHead(target, desiredBranch);
      else defaultBranch = stats.defaultBranch ?? desiredBranch;
      const readmePath = await this.stores.git.readme(target, defaultBranch);
      ctx.checkpoint(0.7);

      await rm(uploadsDir, { recursive: true, force: true });
      for (const u of contents.uploads) {
        await mkdir(path.join(uploadsDir, u.secret), { recursive: true });
        await moveFile(u.file, path.join(uploadsDir, u.secret, u.filename));
      }
      for (const o of contents.lfsObjects) {
        try {
          await this.options.storeLfsObject?.(projectId, o);
        } catch (error) {
          throw new ArchiveError(`lfs-objects/${o.oid}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }

      const ns = this.projects.namespaceOf(project);
      const at = this.now().toISOString();
      const patch: Partial<ProjectRecord> = {
        description: pick(params.overrides.description, settings.description, project.description),
        visibility: capVisibility(params.overrides.visibility ?? settings.visibility ?? project.visibility, this.groupVisibility(ns)),
        defaultBranch,
        settings: { ...project.settings, ...settings.settings, ...params.overrides.settings },
        mergeMethod: params.overrides.mergeMethod ?? settings.mergeMethod ?? project.mergeMethod,
        tagList: [...(params.overrides.tagList ?? settings.tagList ?? project.tagList)],
        ciConfigPath: pick(params.overrides.ciConfigPath, settings.ciConfigPath, project.ciConfigPath),
        archived: settings.archived ?? project.archived,
        emptyRepo: stats.empty,
        readmePath,
        importStatus: 'finished',
        importError: null,
        updatedAt: at,
        lastActivityAt: at,
      };

      let current = project;
      if (params.replace) current = await this.replaceOld(viewer, project, params.replace);
      const landed = await this.repo.finishImport(projectId, {
        project: patch,
        hooks: contents.hooks,
        badges: contents.badges,
        uploads: contents.uploads.map((u) => ({
          secret: u.secret,
          filename: u.filename,
          size: u.size,
          uploaderId: user.id,
          createdAt: at,
        })),
      });
      if (!landed) throw new ArchiveError('The project was deleted during its import');
      ctx.checkpoint(1);
      return { result: { project_id: projectId, import_status: 'finished', path: current.path } };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const still = this.stores.repo.byId(projectId);
      // Nothing of the import is left on disk by the time its status says it failed.
      await rm(uploadsDir, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
      await rm(params.archive, { force: true });
      if (still) {
        // An empty repository again, so the failed project stays usable (a push can fill it); the
        // failure is recorded even if that does not work out.
        const dir = this.stores.paths.repository(still);
        await this.stores.git
          .remove(dir)
          .then(() => this.stores.git.init(dir, still.defaultBranch))
          .catch(() => undefined);
        await this.stores.repo.update(projectId, { importStatus: 'failed', importError: message, emptyRepo: true });
      }
      throw error instanceof AppError ? error : new AppError('invalid', message, { cause: error });
    } finally {
      await rm(work, { recursive: true, force: true });
      await rm(params.archive, { force: true });
    }
  }

  /** Delete the project an overwrite replaces, then give the import its path and name. */
  private async replaceOld(
    viewer: Viewer,
    project: Readonly<ProjectRecord>,
    replace: NonNullable<ImportJobParams['replace']>,
  ): Promise<Readonly<ProjectRecord>> {
    const old = this.stores.repo.byId(replace.projectId);
    if (old) {
      if (!viewer.isOwner(old))
        throw new ArchiveError('The project to overwrite may no longer be deleted by the user who started the import');
      await this.projects.remove(viewer, old, this.options.onProjectRemoved);
    }
    return this.projects.update(viewer, this.stores.repo.byId(project.id) ?? project, { path: replace.path, name: replace.name });
  }

  /** The namespace to import into: 404 when unknown or unreadable, 403 without the right to create there. */
  private targetNamespace(viewer: Viewer, ref: string | undefined): Readonly<NamespaceRecord> {
    const user = viewer.user!;
    const identity = this.identity;
    const ns =
      ref === undefined
        ? identity.findNamespace(user.namespaceId)
        : /^\d+$/.test(ref)
          ? identity.findNamespace(Number(ref))
          : identity.findNamespaceByPath(ref);
    if (!ns) throw notFound('Namespace');
    if (user.admin) return ns;
    if (ns.kind === 'group') {
      const group = identity.findGroup(ns.id);
      if (!group || !identity.canReadGroup(user, group)) throw notFound('Namespace');
      // GitLab (16.0+) imports into a group for its maintainers and owners.
      if (viewer.namespaceLevel(ns.id) < accessLevels.maintainer) throw new AppError('forbidden', 'Forbidden');
      return ns;
    }
    if (ns.ownerId !== user.id) throw new AppError('forbidden', 'Forbidden');
    return ns;
  }

  private groupVisibility(ns: Readonly<NamespaceRecord>): Visibility | null {
    return ns.kind === 'group' ? (this.identity.findGroup(ns.id)?.visibility ?? 'private') : null;
  }
}

/** GitLab's first full message of a failed project validation: `Path has already been taken`. */
export function firstFullMessage(fields: Readonly<Record<string, readonly string[]>>): string {
  const order = ['path', 'name', ...Object.keys(fields)];
  for (const key of order) {
    const first = fields[key]?.[0];
    if (first) return `${key.charAt(0).toUpperCase()}${key.slice(1).replace(/_/g, ' ')} ${first}`;
  }
  return 'Project is invalid';
}

/** Never more open than the group the project lives in. */
function capVisibility(visibility: Visibility, groupVisibility: Visibility | null): Visibility {
  return groupVisibility ? mostRestrictive(visibility, groupVisibility) : visibility;
}

function pick<T>(override: T | undefined, fromArchive: T | undefined, current: T): T {
  return override !== undefined ? override : fromArchive !== undefined ? fromArchive : current;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Rename within the data dir; copy when tmp/ is on another file system. */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}
