import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load-config.js';
import { startServer, type RunningServer } from '../../start-server.js';
import { memoryLogger } from '../../test-support/test-app.js';

const run = promisify(execFile);
const token = 'reconcile-test-admin-token';

/** What a create killed between `git init` and the store write left behind (the order before this fix). */
async function leaveOrphan(dir: string): Promise<void> {
  await run('git', ['init', '--bare', '--quiet', '--template=', '--initial-branch=main', dir]);
  await run('git', ['--git-dir', dir, 'config', 'http.receivepack', 'true']);
}

/** Repositories under lost+found, as `<namespace>/<name>.git` whatever run folder they are in. */
function lostAndFound(dataDir: string): string[] {
  const base = path.join(dataDir, 'lost+found', 'repositories');
  if (!existsSync(base)) return [];
  return readdirSync(base).flatMap((stamp) =>
    readdirSync(path.join(base, stamp)).flatMap((ns) => readdirSync(path.join(base, stamp, ns)).map((repo) => `${ns}/${repo}`)),
  );
}

describe('repositories without projects (a create killed part-way)', () => {
  let dataDir: string;
  let server: RunningServer;
  const log = memoryLogger();
  const repos = () => path.join(dataDir, 'repositories', 'root');
  const create = (name: string) =>
    fetch(`${server.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name }),
    });
  const refs = (name: string) =>
    fetch(`${server.url}/root/${name}.git/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${Buffer.from(`oauth2:${token}`).toString('base64')}` },
    });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-reconcile-'));
    const config = loadConfig({}, { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', adminToken: token });
    const first = await startServer(config, { rendererDir: null, log: memoryLogger() });
    server = first;
    try {
      expect((await create('kept')).status).toBe(201);
      expect((await create('gone')).status).toBe(201);
    } finally {
      await first.stop();
    }
    // The two crash windows: an orphan from the old order (init, killed before the record), and a
    // record whose repository never arrived (killed between the record and the rename).
    await leaveOrphan(path.join(repos(), 'ghost.git'));
    await rm(path.join(repos(), 'gone.git'), { recursive: true });
    server = await startServer(config, { rendererDir: null, log });
  }, 120_000);
  afterAll(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('moves a repository no project owns to lost+found at boot, logs it, and the name can be created', async () => {
    expect(existsSync(path.join(repos(), 'ghost.git', 'HEAD'))).toBe(false);
    expect(lostAndFound(dataDir)).toEqual(['root/ghost.git']);
    expect(log.lines.filter((l) => l.includes('root/ghost.git belonged to no project'))).toHaveLength(1);
    expect((await create('ghost')).status).toBe(201);
    expect((await refs('ghost')).status).toBe(200);
  });

  it('gives a project whose repository is missing an empty one again, and keeps the owned ones', async () => {
    expect(log.lines.some((l) => /project \d+ \(root\/gone\) had no repository on disk/.test(l))).toBe(true);
    expect((await refs('gone')).status).toBe(200);
    expect((await refs('kept')).status).toBe(200);
    expect(lostAndFound(dataDir)).not.toContain('root/kept.git');
  });

  it('a create that finds an unowned repository at its path moves it aside instead of answering 409', async () => {
    await leaveOrphan(path.join(repos(), 'late.git'));
    const res = await create('late');
    expect(res.status).toBe(201);
    expect(lostAndFound(dataDir)).toContain('root/late.git');
    expect(log.lines.some((l) => l.includes('root/late.git belonged to no project'))).toBe(true);
    expect((await refs('late')).status).toBe(200);
    // An owned repository is never taken for an orphan: the name stays taken.
    const again = await create('late');
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ message: { name: ['has already been taken'] } });
  });
});
