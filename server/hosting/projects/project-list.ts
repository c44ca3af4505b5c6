import { accessLevels } from '../../auth/identity.js';
import type { ProjectRecord, Visibility } from '../../store/schema.js';
import type { Viewer } from './project-access.js';
import { lowerText, ProjectSearchIndex } from './project-search-index.js';
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
  /** A group's projects (GET /groups/:id/projects): in one of these namespaces, or one of these shared projects. */
  readonly groupScope?: GroupScope;
}

/** The projects a group listing covers: its namespace (and its subgroups'), plus projects shared with it. */
export interface GroupScope {
  readonly namespaceIds: ReadonlySet<number>;
  readonly sharedProjectIds: ReadonlySet<number>;
}

/** How many records have each visibility, with the private ones per namespace. */
interface VisibilityCounts {
  readonly visibility: Readonly<Record<Visibility, number>>;
  readonly privateByNamespace: ReadonlyMap<number, number>;
}

/** The records a search term matches (in table order), with their counts once a list asked for them. */
export interface SearchHits {
  readonly term: string;
  readonly records: readonly Readonly<ProjectRecord>[];
  counts?: VisibilityCounts;
}

/**
 * What a list needs to know about every project, kept while the records' revision holds (stars,
 * shares and bookkeeping writes leave it alone, so they do not cost another pass over every record):
 * - a trigram index of every project's search text (project-search-index.ts), kept row by row across
 *   revisions, with the last few terms' hits;
 * - how many projects (of all, or of a term's hits) have each visibility, with the private ones per
 *   namespace, so a list restricted by read access alone is counted from the caller's memberships
 *   instead of by visiting every match, and its walk stops at the page's end.
 */
export class ProjectListIndex {
  private revision = -1;
  private records: readonly Readonly<ProjectRecord>[] | null = null;
  private counts: VisibilityCounts | null = null;
  private readonly search = new ProjectSearchIndex();
  private searchedAt = -1;
  private readonly hits = new Map<string, SearchHits>();

  constructor(
    private readonly repo: ProjectsRepo,
    /** Search terms whose hits are kept (while the records' revision holds). */
    private readonly termCapacity = 32,
  ) {}

  /**
   * Build the search index ahead of the first search, `slice` rows per turn of the event loop: at
   * 100,000 projects the first search otherwise built it whole inside one request (2.4 s), and no
   * request waits behind a slice. A slice indexes only its own rows while the table has not moved;
   * after a write it first syncs the prefix already indexed (as a search would). A search before the
   * end finishes the build itself.
   */
  async warmSearch(slice = 500, signal?: AbortSignal): Promise<void> {
    let lastRecords: readonly Readonly<ProjectRecord>[] | null = null;
    let lastRevision = -1;
    for (;;) {
      if (signal?.aborted) return;
      const records = this.repo.projects;
      const revision = this.repo.recordsRevision;
      const done = this.search.indexedRows();
      if (done >= records.length) return;
      const upTo = Math.min(records.length, done + slice);
      if (records === lastRecords && revision === lastRevision) this.search.extend(records, upTo);
      else this.search.sync(records.slice(0, upTo));
      lastRecords = records;
      lastRevision = revision;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The records whose search text contains `term` (already lower-cased), in table order. */
  matching(term: string): SearchHits {
    this.fresh();
    const known = this.hits.get(term);
    if (known) return known;
    if (this.searchedAt !== this.revision) {
      this.search.sync(this.records!);
      this.searchedAt = this.revision;
    }
    const found: SearchHits = { term, records: this.search.matching(term) };
    if (this.hits.size >= this.termCapacity) this.hits.delete(this.hits.keys().next().value!);
    this.hits.set(term, found);
    return found;
  }

  /**
   * How many projects (of one visibility, if given; of a search's hits, if given) the viewer may
   * read: what the access check alone lets through.
   */
  countReadable(viewer: Viewer, visibility: Visibility | undefined, within?: SearchHits): number {
    this.fresh();
    const counts = within ? (within.counts ??= countVisibilities(within.records)) : (this.counts ??= countVisibilities(this.records!));
    const of = (v: Visibility) => (visibility === undefined || visibility === v ? counts.visibility[v] : 0);
    if (viewer.admin) return of('public') + of('internal') + of('private');
    if (!viewer.user) return of('public');
    if (visibility !== undefined && visibility !== 'private') return of(visibility);
    // Private projects: those in namespaces where the caller is at least a guest, plus those shared
    // with the caller's groups at guest or above that their namespace does not already give.
    let readablePrivate = 0;
    const reached = new Set<number>();
    for (const namespaceId of viewer.namespacesAtLeast(accessLevels.guest)) {
      reached.add(namespaceId);
      readablePrivate += counts.privateByNamespace.get(namespaceId) ?? 0;
    }
    for (const projectId of viewer.projectsSharedAtLeast(accessLevels.guest)) {
      const p = this.repo.byId(projectId);
      if (p && p.visibility === 'private' && !reached.has(p.namespaceId) && (!within || lowerText(p).includes(within.term)))
        readablePrivate++;
    }
    return of('public') + of('internal') + readablePrivate;
  }

  /** Drop counts and hits when the records moved. */
  private fresh(): void {
    const records = this.repo.projects;
    if (this.revision === this.repo.recordsRevision && this.records === records) return;
    this.counts = null;
    this.hits.clear();
    this.records = records;
    this.revision = this.repo.recordsRevision;
  }
}

function countVisibilities(records: readonly Readonly<ProjectRecord>[]): VisibilityCounts {
  const visibility: Record<Visibility, number> = { private: 0, internal: 0, public: 0 };
  const privateByNamespace = new Map<number, number>();
  for (const p of records) {
    visibility[p.visibility]++;
    if (p.visibility === 'private') privateByNamespace.set(p.namespaceId, (privateByNamespace.get(p.namespaceId) ?? 0) + 1);
  }
  return { visibility, privateByNamespace };
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
  index?: ProjectListIndex,
): ProjectPage {
  if ((f.owned || f.membership || f.starred) && !viewer.user) return { items: [], total: 0 };
  const all = repo.projects;
  const orderBy = f.orderBy ?? 'created_at';
  const sort = f.sort ?? 'desc';
  const end = window.offset + window.limit;
  // A plain search (not over namespace paths) narrows the walk to the index's hits.
  const search = f.search?.toLowerCase();
  const hits = search && !f.searchNamespaces && index ? index.matching(search) : null;
  const candidates = hits?.records ?? null;
  const rest = hits ? { ...f, search: undefined } : f;
  const matches = matcher(repo, viewer, rest, namespaceFullPath);
  if (orderBy !== 'id' && orderBy !== 'created_at') {
    const found = (candidates ?? all).filter(matches);
    return { items: sortProjects(found, orderBy, sort, repo).slice(window.offset, end), total: found.length };
  }
  // Records are kept in id (= creation) order: id and created_at orders are a walk forwards or backwards.
  const items: Readonly<ProjectRecord>[] = [];
  if (matches === everything && !candidates) {
    const total = all.length;
    for (let k = window.offset; k < Math.min(end, total); k++) items.push(all[sort === 'asc' ? k : total - 1 - k]!);
    return { items, total };
  }
  // Restricted by read access (and visibility) alone, of all records or of a search's hits: the index
  // counts, the walk stops at the page's end.
  const counted = index && !narrowedBeyondVisibility(rest, viewer) ? index.countReadable(viewer, f.visibility, hits ?? undefined) : null;
  const walked = candidates ?? all;
  let seen = 0;
  const n = walked.length;
  for (let k = 0; k < n; k++) {
    const p = walked[sort === 'asc' ? k : n - 1 - k]!;
    if (!matches(p)) continue;
    if (seen >= window.offset && seen < end) items.push(p);
    seen++;
    if (counted !== null && seen >= end) break;
  }
  return { items, total: counted ?? seen };
}

/**
 * True when a filter other than `visibility` narrows the list (as `matcher` applies them). When false,
 * what matches is what the caller may read (of that visibility), which is what the index counts: the
 * matcher's shortcut and that count share this one list of filters.
 */
function narrowedBeyondVisibility(f: ProjectFilters, viewer: Viewer): boolean {
  return (
    f.namespaceId !== undefined ||
    f.groupScope !== undefined ||
    f.forkedFromId !== undefined ||
    f.archived !== undefined ||
    f.idAfter !== undefined ||
    f.idBefore !== undefined ||
    !!f.withIssuesEnabled ||
    !!f.withMergeRequestsEnabled ||
    !!f.lastActivityAfter ||
    !!f.lastActivityBefore ||
    !!f.starred ||
    // Applied for administrators only.
    (viewer.admin && f.customAttributes !== undefined && Object.keys(f.customAttributes).length > 0) ||
    !!f.search ||
    !!f.owned ||
    minAccessLevelOf(f) > 0
  );
}

/** The access level a project must give the caller to be listed (membership: guest); 0 for none. */
function minAccessLevelOf(f: ProjectFilters): number {
  return Math.max(f.membership ? accessLevels.guest : 0, f.minAccessLevel ?? 0);
}

/** The matcher of an unfiltered list for a caller who reads everything. */
const everything = (): boolean => true;

/** One predicate for the filters and the caller's read access; `everything` when nothing restricts. */
function matcher(
  repo: ProjectsRepo,
  viewer: Viewer,
  f: ProjectFilters,
  namespaceFullPath: (namespaceId: number) => string,
): (p: Readonly<ProjectRecord>) => boolean {
  if (viewer.admin && f.visibility === undefined && !narrowedBeyondVisibility(f, viewer)) return everything;
  const search = f.search?.toLowerCase();
  const starredIds = f.starred && viewer.user ? new Set(repo.allStarsOf(viewer.user.id)) : null;
  const customAttributes = viewer.admin && f.customAttributes ? Object.entries(f.customAttributes) : [];
  const minLevel = minAccessLevelOf(f);
  const nsPathCache = new Map<number, string>();
  const nsPath = (id: number) => {
    let v = nsPathCache.get(id);
    if (v === undefined) nsPathCache.set(id, (v = namespaceFullPath(id).toLowerCase()));
    return v;
  };
  return (p) => {
    if (f.namespaceId !== undefined && p.namespaceId !== f.namespaceId) return false;
    if (f.groupScope && !f.groupScope.namespaceIds.has(p.namespaceId) && !f.groupScope.sharedProjectIds.has(p.id)) return false;
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
      const hit =
        lowerText(p).includes(search) ||
        (f.searchNamespaces === true && `${nsPath(p.namespaceId)}/${p.path.toLowerCase()}`.includes(search));
      if (!hit) return false;
    }
    if (!viewer.admin && !viewer.canRead(p)) return false;
    if (f.owned && !(viewer.user && viewer.level(p) >= accessLevels.owner)) return false;
    if (minLevel > 0 && viewer.level(p) < minLevel) return false;
    return true;
  };
}

function sortProjects(
  items: Readonly<ProjectRecord>[],
  orderBy: Exclude<NonNullable<ProjectFilters['orderBy']>, 'id' | 'created_at'>,
  sort: 'asc' | 'desc',
  repo: ProjectsRepo,
): Readonly<ProjectRecord>[] {
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
