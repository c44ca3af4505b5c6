import express, { type Router } from 'express';
import type { AuthGuard } from '../auth/authenticate.js';
import type { IdentityService } from '../auth/identity.js';
import type { Meter } from '../auth/metering.js';
import { createErrorMiddleware } from '../http/error-middleware.js';
import { parseJsonBodies } from '../http/json-body.js';
import type { Logger } from '../http/logger.js';
import { mountBadgeRoutes } from './badges/badge-routes.js';
import type { BadgeService } from './badges/badges.js';
import { mountProjectBadgeRoutes } from './badges/project-badge-routes.js';
import type { ProjectBadgeService } from './badges/project-badges.js';
import { gitlabCompatibleVersion } from './gitlab-version.js';
import { mountHookRoutes } from './hooks/hook-routes.js';
import type { HookService } from './hooks/hooks.js';
import { mountExportRoutes } from './import-export/export-routes.js';
import type { ProjectExportService } from './import-export/project-export.js';
import type { ProjectImportService } from './import-export/project-import.js';
import { mountNotificationRoutes } from './notifications/notification-routes.js';
import type { NotificationSettingsService } from './notifications/notification-settings.js';
import { presentHostingError } from './present.js';
import type { ProjectActions } from './projects/project-actions.js';
import type { ProjectQueries } from './projects/project-queries.js';
import { mountProjectRoutes } from './projects/project-routes.js';
import type { ProjectService } from './projects/projects.js';
import { mountRepositoryReadRoutes } from './repository/read-routes.js';
import type { RepositoryReader } from './repository/repository-reader.js';
import { mountRepositoryHistoryRoutes } from './repository/history-routes.js';
import type { RepositoryHistory } from './repository/repository-history.js';
import type { RepositoryWriter } from './repository/repository-writer.js';
import type { RepositoryFileAnalyses } from './repository/file-analysis.js';
import type { LfsContent } from './repository/lfs-content.js';
import { answerLikeGitLab, createRequestLinks, requireUser, resolveCaller } from './request.js';
import { mountGroupRoutes } from './users-groups/group-routes.js';
import { mountNamespaceRoutes } from './users-groups/namespace-routes.js';
import { mountTokenRoutes } from './users-groups/token-routes.js';
import { mountUserRoutes } from './users-groups/user-routes.js';

/** What the hosting service needs from the composition root. */
export interface HostingDeps {
  readonly version: string;
  readonly identity: IdentityService;
  /** Resolves callers (failed-authentication limit, token, scopes). */
  readonly auth: AuthGuard;
  readonly meter: Meter;
  readonly publicUrl: string | null;
  readonly maxJsonKb: number;
  readonly projects: ProjectService;
  readonly projectActions: ProjectActions;
  readonly projectQueries: ProjectQueries;
  readonly badges: BadgeService;
  readonly projectBadges: ProjectBadgeService;
  readonly notifications: NotificationSettingsService;
  readonly hooks: HookService;
  readonly exports: ProjectExportService;
  readonly imports: ProjectImportService;
  readonly repositoryReader: RepositoryReader;
  readonly repositoryHistory: RepositoryHistory;
  readonly repositoryWriter: RepositoryWriter;
  readonly lfsContent: LfsContent;
  readonly fileAnalyses: RepositoryFileAnalyses;
  /** What else goes when a project is deleted; its export only when absent. */
  readonly onProjectRemoved?: (projectId: number) => Promise<void>;
  /** Where project uploads stream to while they arrive, and how large they may be. */
  readonly uploads: { readonly tmpDir: string; readonly maxBytes: number };
  readonly log: Logger;
}

/** The /api/v4 router. */
export function createHostingRouter(deps: HostingDeps): Router {
  const { identity } = deps;
  const router = express.Router();
  // Before the body parsers, so their errors (bad JSON, 413) carry the headers too.
  router.use(answerLikeGitLab);
  router.use(parseJsonBodies({ limitKb: deps.maxJsonKb }));
  router.use(express.urlencoded({ extended: true, limit: `${deps.maxJsonKb}kb` }));

  router.use(resolveCaller(deps.auth, deps.meter));

  // GitLab answers /version to signed-in callers only (lib/api/version.rb: authenticate!).
  router.get('/version', (_req, res) => {
    requireUser(res);
    res.json({ version: gitlabCompatibleVersion, revision: `cratehouse-${deps.version}` });
  });

  const links = createRequestLinks(deps.publicUrl);
  mountUserRoutes(router, { identity, links });
  mountTokenRoutes(router, { identity, links });
  mountGroupRoutes(router, { identity, links });
  mountNamespaceRoutes(router, { identity, queries: deps.projectQueries, links });
  // Before the project routes, so `/projects/import` is never read as `/projects/:id`.
  mountExportRoutes(router, { projects: deps.projects, exports: deps.exports, imports: deps.imports, tmpDir: deps.uploads.tmpDir, links });
  mountProjectRoutes(router, {
    projects: deps.projects,
    actions: deps.projectActions,
    queries: deps.projectQueries,
    uploads: deps.uploads,
    links,
    onProjectRemoved: deps.onProjectRemoved ?? ((projectId) => deps.exports.forget(projectId)),
    notificationLevels: (userId, project) => deps.notifications.levelsFor(userId, project),
  });
  mountBadgeRoutes(router, { projects: deps.projects, badges: deps.badges, links });
  mountProjectBadgeRoutes(router, { projects: deps.projects, projectBadges: deps.projectBadges, links });
  mountNotificationRoutes(router, { identity, projects: deps.projects, notifications: deps.notifications });
  mountHookRoutes(router, { projects: deps.projects, hooks: deps.hooks, links });
  mountRepositoryReadRoutes(router, {
    projects: deps.projects,
    reader: deps.repositoryReader,
    links,
    lfsContent: deps.lfsContent,
    analyses: deps.fileAnalyses,
  });
  mountRepositoryHistoryRoutes(router, { projects: deps.projects, history: deps.repositoryHistory, writer: deps.repositoryWriter, links });

  router.use((_req, res) => {
    res.status(404).json({ error: '404 Not Found' });
  });
  router.use(createErrorMiddleware((error) => presentHostingError(error), deps.log));
  return router;
}
