import { accessLevels, type IdentityService } from '../../auth/identity.js';
import { notFound } from '../../http/errors.js';
import type { ProjectRecord, UserRecord } from '../../store/schema.js';
import type { ProjectsRepo } from './projects-repo.js';

/** How a user reaches a project: directly (owner of a personal project) and through groups. */
export interface ProjectAccess {
  /** Access as the project's own member: the owner of a personal project (50), else 0. */
  readonly project: number;
  /** Access through the project's group (inherited from ancestors) and groups it is shared with. */
  readonly group: number;
  /** The larger of the two. */
  readonly level: number;
}

/**
 * One caller's view of projects, computed once per request: the access level in every namespace
 * (group levels inherited downwards, the personal namespace as owner) and in every project shared
 * with one of their groups. Every check is then a map lookup, so a list of 10,000 projects is
 * filtered in one cheap pass.
 */
export class Viewer {
  private namespaceLevels: Map<number, number> | null = null;
  private shareLevels: Map<number, number> | null = null;

  constructor(
    readonly user: Readonly<UserRecord> | null,
    private readonly identity: IdentityService,
    private readonly repo: ProjectsRepo,
    private readonly today: string,
  ) {}

  get admin(): boolean {
    return this.user?.admin ?? false;
  }

  /** The caller's access to a project; a share gives the lower of its level and the caller's level in the group. */
  access(project: Readonly<ProjectRecord>): ProjectAccess {
    if (!this.user) return { project: 0, group: 0, level: 0 };
    this.compute();
    const viaNamespace = this.namespaceLevels!.get(project.namespaceId) ?? 0;
    const own = project.namespaceId === this.user.namespaceId ? accessLevels.owner : 0;
    const group = Math.max(own === 0 ? viaNamespace : 0, this.shareLevels!.get(project.id) ?? 0);
    return { project: own, group, level: Math.max(own, group) };
  }

  /** The caller's effective level in a project (no allocation: lists call this for every record). */
  level(project: Readonly<ProjectRecord>): number {
    if (!this.user) return 0;
    if (project.namespaceId === this.user.namespaceId) return accessLevels.owner;
    this.compute();
    const viaNamespace = this.namespaceLevels!.get(project.namespaceId) ?? 0;
    const viaShare = this.shareLevels!.size === 0 ? 0 : (this.shareLevels!.get(project.id) ?? 0);
    return viaNamespace > viaShare ? viaNamespace : viaShare;
  }

  /** Public: anyone; internal: any signed-in user; private: members (any level) and admins. */
  canRead(project: Readonly<ProjectRecord>): boolean {
    if (project.visibility === 'public') return true;
    if (!this.user) return false;
    if (this.user.admin || project.visibility === 'internal') return true;
    return this.level(project) >= accessLevels.guest;
  }

  /** Push to the repository: developers and up; archived projects are read-only. */
  canPush(project: Readonly<ProjectRecord>): boolean {
    if (!this.user || project.archived) return false;
    return this.user.admin || this.level(project) >= accessLevels.developer;
  }

  /** Change settings, hooks and shares, run housekeeping: maintainers and up. */
  canAdmin(project: Readonly<ProjectRecord>): boolean {
    return !!this.user && (this.user.admin || this.level(project) >= accessLevels.maintainer);
  }

  /** Archive, unarchive, delete: the owner (or an admin). */
  isOwner(project: Readonly<ProjectRecord>): boolean {
    return !!this.user && (this.user.admin || this.level(project) >= accessLevels.owner);
  }

  /** Level in a namespace (group levels inherited from ancestors; own namespace 50). */
  namespaceLevel(namespaceId: number): number {
    if (!this.user) return 0;
    this.compute();
    return this.namespaceLevels!.get(namespaceId) ?? 0;
  }

  /** Namespaces where the caller's level is at least `level` (their own included); none when anonymous. */
  namespacesAtLeast(level: number): number[] {
    if (!this.user) return [];
    this.compute();
    return [...this.namespaceLevels!].flatMap(([id, l]) => (l >= level ? [id] : []));
  }

  /** Projects shared with the caller's groups at a level of at least `level` (whatever their namespace gives). */
  projectsSharedAtLeast(level: number): number[] {
    if (!this.user) return [];
    this.compute();
    return [...this.shareLevels!].flatMap(([id, l]) => (l >= level ? [id] : []));
  }

  private compute(): void {
    if (this.namespaceLevels || !this.user) return;
    const user = this.user;
    const levels = new Map<number, number>([[user.namespaceId, accessLevels.owner]]);
    const children = new Map<number, number[]>();
    for (const g of this.identity.allGroups())
      if (g.parentId !== null) children.set(g.parentId, [...(children.get(g.parentId) ?? []), g.id]);
    for (const m of this.identity.allMemberships()) {
      if (m.userId !== user.id || (m.expiresAt && m.expiresAt < this.today)) continue;
      // A membership reaches the group and every group below it.
      const stack = [m.groupId];
      const seen = new Set<number>();
      while (stack.length > 0) {
        const id = stack.pop()!;
        if (seen.has(id)) continue;
        seen.add(id);
        levels.set(id, Math.max(levels.get(id) ?? 0, m.accessLevel));
        stack.push(...(children.get(id) ?? []));
      }
    }
    const shares = new Map<number, number>();
    for (const s of this.repo.allShares()) {
      if (s.expiresAt && s.expiresAt < this.today) continue;
      const level = levels.get(s.groupId) ?? 0;
      if (level > 0) shares.set(s.projectId, Math.max(shares.get(s.projectId) ?? 0, Math.min(level, s.groupAccess)));
    }
    this.namespaceLevels = levels;
    this.shareLevels = shares;
  }
}

/** Finds projects for callers: GitLab's id rules and its 404 for anything unreadable. */
export class ProjectPolicy {
  constructor(
    private readonly identity: IdentityService,
    private readonly repo: ProjectsRepo,
    private readonly today: () => string = () => new Date().toISOString().slice(0, 10),
  ) {}

  /** A Viewer for this request's caller (null: anonymous). */
  viewer(user: Readonly<UserRecord> | null): Viewer {
    return new Viewer(user, this.identity, this.repo, this.today());
  }

  /** A project by numeric id or URL-decoded full path that the viewer can read, else `404 Project Not Found`. */
  readable(viewer: Viewer, idOrPath: string): Readonly<ProjectRecord> {
    const project = this.find(idOrPath);
    if (!project || !viewer.canRead(project)) throw notFound('Project');
    return project;
  }

  /** GitLab's lookup: digits are an id; a path with a slash is namespace/project; anything else never resolves. */
  find(idOrPath: string): Readonly<ProjectRecord> | undefined {
    if (/^-?\d+$/.test(idOrPath)) return this.repo.byId(Number(idOrPath));
    const slash = idOrPath.lastIndexOf('/');
    if (slash <= 0) return undefined;
    const ns = this.identity.findNamespaceByPath(idOrPath.slice(0, slash));
    return ns ? this.repo.byPath(ns.id, idOrPath.slice(slash + 1)) : undefined;
  }
}
