import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callHosting, type CallInit } from '../../test-support/hosting-client.js';
import { addUsers, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';
import { groupNotificationLevelOf, notificationEvents, notificationLevelOf } from './notification-settings.js';
import { createNotificationsRepo } from './notifications-repo.js';

let app: TestApp;
const tokens: Record<'alice' | 'bob' | 'carol', string> = { alice: '', bob: '', carol: '' };
const ids = { alice: 0, bob: 0, carol: 0, band: 0, album: 0 };

type Who = keyof typeof tokens | 'anonymous';
const api = (who: Who, route: string, init: CallInit = {}) => callHosting(app, who === 'anonymous' ? null : tokens[who], route, init);
const put = (who: Who, route: string, body?: unknown) => api(who, route, { method: 'PUT', body });
const expectReply = async (res: Response, status: number, body: unknown) => {
  expect({ status: res.status, body: await res.json() }).toEqual({ status, body });
};
/** All 13 events off, except failed_pipeline (GitLab reads it as on until set), then `on`. */
const events = (on: Record<string, boolean> = {}) => ({
  ...Object.fromEntries(notificationEvents.map((e) => [e, e === 'failed_pipeline'])),
  ...on,
});

beforeAll(async () => {
  app = await startTestApp();
  await addUsers(app, ['alice', 'bob', 'carol'], tokens, ids);
  const group = await api('alice', '/groups', { method: 'POST', body: { name: 'Band', path: 'band', visibility: 'private' } });
  ids.band = ((await group.json()) as { id: number }).id;
  const project = await api('alice', '/projects', {
    method: 'POST',
    body: { name: 'Album', namespace_id: ids.band, visibility: 'private' },
  });
  ids.album = ((await project.json()) as Project).id;
  expect((await api('alice', `/groups/${ids.band}/members`, { method: 'POST', body: { user_id: ids.bob, access_level: 30 } })).status).toBe(
    201,
  );
}, 30_000);

afterAll(() => app.close());

describe('every notification settings route needs a caller', () => {
  it('answers 401 to anonymous callers', async () => {
    for (const route of [
      '/notification_settings',
      `/groups/${ids.band}/notification_settings`,
      `/projects/${ids.album}/notification_settings`,
    ]) {
      await expectReply(await api('anonymous', route), 401, { message: '401 Unauthorized' });
      await expectReply(await put('anonymous', `${route}?level=watch`), 401, { message: '401 Unauthorized' });
    }
  });
});

describe('global notification settings', () => {
  it('default to participating, mail to the primary email', async () => {
    await expectReply(await api('alice', '/notification_settings'), 200, {
      level: 'participating',
      notification_email: 'alice@example.com',
    });
  });

  it('change level and email from the query string (the published examples) or the body', async () => {
    await expectReply(await put('alice', '/notification_settings?level=watch&notification_email=ALICE@example.com'), 200, {
      level: 'watch',
      notification_email: 'alice@example.com',
    });
    await expectReply(await put('alice', '/notification_settings', { level: 'mention', new_note: true }), 200, {
      level: 'mention',
      notification_email: 'alice@example.com',
    });
    await expectReply(await api('alice', '/notification_settings'), 200, { level: 'mention', notification_email: 'alice@example.com' });
    // Each user has their own.
    await expectReply(await api('bob', '/notification_settings'), 200, { level: 'participating', notification_email: 'bob@example.com' });
  });

  it('refuses an email the user has not verified, an unknown level, a non-boolean event; nothing is changed', async () => {
    await expectReply(await put('alice', '/notification_settings?notification_email=someone@example.com&level=watch'), 400, {
      message: { notification_email: ['must be an email you have verified'] },
    });
    await expectReply(await put('alice', '/notification_settings?level=xyz'), 400, { message: "'xyz' is not a valid level" });
    await expectReply(await put('alice', '/notification_settings', { level: 'Watch' }), 400, { message: "'Watch' is not a valid level" });
    await expectReply(await put('alice', '/notification_settings?new_note=maybe'), 400, { error: 'new_note is invalid' });
    await expectReply(await api('alice', '/notification_settings'), 200, { level: 'mention', notification_email: 'alice@example.com' });
  });
});

describe('group and project notification settings', () => {
  const routes = () => ({ group: `/groups/${ids.band}/notification_settings`, project: `/projects/${ids.album}/notification_settings` });

  it('default to global', async () => {
    await expectReply(await api('alice', routes().group), 200, { level: 'global' });
    await expectReply(await api('alice', routes().project), 200, { level: 'global' });
    await expectReply(await api('bob', '/projects/band%2Falbum/notification_settings'), 200, { level: 'global' });
    await expectReply(await api('alice', '/groups/band/notification_settings'), 200, { level: 'global' });
  });

  it('show all 13 events only while the level is custom; events sent under another level are kept for later', async () => {
    for (const route of Object.values(routes())) {
      await expectReply(await put('alice', `${route}?level=custom&new_note=true&success_pipeline=1`), 200, {
        level: 'custom',
        events: events({ new_note: true, success_pipeline: true }),
      });
      await expectReply(await put('alice', route, { level: 'watch', new_issue: true, failed_pipeline: false }), 200, { level: 'watch' });
      await expectReply(await api('alice', route), 200, { level: 'watch' });
      await expectReply(await put('alice', `${route}?level=custom`), 200, {
        level: 'custom',
        events: events({ new_note: true, success_pipeline: true, new_issue: true, failed_pipeline: false }),
      });
      await expectReply(await api('alice', route), 200, {
        level: 'custom',
        events: events({ new_note: true, success_pipeline: true, new_issue: true, failed_pipeline: false }),
      });
      // Bob's settings for the same group and project are his own.
      await expectReply(await api('bob', route), 200, { level: 'global' });
    }
  });

  it('accept every level; an unknown one is the enum error', async () => {
    for (const level of ['disabled', 'participating', 'watch', 'global', 'mention']) {
      await expectReply(await put('bob', `${routes().project}?level=${level}`), 200, { level });
    }
    await expectReply(await put('bob', `${routes().group}?level=xyz`), 400, { message: "'xyz' is not a valid level" });
    await expectReply(await put('bob', routes().project, { level: 'loud' }), 400, { message: "'loud' is not a valid level" });
    await expectReply(await put('bob', `${routes().project}?close_issue=perhaps`), 400, { error: 'close_issue is invalid' });
    await expectReply(await api('bob', routes().project), 200, { level: 'mention' });
  });

  it('a group or project the caller cannot read is not found', async () => {
    await expectReply(await api('carol', `/groups/${ids.band}/notification_settings`), 404, { message: '404 Group Not Found' });
    await expectReply(await put('carol', `/groups/${ids.band}/notification_settings?level=watch`), 404, { message: '404 Group Not Found' });
    await expectReply(await api('carol', `/projects/${ids.album}/notification_settings`), 404, { message: '404 Project Not Found' });
    await expectReply(await put('carol', `/projects/${ids.album}/notification_settings?level=watch`), 404, {
      message: '404 Project Not Found',
    });
    await expectReply(await api('alice', '/projects/999999/notification_settings'), 404, { message: '404 Project Not Found' });
  });

  it('the numeric level for project permissions follows what the user chose', async () => {
    const repo = createNotificationsRepo(app.store);
    expect(notificationLevelOf(repo, ids.alice, { id: ids.album })).toBe(5);
    expect(notificationLevelOf(repo, ids.bob, { id: ids.album })).toBe(4);
    expect(notificationLevelOf(repo, ids.carol, { id: ids.album })).toBe(3);
    expect(groupNotificationLevelOf(repo, ids.alice, ids.band)).toBe(5);
    expect(groupNotificationLevelOf(repo, ids.bob, ids.band)).toBe(3);
  });
});
