import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { loadConfig } from './config/load-config.js';
import type { DbSchema } from './store/schema.js';
import { startServer } from './start-server.js';
import { memoryLogger } from './test-support/test-app.js';

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runCli(args, env, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

describe('cratehouse CLI', () => {
  it('manages users, tokens and groups on the files when no server runs', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-cli-'));
    const created = await cli([
      'user',
      'create',
      '--username',
      'alice',
      '--name',
      'Alice',
      '--email',
      'alice@example.com',
      '--tenant',
      'studio',
      '--data-dir',
      dir,
      '--json',
    ]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({ username: 'alice', tenant: 'studio' });

    const token = JSON.parse(
      (await cli(['token', 'create', '--user', 'alice', '--name', 'laptop', '--scopes', 'api,read_api', '--data-dir', dir, '--json'])).out,
    ) as { id: number; token: string; scopes: string[] };
    expect(token.token).toMatch(/^chpat-/);
    expect(token.scopes).toEqual(['api', 'read_api']);

    const group = JSON.parse(
      (
        await cli([
          'group',
          'create',
          '--name',
          'Beat Makers',
          '--path',
          'beat-makers',
          '--visibility',
          'internal',
          '--data-dir',
          dir,
          '--json',
        ])
      ).out,
    ) as { full_path: string; visibility: string };
    expect(group).toMatchObject({ full_path: 'beat-makers', visibility: 'internal' });

    expect((await cli(['token', 'revoke', String(token.id), '--data-dir', dir])).out).toBe(`Revoked token ${token.id}`);
    const db = JSON.parse(await readFile(path.join(dir, 'db.json'), 'utf8')) as DbSchema;
    expect(db.tokens.find((t) => t.id === token.id)?.revoked).toBe(true);
    expect(JSON.stringify(db)).not.toContain(token.token);
    // The CLI released the data dir when it finished.
    await expect(stat(path.join(dir, 'server.lock'))).rejects.toThrow();

    await expect(
      cli(['user', 'create', '--username', 'alice', '--name', 'A', '--email', 'other@example.com', '--data-dir', dir]),
    ).rejects.toThrow('Username has already been taken');
    await expect(cli(['user', 'create', '--username', 'bob', '--data-dir', dir])).rejects.toThrow('--name is required');
  });

  it('goes through the running server’s API instead of touching its files', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-cli-'));
    const server = await startServer(loadConfig({}, { dataDir: dir, port: 0, adminToken: 'cli-admin' }), {
      log: memoryLogger(),
      rendererDir: null,
    });
    try {
      const credentials = JSON.parse(await readFile(path.join(dir, 'admin-credentials.json'), 'utf8')) as { token: string };
      expect(credentials.token).toBe('cli-admin');
      expect((await stat(path.join(dir, 'admin-credentials.json'))).mode & 0o777).toBe(0o600);

      const created = await cli(['user', 'create', '--username', 'dj', '--name', 'DJ', '--email', 'dj@example.com', '--data-dir', dir]);
      expect(created.out).toContain(`Created user dj (id 2) through the server at ${server.url}`);
      const token = JSON.parse((await cli(['token', 'create', '--user', 'dj', '--name', 'plugin', '--data-dir', dir, '--json'])).out) as {
        token: string;
      };
      // The server knows the new user and token at once: no second writer raced on db.json.
      const me = await fetch(`${server.url}/audio/v1/me`, { headers: { Authorization: `Bearer ${token.token}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { identity: { username: string } }).identity.username).toBe('dj');
      const list = await cli(['token', 'list', '--user', 'dj', '--data-dir', dir]);
      expect(list.out).toMatch(/user 2 +active +plugin +\[api\]/);
    } finally {
      await server.stop();
    }
  });
});
