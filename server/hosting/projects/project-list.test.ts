import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUsageRepo } from '../../auth/usage-repo.js';
import { createJobsRepo } from '../../queue/jobs-repo.js';
import { MemoryAdapter } from '../../store/file-adapter.js';
import { nextId, type DbSchema, type ProjectRecord } from '../../store/schema.js';
import { openStore } from '../../store/store.js';
import { callHosting, readJson, type CallInit } from '../../test-support/hosting-client.js';
import { addUsers, adminToken, startTestApp, type TestApp } from '../../test-support/test-app.js';
import type { Project } from '../api-types.js';
import { createBadgesRepo } from '../badges/badges-repo.js';
import { createExportsRepo } from '../import-export/exports-repo.js';
import { defaultHookEvents } from '../hooks/hooks.js';
import { createHooksRepo } from '../hooks/hooks-repo.js';
import { createNotificationsRepo } from '../notifications/notifications-repo.js';
import { joinJsonArray, ProjectJsonCache } from './project-json-cache.js';
import { ProjectListIndex } from './project-list.js';
import { createProjectsRepo, type ProjectsRepo } from './projects-repo.js';

describe('ProjectListIndex search', () => {
  const record = (id: number, name: string, path: string, description: string | null) =>
    Object.freeze({ id, name, path, description, visibility: 'public' }) as Readonly<ProjectRecord>;
  const fakeRepo = (projects: Readonly<ProjectRecord>[]) =>
    ({ projects, recordsRevision: 0 }) as { projects: Readonly<ProjectRecord>[]; recordsRevision: number };
  /** The plain linear filter: GitLab's substring match on name, path and description, ignoring case. */
  const brute = (projects: readonly Readonly<ProjectRecord>[], term: string) =>
    projects
      .filter((p) => [p.name, p.path, p.description ?? ''].join('\u0000').toLowerCase().includes(term.toLowerCase()))
      .map((p) => p.id);
  const ids = (index: ProjectListIndex, term: string) => index.matching(term.toLowerCase()).records.map((p) => p.id);

  it('finds exactly the records whose own text contains the term, never a match across two records', () => {
    const projects = [
      record(1, 'Synthwave Nights', 'synthwave-nights', 'synth and wave'),
      record(2, 'Tape', 'tape', null),
      record(3, 'Wave', 'wave', 'ends in synth'),
      record(4, 'synthwave', 'synthwave', 'synthwave synthwave'),
      record(5, 'Echo', 'echo', ''),
      record(6, 'Ä Umlaut', 'a-umlaut', 'ÄÖÜ'),
      record(7, 'İstanbul Dub', 'istanbul-dub', 'ΣΊΣΥΦΟΣ 🎛️ mix'),
      record(8, 'C++ / Rust (beats)', 'c-rust-beats', 'drums: 808, 909; snare.wav'),
      record(9, 'ABCABC', 'abcabc', 'aaaa'),
    ];
    const index = new ProjectListIndex(fakeRepo(projects) as unknown as ProjectsRepo);
    const terms = [
      'synthwave',
      'SYNTHWAVE',
      'SynthWave',
      'synth',
      'ynthwav',
      'wave',
      'e',
      'ab',
      'a',
      'aaa',
      'aaaaa',
      'cab',
      'bca',
      'tape',
      'synth\nwave',
      'synth\n',
      '\nwave',
      'h\u0000w',
      'nights\u0000synthwave',
      'ends in synth\nsynthwave',
      'äöü',
      'ÄÖÜ',
      'ä u',
      'zzz',
      'echo\u0000echo\u0000',
      'echo\u0000echo',
      'i̇stanbul',
      'İSTANBUL',
      'istanbul',
      'σίσυφος',
      'ΣΊΣΥΦΟΣ',
      '🎛️',
      '🎛',
      'c++',
      '++ /',
      '(beats)',
      'drums: 808',
      '808, 909;',
      '.wav',
      ' ',
      '  ',
      '-',
      'b-',
    ];
    for (const term of terms) expect(ids(index, term), JSON.stringify(term)).toEqual(brute(projects, term));
  });

  it('matches the linear filter on many generated names, terms taken from inside words and across fields', () => {
    // A fixed pseudo-random sequence (no Math.random): the same inputs every run.
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const alphabet = 'abcdeéAB CDÉ-_.Zz';
    const word = (n: number) => Array.from({ length: n }, () => alphabet[next() % alphabet.length]).join('');
    const projects = Array.from({ length: 400 }, (_, k) =>
      record(k + 1, word(3 + (next() % 9)), word(4), next() % 3 === 0 ? null : word(6)),
    );
    const index = new ProjectListIndex(fakeRepo(projects) as unknown as ProjectsRepo);
    for (let t = 0; t < 300; t++) {
      const p = projects[next() % projects.length]!;
      const text = `${p.name}\u0000${p.path}\u0000${p.description ?? ''}`;
      const from = next() % text.length;
      const term = t % 5 === 0 ? word(1 + (next() % 4)) : text.slice(from, from + 1 + (next() % 6));
      expect(ids(index, term), JSON.stringify(term)).toEqual(brute(projects, term));
    }
  });

  it('warms the index a slice per turn of the event loop, exact through writes made meanwhile', async () => {
    const words = ['tape', 'loop', 'dub', 'kick', 'pad', 'vox'];
    const repo = fakeRepo(
      Array.from({ length: 5000 }, (_, k) => record(k + 1, `${words[k % 6]} ${k}`, `p-${k}`, k % 7 === 0 ? 'loop kit' : null)),
    );
    const index = new ProjectListIndex(repo as unknown as ProjectsRepo);
    let turns = 0;
    const tick = (): void => {
      turns++;
      // Writes between slices, in the prefix already indexed and past it, as requests would make them
      // (each moves the revision, as the store's writes do).
      if (turns === 2) repo.projects[10] = record(11, 'Renamed Loop', 'renamed', null);
      if (turns === 3) repo.projects.push(record(6001, 'Tape Loop', 'tape-loop', null));
      if (turns === 4) repo.projects.splice(20, 1);
      if (turns === 5) repo.projects[4000] = record(4001, 'Far Loop', 'far', null);
      if (turns >= 2 && turns <= 5) repo.recordsRevision++;
      if (turns < 40) setImmediate(tick);
    };
    setImmediate(tick);
    await index.warmSearch(500);
    // 5,000 rows at 500 a slice: the other work ran between the slices.
    expect(turns).toBeGreaterThanOrEqual(9);
    repo.recordsRevision++;
    for (const term of ['loop', 'tape', 'far', 'renamed', 'p-21', 'kit', 'dub 4'])
      expect(ids(index, term), term).toEqual(brute(repo.projects, term));
  });

  it('stops warming when told', async () => {
    const repo = fakeRepo(Array.from({ length: 5000 }, (_, k) => record(k + 1, `tape ${k}`, `p-${k}`, null)));
    const index = new ProjectListIndex(repo as unknown as ProjectsRepo);
    const stop = new AbortController();
    let turns = 0;
    const tick = (): void => {
      if (++turns === 2) stop.abort();
      else if (turns < 40) setImmediate(tick);
    };
    setImmediate(tick);
    await index.warmSearch(500, stop.signal);
    expect(turns).toBeLessThan(9);
    // A search still answers exactly: it builds the rest itself.
    expect(ids(index, 'tape 4999')).toEqual([5000]);
    expect(ids(index, 'tape 49')).toEqual(brute(repo.projects, 'tape 49'));
  });

  it('follows the store: creates, renames, description edits, deletes, and rows another node replaced', () => {
    const repo = fakeRepo([record(1, 'Tape', 'tape', null)]);
    const index = new ProjectListIndex(repo as unknown as ProjectsRepo);
    const check = (term: string, expected: number[]) => {
      expect(ids(index, term), term).toEqual(expected);
      expect(brute(repo.projects, term), term).toEqual(expected);
    };
    check('loop', []);
    // An update replaces the frozen row (patchRow), as a catch-up from another node does.
    repo.projects[0] = record(1, 'Tape', 'tape', 'tape loops');
    repo.recordsRevision++;
    check('loop', [1]);
    repo.projects.push(record(2, 'Loop Kit', 'loop-kit', null));
    repo.recordsRevision++;
    check('loop', [1, 2]);
    // A write that changes nothing searchable keeps the answers.
    repo.recordsRevision++;
    check('loop', [1, 2]);
    repo.projects.splice(0, 1);
    repo.recordsRevision++;
    check('loop', [2]);
    check('tape', []);
    repo.projects[0] = record(2, 'Loop Kit', 'tape-kit', null);
    repo.recordsRevision++;
    check('tape', [2]);
    // Renamed away and back, then a newer id: answers stay in id order.
    repo.projects.push(record(3, 'Tape Echo', 'tape-echo', null));
    repo.recordsRevision++;
    repo.projects[0] = record(2, 'Kit', 'kit', null);
    repo.recordsRevision++;
    check('tape', [3]);
    repo.projects[0] = record(2, 'Kit', 'tape-kit-2', null);
    repo.recordsRevision++;
    check('tape', [2, 3]);
    // A whole table replaced (another node's reload): removed and changed rows in one go.
    repo.projects = [record(3, 'Tape Echo', 'tape-echo', 'loop'), record(5, 'Loopy', 'loopy', null)];
    repo.recordsRevision++;
    check('loop', [3, 5]);
    check('tape', [3]);
  });

  it('stays right through many renames (stale postings are dropped and rebuilt)', () => {
    const projects = Array.from({ length: 50 }, (_, k) => record(k + 1, `Track ${k}`, `track-${k}`, null));
    const repo = fakeRepo(projects);
    const index = new ProjectListIndex(repo as unknown as ProjectsRepo);
    for (let round = 0; round < 400; round++) {
      const k = (round * 7) % 50;
      repo.projects[k] = record(k + 1, `Take ${round} of ${k}`, `take-${round}-${k}`, round % 2 ? 'synthwave' : null);
      repo.recordsRevision++;
      for (const term of ['synthwave', `take ${round} `, 'track 1', 'of 4'])
        expect(ids(index, term), term).toEqual(brute(repo.projects, term));
    }
  });
});

describe('ProjectsRepo.revision', () => {
  it('ignores usage counters, job progress and writes to other tables, and moves with stars and any change that writes its tables', async () => {
    const store = await openStore(new MemoryAdapter<DbSchema>());
    const repo = createProjectsRepo(store);
    const r0 = repo.revision;
    await createUsageRepo(store).add(new Map([['t', { requests: new Map([['GET /x', 1]]), bytesUploaded: 0, audioSeconds: 0 }]]), 'now');
    const jobs = createJobsRepo(store);
    await jobs.insert({ jobId: 'j1' } as Parameters<typeof jobs.insert>[0]);
    jobs.touch('j1', { progress: 0.5 });
    expect(repo.revision).toBe(r0);
    const records0 = repo.recordsRevision;
    await repo.setStar(1, 1, true);
    expect(repo.revision).toBeGreaterThan(r0);
    // Stars leave the records (and what is derived from them alone) as they were.
    expect(repo.recordsRevision).toBe(records0);
    const r1 = repo.revision;
    await store.mutate((db) => void db.tenants.push({ id: 't', webhookSecret: 's', createdAt: 'now' }));
    expect(repo.revision).toBe(r1);
    await store.mutate((db) => void nextId(db, 'groups'));
    expect(repo.revision).toBeGreaterThan(r1);
  });

  it('ignores export status, hook and badge writes; moves with notification settings and a finished import', async () => {
    const store = await openStore(new MemoryAdapter<DbSchema>());
    const repo = createProjectsRepo(store);
    const project = await repo.insert({ name: 'Tape', path: 'tape', namespaceId: 1, importStatus: 'scheduled' } as Omit<
      ProjectRecord,
      'id'
    >);
    const exportsRepo = createExportsRepo(store);
    const hooks = createHooksRepo(store);
    const badges = createBadgesRepo(store);
    const records0 = store.revisionOf(['projects']);
    expect(repo.recordsRevision).toBe(records0);

    // Export status changes at every step of an export job; edits and removals take no new ids either.
    const r0 = repo.revision;
    await exportsRepo.put({
      projectId: project.id,
      status: 'started',
      file: null,
      fileName: null,
      upload: null,
      description: null,
      error: null,
      requestedBy: 1,
      startedAt: 'then',
      finishedAt: null,
    });
    await exportsRepo.update(project.id, { status: 'finished', finishedAt: 'now' });
    expect(exportsRepo.byProject(project.id)?.status).toBe('finished');
    expect(repo.revision).toBe(r0);
    expect(store.revisionOf(['projects'])).toBe(records0);
    // Inserts take ids (the sequences table, which project JSON counts in) but leave the records alone.
    const hook = await hooks.insert({
      projectId: project.id,
      url: 'http://receiver.test/',
      token: null,
      events: { ...defaultHookEvents },
      pushEventsBranchFilter: null,
      enableSslVerification: true,
      createdAt: 'now',
    });
    const badge = await badges.insert({
      groupId: 1,
      name: null,
      linkUrl: 'http://example.test/',
      imageUrl: 'http://example.test/b.svg',
      createdAt: 'now',
    });
    const r1 = repo.revision;
    await hooks.update(hook.id, { url: 'http://receiver.test/other' });
    await badges.update(badge.id, { name: 'b' });
    expect(await hooks.remove(project.id, hook.id)).toEqual(expect.objectContaining({ id: hook.id }));
    expect(await badges.remove(1, badge.id)).toBe(true);
    await exportsRepo.update(project.id, { status: 'failed' });
    expect(repo.revision).toBe(r1);
    expect(store.revisionOf(['projects'])).toBe(records0);
    expect(repo.recordsRevision).toBe(records0);

    // Notification levels show in project JSON: they move its revision, not the records'.
    await createNotificationsRepo(store).save({
      userId: 1,
      source: 'project',
      sourceId: project.id,
      level: 'watch',
      notificationEmail: null,
      events: {},
    });
    expect(repo.revision).toBeGreaterThan(r1);
    expect(repo.recordsRevision).toBe(records0);

    // A finished import writes the project record (and its hooks and uploads) in one change.
    const r2 = repo.revision;
    const landed = await exportsRepo.finishImport(project.id, {
      project: { importStatus: 'finished' },
      hooks: [
        {
          url: 'http://receiver.test/',
          token: null,
          events: { ...defaultHookEvents },
          pushEventsBranchFilter: null,
          enableSslVerification: true,
          createdAt: 'now',
        },
      ],
      uploads: [{ secret: '0'.repeat(32), filename: 'a.wav', size: 1, uploaderId: 1, createdAt: 'now' }],
    });
    expect(landed).toBe(true);
    expect(repo.byId(project.id)?.importStatus).toBe('finished');
    expect(hooks.ofProject(project.id)).toHaveLength(1);
    expect(repo.uploadsOf(project.id)).toHaveLength(1);
    expect(repo.recordsRevision).toBeGreaterThan(records0);
    expect(repo.revision).toBeGreaterThan(r2);
  });
});

describe('ProjectJsonCache', () => {
  it('presents once per project and variant until the revision moves, and evicts the oldest beyond its capacity', () => {
    let revision = 1;
    let presented = 0;
    const cache = new ProjectJsonCache(() => revision, 2);
    const present = (value: unknown) => () => {
      presented++;
      return value;
    };
    expect(cache.json(1, 'a', present({ id: 1, name: 'é' })).toString()).toBe('{"id":1,"name":"é"}');
    expect(cache.json(1, 'a', present({ id: 1, name: 'stale' })).toString()).toBe('{"id":1,"name":"é"}');
    expect(cache.json(1, 'b', present({ id: 1, v: 'b' })).toString()).toBe('{"id":1,"v":"b"}');
    expect(presented).toBe(2);
    revision++;
    expect(cache.json(1, 'a', present({ id: 1, name: 'new' })).toString()).toBe('{"id":1,"name":"new"}');
    expect(cache.size).toBe(1);
    cache.json(2, 'a', present({ id: 2 }));
    cache.json(3, 'a', present({ id: 3 }));
    expect(cache.size).toBe(2);
    expect(cache.json(1, 'a', present({ id: 1, name: 'again' })).toString()).toBe('{"id":1,"name":"again"}');
  });

  it('joins fragments into the bytes JSON.stringify gives for the array', () => {
    const values = [{ a: 1, s: 'ü"\n' }, { b: [1, null] }, {}];
    expect(joinJsonArray(values.map((v) => Buffer.from(JSON.stringify(v)))).toString()).toBe(JSON.stringify(values));
    expect(joinJsonArray([]).toString()).toBe('[]');
  });
});

/**
 * The list path (page walk, search index, cached JSON) against the uncached single reads: for every
 * caller and query, the page must hold exactly the readable matching projects in order, with the right
 * X-Total, and its bytes must be the single reads' bodies joined. Checked cold, warm, and after every
 * kind of change the cached JSON depends on.
 */
describe('GET /projects against single reads, before and after changes', () => {
  let app: TestApp;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  const all: number[] = [];
  type Who = 'anonymous' | 'admin' | 'alice' | 'bob' | 'carol';
  const callers: readonly Who[] = ['anonymous', 'alice', 'bob', 'carol', 'admin'];
  const api = (who: Who, route: string, init: CallInit = {}) =>
    callHosting(app, who === 'anonymous' ? null : who === 'admin' ? adminToken : tokens[who]!, route, init);
  const ok = async (who: Who, route: string, init: CallInit, status = 200) => {
    const res = await api(who, route, init);
    expect(res.status, `${init.method ?? 'GET'} ${route}`).toBe(status);
    return res;
  };
  const create = async (who: Who, body: Record<string, unknown>) => {
    const p = await readJson<Project>(ok(who, '/projects', { method: 'POST', body }, 201));
    all.push(p.id);
    return p.id;
  };

  beforeAll(async () => {
    app = await startTestApp();
    await addUsers(app, ['alice', 'bob', 'carol'], tokens, ids);
    ids.label = (
      await readJson(ok('alice', '/groups', { method: 'POST', body: { name: 'Label', path: 'label', visibility: 'internal' } }, 201))
    ).id as number;
    ids.crew = (await readJson(ok('carol', '/groups', { method: 'POST', body: { name: 'Crew', path: 'crew', visibility: 'public' } }, 201)))
      .id as number;
    await ok('alice', `/groups/${ids.label}/members`, { method: 'POST', body: { user_id: ids.bob, access_level: 30 } }, 201);
    ids.secret = await create('alice', { name: 'Secret Synthwave', visibility: 'private' });
    ids.open = await create('alice', { name: 'Open Loops', visibility: 'public', description: 'synthwave loops' });
    ids.inside = await create('alice', { name: 'Inside', visibility: 'internal' });
    ids.album = await create('alice', { name: 'Album', namespace_id: ids.label, visibility: 'private' });
    ids.single = await create('alice', { name: 'Single', path: 'synthwave-single', namespace_id: ids.label, visibility: 'internal' });
    ids.stems = await create('bob', { name: 'Stems', visibility: 'private' });
    ids.drums = await create('bob', { name: 'Drums', visibility: 'public' });
    ids.kit = await create('carol', { name: 'Kit', namespace_id: ids.crew, visibility: 'public' });
    ids.sub = (
      await readJson(
        ok(
          'alice',
          '/groups',
          { method: 'POST', body: { name: 'B-Sides', path: 'b-sides', parent_id: ids.label, visibility: 'internal' } },
          201,
        ),
      )
    ).id as number;
    ids.deep = await create('alice', { name: 'Deep Cut', namespace_id: ids.sub, visibility: 'internal' });
  }, 60_000);

  afterAll(() => app.close());

  const queries = [
    '',
    '?per_page=3',
    '?per_page=3&page=2',
    '?sort=asc&per_page=4&page=2',
    '?visibility=public',
    '?visibility=private',
    '?visibility=internal',
    '?search=SYNTHWAVE',
    '?search=loops',
    '?search=e&per_page=2&page=2',
    '?search=synthwave&per_page=1&page=2',
    '?search=synthwave&visibility=private',
    '?search=ynth&sort=asc&per_page=1',
    '?search=STEMS&per_page=1',
    '?order_by=name&sort=asc',
    '?membership=true',
    '?archived=true',
    '?custom_attributes[mood]=dark&per_page=3',
  ];

  /** The page a query should give, from each project's single read as this caller. */
  const expected = (
    readable: readonly { readonly text: string; readonly p: Project; readonly facts: Project }[],
    query: string,
    who: Who,
  ) => {
    const q = new URLSearchParams(query);
    const search = q.get('search')?.toLowerCase();
    let found = readable.filter(({ p, facts }) => {
      // No project has custom attributes; the filter applies to administrators only.
      if (who === 'admin' && [...q.keys()].some((k) => k.startsWith('custom_attributes['))) return false;
      if (q.has('visibility') && facts.visibility !== q.get('visibility')) return false;
      if (q.has('archived') && String(facts.archived) !== q.get('archived')) return false;
      if (search && ![p.name, p.path, p.description ?? ''].some((s) => s.toLowerCase().includes(search))) return false;
      if (q.get('membership') === 'true' && !(p.permissions?.project_access || p.permissions?.group_access)) return false;
      return true;
    });
    const byName = (a: Project, b: Project) => {
      const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
      return x < y ? -1 : x > y ? 1 : a.id - b.id;
    };
    found = [...found].sort((a, b) => (q.get('order_by') === 'name' ? byName(a.p, b.p) : a.p.id - b.p.id));
    if (q.get('order_by') !== 'name' && q.get('sort') !== 'asc') found.reverse();
    const perPage = Number(q.get('per_page') ?? 20);
    const page = Number(q.get('page') ?? 1);
    return { total: found.length, items: found.slice((page - 1) * perPage, page * perPage) };
  };

  /** Every caller's lists, compared with their single reads; twice, so the second round comes from the cache. */
  const checkAll = async () => {
    for (let round = 0; round < 2; round++) {
      for (const who of callers) {
        const readable: { text: string; p: Project; facts: Project }[] = [];
        for (const id of all) {
          const res = await api(who, `/projects/${id}`);
          if (res.status === 404) continue;
          expect(res.status).toBe(200);
          const text = await res.text();
          // Anonymous reads lack visibility and archived: the admin's read has them.
          readable.push({ text, p: JSON.parse(text) as Project, facts: await readJson<Project>(api('admin', `/projects/${id}`)) });
        }
        for (const query of queries) {
          if (who === 'anonymous' && query.includes('membership')) continue;
          const res = await api(who, `/projects${query}`);
          expect(res.status, `${who} ${query}`).toBe(200);
          expect(res.headers.get('content-type')).toBe('application/json');
          const want = expected(readable, query, who);
          expect(res.headers.get('x-total'), `${who} ${query}`).toBe(String(want.total));
          expect(await res.text(), `${who} ${query}`).toBe(`[${want.items.map((r) => r.text).join(',')}]`);
        }
        // The simple shape is cached apart from the full one.
        const simple = await readJson<{ id: number; name: string; forks_count: number; star_count: number }[]>(
          api(who, '/projects?simple=true&per_page=100'),
        );
        const full = expected(readable, '?per_page=100', who).items.map(({ p }) => ({
          id: p.id,
          name: p.name,
          forks_count: p.forks_count,
          star_count: p.star_count,
        }));
        expect(
          simple.map((s) => ({ id: s.id, name: s.name, forks_count: s.forks_count, star_count: s.star_count })),
          who,
        ).toEqual(full);
      }
    }
  };

  it('matches cold and warm', checkAll, 60_000);

  it('names a subgroup project after its whole chain of groups', async () => {
    const [deep] = await readJson<Project[]>(api('bob', '/projects?search=deep%20cut'));
    expect(deep).toMatchObject({
      name_with_namespace: 'Label / B-Sides / Deep Cut',
      path_with_namespace: 'label/b-sides/deep-cut',
      namespace: { name: 'B-Sides', full_path: 'label/b-sides', parent_id: ids.label },
    });
  });

  it('follows an edit, a rename into a search and a visibility change', async () => {
    await ok('alice', `/projects/${ids.inside}`, { method: 'PUT', body: { name: 'Inside Synthwave', description: 'now searchable' } });
    await ok('alice', `/projects/${ids.secret}`, { method: 'PUT', body: { visibility: 'public' } });
    await ok('bob', `/projects/${ids.drums}`, { method: 'PUT', body: { visibility: 'private' } });
    await checkAll();
  }, 60_000);

  it('follows stars, archiving and notification levels', async () => {
    await ok('carol', `/projects/${ids.open}/star`, { method: 'POST' });
    await ok('alice', `/projects/${ids.open}/archive`, { method: 'POST' });
    await ok('alice', `/projects/${ids.album}/notification_settings`, { method: 'PUT', body: { level: 'watch' } });
    await ok('bob', `/groups/${ids.label}/notification_settings`, { method: 'PUT', body: { level: 'disabled' } });
    await checkAll();
  }, 60_000);

  it('follows a share, a new member and an unshare', async () => {
    await ok('bob', `/projects/${ids.stems}/share`, { method: 'POST', body: { group_id: ids.crew, group_access: 20 } }, 201);
    await checkAll();
    await ok('alice', `/groups/${ids.label}/members`, { method: 'POST', body: { user_id: ids.carol, access_level: 10 } }, 201);
    await checkAll();
    await ok('bob', `/projects/${ids.stems}/share/${ids.crew}`, { method: 'DELETE' }, 204);
    await checkAll();
  }, 120_000);

  it('counts what minimal access does not open and a share does', async () => {
    const vault = (
      await readJson(ok('alice', '/groups', { method: 'POST', body: { name: 'Vault', path: 'vault', visibility: 'private' } }, 201))
    ).id as number;
    const locked = await create('alice', { name: 'Locked', namespace_id: vault, visibility: 'private' });
    await create('alice', { name: 'Locked Too', namespace_id: vault, visibility: 'private' });
    // Minimal access (5) is below guest: carol reads nothing in the vault…
    await ok('alice', `/groups/${vault}/members`, { method: 'POST', body: { user_id: ids.carol, access_level: 5 } }, 201);
    await checkAll();
    // …until one of its projects is shared with her group at guest.
    await ok('alice', `/projects/${locked}/share`, { method: 'POST', body: { group_id: ids.crew, group_access: 10 } }, 201);
    // A project carol reaches both as a label member and through a share counts once.
    await ok('alice', `/projects/${ids.album}/share`, { method: 'POST', body: { group_id: ids.crew, group_access: 20 } }, 201);
    await checkAll();
  }, 120_000);

  it('follows fork relations (a parent some callers cannot read) and deletes', async () => {
    const forksOfAlbum = async () => (await readJson<Project>(api('admin', `/projects/${ids.album}`))).forks_count;
    expect(await forksOfAlbum()).toBe(0);
    await ok('admin', `/projects/${ids.kit}/fork/${ids.album}`, { method: 'POST' }, 201);
    expect(await forksOfAlbum()).toBe(1);
    await checkAll();
    await ok('admin', `/projects/${ids.kit}/fork`, { method: 'DELETE' }, 204);
    expect(await forksOfAlbum()).toBe(0);
    await ok('alice', `/projects/${ids.single}`, { method: 'DELETE' }, 202);
    all.splice(all.indexOf(ids.single!), 1);
    await checkAll();
  }, 120_000);
});
