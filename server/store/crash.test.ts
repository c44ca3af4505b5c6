import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test-support/store-kinds.js';
import { postgresSkipReason } from '../test-support/private-postgres.js';
import type { DbSchema } from './schema.js';
import { startServerChild, type ServerChild } from '../test-support/server-child.js';

const token = 'crash-test-token';

/** Where the server under test keeps its metadata: db.json in the data dir, or a PostgreSQL database. */
interface Backend {
  readonly name: 'embedded' | 'postgres';
  readonly skip: string | null;
  /** A fresh database URL for one test (postgres), or null (embedded). */
  database(): Promise<string | null>;
}

const backends: readonly Backend[] = [
  { name: 'embedded', skip: null, database: async () => null },
  { name: 'postgres', skip: postgresSkipReason, database: createTestDatabase },
];

/** The groups that are persisted (read while or after the server runs): db.json's, or the groups table's. */
async function persistedGroups(dataDir: string, databaseUrl: string | null): Promise<readonly { id: number; path: string }[]> {
  if (databaseUrl === null) return (JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8')) as DbSchema).groups;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ id: number; path: string }>('SELECT id, path FROM groups')).rows;
  } finally {
    await client.end();
  }
}

/** Start the real headless server over `dataDir`, on `databaseUrl` when given (the postgres store). */
function startServer(dataDir: string, databaseUrl: string | null): Promise<ServerChild> {
  return startServerChild(dataDir, token, { CRATEHOUSE_DATABASE_URL: databaseUrl ?? '' });
}

describe.each(backends)('durability ($name store)', (backend) => {
  it.skipIf(backend.skip !== null)(
    'keeps every acknowledged write when the server is SIGKILLed in the middle of a burst',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-crash-'));
      const db = await backend.database();
      const { child, url } = await startServer(dataDir, db);
      const exited = new Promise((r) => child.once('exit', r));
      const acknowledged: string[] = [];
      let killed = false;
      // 8 writers issue group creations as fast as the server acknowledges them; the kill lands
      // mid-burst once 150 have been acknowledged, with many more still in flight.
      const writer = async (w: number) => {
        for (let i = 0; !killed; i++) {
          const pathName = `g${w}-${i}`;
          try {
            const res = await fetch(`${url}/api/v4/groups`, {
              method: 'POST',
              headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name: pathName, path: pathName }),
            });
            if (res.status === 201) acknowledged.push(pathName);
            else throw new Error(`unexpected ${res.status}`);
          } catch (e) {
            if (!killed) throw e;
          }
          if (acknowledged.length >= 150 && !killed) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
      await exited;
      expect(acknowledged.length).toBeGreaterThanOrEqual(150);

      // The persisted groups (db.json readable as JSON, or the table) hold every acknowledged group.
      const groups = await persistedGroups(dataDir, db);
      const paths = new Set(groups.map((g) => g.path));
      expect(acknowledged.filter((p) => !paths.has(p))).toEqual([]);

      // A restart takes over the stale lock and serves the same data.
      const second = await startServer(dataDir, db);
      try {
        const res = await fetch(`${second.url}/api/v4/groups?per_page=1`, { headers: { 'PRIVATE-TOKEN': token } });
        expect(res.status).toBe(200);
        expect(Number(res.headers.get('x-total'))).toBe(groups.length);
      } finally {
        const stopped = new Promise((r) => second.child.once('exit', r));
        second.child.kill('SIGTERM');
        await stopped;
      }
    },
    180_000,
  );

  it.skipIf(backend.skip !== null)(
    'leaves no name blocked when SIGKILLed in the middle of project creates (no repository without a project)',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-crash-projects-'));
      const db = await backend.database();
      const { child, url } = await startServer(dataDir, db);
      const exited = new Promise((r) => child.once('exit', r));
      const attempted: string[] = [];
      let acknowledged = 0;
      let killed = false;
      // 10 writers create projects (a git init and a store write each); the kill lands once 30 are
      // acknowledged, with creates in every stage still in flight. (Before the fix, runs left 0–4
      // orphans that answered 409 after the restart.)
      const writer = async (w: number) => {
        for (let i = 0; !killed; i++) {
          const name = `p${w}-${i}`;
          attempted.push(name);
          try {
            const res = await fetch(`${url}/api/v4/projects`, {
              method: 'POST',
              headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name, path: name }),
            });
            if (res.status === 201) acknowledged++;
            else throw new Error(`unexpected ${res.status}`);
          } catch (e) {
            if (!killed) throw e;
          }
          if (acknowledged >= 30 && !killed) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: 10 }, (_, w) => writer(w)));
      await exited;

      // After a restart every attempted name is either a project with a working repository or free to create.
      const second = await startServer(dataDir, db);
      try {
        const blocked: string[] = [];
        const broken: string[] = [];
        const auth = { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}` };
        for (const name of attempted) {
          const res = await fetch(`${second.url}/api/v4/projects`, {
            method: 'POST',
            headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name, path: name }),
          });
          if (res.status === 201) continue;
          const owned =
            res.status === 400 &&
            (await fetch(`${second.url}/api/v4/projects/root%2F${name}`, { headers: { 'PRIVATE-TOKEN': token } })).status === 200;
          if (!owned) blocked.push(`${name}: ${res.status}`);
          else if ((await fetch(`${second.url}/root/${name}.git/info/refs?service=git-upload-pack`, { headers: auth })).status !== 200)
            broken.push(name);
        }
        expect({ blocked, broken }).toEqual({ blocked: [], broken: [] });
      } finally {
        const stopped = new Promise((r) => second.child.once('exit', r));
        second.child.kill('SIGTERM');
        await stopped;
      }
    },
    240_000,
  );

  it.skipIf(backend.skip !== null)(
    'acknowledges 200 concurrent writes over HTTP and has every one of them on disk',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-burst-'));
      const db = await backend.database();
      const { child, url } = await startServer(dataDir, db);
      const exited = new Promise((r) => child.once('exit', r));
      try {
        const statuses = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            fetch(`${url}/api/v4/groups`, {
              method: 'POST',
              headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name: `burst ${i}`, path: `burst-${i}` }),
            }).then((r) => r.status),
          ),
        );
        expect(statuses.filter((s) => s !== 201)).toEqual([]);
        // Read while the server is still running: acknowledged means persisted, not "after shutdown".
        const groups = await persistedGroups(dataDir, db);
        const paths = new Set(groups.map((g) => g.path));
        expect(Array.from({ length: 200 }, (_, i) => `burst-${i}`).filter((p) => !paths.has(p))).toEqual([]);
        // Ids come from one sequence: all distinct.
        expect(new Set(groups.map((g) => g.id)).size).toBe(200);
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
    },
    180_000,
  );

  it.skipIf(backend.skip !== null)(
    'finishes in-flight writes and releases the data dir on SIGTERM',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-term-'));
      const db = await backend.database();
      const { child, url } = await startServer(dataDir, db);
      const writes = Array.from({ length: 20 }, (_, i) =>
        fetch(`${url}/api/v4/groups`, {
          method: 'POST',
          headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `t${i}`, path: `t${i}` }),
        }).then((r) => r.status),
      );
      const exited = new Promise((r) => child.once('exit', (c) => r(c)));
      await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGTERM');
      const statuses = await Promise.allSettled(writes);
      const code = await exited;
      expect(code).toBe(0);
      const acked = statuses.filter((s) => s.status === 'fulfilled' && s.value === 201).length;
      expect((await persistedGroups(dataDir, db)).length).toBeGreaterThanOrEqual(acked);
      await expect(readFile(path.join(dataDir, 'server.lock'))).rejects.toThrow();
    },
    180_000,
  );
});
