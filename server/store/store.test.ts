import { mkdtemp, readFile, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { DurableJsonFile, MemoryAdapter } from './file-adapter.js';
import { migrate, SchemaTooNewError } from './migrations.js';
import { currentSchemaVersion, nextId, type DbSchema } from './schema.js';
import { openStore } from './store.js';

const tempDir = () => mkdtemp(path.join(tmpdir(), 'cratehouse-store-'));

describe('store', () => {
  it('creates a new document with the current schema version on first open', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'db.json');
    const store = await openStore(new DurableJsonFile<DbSchema>(file));
    expect(store.migrationsApplied).toEqual(['created a new document']);
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as DbSchema;
    expect(onDisk.schemaVersion).toBe(currentSchemaVersion);
    expect(onDisk.users).toEqual([]);
  });

  it('acknowledges a mutation only once the write holding it is on disk', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'db.json');
    const store = await openStore(new DurableJsonFile<DbSchema>(file));
    const id = await store.mutate((db) => {
      const id = nextId(db, 'tenants');
      db.tenants.push({ id: `t${id}`, webhookSecret: 's', createdAt: 'now' });
      return id;
    });
    expect(id).toBe(1);
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as DbSchema;
    expect(onDisk.tenants.map((t) => t.id)).toEqual(['t1']);
    // No temp files are left behind by the atomic write.
    expect((await readdir(dir)).sort()).toEqual(['db.json']);
  });

  it('shares one write among 200 concurrent mutations and loses none of them', async () => {
    const adapter = new MemoryAdapter<DbSchema>();
    const store = await openStore(adapter);
    const before = adapter.writes;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.mutate((db) => {
          db.tenants.push({ id: `t${i}`, webhookSecret: 's', createdAt: 'now' });
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => i));
    // All 200 were issued in one turn of the event loop, so they share a single write.
    expect(adapter.writes - before).toBe(1);
    const persisted = (await adapter.read()) as DbSchema;
    expect(persisted.tenants).toHaveLength(200);
  });

  it('group-commits mutations that arrive while a write is in flight into the next write', async () => {
    const dir = await tempDir();
    const adapter = new DurableJsonFile<DbSchema>(path.join(dir, 'db.json'));
    const store = await openStore(adapter);
    const before = adapter.writes;
    const first = store.mutate((db) => void db.tenants.push({ id: 'a', webhookSecret: 's', createdAt: 'now' }));
    await new Promise((r) => setImmediate(r)); // the first write is now under way
    const rest = Array.from({ length: 50 }, (_, i) =>
      store.mutate((db) => void db.tenants.push({ id: `b${i}`, webhookSecret: 's', createdAt: 'now' })),
    );
    await Promise.all([first, ...rest]);
    expect(adapter.writes - before).toBeLessThanOrEqual(3);
    expect(((await adapter.read()) as DbSchema).tenants).toHaveLength(51);
  });

  it('moves its revision on every mutate, touch and rollback, and not on reads', async () => {
    const adapter = new MemoryAdapter<DbSchema>();
    const store = await openStore(adapter);
    const r0 = store.revision;
    void store.data.tenants.length;
    expect(store.revision).toBe(r0);
    await store.mutate((db) => db.tenants.push({ id: 'a', webhookSecret: 's', createdAt: 'now' }));
    expect(store.revision).toBeGreaterThan(r0);
    const r1 = store.revision;
    store.touch((db) => void (db.tenants[0] = { ...db.tenants[0]!, createdAt: 'later' }));
    expect(store.revision).toBeGreaterThan(r1);
    await store.flush();
    const r2 = store.revision;
    // A change that throws may have edited before it threw: readers must drop what they derived.
    await expect(
      store.mutate(() => {
        throw new Error('invalid');
      }),
    ).rejects.toThrow('invalid');
    expect(store.revision).toBeGreaterThan(r2);
    adapter.failWrites = true;
    const failed = store.mutate((db) => db.tenants.push({ id: 'b', webhookSecret: 's', createdAt: 'now' }));
    const r3 = store.revision;
    await expect(failed).rejects.toThrow();
    // The rollback replaced the document: a new revision again.
    expect(store.revision).toBeGreaterThan(r3);
    expect(store.data.tenants.map((t) => t.id)).toEqual(['a']);
  });

  it('a change moves only the revisions of the tables it wrote, and one that names its tables may touch nothing else', async () => {
    const store = await openStore(new MemoryAdapter<DbSchema>());
    const projects = () => store.revisionOf(['projects', 'users']);
    const usage = () => store.revisionOf(['usage']);
    const [p0, u0, all0] = [projects(), usage(), store.revision];
    await store.mutate((db) => void (db.usage.t = { requests: {}, bytesUploaded: 0, audioSeconds: 0, updatedAt: 'now' }), ['usage']);
    expect([projects(), usage() > u0, store.revision > all0]).toEqual([p0, true, true]);
    store.touch((db) => void db.tokens.length, ['tokens']);
    expect(projects()).toBe(p0);
    // A change that names no tables moves the revisions of the tables it wrote, and no others.
    const [u1, t1, all1] = [usage(), store.revisionOf(['tenants']), store.revision];
    await store.mutate((db) => db.tenants.push({ id: 'a', webhookSecret: 's', createdAt: 'now' }));
    expect([projects(), usage(), store.revisionOf(['tenants']) > t1, store.revision > all1]).toEqual([p0, u1, true, true]);
    await store.mutate((db) => void db.users.length);
    expect(projects()).toBe(p0);
    await store.mutate((db) => void (db.users = [...db.users]));
    expect(projects()).toBe(p0);
    await store.mutate((db) => void db.users.push({ id: 1 } as DbSchema['users'][number]));
    expect(projects()).toBeGreaterThan(p0);
    // A change that threw is undone, but counts the tables it reached: it may have edited them first.
    const p2 = projects();
    await expect(
      store.mutate((db) => {
        db.users.pop();
        throw new Error('invalid');
      }),
    ).rejects.toThrow('invalid');
    expect(projects()).toBeGreaterThan(p2);
    expect(store.data.users).toHaveLength(1);
    // Reaching outside the named tables throws before anything is edited there.
    const p1 = projects();
    await expect(store.mutate((db) => db.projects.length, ['usage'])).rejects.toThrow('a change limited to usage touched projects');
    expect(() => store.touch((db) => void ('users' in db), ['jobs'])).toThrow('touched users');
    expect(projects()).toBe(p1);
  });

  it('rolls back and rejects every mutation of a failed write, then recovers', async () => {
    const adapter = new MemoryAdapter<DbSchema>();
    const store = await openStore(adapter);
    await store.mutate((db) => void db.tenants.push({ id: 'kept', webhookSecret: 's', createdAt: 'now' }));
    adapter.failWrites = true;
    const failing = Promise.allSettled([
      store.mutate((db) => void db.tenants.push({ id: 'lost1', webhookSecret: 's', createdAt: 'now' })),
      store.mutate((db) => void db.tenants.push({ id: 'lost2', webhookSecret: 's', createdAt: 'now' })),
    ]);
    const outcomes = await failing;
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
      expect(((o as PromiseRejectedResult).reason as AppError).kind).toBe('unavailable');
    }
    // Memory matches the disk again: nothing unacknowledged is visible.
    expect(store.data.tenants.map((t) => t.id)).toEqual(['kept']);
    adapter.failWrites = false;
    await store.mutate((db) => void db.tenants.push({ id: 'after', webhookSecret: 's', createdAt: 'now' }));
    expect(((await adapter.read()) as DbSchema).tenants.map((t) => t.id)).toEqual(['kept', 'after']);
  });

  it('does not schedule a write when the change throws', async () => {
    const adapter = new MemoryAdapter<DbSchema>();
    const store = await openStore(adapter);
    const before = adapter.writes;
    await expect(
      store.mutate(() => {
        throw new AppError('invalid', 'nope');
      }),
    ).rejects.toThrow('nope');
    await store.flush();
    expect(adapter.writes).toBe(before);
  });

  it('migrates a document without a schema version and writes the result at boot', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'db.json');
    await writeFile(file, JSON.stringify({ users: [], tenants: [{ id: 'old', webhookSecret: 'x', createdAt: 'then' }] }));
    const store = await openStore(new DurableJsonFile<DbSchema>(file));
    expect(store.migrationsApplied).toEqual([
      '0→1: add missing tables and the schema version',
      '1→2: add the sources table (fetched source URLs)',
      '2→3: add the project tables (projects, stars, shares, uploads)',
      '3→4: add hooks, group badges, notification settings and project exports',
      '4→5: add the Git LFS tables (object links per project, file locks)',
      '5→6: add project badges',
    ]);
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as DbSchema;
    expect(onDisk.schemaVersion).toBe(6);
    expect(onDisk.hooks).toEqual([]);
    expect(onDisk.projectBadges).toEqual([]);
    expect(onDisk.lfsLinks).toEqual([]);
    expect(onDisk.lfsLocks).toEqual([]);
    expect(onDisk.projects).toEqual([]);
    expect(onDisk.jobs).toEqual([]);
    expect(onDisk.sources).toEqual([]);
    expect(onDisk.tenants.map((t) => t.id)).toEqual(['old']);
  });

  it('adds the sources table to a version-1 document and keeps its jobs', () => {
    const job = { jobId: 'j1' };
    const { db, applied } = migrate({ schemaVersion: 1, jobs: [job] });
    expect(applied).toEqual([
      '1→2: add the sources table (fetched source URLs)',
      '2→3: add the project tables (projects, stars, shares, uploads)',
      '3→4: add hooks, group badges, notification settings and project exports',
      '4→5: add the Git LFS tables (object links per project, file locks)',
      '5→6: add project badges',
    ]);
    expect(db.sources).toEqual([]);
    expect(db.jobs).toEqual([job]);
  });

  it('adds the project badges table to a version-5 document and keeps its group badges', () => {
    const badge = { id: 3, groupId: 1, name: null, linkUrl: 'https://a.example', imageUrl: 'https://a.example/b.svg', createdAt: 'then' };
    const { db, applied } = migrate({ schemaVersion: 5, groupBadges: [badge] });
    expect(applied).toEqual(['5→6: add project badges']);
    expect(db.projectBadges).toEqual([]);
    expect(db.groupBadges).toEqual([badge]);
  });

  it('refuses a document written by a newer version instead of damaging it', () => {
    expect(() => migrate({ schemaVersion: currentSchemaVersion + 1 })).toThrow(SchemaTooNewError);
  });
});
