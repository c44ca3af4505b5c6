import type { IdentityService } from '../auth/identity.js';
import type { Logger } from '../http/logger.js';
import type { JobRunner } from '../queue/job-runner.js';
import type { ArchiveLimits } from '../shared/tar-archive.js';
import { BadgeService } from './badges/badges.js';
import type { BadgesRepo } from './badges/badges-repo.js';
import { ProjectBadgeService } from './badges/project-badges.js';
import { commitInitialFile } from './git/initial-commit.js';
import * as repositories from './git/repositories.js';
import { findReadme } from './git/repository-read.js';
import { HookService, type HookServiceOptions } from './hooks/hooks.js';
import type { HooksRepo } from './hooks/hooks-repo.js';
import type { ExportsRepo } from './import-export/exports-repo.js';
import { LfsLockService } from './lfs/lfs-locks.js';
import type { LfsObjectStore } from './lfs/lfs-objects.js';
import { LfsPushCheck } from './lfs/lfs-push-check.js';
import type { LfsRepo } from './lfs/lfs-repo.js';
import { LfsService } from './lfs/lfs.js';
import { exportJobType, ProjectExportService } from './import-export/project-export.js';
import { archiveImportJobType, ProjectImportService } from './import-export/project-import.js';
import { NotificationSettingsService } from './notifications/notification-settings.js';
import type { NotificationsRepo } from './notifications/notifications-repo.js';
import { ProjectActions } from './projects/project-actions.js';
import { createProjectJobHandlers } from './projects/project-jobs.js';
import { ProjectQueries } from './projects/project-queries.js';
import { projectPaths, ProjectService, type ProjectStores, type RepositoryOps } from './projects/projects.js';
import { reconcileRepositories, type ReconcileOptions, type ReconcileReport } from './projects/reconcile-repositories.js';
import { PeriodicReconciliation, type ReconcileSchedule } from './projects/periodic-reconciliation.js';
import type { ProjectsRepo } from './projects/projects-repo.js';
import { RepositoryReader } from './repository/repository-reader.js';
import { RepositoryHistory } from './repository/repository-history.js';
import { RepositoryWriter } from './repository/repository-writer.js';
import { findLfsTrackedPaths } from './git/attributes.js';
import { listChangedFiles } from './git/changed-files.js';
import { RepositoryFileAnalyses, type FileAnalysisOptions } from './repository/file-analysis.js';
import { LfsContent } from './repository/lfs-content.js';
import type { RepositoryAudio } from './repository/repository-audio.js';

/** The stores the hosting services keep their records in (built by the composition root). */
export interface HostingRepos {
  readonly projects: ProjectsRepo;
  readonly exports: ExportsRepo;
  readonly hooks: HooksRepo;
  readonly badges: BadgesRepo;
  readonly notifications: NotificationsRepo;
  readonly lfs: LfsRepo;
}

/** The hosting services the routes use. */
export interface HostingServices {
  readonly projects: ProjectService;
  readonly projectActions: ProjectActions;
  readonly projectQueries: ProjectQueries;
  readonly exports: ProjectExportService;
  readonly imports: ProjectImportService;
  readonly hooks: HookService;
  readonly badges: BadgeService;
  /** A project's own badges and those it inherits from its groups. */
  readonly projectBadges: ProjectBadgeService;
  readonly notifications: NotificationSettingsService;
  /** The read side of the repository API (trees, files, blobs, archives). */
  readonly repositoryReader: RepositoryReader;
  /** The history side of the repository API (commits, branches, tags, compare, contributors). */
  readonly repositoryHistory: RepositoryHistory;
  /** Commits through the API (file actions), branches and tags created or deleted. */
  readonly repositoryWriter: RepositoryWriter;
  /** Make repositories on disk and project records agree: at boot, before any request or job. */
  readonly reconcileRepositories: (log: Logger, options?: ReconcileOptions) => Promise<ReconcileReport>;
  /** The same reconciliation on a running node, every interval, one node at a time (started; stop it before the store closes). */
  readonly reconcileEvery: (log: Logger, schedule: ReconcileSchedule) => PeriodicReconciliation;
  readonly lfs: LfsService;
  readonly lfsLocks: LfsLockService;
  /** GitLab's LFS integrity check that git over HTTP runs on pushes. */
  readonly lfsPushCheck: LfsPushCheck;
  /** LFS pointers resolved to the objects their project links. */
  readonly lfsContent: LfsContent;
  /** Audio analysis of repository files (the analysis route, and what pushes queue). */
  readonly fileAnalyses: RepositoryFileAnalyses;
  /** What else goes when a project is deleted (its export, its LFS links and locks). */
  readonly onProjectRemoved: (projectId: number) => Promise<void>;
}

/** Wire project hosting over system git for one data dir and register its jobs on `jobs`. */
export function setUpHosting(options: {
  readonly repos: HostingRepos;
  readonly identity: IdentityService;
  readonly jobs: JobRunner;
  readonly dataDir: string;
  readonly gitPath: string;
  /** May project imports (from a URL) and exports reach private addresses? */
  readonly allowPrivate: boolean;
  /** Limits of imported archives (default 2 GiB uncompressed, 50,000 entries). */
  readonly importLimits?: ArchiveLimits;
  /** Where hooks may deliver to and how payloads link back to this server. */
  readonly hooks: Omit<HookServiceOptions, 'gitPath' | 'log'>;
  /** Where repositories moved to lost+found are reported. */
  readonly log: Logger;
  /** The largest Git LFS object accepted (default 5 GiB). */
  readonly maxLfsObjectBytes?: number;
  /** The LFS object files (the composition's, linked with the content store). */
  readonly lfsObjects: LfsObjectStore;
  /** Audio analysis, handed in by the composition root (hosting never imports the audio service). */
  readonly audio: RepositoryAudio;
  /** What a push queues for analysis, and where blobs are written while analysed. */
  readonly audioAnalysis: FileAnalysisOptions;
}): HostingServices {
  const { jobs, gitPath, repos } = options;
  const git = gitOps(gitPath, options.allowPrivate);
  const { identity } = options;
  // The project records, repositories and folders: handed to each service that needs them, exposed by none.
  const stores: ProjectStores = { repo: repos.projects, git, paths: projectPaths(options.dataDir, identity) };
  const projects = new ProjectService(identity, stores, jobs, undefined, options.log);
  const lfs = new LfsService(projects, identity, repos.lfs, options.lfsObjects, {
    maxObjectBytes: options.maxLfsObjectBytes ?? 5 * 1024 ** 3,
  });
  const onProjectRemoved = async (projectId: number) => {
    await exports.forget(projectId);
    await lfs.forgetProject(projectId);
  };
  const exports = new ProjectExportService(projects, stores, repos.exports, jobs, {
    dataDir: options.dataDir,
    allowPrivate: options.allowPrivate,
    bundle: (dir, file, signal) => repositories.createBundle(dir, file, { gitPath, signal }),
    lfsObjects: (projectId) => lfs.filesOf(projectId),
  });
  const imports = new ProjectImportService(projects, identity, stores, repos.exports, jobs, {
    dataDir: options.dataDir,
    limits: options.importLimits,
    restoreBundle: (file, dir, signal) => repositories.restoreFromBundle(file, dir, { gitPath, signal }),
    storeLfsObject: (projectId, object) => lfs.importObject(projectId, object),
    onProjectRemoved,
  });
  const hooks = new HookService(repos.hooks, projects, identity, { ...options.hooks, gitPath, log: options.log });
  const reader = new RepositoryReader(stores.paths, gitPath);
  const lfsContent = new LfsContent(lfs);
  const fileAnalyses = new RepositoryFileAnalyses(
    reader,
    lfsContent,
    options.audio,
    (project, before, after) => listChangedFiles(projects.repositoryOf(project), before, after, { gitPath }),
    options.audioAnalysis,
    options.log,
  );
  // An API write triggers what a git push does (repository-routes.ts afterPush): the push recorded,
  // the hooks, the analysis of its audio files.
  const writer = new RepositoryWriter(
    projects,
    gitPath,
    async (project, user, changes) => {
      const updated = await projects.recordPush(project);
      hooks.firePush(updated, user, changes);
      fileAnalyses.queueAfterPush(updated, changes);
    },
    {
      trackedPaths: (dir, commit, paths) => findLfsTrackedPaths(dir, commit, paths, { gitPath }),
      store: (project, content) => lfs.storeContent(project, content),
      holds: async (project, pointer) => (await lfs.findObjectFile(project, pointer.oid))?.size === pointer.size,
    },
  );
  const forkSteps = { linkLfs: (sourceId: number, forkId: number) => lfs.linkFork(sourceId, forkId) };
  for (const [kind, handler] of createProjectJobHandlers(stores, forkSteps)) jobs.register(kind, handler);
  const groupBadges = new BadgeService(projects, identity, repos.badges);
  jobs.register(exportJobType, (ctx) => exports.run(ctx));
  jobs.register(archiveImportJobType, (ctx) => imports.run(ctx));
  return {
    projects,
    projectActions: new ProjectActions(projects, identity, stores, jobs, undefined, () => void lfs.removeUnreferenced()),
    projectQueries: new ProjectQueries(projects, identity, stores, (projectId) => lfs.sizeOf(projectId)),
    exports,
    imports,
    hooks,
    badges: groupBadges,
    projectBadges: new ProjectBadgeService(projects, identity, repos.badges, groupBadges),
    notifications: new NotificationSettingsService(repos.notifications),
    repositoryReader: reader,
    repositoryHistory: new RepositoryHistory(projects, gitPath),
    repositoryWriter: writer,
    reconcileRepositories: (log, options) => reconcileRepositories(projects, stores, log, new Date(), options),
    reconcileEvery: (log, schedule) => {
      const periodic = new PeriodicReconciliation(
        (passOptions) => reconcileRepositories(projects, stores, log, new Date(), passOptions),
        repos.projects,
        log,
        schedule,
      );
      periodic.start();
      return periodic;
    },
    lfs,
    lfsLocks: new LfsLockService(projects, identity, repos.lfs),
    lfsPushCheck: new LfsPushCheck(lfs, options.dataDir),
    lfsContent,
    fileAnalyses,
    onProjectRemoved,
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
    commitInitialFile: (dir, branch, file, message, by) => commitInitialFile(dir, branch, file, message, by, { gitPath }),
    readme: async (dir, branch) => (await findReadme(dir, branch, { gitPath })) ?? null,
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
