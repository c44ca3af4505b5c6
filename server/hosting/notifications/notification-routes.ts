import type { Request, Router } from 'express';
import type { IdentityService } from '../../auth/identity.js';
import type { UserRecord } from '../../store/schema.js';
import {
  notificationEvents,
  presentGlobalNotificationSetting,
  presentNotificationSetting,
  type NotificationSettingsService,
  type NotificationSource,
  type NotificationUpdate,
} from './notification-settings.js';
import type { ProjectService } from '../projects/projects.js';
import { paramsOf, requireUser } from '../request.js';

/** What the notification settings routes need. */
export interface NotificationRouteDeps {
  readonly identity: IdentityService;
  readonly projects: ProjectService;
  readonly notifications: NotificationSettingsService;
}

/**
 * Mount /notification_settings and its group and project forms. Every route needs a caller (GitLab's
 * `before { authenticate! }`, so the 401 comes before parameter errors); attributes may come in the
 * query string, as in the published examples, or in the body.
 */
export function mountNotificationRoutes(router: Router, deps: NotificationRouteDeps): void {
  const { identity, projects } = deps;
  const settings = deps.notifications;
  /** The attributes of a PUT, checked like Grape (an event that is not a boolean is "x is invalid"). */
  const changeOf = (req: Request, global: boolean): NotificationUpdate => {
    const p = paramsOf(req);
    const events: NotificationUpdate['events'] = {};
    const level = p.string('level');
    const notificationEmail = global ? p.string('notification_email') : undefined;
    for (const event of notificationEvents) {
      const value = p.bool(event);
      if (value !== undefined) events[event] = value;
    }
    p.check();
    return { level, notificationEmail, events };
  };
  const global: NotificationSource = { source: 'global', sourceId: null };

  router.get('/notification_settings', (_req, res) => {
    const user = requireUser(res);
    res.json(presentGlobalNotificationSetting(settings.settingOf(user, global), user));
  });

  router.put('/notification_settings', async (req, res) => {
    const user = requireUser(res);
    const change = changeOf(req, true);
    res.json(presentGlobalNotificationSetting(await settings.update(user, global, change), user));
  });

  /** The group or project of the path, if the caller can read it (else 404 Group/Project Not Found). */
  const sources = {
    groups: (user: Readonly<UserRecord>, id: string): NotificationSource => ({
      source: 'group',
      sourceId: identity.readableGroup(user, id).id,
    }),
    projects: (user: Readonly<UserRecord>, id: string): NotificationSource => ({
      source: 'project',
      sourceId: projects.policy.readable(projects.policy.viewer(user), id).id,
    }),
  };
  for (const [kind, sourceOf] of Object.entries(sources)) {
    router.get(`/${kind}/:id/notification_settings`, (req, res) => {
      const user = requireUser(res);
      res.json(presentNotificationSetting(settings.settingOf(user, sourceOf(user, String(req.params.id)))));
    });

    router.put(`/${kind}/:id/notification_settings`, async (req, res) => {
      const user = requireUser(res);
      const change = changeOf(req, false);
      const target = sourceOf(user, String(req.params.id));
      res.json(presentNotificationSetting(await settings.update(user, target, change)));
    });
  }
}
