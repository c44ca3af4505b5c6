import type { Readable } from 'node:stream';
import type { IdentityService } from '../../auth/identity.js';
import type { GroupRecord, ProjectRecord, UserRecord } from '../../store/schema.js';
import type { ProjectStatistics, RootStorageStatistics } from '../api-types.js';
import type { Viewer } from './project-access.js';
import { listProjectPage, ProjectListIndex, type GroupScope, type ProjectFilters, type ProjectPage } from './project-list.js';
import { ProjectPresenter, type NotificationLevels } from './project-presenter.js';
import { namespaceStorage, projectStatistics, type StorageSources } from './project-storage.js';
import type { ProjectsRepo } from './projects-repo.js';
import type { ProjectService, ProjectStores } from './projects.js';

/** The reads of the project routes: list pages, stars, statistics, storage, snapshots and the presenter. */
export class ProjectQueries {
  /** The list's search index, kept across requests until the records change. */
  private readonly listIndex: ProjectListIndex;
  private readonly storage: StorageSources;

  private readonly repo: ProjectsRepo;

  constructor(
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    stores: ProjectStores,
    lfsSize?: (projectId: number) => number,
  ) {
    this.repo = stores.repo;
    this.listIndex = new ProjectListIndex(stores.repo);
    this.storage = { ...stores, lfsSize };
  }

  /** Build the list's search index in the background, a slice per turn of the event loop (ProjectListIndex.warmSearch). */
  warmSearch(signal?: AbortSignal): Promise<void> {
    return this.listIndex.warmSearch(undefined, signal);
  }

  /** One page of the projects `viewer` may read that match `filters`, and how many match in all. */
  list(viewer: Viewer, filters: ProjectFilters, window: { readonly offset: number; readonly limit: number }): ProjectPage {
    const namespacePath = (id: number) => {
      const ns = this.identity.findNamespace(id);
      return ns ? this.projects.namespaceFullPath(ns) : '';
    };
    return listProjectPage(this.repo, viewer, filters, namespacePath, window, this.listIndex);
  }

  /** The group a caller may read (404 otherwise, as GitLab), for GET /groups/:id/projects. */
  readableGroupOf(user: Readonly<UserRecord> | null, idOrPath: string): Readonly<GroupRecord> {
    return this.identity.readableGroup(user, idOrPath);
  }

  /**
   * What GET /groups/:id/projects lists: the group's namespace, its subgroups' too when
   * `includeSubgroups`, and the projects shared with the group when `withShared` (GitLab's default).
   */
  groupScope(groupId: number, includeSubgroups: boolean, withShared: boolean): GroupScope {
    const namespaceIds = new Set([groupId]);
    if (includeSubgroups) {
      const groups = this.identity.allGroups();
      for (let grew = true; grew;) {
        grew = false;
        for (const g of groups) {
          if (g.parentId !== null && namespaceIds.has(g.parentId) && !namespaceIds.has(g.id)) {
            namespaceIds.add(g.id);
            grew = true;
          }
        }
      }
    }
    const sharedProjectIds = new Set(withShared ? this.repo.sharesWithGroup(groupId).map((s) => s.projectId) : []);
    return { namespaceIds, sharedProjectIds };
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
    return new ProjectPresenter(this.repo, this.identity, notificationLevels);
  }
}
