import type { NotificationSettingRecord } from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** What a notification setting is attached to: the user's global setting, a group or a project. */
export type NotificationSource =
  { readonly source: 'global'; readonly sourceId: null } | { readonly source: 'group' | 'project'; readonly sourceId: number };

/** Store access for users' notification settings (one row per user and source, created on first write). */
export interface NotificationsRepo {
  find(userId: number, target: NotificationSource): Readonly<NotificationSettingRecord> | undefined;
  /** Insert or replace the row of `record.userId` for its source. */
  save(record: NotificationSettingRecord): Promise<Readonly<NotificationSettingRecord>>;
}

/** A NotificationsRepo over the store. */
export function createNotificationsRepo(store: Store): NotificationsRepo {
  const matches = (n: Readonly<NotificationSettingRecord>, userId: number, target: NotificationSource) =>
    n.userId === userId && n.source === target.source && n.sourceId === target.sourceId;
  return {
    find: (userId, target) => store.data.notificationSettings.find((n) => matches(n, userId, target)),
    save: (record) =>
      store.mutate(
        (d) => {
          const target = { source: record.source, sourceId: record.sourceId } as NotificationSource;
          const copy: NotificationSettingRecord = { ...record, events: { ...record.events } };
          const i = d.notificationSettings.findIndex((n) => matches(n, record.userId, target));
          if (i >= 0) d.notificationSettings[i] = copy;
          else d.notificationSettings.push(copy);
          return copy;
          // Named: the project caches, which show notification levels, still move; others stay.
        },
        ['notificationSettings'],
      ),
  };
}
