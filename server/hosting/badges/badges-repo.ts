import { badgeSequence, nextId, patchRow, type GroupBadgeRecord, type ProjectBadgeRecord } from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** The badge attributes an edit may change. */
export type BadgePatch = Partial<Pick<GroupBadgeRecord, 'name' | 'linkUrl' | 'imageUrl'>>;

/** Store access for group and project badges. */
export interface BadgesRepo {
  /** A group's badges, oldest first (GitLab orders badges by created_at ascending). */
  ofGroup(groupId: number): readonly Readonly<GroupBadgeRecord>[];
  byId(groupId: number, badgeId: number): Readonly<GroupBadgeRecord> | undefined;
  insert(badge: Omit<GroupBadgeRecord, 'id'>): Promise<Readonly<GroupBadgeRecord>>;
  update(badgeId: number, patch: BadgePatch): Promise<Readonly<GroupBadgeRecord>>;
  /** Remove a badge; resolves to false when there was none. */
  remove(groupId: number, badgeId: number): Promise<boolean>;
  /** A project's own badges, in id (creation) order. */
  ofProject(projectId: number): readonly Readonly<ProjectBadgeRecord>[];
  projectBadgeById(projectId: number, badgeId: number): Readonly<ProjectBadgeRecord> | undefined;
  insertProjectBadge(badge: Omit<ProjectBadgeRecord, 'id'>): Promise<Readonly<ProjectBadgeRecord>>;
  updateProjectBadge(badgeId: number, patch: BadgePatch): Promise<Readonly<ProjectBadgeRecord>>;
  /** Remove a project badge; resolves to false when there was none. */
  removeProjectBadge(projectId: number, badgeId: number): Promise<boolean>;
}

/** A BadgesRepo over the store. */
export function createBadgesRepo(store: Store): BadgesRepo {
  return {
    ofGroup: (groupId) =>
      store.data.groupBadges
        .filter((b) => b.groupId === groupId)
        // Ids break ties: badges created within the same millisecond keep their creation order.
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id)),
    byId: (groupId, badgeId) => store.data.groupBadges.find((b) => b.groupId === groupId && b.id === badgeId),
    // Badges name their tables: the project caches (JSON, list index) outlive them.
    insert: (badge) =>
      store.mutate(
        (d) => {
          const record: GroupBadgeRecord = { ...badge, id: nextId(d, badgeSequence) };
          d.groupBadges.push(record);
          return record;
        },
        ['groupBadges', 'sequences'],
      ),
    update: (badgeId, patch) =>
      store.mutate(
        (d) => {
          const badge = patchRow(d.groupBadges, (b) => b.id === badgeId, patch);
          if (!badge) throw new Error(`badge ${badgeId} vanished`);
          return badge;
        },
        ['groupBadges'],
      ),
    remove: (groupId, badgeId) =>
      store.mutate(
        (d) => {
          const before = d.groupBadges.length;
          d.groupBadges = d.groupBadges.filter((b) => !(b.groupId === groupId && b.id === badgeId));
          return d.groupBadges.length !== before;
        },
        ['groupBadges'],
      ),
    // Rows are appended as their ids are taken, so the table's order is id order (the caller sorts with the group badges anyway).
    ofProject: (projectId) => store.data.projectBadges.filter((b) => b.projectId === projectId),
    projectBadgeById: (projectId, badgeId) => store.data.projectBadges.find((b) => b.projectId === projectId && b.id === badgeId),
    insertProjectBadge: (badge) =>
      store.mutate(
        (d) => {
          const record: ProjectBadgeRecord = { ...badge, id: nextId(d, badgeSequence) };
          d.projectBadges.push(record);
          return record;
        },
        ['projectBadges', 'sequences'],
      ),
    updateProjectBadge: (badgeId, patch) =>
      store.mutate(
        (d) => {
          const badge = patchRow(d.projectBadges, (b) => b.id === badgeId, patch);
          if (!badge) throw new Error(`badge ${badgeId} vanished`);
          return badge;
        },
        ['projectBadges'],
      ),
    removeProjectBadge: (projectId, badgeId) =>
      store.mutate(
        (d) => {
          const before = d.projectBadges.length;
          d.projectBadges = d.projectBadges.filter((b) => !(b.projectId === projectId && b.id === badgeId));
          return d.projectBadges.length !== before;
        },
        ['projectBadges'],
      ),
  };
}
