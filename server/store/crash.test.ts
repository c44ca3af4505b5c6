import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DbSchema } from './schema.js';
import { startServerChild } from '../test-support/server-child.js';

const token = 'crash-test-token';

describe('durability', () => {
  it('keeps every acknowledged write when the server is SIGKILLed in the middle of a burst', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-crash-'));
    const { child, url } = await startServerChild(dataDir, token);
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

    // The document on disk is readable JSON and holds every acknowledged group.
    const onDisk = JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8')) as DbSchema;
    const paths = new Set(onDisk.groups.map((g) => g.path));
    expect(acknowledged.filter((p) => !paths.has(p))).toEqual([]);

    // A restart takes over the stale lock and serves the same data.
    const second = await startServerChild(dataDir, token);
    try {
      const res = await fetch(`${second.url}/api/v4/groups?per_page=1`, { headers: { 'PRIVATE-TOKEN': token } });
      expect(res.status).toBe(200);
      expect(Number(res.headers.get('x-total'))).toBe(onDisk.groups.length);
    } finally {
      const stopped = new Promise((r) => second.child.once('exit', r));
      second.child.kill('SIGTERM');
      await stopped;
    }
  }, 60_000);

  it('leaves no name blocked when SIGKILLed in the middle of project creates (no repository without a project)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-crash-projects-'));
    const { child, url } = await startServerChild(dataDir, token);
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
    const second = await startServerChild(dataDir, token);
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
  }, 120_000);

  it('acknowledges 200 concurrent writes over HTTP and has every one of them on disk', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-burst-'));
    const { child, url } = await startServerChild(dataDir, token);
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
      // Read the file while the server is still running: acknowledged means on disk, not "after shutdown".
      const onDisk = JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8')) as DbSchema;
      const paths = new Set(onDisk.groups.map((g) => g.path));
      expect(Array.from({ length: 200 }, (_, i) => `burst-${i}`).filter((p) => !paths.has(p))).toEqual([]);
      // Ids come from one sequence: all distinct.
      expect(new Set(onDisk.groups.map((g) => g.id)).size).toBe(200);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  }, 60_000);

  it('finishes in-flight writes and releases the data dir on SIGTERM', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-term-'));
    const { child, url } = await startServerChild(dataDir, token);
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
    const onDisk = JSON.parse(await readFile(path.join(dataDir, 'db.json'), 'utf8')) as DbSchema;
    expect(onDisk.groups.length).toBeGreaterThanOrEqual(acked);
    await expect(readFile(path.join(dataDir, 'server.lock'))).rejects.toThrow();
  }, 60_000);
});
