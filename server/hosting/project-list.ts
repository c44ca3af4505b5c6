import { accessLevels } from '../auth/identity.js';
import type { ProjectRecord, Visibility } from '../store/schema.js';
import type { Viewer } from './project-access.js';
import type { ProjectsRepo } from './projects-repo.js';

/** The list filters of table `F` (and GitLab's extras), as parsed from a request. */
export interface ProjectFilters {
  readonly archived?: boolean;
  readonly visibility?: Visibility;
  readonly orderBy?: 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at' | 'star_count';
  readonly sort?: 'asc' | 'desc';
  readonly search?: string;
  readonly searchNamespaces?: boolean;
  readonly owned?: boolean;
  readonly membership?: boolean;
  readonly starred?: boolean;
  readonly withIssuesEnabled?: boolean;
  readonly withMergeRequestsEnabled?: boolean;
  readonly minAccessLevel?: number;
  readonly idAfter?: number;
  readonly idBefore?: number;
  readonly lastActivityAfter?: string;
  readonly lastActivityBefore?: string;
  /** `custom_attributes[key]=value` pairs; applied for administrators only. */
  readonly customAttributes?: Readonly<Record<string, string>>;
  /** Restrict to these namespaces (a user's projects) or to forks of a project. */
  readonly namespaceId?: number;
  readonly forkedFromId?: number;
}

/** Lower-cased search text per record, recomputed only when the record's fields change. */
const searchText = new WeakMap<object, { name: string; path: string; description: string | null; text: string }>();

function lowerText(p: Readonly<ProjectRecord>): string {
  const cached = searchText.get(p);
  if (cached && cached.name === p.name && cached.path === p.path && cached.description === p.description) return cached.text;
  const text = `${p.name}\u0000${p.path}\u0000${p.description ?? ''}`.toLowerCase();
  searchText.set(p, { name: p.name, path: p.path, description: p.description, text });
  return text;
}

/**
 * The projects a viewer may see that match the filters, in the requested order. One pass over the
 * projects with map lookups only; the default order (created_at desc) is the reverse of insertion,
 * so the common case needs no sort.
 */
export function listProjects(repo: ProjectsRepo, viewer: Viewer, f: ProjectFilters, namespaceFullPath: (namespaceId: number) => string): Readonly<ProjectRecord>[] {
  if ((f.owned || f.membership || f.starred) && !viewer.user) return [];
  const search = f.search?.toLowerCase();
  const starredIds = f.starred && viewer.user ? new Set(repo.allStarsOf(viewer.user.id)) : null;
  const customAttributes = viewer.admin && f.customAttributes ? Object.entries(f.customAttributes) : [];
  const memberLevel = f.membership ? accessLevels.guest : 0;
  const minLevel = Math.max(memberLevel, f.minAccessLevel ?? 0);
  const nsPathCache = new Map<number, string>();
  const nsPath = (id: number) => {
    let v = nsPathCache.get(id);
    if (v === undefined) nsPathCache.set(id, (v = namespaceFullPath(id).toLowerCase()));
    return v;
  };

  const out: Readonly<ProjectRecord>[] = [];
  for (const p of repo.projects) {
    if (f.namespaceId !== undefined && p.namespaceId !== f.namespaceId) continue;
    if (f.forkedFromId !== undefined && p.forkedFromId !== f.forkedFromId) continue;
    if (f.archived !== undefined && p.archived !== f.archived) continue;
    if (f.visibility !== undefined && p.visibility !== f.visibility) continue;
    if (f.idAfter !== undefined && p.id <= f.idAfter) continue;
    if (f.idBefore !== undefined && p.id >= f.idBefore) continue;
    if (f.withIssuesEnabled && !p.settings.issues_enabled) continue;
    if (f.withMergeRequestsEnabled && !p.settings.merge_requests_enabled) continue;
    if (f.lastActivityAfter && p.lastActivityAt <= f.lastActivityAfter) continue;
    if (f.lastActivityBefore && p.lastActivityAt >= f.lastActivityBefore) continue;
    if (starredIds && !starredIds.has(p.id)) continue;
    if (customAttributes.some(([k, v]) => p.customAttributes[k] !== v)) continue;
    if (search) {
      const hit = lowerText(p).includes(search) || (f.searchNamespaces === true && `${nsPath(p.namespaceId)}/${p.path.toLowerCase()}`.includes(search));
      if (!hit) continue;
    }
    if (!viewer.admin && !viewer.canRead(p)) continue;
    if (f.owned && !(viewer.user && viewer.level(p) >= accessLevels.owner)) continue;
    if (minLevel > 0 && viewer.level(p) < minLevel) continue;
    out.push(p);
  }
  return sortProjects(out, f.orderBy ?? 'created_at', f.sort ?? 'desc', repo);
}

function sortProjects(items: Readonly<ProjectRecord>[], orderBy: NonNullable<ProjectFilters['orderBy']>, sort: 'asc' | 'desc', repo: ProjectsRepo): Readonly<ProjectRecord>[] {
  // Records are kept in id (= creation) order: id and created_at orders are a reversal at most.
  if (orderBy === 'id' || orderBy === 'created_at') return sort === 'asc' ? items : items.reverse();
  const stars = orderBy === 'star_count' ? repo.starCounts() : null;
  const key = (p: Readonly<ProjectRecord>): string | number => {
    switch (orderBy) {
      case 'name':
        return p.name.toLowerCase();
      case 'path':
        return p.path.toLowerCase();
      case 'updated_at':
        return p.updatedAt;
      case 'last_activity_at':
        return p.lastActivityAt;
      case 'star_count':
        return stars!.get(p.id) ?? 0;
    }
  };
  const dir = sort === 'asc' ? 1 : -1;
  return items.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return (x < y ? -1 : x > y ? 1 : a.id - b.id) * dir;
  });
}
