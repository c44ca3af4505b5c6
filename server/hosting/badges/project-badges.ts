import type { IdentityService } from '../../auth/identity.js';
import { AppError } from '../../http/errors.js';
import type { GroupBadgeRecord, ProjectBadgeRecord, ProjectRecord } from '../../store/schema.js';
import {
  badgePatchOf,
  newBadgeFields,
  presentBadgeRender,
  validateBadgeUrls,
  type BadgeInput,
  type BadgeService,
  type PlaceholderValues,
} from './badges.js';
import type { BadgeRender } from '../api-types.js';
import type { BadgesRepo } from './badges-repo.js';
import type { Viewer } from '../projects/project-access.js';
import type { ProjectService } from '../projects/projects.js';

/** A badge as a project shows it: its own (kind "project") or inherited from one of its groups. */
export type ShownBadge =
  | { readonly kind: 'project'; readonly badge: Readonly<ProjectBadgeRecord> }
  | { readonly kind: 'group'; readonly badge: Readonly<GroupBadgeRecord> };

/**
 * Project badges (GitLab's `/projects/:id/badges`): the project's own badges, which maintainers
 * change, and the badges of its group and every ancestor group, which the project only shows.
 * Placeholders always take this project's values.
 */
export class ProjectBadgeService {
  constructor(
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    private readonly repo: BadgesRepo,
    private readonly groupBadges: BadgeService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The project's badges and those of its groups (nearest first up to the root), in id order, optionally only those with exactly this name. */
  list(project: Readonly<ProjectRecord>, name?: string): readonly ShownBadge[] {
    const own: ShownBadge[] = this.repo.ofProject(project.id).map((badge) => ({ kind: 'project', badge }));
    const namespace = this.projects.namespaceOf(project);
    const groupIds = this.identity.ancestorIds(namespace.kind === 'group' ? namespace.id : null);
    const inherited: ShownBadge[] = groupIds.flatMap((groupId) =>
      this.repo.ofGroup(groupId).map((badge) => ({ kind: 'group' as const, badge })),
    );
    // One id sequence for both kinds: id order is creation order (GitLab's default order by id).
    return [...own, ...inherited].filter((b) => name === undefined || b.badge.name === name).sort((a, b) => a.badge.id - b.badge.id);
  }

  /** One badge the project shows, its own or its groups' (GitLab finds it in `project.badges`); else `404 Not found`. */
  find(project: Readonly<ProjectRecord>, badgeId: number): ShownBadge {
    const shown = this.list(project).find((b) => b.badge.id === badgeId);
    if (!shown) throw new AppError('not-found', 'Not found');
    return shown;
  }

  /** One of the project's own badges; a group badge is not changed through a project (`404 Not found`). */
  findOwn(project: Readonly<ProjectRecord>, badgeId: number): Readonly<ProjectBadgeRecord> {
    const badge = this.repo.projectBadgeById(project.id, badgeId);
    if (!badge) throw new AppError('not-found', 'Not found');
    return badge;
  }

  /** Preview a badge with this project's values: maintainers and up (403), valid URLs (400). */
  async render(
    viewer: Viewer,
    project: Readonly<ProjectRecord>,
    linkUrl: string,
    imageUrl: string,
    serverHost: string,
  ): Promise<BadgeRender> {
    this.requireMaintainer(viewer, project);
    validateBadgeUrls(linkUrl, imageUrl);
    return presentBadgeRender(linkUrl, imageUrl, await this.placeholderValues(project, serverHost));
  }

  /** Add a badge to the project: maintainers and up (403). */
  async create(viewer: Viewer, project: Readonly<ProjectRecord>, input: BadgeInput): Promise<Readonly<ProjectBadgeRecord>> {
    this.requireMaintainer(viewer, project);
    return this.repo.insertProjectBadge({ projectId: project.id, ...newBadgeFields(input), createdAt: this.now().toISOString() });
  }

  /** Change what was sent of one of the project's own badges: maintainers and up (403). */
  async update(
    viewer: Viewer,
    project: Readonly<ProjectRecord>,
    badgeId: number,
    input: BadgeInput,
  ): Promise<Readonly<ProjectBadgeRecord>> {
    this.requireMaintainer(viewer, project);
    const badge = this.findOwn(project, badgeId);
    const patch = badgePatchOf(badge, input);
    return Object.keys(patch).length === 0 ? badge : this.repo.updateProjectBadge(badge.id, patch);
  }

  /** Remove one of the project's own badges: maintainers and up (403). */
  async remove(viewer: Viewer, project: Readonly<ProjectRecord>, badgeId: number): Promise<void> {
    this.requireMaintainer(viewer, project);
    this.findOwn(project, badgeId);
    await this.repo.removeProjectBadge(project.id, badgeId);
  }

  /** The values this project gives the placeholders. */
  placeholderValues(project: Readonly<ProjectRecord>, serverHost: string): Promise<PlaceholderValues> {
    return this.groupBadges.projectValues(project, serverHost);
  }

  /** GitLab's `admin_project` ability: maintainers, owners and admins (anonymous 401, others 403). */
  private requireMaintainer(viewer: Viewer, project: Readonly<ProjectRecord>): void {
    if (!viewer.user) throw new AppError('unauthorized', 'Unauthorized');
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
  }
}
