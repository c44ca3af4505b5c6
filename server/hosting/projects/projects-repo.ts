import { AppError } from '../../http/errors.js';
import { nextId, patchRow, type ProjectRecord, type ProjectShareRecord, type StarRecord, type UploadRecord } from '../../store/schema.js';
import type { Store, TableName } from '../../store/store.js';
import { ProjectsIndex } from './projects-index.js';

/** What a project's JSON and the project lists are derived from (the caller's memberships and notification levels included, to be safe). */
const projectTables: readonly TableName[] = [
  'projects',
  'users',
  'namespaces',
  'groups',
  'groupMembers',
  'stars',
  'projectShares',
  'notificationSettings',
  'sequences',
];

/** Store access for projects and what hangs off them (stars, shares, uploads). */
export interface ProjectsRepo {
  readonly projects: readonly Readonly<ProjectRecord>[];
  /** Changes whenever what a project's JSON is derived from may have changed (projects, users, groups, stars, shares…: whichever of them a change wrote). */
  readonly revision: number;
  /** Changes whenever the project records themselves may have changed (not with stars, shares or uploads). */
  readonly recordsRevision: number;
  byId(id: number): Readonly<ProjectRecord> | undefined;
  /** Catch up with records other nodes committed (see Store.sync) before a decision that needs them all. */
  sync(): Promise<void>;
  /** Run `work` unless another node (or this process) runs work of that name now (Store.runAlone): false when skipped. */
  runAlone(name: string, work: () => Promise<void>): Promise<boolean>;
  /** By namespace and path, case-insensitively (paths are unique per namespace ignoring case). */
  byPath(namespaceId: number, path: string): Readonly<ProjectRecord> | undefined;
  byName(namespaceId: number, name: string): Readonly<ProjectRecord> | undefined;
  insert(project: Omit<ProjectRecord, 'id'>): Promise<Readonly<ProjectRecord>>;
  update(id: number, patch: Partial<ProjectRecord>): Promise<Readonly<ProjectRecord>>;
  /** Remove a project with its stars, shares, uploads, hooks, badges, export and notification settings; its forks forget where they came from. */
  remove(id: number): Promise<void>;

  starsOf(projectId: number): readonly Readonly<StarRecord>[];
  /** Star counts of every starred project, in one pass (or of the given projects only, without allocating per record). */
  starCounts(onlyIds?: ReadonlySet<number>): ReadonlyMap<number, number>;
  isStarred(projectId: number, userId: number): boolean;
  /** Ids of the projects a user starred. */
  allStarsOf(userId: number): readonly number[];
  /** Star or unstar; resolves to false when nothing changed. */
  setStar(projectId: number, userId: number, starred: boolean): Promise<boolean>;

  /** Fork counts of every forked project, kept by the index (a live view: read it within one request). */
  forkCounts(): ReadonlyMap<number, number>;

  allShares(): readonly Readonly<ProjectShareRecord>[];
  sharesOf(projectId: number): readonly Readonly<ProjectShareRecord>[];
  /** Projects shared with a group. */
  sharesWithGroup(groupId: number): readonly Readonly<ProjectShareRecord>[];
  insertShare(share: Omit<ProjectShareRecord, 'id'>): Promise<Readonly<ProjectShareRecord>>;
  removeShare(projectId: number, groupId: number): Promise<boolean>;

  insertUpload(upload: Omit<UploadRecord, 'id'>): Promise<Readonly<UploadRecord>>;
  upload(projectId: number, secret: string, filename: string): Readonly<UploadRecord> | undefined;
  uploadsOf(projectId: number): readonly Readonly<UploadRecord>[];
}

/** A ProjectsRepo over the store, with an index by id and by namespace path and name (lists and creates stay cheap at 100,000 projects). */
export function createProjectsRepo(store: Store): ProjectsRepo {
  const db = () => store.data;
  let index: ProjectsIndex | null = null;
  let indexedAt = -1;
  /**
   * The index as of the projects' current revision, rebuilt (one pass) when anything else moved it.
   * Inside a change the revision still reads as before the change (the store counts a change after
   * it ran, with the tables it wrote).
   */
  const currentIndex = () => {
    const revision = store.revisionOf(['projects']);
    if (!index || indexedAt !== revision) {
      index = new ProjectsIndex(db().projects);
      indexedAt = revision;
    }
    return index;
  };
  /**
   * Inside a change that writes a project row: carry the index over it instead of rebuilding it (a
   * pass over 100,000 rows) if it is current, and date it to the revision the store counts once the
   * change has run (one more: the change writes the projects table). A rollback or any other change
   * in between moves the revision past it, and the index is rebuilt.
   */
  const carryIndex = (record: ProjectRecord) => {
    if (index && indexedAt === store.revisionOf(['projects'])) {
      index.put(record);
      indexedAt++;
    }
  };
  /** Count occurrences of `key(row)` in one tight loop, optionally only for some ids. */
  const countBy = <T>(rows: readonly T[], key: (row: T) => number | null, onlyIds?: ReadonlySet<number>) => {
    const out = new Map<number, number>();
    for (const row of rows) {
      const id = key(row);
      if (id === null || (onlyIds && !onlyIds.has(id))) continue;
      out.set(id, (out.get(id) ?? 0) + 1);
    }
    return out;
  };

  return {
    get projects() {
      return db().projects;
    },
    get revision() {
      return store.revisionOf(projectTables);
    },
    get recordsRevision() {
      return store.revisionOf(['projects']);
    },
    byId: (id) => currentIndex().findById(id),
    sync: () => store.sync(),
    runAlone: (name, work) => store.runAlone(name, work),
    byPath: (namespaceId, path) => currentIndex().findByPath(namespaceId, path),
    byName: (namespaceId, name) => currentIndex().findByName(namespaceId, name),
    insert: (project) =>
      store.mutate((d) => {
        // Checked again here, atomically: a create awaits git between its own check and this write.
        const fields: Record<string, string[]> = {};
        const here = currentIndex();
        if (here.findByName(project.namespaceId, project.name)) fields.name = ['has already been taken'];
        if (here.findByPath(project.namespaceId, project.path)) fields.path = ['has already been taken'];
        if (Object.keys(fields).length > 0) throw new AppError('invalid', 'project is invalid', { fields });
        const record: ProjectRecord = { ...project, id: nextId(d, 'projects') };
        d.projects.push(record);
        carryIndex(record);
        return record;
      }),
    update: (id, patch) =>
      store.mutate((d) => {
        const project = patchRow(d.projects, (p) => p.id === id, patch);
        if (!project) throw new Error(`project ${id} vanished`);
        carryIndex(project);
        return project;
      }),
    remove: (id) =>
      store.mutate((d) => {
        d.projects = d.projects.filter((p) => p.id !== id).map((p) => (p.forkedFromId === id ? { ...p, forkedFromId: null } : p));
        d.stars = d.stars.filter((s) => s.projectId !== id);
        d.projectShares = d.projectShares.filter((s) => s.projectId !== id);
        d.uploads = d.uploads.filter((u) => u.projectId !== id);
        d.hooks = d.hooks.filter((h) => h.projectId !== id);
        d.projectBadges = d.projectBadges.filter((b) => b.projectId !== id);
        d.projectExports = d.projectExports.filter((e) => e.projectId !== id);
        d.notificationSettings = d.notificationSettings.filter((n) => !(n.source === 'project' && n.sourceId === id));
      }),

    starsOf: (projectId) => db().stars.filter((s) => s.projectId === projectId),
    starCounts: (onlyIds) => countBy(db().stars, (s) => s.projectId, onlyIds),
    allStarsOf: (userId) =>
      db()
        .stars.filter((s) => s.userId === userId)
        .map((s) => s.projectId),
    isStarred: (projectId, userId) => db().stars.some((s) => s.projectId === projectId && s.userId === userId),
    // Stars, shares and uploads name their tables: the records' own caches (search text, counts, fork counts) outlive them.
    setStar: (projectId, userId, starred) =>
      store.mutate(
        (d) => {
          const has = d.stars.some((s) => s.projectId === projectId && s.userId === userId);
          if (has === starred) return false;
          if (starred) d.stars.push({ projectId, userId, createdAt: new Date().toISOString() });
          else d.stars = d.stars.filter((s) => !(s.projectId === projectId && s.userId === userId));
          return true;
        },
        ['stars'],
      ),

    forkCounts: () => currentIndex().forkCounts(),

    allShares: () => db().projectShares,
    sharesOf: (projectId) => db().projectShares.filter((s) => s.projectId === projectId),
    sharesWithGroup: (groupId) => db().projectShares.filter((s) => s.groupId === groupId),
    insertShare: (share) =>
      store.mutate(
        (d) => {
          const record: ProjectShareRecord = { ...share, id: nextId(d, 'projectShares') };
          d.projectShares.push(record);
          return record;
        },
        ['projectShares', 'sequences'],
      ),
    removeShare: (projectId, groupId) =>
      store.mutate(
        (d) => {
          const before = d.projectShares.length;
          d.projectShares = d.projectShares.filter((s) => !(s.projectId === projectId && s.groupId === groupId));
          return d.projectShares.length !== before;
        },
        ['projectShares'],
      ),

    insertUpload: (upload) =>
      store.mutate(
        (d) => {
          const record: UploadRecord = { ...upload, id: nextId(d, 'uploads') };
          d.uploads.push(record);
          return record;
        },
        ['uploads', 'sequences'],
      ),
    upload: (projectId, secret, filename) =>
      db().uploads.find((u) => u.projectId === projectId && u.secret === secret && u.filename === filename),
    uploadsOf: (projectId) => db().uploads.filter((u) => u.projectId === projectId),
  };
}
