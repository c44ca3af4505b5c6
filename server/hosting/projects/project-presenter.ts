/**
 * Projects in GitLab's shapes, per request, with the cross-request JSON cache of list items. The
 * cache's variant key sits next to the context it stands for (`context` below): anything `context`
 * reads about the caller or the request must appear in `variantOf`, or cached items go stale.
 */
import type { IdentityService } from '../../auth/identity.js';
import type { ProjectRecord } from '../../store/schema.js';
import type { ProjectStatistics } from '../api-types.js';
import type { Viewer } from './project-access.js';
import { ProjectJsonCache } from './project-json-cache.js';
import type { ProjectsRepo } from './projects-repo.js';
import { presentProject, presentProjectBasic, presentProjectSimple, type ProjectContext } from './present-project.js';

/** The caller's numeric notification levels for a project and for its namespace's group. */
export type NotificationLevels = (userId: number, project: Readonly<ProjectRecord>) => { readonly project: number; readonly group: number };

/** What one request's presentation options can ask for beyond the shape. */
export interface FullOptions {
  readonly withAccess?: boolean;
  readonly statistics?: ProjectStatistics | null;
  readonly customAttributes?: boolean;
}

/** One request's presenter: namespace names, counts and shares are looked up once per request. */
export interface RequestProjectPresenter {
  /** Limit the per-request counts to these projects (a page), instead of every project. */
  prepare(page: readonly Readonly<ProjectRecord>[]): void;
  /** The full Project (single reads with access; writes without `permissions`). */
  full(p: Readonly<ProjectRecord>, options?: FullOptions): unknown;
  /** A list item: simple, basic (anonymous) or ProjectWithAccess. */
  item(p: Readonly<ProjectRecord>, simple: boolean, statistics: ProjectStatistics | null, customAttributes: boolean): unknown;
  /** `item` without statistics or custom attributes, serialised, from the cache when nothing it depends on changed. */
  itemJson(p: Readonly<ProjectRecord>, simple: boolean): Buffer;
}

/** Presents projects; one per router, so its cache outlives requests. */
export class ProjectPresenter {
  private readonly cache: ProjectJsonCache;

  constructor(
    private readonly repo: ProjectsRepo,
    private readonly identity: IdentityService,
    private readonly notificationLevels?: NotificationLevels,
  ) {
    this.cache = new ProjectJsonCache(() => repo.revision);
  }

  /** The presenter of one request, for this caller and the server's base URL as they reach it. */
  forRequest(viewer: Viewer, base: string): RequestProjectPresenter {
    const { repo, identity } = this;
    let stars: ReadonlyMap<number, number> | null = null;
    let forks: ReadonlyMap<number, number> | null = null;
    /** Set by `prepare` to the page's projects (and their parents) before presenting them. */
    let counted: Set<number> | undefined;
    const namespaces = new Map<number, Pick<ProjectContext, 'namespace' | 'namespaceName' | 'owner'>>();
    const nsContext = (namespaceId: number) => {
      let c = namespaces.get(namespaceId);
      if (c) return c;
      const ns = identity.findNamespace(namespaceId);
      if (!ns) throw new Error(`namespace ${namespaceId} missing`);
      if (ns.kind === 'user') {
        const owner = identity.findUserById(ns.ownerId) ?? null;
        c = {
          namespace: { id: ns.id, name: owner?.name ?? ns.name, path: ns.path, kind: 'user', fullPath: ns.path, parentId: null },
          namespaceName: owner?.name ?? ns.name,
          owner,
        };
      } else {
        const group = identity.findGroup(ns.id);
        const fullPath = group ? identity.fullPath(group) : ns.path;
        c = {
          namespace: { id: ns.id, name: group?.name ?? ns.name, path: ns.path, kind: 'group', fullPath, parentId: group?.parentId ?? null },
          namespaceName: group ? identity.fullName(group) : '',
          owner: null,
        };
      }
      namespaces.set(namespaceId, c);
      return c;
    };
    const parentOf = (p: Readonly<ProjectRecord>) => (p.forkedFromId === null ? undefined : repo.byId(p.forkedFromId));
    const context = (
      p: Readonly<ProjectRecord>,
      withAccess: boolean,
      statistics?: ProjectStatistics | null,
      customAttributes?: boolean,
    ): ProjectContext => {
      // Counted once per request, for the projects being presented only.
      counted ??= new Set(p.forkedFromId === null ? [p.id] : [p.id, p.forkedFromId]);
      stars ??= repo.starCounts(counted);
      forks ??= repo.forkCounts();
      const parent = parentOf(p);
      return {
        base,
        ...nsContext(p.namespaceId),
        starCount: stars.get(p.id) ?? 0,
        forksCount: forks.get(p.id) ?? 0,
        shares: repo.sharesOf(p.id).map((share) => {
          const group = identity.findGroup(share.groupId);
          return { share, groupName: group?.name ?? '', groupFullPath: group ? identity.fullPath(group) : '' };
        }),
        forkedFrom: parent && viewer.canRead(parent) ? presentProjectBasic(parent, context(parent, false)) : null,
        ...(withAccess && viewer.user
          ? { access: viewer.access(p), notificationLevels: this.notificationLevels?.(viewer.user.id, p) }
          : {}),
        statistics,
        customAttributes: customAttributes && viewer.admin,
        canAdmin: viewer.canAdmin(p),
      };
    };
    /** Every per-request input of `context(p, true, null, false)` for a signed-in caller (the store's revision keys the rest). */
    const variantOf = (p: Readonly<ProjectRecord>, user: NonNullable<Viewer['user']>): string => {
      const access = viewer.access(p);
      const levels = this.notificationLevels?.(user.id, p);
      const parent = parentOf(p);
      const parentReadable = parent !== undefined && viewer.canRead(parent);
      return `f ${base} ${viewer.canAdmin(p) ? 1 : 0} ${parentReadable ? 1 : 0} ${access.project} ${access.group} ${levels?.project ?? '-'} ${levels?.group ?? '-'}`;
    };
    return {
      prepare: (page) => {
        counted = new Set(page.flatMap((p) => (p.forkedFromId === null ? [p.id] : [p.id, p.forkedFromId])));
      },
      full: (p, options = {}) => presentProject(p, context(p, options.withAccess ?? false, options.statistics, options.customAttributes)),
      item: (p, simple, statistics, customAttributes) => {
        if (simple) return presentProjectSimple(p, context(p, false));
        if (!viewer.user) return presentProjectBasic(p, context(p, false));
        return presentProject(p, context(p, true, statistics, customAttributes));
      },
      itemJson: (p, simple) => {
        // The simple and basic shapes are the same and depend on nothing about the caller.
        if (simple || !viewer.user) return this.cache.json(p.id, `s ${base}`, () => presentProjectSimple(p, context(p, false)));
        return this.cache.json(p.id, variantOf(p, viewer.user), () => presentProject(p, context(p, true, null, false)));
      },
    };
  }
}
