import type { IdentityService } from '../../auth/identity.js';
import type { Logger } from '../../http/logger.js';
import type { JobHandler, JobRunner } from '../../queue/job-runner.js';
import type { ArchiveLimits } from '../../shared/tar-archive.js';
import type { ExportsRepo } from '../import-export/exports-repo.js';
import * as repositories from '../git/repositories.js';
import { ProjectActions } from './project-actions.js';
import { createExportJobHandler, exportJobType, ProjectExportService } from '../import-export/project-export.js';
import { archiveImportJobType, createImportJobHandler, ProjectImportService } from '../import-export/project-import.js';
import { createProjectJobHandlers } from './project-jobs.js';
import { ProjectQueries } from './project-queries.js';
import { projectPaths, ProjectService, type RepositoryOps } from './projects.js';
import type { ProjectsRepo } from './projects-repo.js';

/** The parts of the projects capability, built before the job runner that needs their handlers. */
export interface ProjectsSetup {
  readonly handlers: ReadonlyMap<string, JobHandler>;
  /** The services the routes use, once the runner exists. */
  connect(jobs: JobRunner): { readonly projects: ProjectService; readonly actions: ProjectActions; readonly queries: ProjectQueries; readonly exports: ProjectExportService; readonly imports: ProjectImportService };
}

/** Wire projects over system git for one data dir (startServer and the test harness alike). */
export function setUpProjects(options: {
  readonly repo: ProjectsRepo;
  readonly exportsRepo: ExportsRepo;
  readonly identity: IdentityService;
  readonly dataDir: string;
  readonly gitPath: string;
  readonly allowPrivate: boolean;
  /** Limits of imported archives (default 2 GiB uncompressed, 50,000 entries). */
  readonly importLimits?: ArchiveLimits;
  /** Where repositories moved to lost+found are reported. */
  readonly log?: Logger;
}): ProjectsSetup {
  const git = gitOps(options.gitPath, options.allowPrivate);
  let service: ProjectService | null = null;
  let exportService: ProjectExportService | null = null;
  let importService: ProjectImportService | null = null;
  const connected = <T>(value: T | null): T => {
    if (!value) throw new Error('project jobs ran before the project service was connected');
    return value;
  };
  const handlers = new Map([
    ...createProjectJobHandlers(() => connected(service)),
    [exportJobType, createExportJobHandler(() => connected(exportService))],
    [archiveImportJobType, createImportJobHandler(() => connected(importService))],
  ]);
  const { gitPath } = options;
  return {
    handlers,
    connect: (jobs) => {
      const paths = projectPaths(options.dataDir, options.identity);
      service = new ProjectService(options.identity, options.repo, git, paths, jobs, undefined, options.log);
      const exports = new ProjectExportService(service, options.exportsRepo, jobs, {
        dataDir: options.dataDir,
        allowPrivate: options.allowPrivate,
        bundle: (dir, file, signal) => repositories.createBundle(dir, file, { gitPath, signal }),
      });
      exportService = exports;
      importService = new ProjectImportService(service, options.exportsRepo, jobs, {
        dataDir: options.dataDir,
        limits: options.importLimits,
        restoreBundle: (file, dir, signal) => repositories.restoreFromBundle(file, dir, { gitPath, signal }),
        onProjectRemoved: (projectId) => exports.forget(projectId),
      });
      return { projects: service, actions: new ProjectActions(service, jobs), queries: new ProjectQueries(service, options.repo, git, paths), exports, imports: importService };
    },
  };
}

/** RepositoryOps over git/repositories.ts. */
export function gitOps(gitPath: string, allowPrivate: boolean): RepositoryOps {
  return {
    init: (dir, branch) => repositories.initBare(dir, branch, { gitPath }),
    remove: (dir) => repositories.removeRepository(dir),
    move: (from, to) => repositories.moveRepository(from, to),
    stats: (dir, branch) => repositories.repositoryStats(dir, branch, { gitPath }),
    setHead: (dir, branch) => repositories.setHead(dir, branch, { gitPath }),
    headCommit: (dir, branch) => repositories.headCommit(dir, branch, { gitPath }),
    housekeeping: (dir) => repositories.housekeeping(dir, { gitPath }),
    list: (root) => repositories.listRepositories(root),
    exists: (dir) => repositories.repositoryExists(dir),
    moveAside: (dir, root, into, stamp) => repositories.moveAside(dir, root, into, stamp),
    snapshot: (dir) => repositories.snapshotTar(dir),
    fork: (from, to, signal) => repositories.forkRepository(from, to, { gitPath, signal }),
    importFrom: (url, to, signal) => repositories.importRepository(url, to, { gitPath, allowPrivate, signal, timeoutMs: 30 * 60_000 }),
  };
}
