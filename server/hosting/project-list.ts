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
 * The lower-cased search text of every project (as `lowerText`) in one string, rebuilt when the store
 * changes: a search is then a few indexOf calls that skip to the next record after each hit, instead
 * of an includes on each of 10,000 strings.
 */
export class ProjectSearchIndex {
  private revision = -1;
  private records: readonly Readonly<ProjectRecord>[] | null = null;
  private text = '';
  /** Where record k's text starts in `text`; one more entry marks the end (records are joined by one separator). */
  private starts = new Int32Array(1);

  constructor(private readonly repo: ProjectsRepo) {}

  /** Indices into `repo.projects` of the records whose text contains `term` (already lower-cased), ascending. */
  matching(term: string): number[] {
    this.refresh();
    const { text, starts } = this;
    const n = starts.length - 1;
    const out: number[] = [];
    let r = 0;
    let at = text.indexOf(term);
    while (at >= 0) {
      while (r < n && starts[r + 1]! <= at) r++;
      if (r >= n) break;
      // A hit counts when it lies inside one record's text (not across the separator after it).
      if (at + term.length < starts[r + 1]!) {
        out.push(r);
        r++;
        if (r >= n) break;
        at = text.indexOf(term, starts[r]);
      } else at = text.indexOf(term, at + 1);
    }
    return out;
  }

  private refresh(): void {
    const records = this.repo.projects;
    if (this.revision === this.repo.revision && this.records === records) return;
    const texts = records.map(lowerText);
    const starts = new Int32Array(texts.length + 1);
    let at = 0;
    texts.forEach((t, k) => {
      starts[k] = at;
      at += t.length + 1;
    });
    starts[texts.length] = at;
    this.text = texts.join('\n');
    this.starts = starts;
    this.records = records;
    this.revision = this.repo.revision;
  }
}

/** One page of a list and how many projects match in all (for X-Total and the Link headers). */
export interface ProjectPage {
  readonly items: readonly Readonly<ProjectRecord>[];
  readonly total: number;
}

/**
 * The page `[offset, offset + limit)` of the projects a viewer may see that match the filters, in the
 * requested order, with the count of all matches. The id and created_at orders (the default is
 * created_at desc) follow the records' own order, so the walk keeps only the page and just counts the
 * rest; other orders sort the matches first.
 */
export function listProjectPage(
  repo: ProjectsRepo,
  viewer: Viewer,
  f: ProjectFilters,
  namespaceFullPath: (namespaceId: number) => string,
  window: { readonly offset: number; readonly limit: number },
  searchIndex?: ProjectSearchIndex,
): ProjectPage {
  if ((f.owned || f.membership || f.starred) && !viewer.user) return { items: [], total: 0 };
  const all = repo.projects;
  const orderBy = f.orderBy ?? 'created_at';
  const sort = f.sort ?? 'desc';
  const end = window.offset + window.limit;
  // A plain search (not over namespace paths) narrows the walk to the index's hits.
  const search = f.search?.toLowerCase();
  const candidates = search && !f.searchNamespaces && searchIndex ? searchIndex.matching(search) : null;
  const matches = matcher(repo, viewer, candidates ? { ...f, search: undefined } : f, namespaceFullPath);
  if (orderBy !== 'id' && orderBy !== 'created_at') {
    const found = candidates ? candidates.map((k) => all[k]!).filter(matches) : all.filter(matches);
    return { items: sortProjects(found, orderBy, sort, repo).slice(window.offset, end), total: found.length };
  }
  // Records are kept in id (= creation) order: id and created_at orders are a walk forwards or backwards.
  const items: Readonly<ProjectRecord>[] = [];
  if (matches === everything && !candidates) {
    const total = all.length;
    for (let k = window.offset; k < Math.min(end, total); k++) items.push(all[sort === 'asc' ? k : total - 1 - k]!);
    return { items, total };
  }
  let total = 0;
  const n = candidates ? candidates.length : all.length;
  for (let k = 0; k < n; k++) {
    const at = sort === 'asc' ? k : n - 1 - k;
    const p = all[candidates ? candidates[at]! : at]!;
    if (!matches(p)) continue;
    if (total >= window.offset && total < end) items.push(p);
    total++;
  }
  return { items, total };
}

/** The matcher of an unfiltered list for a caller who reads everything. */
const everything = (): boolean => true;

/** One predicate for the filters and the caller's read access; `everything` when nothing restricts. */
function matcher(repo: ProjectsRepo, viewer: Viewer, f: ProjectFilters, namespaceFullPath: (namespaceId: number) => string): (p: Readonly<ProjectRecord>) => boolean {
  const search = f.search?.toLowerCase();
  const starredIds = f.starred && viewer.user ? new Set(repo.allStarsOf(viewer.user.id)) : null;
  const customAttributes = viewer.admin && f.customAttributes ? Object.entries(f.customAttributes) : [];
  const memberLevel = f.membership ? accessLevels.guest : 0;
  const minLevel = Math.max(memberLevel, f.minAccessLevel ?? 0);
  const restricted =
    !viewer.admin ||
    f.namespaceId !== undefined ||
    f.forkedFromId !== undefined ||
    f.archived !== undefined ||
    f.visibility !== undefined ||
    f.idAfter !== undefined ||
    f.idBefore !== undefined ||
    !!f.withIssuesEnabled ||
    !!f.withMergeRequestsEnabled ||
    !!f.lastActivityAfter ||
    !!f.lastActivityBefore ||
    starredIds !== null ||
    customAttributes.length > 0 ||
    !!search ||
    !!f.owned ||
    minLevel > 0;
  if (!restricted) return everything;
  const nsPathCache = new Map<number, string>();
  const nsPath = (id: number) => {
    let v = nsPathCache.get(id);
    if (v === undefined) nsPathCache.set(id, (v = namespaceFullPath(id).toLowerCase()));
    return v;
  };
  return (p) => {
    if (f.namespaceId !== undefined && p.namespaceId !== f.namespaceId) return false;
    if (f.forkedFromId !== undefined && p.forkedFromId !== f.forkedFromId) return false;
    if (f.archived !== undefined && p.archived !== f.archived) return false;
    if (f.visibility !== undefined && p.visibility !== f.visibility) return false;
    if (f.idAfter !== undefined && p.id <= f.idAfter) return false;
    if (f.idBefore !== undefined && p.id >= f.idBefore) return false;
    if (f.withIssuesEnabled && !p.settings.issues_enabled) return false;
    if (f.withMergeRequestsEnabled && !p.settings.merge_requests_enabled) return false;
    if (f.lastActivityAfter && p.lastActivityAt <= f.lastActivityAfter) return false;
    if (f.lastActivityBefore && p.lastActivityAt >= f.lastActivityBefore) return false;
    if (starredIds && !starredIds.has(p.id)) return false;
    if (customAttributes.length > 0 && customAttributes.some(([k, v]) => p.customAttributes[k] !== v)) return false;
    if (search) {
      const hit = lowerText(p).includes(search) || (f.searchNamespaces === true && `${nsPath(p.namespaceId)}/${p.path.toLowerCase()}`.includes(search));
      if (!hit) return false;
    }
    if (!viewer.admin && !viewer.canRead(p)) return false;
    if (f.owned && !(viewer.user && viewer.level(p) >= accessLevels.owner)) return false;
    if (minLevel > 0 && viewer.level(p) < minLevel) return false;
    return true;
  };
}

function sortProjects(items: Readonly<ProjectRecord>[], orderBy: Exclude<NonNullable<ProjectFilters['orderBy']>, 'id' | 'created_at'>, sort: 'asc' | 'desc', repo: ProjectsRepo): Readonly<ProjectRecord>[] {
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
