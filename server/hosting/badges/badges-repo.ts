import { nextId, type GroupBadgeRecord } from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** The badge attributes an edit may change. */
export type BadgePatch = Partial<Pick<GroupBadgeRecord, 'name' | 'linkUrl' | 'imageUrl'>>;

/** Store access for group badges. */
export interface BadgesRepo {
  /** A group's badges, oldest first (GitLab orders badges by created_at ascending). */
  ofGroup(groupId: number): readonly Readonly<GroupBadgeRecord>[];
  byId(groupId: number, badgeId: number): Readonly<GroupBadgeRecord> | undefined;
  insert(badge: Omit<GroupBadgeRecord, 'id'>): Promise<Readonly<GroupBadgeRecord>>;
  update(badgeId: number, patch: BadgePatch): Promise<Readonly<GroupBadgeRecord>>;
  /** Remove a badge; resolves to false when there was none. */
  remove(groupId: number, badgeId: number): Promise<boolean>;
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
          const record: GroupBadgeRecord = { ...badge, id: nextId(d, 'groupBadges') };
          d.groupBadges.push(record);
          return record;
        },
        ['groupBadges', 'sequences'],
      ),
    update: (badgeId, patch) =>
      store.mutate(
        (d) => {
          const i = d.groupBadges.findIndex((b) => b.id === badgeId);
          if (i < 0) throw new Error(`badge ${badgeId} vanished`);
          const badge = { ...d.groupBadges[i]!, ...patch };
          d.groupBadges[i] = badge;
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
  };
}
