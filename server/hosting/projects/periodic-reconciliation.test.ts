import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../config/load-config.js';
import { startServer, type RunningServer } from '../../start-server.js';
import { openDataStore } from '../../store/open-data-store.js';
import { createTestDatabase, storeKinds } from '../../test-support/store-kinds.js';
import { memoryLogger } from '../../test-support/test-app.js';
import { waitFor } from '../../test-support/wait-for.js';

const run = promisify(execFile);
const token = 'periodic-reconcile-admin-token';

/** What a create killed after `git init` in place and before its record (or a half-done rename) leaves. */
async function leaveOrphan(dir: string): Promise<void> {
  await run('git', ['init', '--bare', '--quiet', '--template=', '--initial-branch=main', dir]);
}

/** Repositories under lost+found, as `<namespace>/<name>.git` whatever run folder they are in. */
function lostAndFound(dataDir: string): string[] {
  const base = path.join(dataDir, 'lost+found', 'repositories');
  if (!existsSync(base)) return [];
  return readdirSync(base).flatMap((stamp) =>
    readdirSync(path.join(base, stamp)).flatMap((ns) => readdirSync(path.join(base, stamp, ns)).map((repo) => `${ns}/${repo}`)),
  );
}

/** Wait until `ok()` holds, checking every 100 ms; rejects after `limitMs`. */
const within = (limitMs: number, ok: () => boolean | Promise<boolean>) => waitFor(ok, { timeoutMs: limitMs, everyMs: 100 });

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

describe.each(storeKinds)('periodic reconciliation on a running node ($name store)', (kind) => {
  async function configFor(settings: Partial<Config>): Promise<Config> {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-periodic-'));
    const databaseUrl = kind.name === 'postgres' ? await createTestDatabase() : null;
    return loadConfig({}, { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', adminToken: token, databaseUrl, ...settings });
  }
  async function start(config: Config, log = memoryLogger()) {
    const server = await startServer(config, { rendererDir: null, log });
    running.push(server);
    const repos = path.join(config.dataDir, 'repositories', 'root');
    return {
      server,
      log,
      repo: (name: string) => path.join(repos, `${name}.git`),
      create: async (name: string) => {
        const res = await fetch(`${server.url}/api/v4/projects`, {
          method: 'POST',
          headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: number }).id;
      },
      refs: async (name: string) =>
        (
          await fetch(`${server.url}/root/${name}.git/info/refs?service=git-upload-pack`, {
            headers: { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}` },
          })
        ).status,
    };
  }

  it.skipIf(kind.skip !== null)(
    'repairs both disagreements made while it runs, without a restart: the orphan to lost+found, the missing repository created empty',
    async () => {
      const config = await configFor({ reconcileIntervalS: 1, reconcileGraceS: 1 });
      const node = await start(config);
      await node.create('kept');
      const goneId = await node.create('gone');
      // A node killed mid-create: repository made, record never committed; record committed, repository never renamed in.
      await leaveOrphan(node.repo('ghost'));
      await rm(node.repo('gone'), { recursive: true });
      const recreatedLine = `project ${goneId} (root/gone) had no repository on disk; created an empty one`;
      // Older than the 1 s grace, and still there at the pass after the one that first found it.
      expect(
        await within(
          20_000,
          () => lostAndFound(config.dataDir).includes('root/ghost.git') && node.log.lines.some((l) => l.includes(recreatedLine)),
        ),
      ).toBe(true);
      expect(existsSync(node.repo('ghost'))).toBe(false);
      expect(node.log.lines.filter((l) => l.includes('root/ghost.git belonged to no project'))).toHaveLength(1);
      expect(await node.refs('gone')).toBe(200);
      expect(await node.refs('kept')).toBe(200);
      const gone = (await (
        await fetch(`${node.server.url}/api/v4/projects/${goneId}`, { headers: { 'PRIVATE-TOKEN': token } })
      ).json()) as {
        empty_repo: boolean;
      };
      expect(gone.empty_repo).toBe(true);
      expect(lostAndFound(config.dataDir)).toEqual(['root/ghost.git']);
      // The orphan's name is free again.
      await node.create('ghost');
      expect(await node.refs('ghost')).toBe(200);
    },
    120_000,
  );

  it.skipIf(kind.skip !== null)(
    'leaves alone a rename in flight on another node (repository moved, record not yet updated) that is over before the next pass',
    async () => {
      const config = await configFor({ reconcileIntervalS: 2, reconcileGraceS: 1 });
      const lines: string[] = [];
      const log = { ...memoryLogger(), lines, info: (m: string) => void lines.push(m), debug: (m: string) => void lines.push(m) };
      const node = await start(config, log);
      await node.create('moving');
      const passes = () => lines.filter((l) => l.startsWith('repositories: periodic pass'));
      // Old enough for the grace (1 s): only whether the previous pass saw it too decides.
      const before = passes().length;
      expect(await within(10_000, () => passes().length >= before + 2)).toBe(true);
      // Right after a pass: another node's rename moves the repository first, then writes the
      // record; it fails and moves the repository back 2.8 s later, so the next pass (2 s on) sees
      // both halves, and the one after (4 s on) sees it over.
      const atHold = passes().length;
      await rename(node.repo('moving'), node.repo('moved'));
      await new Promise((r) => setTimeout(r, 2800));
      await rename(node.repo('moved'), node.repo('moving'));
      const during = passes().slice(atHold);
      expect(await within(10_000, () => passes().length >= atHold + during.length + 2)).toBe(true);
      // The pass during the rename found it (an unowned repository and a project without one)…
      expect(during).toEqual(['repositories: periodic pass found 2 disagreement(s), moved 0 aside, created 0']);
      // …and neither it nor the next ones touched anything.
      expect(lostAndFound(config.dataDir)).toEqual([]);
      expect(lines.filter((l) => l.startsWith('repositories:') && !l.startsWith('repositories: periodic pass'))).toEqual([]);
      expect(await node.refs('moving')).toBe(200);
    },
    120_000,
  );

  it.skipIf(kind.skip !== null)(
    'spares a young unowned repository and a young project without its repository (a create in flight) while repairing an old one',
    async () => {
      const config = await configFor({ reconcileIntervalS: 1, reconcileGraceS: 3600 });
      // A project last changed two hours ago (made, then its record back-dated while no node runs).
      const first = await start({ ...config, reconcileIntervalS: 0 });
      const oldId = await first.create('old');
      await first.server.stop();
      running.splice(0);
      const store = await openDataStore(config);
      await store.mutate((d) => {
        const i = d.projects.findIndex((p) => p.id === oldId);
        d.projects[i] = { ...d.projects[i]!, updatedAt: new Date(Date.now() - 2 * 3600_000).toISOString() };
      });
      await store.close();

      const node = await start(config);
      await node.create('fresh');
      await rm(node.repo('fresh'), { recursive: true });
      await leaveOrphan(node.repo('inflight'));
      // Made last: every pass that finds the old project without its repository finds the young ones too.
      await rm(node.repo('old'), { recursive: true });
      // The old one is repaired (passes run and act), by a pass that spared the young ones for their age…
      expect(await within(20_000, () => node.log.lines.some((l) => l.includes(`project ${oldId} (root/old) had no repository`)))).toBe(
        true,
      );
      // …as does the next one.
      await new Promise((r) => setTimeout(r, 1500));
      expect(existsSync(path.join(node.repo('inflight'), 'HEAD'))).toBe(true);
      expect(lostAndFound(config.dataDir)).toEqual([]);
      expect(existsSync(node.repo('fresh'))).toBe(false);
      expect(node.log.lines.filter((l) => l.includes('created an empty one'))).toHaveLength(1);
    },
    120_000,
  );
});
