import { AppError } from '../../http/errors.js';
import type { NotificationLevel, NotificationSettingRecord, ProjectRecord, UserRecord } from '../../store/schema.js';
import type { GlobalNotificationSetting, NotificationSetting } from '../api-types.js';
import type { NotificationSource, NotificationsRepo } from './notifications-repo.js';

export type { NotificationSource } from './notifications-repo.js';

/** The levels and the numbers GitLab stores them as (the `notification_level` of project permissions). */
export const notificationLevels: Readonly<Record<NotificationLevel, number>> = {
  disabled: 0,
  participating: 1,
  watch: 2,
  global: 3,
  mention: 4,
  custom: 5,
};

/** The 13 notification e-mail events of the spec, in its order. */
export const notificationEvents = [
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'new_merge_request',
  'push_to_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'merge_merge_request',
  'failed_pipeline',
  'success_pipeline',
] as const;

/** One of the notification events. */
export type NotificationEvent = (typeof notificationEvents)[number];

/** A change of settings from a request; undefined means "not sent". */
export interface NotificationUpdate {
  /** Unchecked: an unknown level is GitLab's enum error, raised here. */
  readonly level?: string;
  /** Global settings only. */
  readonly notificationEmail?: string;
  readonly events: Partial<Record<NotificationEvent, boolean>>;
}

const isLevel = (level: string): level is NotificationLevel => Object.hasOwn(notificationLevels, level);

/** The numeric level a user has chosen for a project (3, global, until they choose), for `permissions.project_access.notification_level`. */
export function notificationLevelOf(repo: NotificationsRepo, userId: number, project: Pick<ProjectRecord, 'id'>): number {
  return notificationLevels[repo.find(userId, { source: 'project', sourceId: project.id })?.level ?? 'global'];
}

/** The numeric level a user has chosen for a group (3, global, until they choose), for `permissions.group_access.notification_level`. */
export function groupNotificationLevelOf(repo: NotificationsRepo, userId: number, groupId: number): number {
  return notificationLevels[repo.find(userId, { source: 'group', sourceId: groupId })?.level ?? 'global'];
}

/** GitLab's NotificationSetting entity: the events only while the level is custom. */
export function presentNotificationSetting(s: Readonly<NotificationSettingRecord>): NotificationSetting {
  if (s.level !== 'custom') return { level: s.level };
  // An event never set reads as off, except failed_pipeline, which GitLab reads as on while unset.
  const events = Object.fromEntries(notificationEvents.map((e) => [e, s.events[e] ?? e === 'failed_pipeline']));
  return { level: s.level, events };
}

/** GitLab's GlobalNotificationSetting: the level and where the mail goes (the primary email by default). */
export function presentGlobalNotificationSetting(
  s: Readonly<NotificationSettingRecord>,
  user: Readonly<UserRecord>,
): GlobalNotificationSetting {
  return { level: s.level, notification_email: s.notificationEmail ?? user.email };
}

/** Users' notification settings: global (default participating) and per group or project (default global). */
export class NotificationSettingsService {
  constructor(private readonly repo: NotificationsRepo) {}

  /** The caller's numeric levels for a project and for its namespace's group (project permissions show them). */
  levelsFor(userId: number, project: Pick<ProjectRecord, 'id' | 'namespaceId'>): { readonly project: number; readonly group: number } {
    return {
      project: notificationLevelOf(this.repo, userId, project),
      group: groupNotificationLevelOf(this.repo, userId, project.namespaceId),
    };
  }

  /** The stored setting, or the default one a user has until they change it. */
  settingOf(user: Readonly<UserRecord>, target: NotificationSource): Readonly<NotificationSettingRecord> {
    return (
      this.repo.find(user.id, target) ?? {
        userId: user.id,
        ...target,
        level: target.source === 'global' ? 'participating' : 'global',
        notificationEmail: null,
        events: {},
      }
    );
  }

  /**
   * Apply a change. Events are stored whatever the level (they show, and count, once it is custom).
   * Everything is checked before anything is written: an unknown level is GitLab's enum error
   * `{"message": "'x' is not a valid level"}`, and a notification email other than the user's own
   * is their model's validation error.
   */
  async update(
    user: Readonly<UserRecord>,
    target: NotificationSource,
    change: NotificationUpdate,
  ): Promise<Readonly<NotificationSettingRecord>> {
    const current = this.settingOf(user, target);
    if (change.level !== undefined && !isLevel(change.level))
      throw new AppError('invalid', `'${change.level}' is not a valid level`, { code: 'render_api_error' });
    let notificationEmail = current.notificationEmail;
    if (target.source === 'global' && change.notificationEmail !== undefined) {
      const email = change.notificationEmail.trim();
      // Users have one (verified) email here; "" goes back to it, as in GitLab.
      if (email !== '' && email.toLowerCase() !== user.email.toLowerCase()) {
        throw new AppError('invalid', 'user is invalid', { fields: { notification_email: ['must be an email you have verified'] } });
      }
      // Kept as "the primary email", so a later change of that email carries over.
      notificationEmail = null;
    }
    return this.repo.save({
      ...current,
      level: (change.level as NotificationLevel | undefined) ?? current.level,
      notificationEmail,
      events: { ...current.events, ...change.events },
    });
  }
}
