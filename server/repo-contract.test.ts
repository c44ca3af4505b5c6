import { describe, expect, it } from 'vitest';
import { createSourcesRepo } from './audio/sources/sources-repo.js';
import { createIdentityRepo } from './auth/identity-repo.js';
import { createUsageRepo } from './auth/usage-repo.js';
import { createBadgesRepo } from './hosting/badges/badges-repo.js';
import { createHooksRepo } from './hosting/hooks/hooks-repo.js';
import { createExportsRepo } from './hosting/import-export/exports-repo.js';
import { createLfsRepo } from './hosting/lfs/lfs-repo.js';
import { createNotificationsRepo } from './hosting/notifications/notifications-repo.js';
import { createProjectsRepo } from './hosting/projects/projects-repo.js';
import { AppError } from './http/errors.js';
import { createJobsRepo } from './queue/jobs-repo.js';
import type { HookEvents, JobRecord, ProjectRecord } from './store/schema.js';
import type { Store } from './store/store.js';
import { storeKinds, type OpenedStore } from './test-support/store-kinds.js';

// The contract every repository keeps, whichever store is under it. Each scenario makes its writes
// through the repository and checks its reads against values that follow from those writes; then
// the store is closed and opened again, and the reopened document must equal the one in memory
// (the embedded store reads db.json back, the PostgreSQL store its tables).

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

function reposOf(store: Store) {
  return {
    identity: createIdentityRepo(store),
    usage: createUsageRepo(store),
    sources: createSourcesRepo(store),
    jobs: createJobsRepo(store),
    badges: createBadgesRepo(store),
    projects: createProjectsRepo(store),
    hooks: createHooksRepo(store),
    notifications: createNotificationsRepo(store),
    lfs: createLfsRepo(store),
    exports: createExportsRepo(store),
  };
}
type Repos = ReturnType<typeof reposOf>;

/** A user and a group to hang projects on (every scenario that needs them calls this first). */
async function seed(r: Repos, s: string) {
  const user = await r.identity.insertUser(
    {
      username: `Alice${s}`,
      name: 'Alice A',
      email: `Alice${s}@Example.com`,
      admin: false,
      state: 'active',
      tenant: `alice${s}`,
      passwordHash: null,
      createdAt: at(1),
    },
    'secret-1',
  );
  const group = await r.identity.insertGroup(
    { name: `Label${s}`, path: `label${s}`, description: '', visibility: 'public', parentId: null, createdAt: at(2) },
    user.id,
  );
  return { user, group };
}

const projectInput = (namespaceId: number, creatorId: number, path: string): Omit<ProjectRecord, 'id'> => ({
  name: path,
  path,
  namespaceId,
  description: null,
  visibility: 'private',
  defaultBranch: 'main',
  creatorId,
  settings: {
    issues_enabled: true,
    merge_requests_enabled: true,
    jobs_enabled: true,
    wiki_enabled: false,
    snippets_enabled: false,
    resolve_outdated_diff_discussions: false,
    container_registry_enabled: false,
    shared_runners_enabled: true,
    public_jobs: true,
    only_allow_merge_if_pipeline_succeeds: false,
    only_allow_merge_if_all_discussions_are_resolved: false,
    lfs_enabled: true,
    request_access_enabled: true,
    printing_merge_request_link_enabled: true,
  },
  mergeMethod: 'merge',
  tagList: ['drums', 'lo-fi'],
  ciConfigPath: null,
  archived: false,
  importUrl: null,
  importStatus: 'none',
  importError: null,
  forkedFromId: null,
  emptyRepo: true,
  readmePath: null,
  runnersToken: 'rt',
  customAttributes: { zeta: '1', alpha: '2' },
  createdAt: at(3),
  updatedAt: at(3),
  lastActivityAt: at(3),
});

const hookEvents: HookEvents = {
  push_events: true,
  issues_events: false,
  confidential_issues_events: false,
  merge_requests_events: true,
  tag_push_events: false,
  note_events: false,
  job_events: false,
  pipeline_events: false,
  wiki_page_events: false,
};

/** Each repository's scenario; `s` makes its names unique when all run on one store. */
const scenarios: Readonly<Record<string, (r: Repos, s: string) => Promise<void>>> = {
  async identity(r, s) {
    const { user, group } = await seed(r, s);
    expect(r.identity.userByUsername(`alice${s}`)?.id).toBe(user.id);
    expect(r.identity.userByEmail(`alice${s}@example.COM`)?.id).toBe(user.id);
    expect(r.identity.namespaceByPath(`ALICE${s}`)?.id).toBe(user.namespaceId);
    expect(r.identity.tenant(`alice${s}`)?.webhookSecret).toBe('secret-1');
    expect(r.identity.member(group.id, user.id)?.accessLevel).toBe(50);
    const child = await r.identity.insertGroup(
      { name: 'Sub', path: 'sub', description: 'd', visibility: 'private', parentId: group.id, createdAt: at(4) },
      null,
    );
    expect(r.identity.groupByFullPath(`label${s}/SUB`)?.id).toBe(child.id);
    expect(r.identity.namespaceByPath(`label${s}/sub`)?.id).toBe(child.id);
    await r.identity.upsertMember({ groupId: group.id, userId: user.id, accessLevel: 30, expiresAt: '2027-01-01', createdAt: at(5) });
    expect(r.identity.members.filter((m) => m.groupId === group.id)).toHaveLength(1);
    expect(r.identity.member(group.id, user.id)?.accessLevel).toBe(30);
    const token = await r.identity.insertToken({
      userId: user.id,
      name: 't',
      digest: 'd'.repeat(64),
      scopes: ['api', 'read_user'],
      createdAt: at(6),
      expiresAt: null,
      revoked: false,
      lastUsedAt: null,
    });
    r.identity.markTokenUsed(token.id, at(7));
    await r.identity.revokeToken(token.id);
    expect(r.identity.tokenByDigest('d'.repeat(64))).toMatchObject({ revoked: true, lastUsedAt: at(7), scopes: ['api', 'read_user'] });
  },

  async usage(r) {
    const deltas = (route: string, n: number, bytes: number, seconds: number) =>
      new Map([['alice', { requests: new Map([[route, n]]), bytesUploaded: bytes, audioSeconds: seconds }]]);
    await r.usage.add(deltas('POST /audio/v1/loudness', 2, 1000, 1.25), at(1));
    await r.usage.add(deltas('POST /audio/v1/loudness', 3, 24, 0.5), at(2));
    await r.usage.add(deltas('GET /audio/v1/me', 1, 0, 0), at(3));
    expect(r.usage.get('alice')).toEqual({
      requests: { 'POST /audio/v1/loudness': 5, 'GET /audio/v1/me': 1 },
      bytesUploaded: 1024,
      audioSeconds: 1.75,
      updatedAt: at(3),
    });
  },

  async sources(r) {
    await r.sources.save({ url: 'https://a.example/1', contentId: 'c1', name: 'one', descriptor: { n: 1 }, fetchedAt: at(1) });
    await r.sources.save({ url: 'https://a.example/2', contentId: 'c2', name: 'two', descriptor: { n: [2] }, fetchedAt: at(2) });
    await r.sources.save({ url: 'https://a.example/1', contentId: 'c3', name: 'one again', descriptor: {}, fetchedAt: at(3) });
    expect(r.sources.byUrl('https://a.example/1')?.contentId).toBe('c3');
    await r.sources.forget('https://a.example/2');
    expect(r.sources.byUrl('https://a.example/2')).toBeUndefined();
  },

  async jobs(r) {
    const job: JobRecord = {
      jobId: 'j-1',
      type: 'source',
      tenant: 'alice',
      status: 'pending',
      progress: 0,
      priority: 5,
      params: { url: 'https://x.example', list: [1, 2] },
      result: null,
      resultRef: null,
      error: null,
      created: 1767225600.125,
      started: null,
      finished: null,
      cancelRequested: false,
      webhookUrl: 'https://hook.example',
      webhook: { attempts: 0, delivered: false, gaveUp: false, lastError: null },
    };
    await r.jobs.insert(job);
    await r.jobs.insert({ ...job, jobId: 'j-2', params: ['array', 'params'] });
    await r.jobs.update('j-1', { status: 'running', started: 1767225601.5 });
    r.jobs.touch('j-1', { progress: 0.25 });
    await r.jobs.update('j-1', { status: 'done', finished: 1767225602, result: { lufs: -14.2 }, progress: 1 });
    expect(await r.jobs.update('missing', { status: 'error' })).toBeUndefined();
    expect(r.jobs.byId('j-1')).toMatchObject({ status: 'done', progress: 1, result: { lufs: -14.2 }, started: 1767225601.5 });
    expect(r.jobs.all().map((j) => j.jobId)).toEqual(['j-1', 'j-2']);
  },

  async badges(r, s) {
    const { group } = await seed(r, s);
    const a = await r.badges.insert({ groupId: group.id, name: 'a', linkUrl: 'https://l/a', imageUrl: 'https://i/a', createdAt: at(5) });
    const b = await r.badges.insert({ groupId: group.id, name: null, linkUrl: 'https://l/b', imageUrl: 'https://i/b', createdAt: at(4) });
    expect(r.badges.ofGroup(group.id).map((x) => x.id)).toEqual([b.id, a.id]);
    await r.badges.update(a.id, { name: 'renamed' });
    expect(r.badges.byId(group.id, a.id)?.name).toBe('renamed');
    expect(await r.badges.remove(group.id, b.id)).toBe(true);
    expect(await r.badges.remove(group.id, b.id)).toBe(false);
  },

  async projects(r, s) {
    const { user, group } = await seed(r, s);
    const p = await r.projects.insert(projectInput(user.namespaceId, user.id, 'Beat'));
    const other = await r.projects.insert(projectInput(group.id, user.id, 'beat'));
    expect(r.projects.byPath(user.namespaceId, 'BEAT')?.id).toBe(p.id);
    const taken = await r.projects.insert(projectInput(user.namespaceId, user.id, 'BEAT')).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(AppError);
    expect((taken as AppError).options.fields).toEqual({ name: ['has already been taken'], path: ['has already been taken'] });
    const fork = await r.projects.insert({ ...projectInput(group.id, user.id, 'fork'), forkedFromId: p.id });
    expect(r.projects.forkCounts().get(p.id)).toBe(1);
    await r.projects.update(p.id, { description: 'new', tagList: ['x'], readmePath: 'README.md' });
    expect(r.projects.byId(p.id)).toMatchObject({ description: 'new', tagList: ['x'], readmePath: 'README.md' });
    expect(await r.projects.setStar(p.id, user.id, true)).toBe(true);
    expect(await r.projects.setStar(p.id, user.id, true)).toBe(false);
    await r.projects.setStar(other.id, user.id, true);
    expect(r.projects.starCounts()).toEqual(
      new Map([
        [p.id, 1],
        [other.id, 1],
      ]),
    );
    await r.projects.setStar(other.id, user.id, false);
    await r.projects.update(other.id, { archived: true, lastActivityAt: at(9) });
    expect(r.projects.allStarsOf(user.id)).toEqual([p.id]);
    // A rename frees the old path and name and takes the new ones at once (lookups read the index the writes keep).
    await r.projects.update(other.id, { path: 'loop', name: 'Loop' });
    expect([r.projects.byPath(group.id, 'BEAT'), r.projects.byName(group.id, 'beat')]).toEqual([undefined, undefined]);
    expect([r.projects.byPath(group.id, 'LOOP')?.id, r.projects.byName(group.id, 'loop')?.id]).toEqual([other.id, other.id]);
    const again = await r.projects.insert(projectInput(group.id, user.id, 'Beat'));
    expect(r.projects.byPath(group.id, 'beat')?.id).toBe(again.id);
    const retaken = await r.projects.insert(projectInput(group.id, user.id, 'loop')).catch((e: unknown) => e);
    expect((retaken as AppError).options.fields).toEqual({ name: ['has already been taken'], path: ['has already been taken'] });
    const share = await r.projects.insertShare({ projectId: p.id, groupId: group.id, groupAccess: 30, expiresAt: null, createdAt: at(6) });
    expect(r.projects.sharesWithGroup(group.id).map((s) => s.id)).toEqual([share.id]);
    await r.projects.insertUpload({
      projectId: p.id,
      secret: 'a'.repeat(32),
      filename: 'kick.wav',
      size: 5_000_000_000,
      uploaderId: user.id,
      createdAt: at(7),
    });
    expect(r.projects.upload(p.id, 'a'.repeat(32), 'kick.wav')?.size).toBe(5_000_000_000);
    await r.projects.insertShare({ projectId: other.id, groupId: group.id, groupAccess: 20, expiresAt: '2027-02-02', createdAt: at(8) });
    expect(await r.projects.removeShare(other.id, group.id)).toBe(true);
    // Removing a project takes what hangs off it, and its forks forget it.
    await r.projects.remove(p.id);
    expect(r.projects.byId(p.id)).toBeUndefined();
    expect(r.projects.byId(fork.id)?.forkedFromId).toBeNull();
    expect([r.projects.starsOf(p.id), r.projects.sharesOf(p.id), r.projects.uploadsOf(p.id)]).toEqual([[], [], []]);
    expect(r.projects.projects.map((x) => x.path)).toEqual(['loop', 'fork', 'Beat']);
    expect(r.projects.byPath(user.namespaceId, 'beat')).toBeUndefined();
  },

  async projectBadges(r, s) {
    const { user, group } = await seed(r, s);
    const p = await r.projects.insert(projectInput(user.namespaceId, user.id, 'badged'));
    const q = await r.projects.insert(projectInput(group.id, user.id, 'other'));
    const a = await r.badges.insertProjectBadge({
      projectId: p.id,
      name: 'a',
      linkUrl: 'https://l/a',
      imageUrl: 'https://i/a',
      createdAt: at(5),
    });
    // Group and project badges take their ids from one sequence.
    const g = await r.badges.insert({ groupId: group.id, name: 'g', linkUrl: 'https://l/g', imageUrl: 'https://i/g', createdAt: at(5) });
    const b = await r.badges.insertProjectBadge({
      projectId: p.id,
      name: null,
      linkUrl: 'https://l/b',
      imageUrl: 'https://i/b',
      createdAt: at(4),
    });
    const c = await r.badges.insertProjectBadge({
      projectId: q.id,
      name: 'c',
      linkUrl: 'https://l/c',
      imageUrl: 'https://i/c',
      createdAt: at(6),
    });
    expect([a.id < g.id, g.id < b.id]).toEqual([true, true]);
    expect(r.badges.ofProject(p.id).map((x) => x.id)).toEqual([a.id, b.id]);
    await r.badges.updateProjectBadge(a.id, { name: 'renamed', imageUrl: 'https://i/a2' });
    expect(r.badges.projectBadgeById(p.id, a.id)).toMatchObject({ name: 'renamed', linkUrl: 'https://l/a', imageUrl: 'https://i/a2' });
    expect(r.badges.projectBadgeById(q.id, a.id)).toBeUndefined();
    expect(await r.badges.removeProjectBadge(q.id, b.id)).toBe(false);
    expect(await r.badges.removeProjectBadge(p.id, b.id)).toBe(true);
    expect(await r.badges.removeProjectBadge(p.id, b.id)).toBe(false);
    expect(r.badges.ofProject(p.id).map((x) => x.id)).toEqual([a.id]);
    // Removing a project takes its badges; the other project's stay.
    await r.projects.remove(p.id);
    expect([r.badges.ofProject(p.id), r.badges.ofProject(q.id).map((x) => x.id)]).toEqual([[], [c.id]]);
  },

  async hooks(r, s) {
    const { user } = await seed(r, s);
    const p = await r.projects.insert(projectInput(user.namespaceId, user.id, 'hooked'));
    const h = await r.hooks.insert({
      projectId: p.id,
      url: 'https://h/1',
      token: 's',
      events: hookEvents,
      pushEventsBranchFilter: null,
      enableSslVerification: true,
      createdAt: at(4),
    });
    await r.hooks.insert({
      projectId: p.id,
      url: 'https://h/2',
      token: null,
      events: hookEvents,
      pushEventsBranchFilter: 'main',
      enableSslVerification: false,
      createdAt: at(5),
    });
    await r.hooks.update(h.id, { url: 'https://h/changed', events: { ...hookEvents, tag_push_events: true } });
    expect(r.hooks.byId(p.id, h.id)).toMatchObject({ url: 'https://h/changed', events: { tag_push_events: true } });
    expect((await r.hooks.remove(p.id, h.id))?.id).toBe(h.id);
    expect(await r.hooks.remove(p.id, h.id)).toBeUndefined();
    expect(r.hooks.ofProject(p.id).map((x) => x.url)).toEqual(['https://h/2']);
  },

  async notifications(r, s) {
    const { user, group } = await seed(r, s);
    const events = { new_note: true, push_to_merge_request: false };
    await r.notifications.save({
      userId: user.id,
      source: 'global',
      sourceId: null,
      level: 'participating',
      notificationEmail: 'a@b',
      events,
    });
    await r.notifications.save({ userId: user.id, source: 'group', sourceId: group.id, level: 'watch', notificationEmail: null, events });
    await r.notifications.save({ userId: user.id, source: 'global', sourceId: null, level: 'disabled', notificationEmail: null, events });
    expect(r.notifications.find(user.id, { source: 'global', sourceId: null })?.level).toBe('disabled');
    expect(r.notifications.find(user.id, { source: 'group', sourceId: group.id })?.level).toBe('watch');
    expect(r.notifications.find(user.id, { source: 'project', sourceId: group.id })).toBeUndefined();
  },

  async lfs(r, s) {
    const { user } = await seed(r, s);
    const p = await r.projects.insert(projectInput(user.namespaceId, user.id, 'lfs'));
    const [oa, ob] = ['a'.repeat(64), 'b'.repeat(64)];
    await r.lfs.link(p.id, [
      { oid: oa, size: 10 },
      { oid: ob, size: 20 },
      { oid: oa, size: 10 },
    ]);
    await r.lfs.link(p.id, [{ oid: ob, size: 20 }]);
    expect(r.lfs.linksOf(p.id).map((l) => l.oid)).toEqual([oa, ob]);
    expect([...r.lfs.linkedOids()].sort()).toEqual([oa, ob]);
    const first = await r.lfs.insertLock({ projectId: p.id, path: 'mix.wav', ownerId: user.id, refName: null, lockedAt: at(5) });
    const again = await r.lfs.insertLock({ projectId: p.id, path: 'mix.wav', ownerId: user.id, refName: 'main', lockedAt: at(6) });
    expect([first.created, again.created, again.lock.id]).toEqual([true, false, first.lock.id]);
    await r.lfs.insertLock({ projectId: p.id, path: 'bass.wav', ownerId: user.id, refName: 'refs/heads/main', lockedAt: at(7) });
    await r.lfs.removeLock(p.id, first.lock.id);
    expect(r.lfs.locksOf(p.id).map((l) => l.path)).toEqual(['bass.wav']);
    const q = await r.projects.insert(projectInput(user.namespaceId, user.id, 'lfs2'));
    await r.lfs.link(q.id, [{ oid: oa, size: 10 }]);
    await r.lfs.forgetProject(p.id);
    expect([r.lfs.linksOf(p.id), r.lfs.locksOf(p.id), [...r.lfs.linkedOids()]]).toEqual([[], [], [oa]]);
  },

  async exports(r, s) {
    const { user } = await seed(r, s);
    const p = await r.projects.insert(projectInput(user.namespaceId, user.id, 'exp'));
    const row = {
      projectId: p.id,
      status: 'started' as const,
      file: null,
      fileName: null,
      upload: { url: 'https://up', method: 'PUT' as const },
      description: null,
      error: null,
      requestedBy: user.id,
      startedAt: at(4),
      finishedAt: null,
    };
    await r.exports.put(row);
    await r.exports.update(p.id, { status: 'finished', file: 'exports/1.tar.gz', finishedAt: at(5) });
    expect(r.exports.byProject(p.id)).toMatchObject({ status: 'finished', file: 'exports/1.tar.gz' });
    await r.exports.put({ ...row, upload: null, startedAt: at(6) });
    expect(r.exports.byProject(p.id)).toMatchObject({ status: 'started', file: null, upload: null });
    expect(await r.exports.update(999, { status: 'failed' })).toBeUndefined();
    const imported = await r.exports.finishImport(p.id, {
      project: { importStatus: 'finished', description: 'imported' },
      hooks: [
        {
          url: 'https://imp',
          token: null,
          events: hookEvents,
          pushEventsBranchFilter: null,
          enableSslVerification: true,
          createdAt: at(7),
        },
      ],
      uploads: [{ secret: 'c'.repeat(32), filename: 'x.txt', size: 3, uploaderId: user.id, createdAt: at(7) }],
    });
    expect(imported).toBe(true);
    expect(r.projects.byId(p.id)).toMatchObject({ importStatus: 'finished', description: 'imported' });
    expect(r.exports.hooksOf(p.id).map((h) => h.url)).toEqual(['https://imp']);
    expect(r.projects.uploadsOf(p.id).map((u) => u.filename)).toEqual(['x.txt']);
    expect(await r.exports.finishImport(999, { project: {}, hooks: [], uploads: [] })).toBe(false);
  },
};

/** Close the store, open it again, and compare the whole document: the persisted state is exactly the mirror. */
async function expectReopenedIdentical(opened: OpenedStore): Promise<void> {
  const before = structuredClone(opened.store.data);
  await opened.store.close();
  const reopened = await opened.reopen();
  try {
    expect(reopened.migrationsApplied).toEqual([]);
    expect(reopened.data).toStrictEqual(before);
  } finally {
    await reopened.close();
  }
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skip !== null)(`repositories over the ${kind.name} store`, () => {
    for (const [name, scenario] of Object.entries(scenarios)) {
      it(`${name}: reads what was written, and the same after reopening`, async () => {
        const opened = await kind.open();
        await scenario(reposOf(opened.store), '');
        await expectReopenedIdentical(opened);
      }, 60_000);
    }

    it('after a sequence of every repository write, reopening yields exactly the document in memory', async () => {
      const opened = await kind.open();
      const repos = reposOf(opened.store);
      for (const [name, scenario] of Object.entries(scenarios)) await scenario(repos, `-${name}`);
      await expectReopenedIdentical(opened);
    }, 120_000);

    it('a write that names no tables moves the revisions of the tables it wrote, and no others', async () => {
      const { store } = await kind.open();
      const repos = reposOf(store);
      const { user } = await seed(repos, '');
      const project = await repos.projects.insert(projectInput(user.namespaceId, user.id, 'rev'));
      const projects0 = store.revisionOf(['projects']);
      // A new group (identity names no tables) and a fetched source leave the projects' caches alone.
      const groups0 = store.revisionOf(['groups']);
      await repos.identity.insertGroup(
        { name: 'Other', path: 'other', description: '', visibility: 'public', parentId: null, createdAt: at(4) },
        null,
      );
      await repos.sources.save({ url: 'https://a.example/r', contentId: 'c', name: 'r', descriptor: {}, fetchedAt: at(5) });
      expect(store.revisionOf(['projects'])).toBe(projects0);
      expect(store.revisionOf(['groups'])).toBeGreaterThan(groups0);
      // A write to the projects that does not name its tables moves them.
      await store.mutate((d) => {
        const i = d.projects.findIndex((p) => p.id === project.id);
        d.projects[i] = { ...d.projects[i]!, description: 'moved' };
      });
      expect(store.revisionOf(['projects'])).toBe(projects0 + 1);
      expect(repos.projects.byId(project.id)?.description).toBe('moved');
      await store.close();
    });

    it('rows are frozen: an in-place edit throws and changes nothing', async () => {
      const { store } = await kind.open();
      const repos = reposOf(store);
      const { user } = await seed(repos, '');
      const u = repos.identity.userById(user.id)!;
      expect(() => ((u as { name: string }).name = 'changed')).toThrow(TypeError);
      await expect(
        store.mutate((d) => {
          d.users[0]!.name = 'edited in place';
        }),
      ).rejects.toThrow(TypeError);
      expect(repos.identity.userById(user.id)?.name).toBe('Alice A');
      await store.close();
    });
  });
}
