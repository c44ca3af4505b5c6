import type { Readable } from 'node:stream';
import type { ProjectRecord } from '../../store/schema.js';
import type { ProjectStatistics, RootStorageStatistics } from '../api-types.js';
import type { Viewer } from './project-access.js';
import { listProjectPage, ProjectListIndex, type ProjectFilters, type ProjectPage } from './project-list.js';
import { ProjectPresenter, type NotificationLevels } from './project-presenter.js';
import { namespaceStorage, projectStatistics, type StorageSources } from './project-storage.js';
import type { ProjectsRepo } from './projects-repo.js';
import type { ProjectPaths, ProjectService, RepositoryOps } from './projects.js';

/** The reads of the project routes: list pages, stars, statistics, storage, snapshots and the presenter. */
export class ProjectQueries {
  /** The list's search index, kept across requests until the records change. */
  private readonly listIndex: ProjectListIndex;
  private readonly storage: StorageSources;

  constructor(
    private readonly projects: ProjectService,
    private readonly repo: ProjectsRepo,
    git: RepositoryOps,
    paths: ProjectPaths,
    lfsSize?: (projectId: number) => number,
  ) {
    this.listIndex = new ProjectListIndex(repo);
    this.storage = { repo, git, paths, lfsSize };
  }

  /** One page of the projects `viewer` may read that match `filters`, and how many match in all. */
  list(viewer: Viewer, filters: ProjectFilters, window: { readonly offset: number; readonly limit: number }): ProjectPage {
    const namespacePath = (id: number) => {
      const ns = this.projects.identity.repo.namespaceById(id);
      return ns ? this.projects.namespaceFullPath(ns) : '';
    };
    return listProjectPage(this.repo, viewer, filters, namespacePath, window, this.listIndex);
  }

  /** The projects `userId` starred that `viewer` may read, newest star first. */
  starredBy(viewer: Viewer, userId: number): readonly Readonly<ProjectRecord>[] {
    const starred = new Set(this.repo.allStarsOf(userId));
    return this.repo.projects.filter((x) => starred.has(x.id) && viewer.canRead(x)).reverse();
  }

  /** A project by id as stored now (after a write that may have changed it). */
  findProject(id: number): Readonly<ProjectRecord> | undefined {
    return this.repo.byId(id);
  }

  /** GitLab's ProjectStatistics of a project (git walks its repository). */
  statistics(project: Readonly<ProjectRecord>): Promise<ProjectStatistics> {
    return projectStatistics(this.storage, project);
  }

  /** GitLab's RootStorageStatistics of a namespace. */
  namespaceStorage(namespaceId: number): Promise<RootStorageStatistics> {
    return namespaceStorage(this.storage, namespaceId);
  }

  /** A tar stream of the project's bare repository (GitLab's admin snapshot). */
  snapshot(project: Readonly<ProjectRecord>): Promise<Readable> {
    return this.storage.git.snapshot(this.storage.paths.repository(project));
  }

  /** A presenter with its own JSON cache (one per router). */
  createPresenter(notificationLevels?: NotificationLevels): ProjectPresenter {
    return new ProjectPresenter(this.repo, this.projects.identity, notificationLevels);
  }
}
