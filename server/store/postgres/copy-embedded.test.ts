import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli.js';
import { loadConfig } from '../../config/load-config.js';
import { startServer } from '../../start-server.js';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { seedDeployment, serveWav } from '../../test-support/seed-deployment.js';
import { createTestDatabase } from '../../test-support/store-kinds.js';
import { memoryLogger } from '../../test-support/test-app.js';
import { DurableJsonFile } from '../file-adapter.js';
import { tableNames } from '../row-diff.js';
import { emptyDb, type DbSchema } from '../schema.js';
import { openStore } from '../store.js';
import { copyDocumentToPostgres, readEmbeddedDocument, StoreCopyError, TargetNotEmptyError } from './copy-embedded.js';
import { openPostgresStore } from './pg-store.js';
import { tableSpecs } from './pg-tables.js';

/** Every table's rows as PostgreSQL holds them, in order (what "untouched" and "empty" are checked against). */
async function tableContents(url: string): Promise<Record<string, unknown[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, unknown[]> = {};
    for (const table of tableNames) out[table] = (await client.query(`SELECT * FROM ${tableSpecs[table].sql} ORDER BY ord`)).rows;
    return out;
  } finally {
    await client.end();
  }
}

const emptyTables = Object.fromEntries(tableNames.map((t) => [t, []]));
let dataDir: string;
let source: DbSchema;

describe.skipIf(postgresSkipReason !== null)('copying an embedded data dir into PostgreSQL', () => {
  beforeAll(async () => {
    const wav = await serveWav();
    dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-copy-'));
    const config = loadConfig({}, { dataDir, port: 0, adminToken: 'copy-admin', fetchAllowPrivate: true, hooksAllowPrivate: true });
    const server = await startServer(config, { log: memoryLogger(), rendererDir: null });
    try {
      await seedDeployment(server.url, 'copy-admin', wav.url);
    } finally {
      await server.stop();
      await wav.close();
    }
    source = (await readEmbeddedDocument(dataDir)).db;
  }, 240_000);

  it('copies every table; the PostgreSQL store then opens to the document the embedded store opens to', async () => {
    // The seeded deployment has rows in every table, so every table's copy is exercised.
    const counts = tableNames.map((t) => [t, Object.keys(source[t]).length] as const);
    expect(counts.filter(([, n]) => n === 0)).toEqual([]);
    const url = await createTestDatabase();
    const report = await copyDocumentToPostgres(source, url);
    expect(report.tables.map((t) => [t.table, t.rows])).toEqual(counts);
    expect(report.schemaApplied).toEqual(['postgres: 0001-initial-schema', 'postgres: 0002-project-badges', 'postgres: 0003-change-log']);
    // Checked here without the copy's own comparison: both stores opened as a server opens them.
    const embedded = await openStore(new DurableJsonFile<DbSchema>(path.join(dataDir, 'db.json')));
    const postgres = await openPostgresStore(url);
    try {
      expect(postgres.migrationsApplied).toEqual([]);
      expect(postgres.data).toStrictEqual(embedded.data);
    } finally {
      await postgres.close();
      await embedded.close();
    }
  });

  it('a node already running on the empty database reloads the copy (the copy moves the change-log head)', async () => {
    const url = await createTestDatabase();
    const running = await openPostgresStore(url);
    try {
      expect(running.data.projects).toEqual([]);
      const before = running.revisionOf(['projects']);
      const report = await copyDocumentToPostgres(source, url);
      expect(report.schemaApplied).toEqual([]);
      await running.sync();
      const embedded = await openStore(new DurableJsonFile<DbSchema>(path.join(dataDir, 'db.json')));
      try {
        expect(running.data).toStrictEqual(embedded.data);
      } finally {
        await embedded.close();
      }
      expect(running.revisionOf(['projects'])).toBeGreaterThan(before);
    } finally {
      await running.close();
    }
  });

  it('migrates an older data dir in memory (db.json left as it was) through the CLI, printing each table', async () => {
    // Schema 5: before project badges, and project records from before readmePath.
    const old = JSON.parse(JSON.stringify(source)) as Record<string, unknown> & DbSchema;
    old.schemaVersion = 5;
    delete (old as Partial<DbSchema>).projectBadges;
    for (const p of old.projects) delete (p as Partial<typeof p>).readmePath;
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-copy-old-'));
    const text = JSON.stringify(old);
    await writeFile(path.join(dir, 'db.json'), text);
    const url = await createTestDatabase();
    const lines: string[] = [];
    const code = await runCli(['store', 'migrate', '--to', 'postgres', '--data-dir', dir, '--database-url', url], {}, (s) => lines.push(s));
    expect(code).toBe(0);
    const out = lines.join('\n');
    expect(out).toContain('db.json migrated in memory (the file is unchanged): 5→6: add project badges');
    expect(out).toMatch(new RegExp(`^  projects +${source.projects.length}$`, 'm'));
    expect(out).toMatch(/^ {2}projectBadges +0$/m);
    expect(out).toContain('Verified');
    expect(out).toContain(`stay in ${dir}`);
    expect(await readFile(path.join(dir, 'db.json'), 'utf8')).toBe(text);
    const postgres = await openPostgresStore(url);
    try {
      // What the embedded store would have read: no project badges, and no README known (null).
      expect(postgres.data.projectBadges).toEqual([]);
      expect(postgres.data.projects).toEqual(source.projects.map((p) => ({ ...p, readmePath: null })));
      expect(postgres.data.groupBadges).toEqual(source.groupBadges);
    } finally {
      await postgres.close();
    }
  });

  it('refuses a database that already holds data and leaves it untouched', async () => {
    const url = await createTestDatabase();
    await copyDocumentToPostgres(source, url);
    const before = await tableContents(url);
    const refused = await copyDocumentToPostgres(source, url).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TargetNotEmptyError);
    expect((refused as Error).message).toContain(`projects: ${source.projects.length}`);
    expect(await tableContents(url)).toEqual(before);
  });

  it('leaves the database empty when a row is refused part-way through the copy', async () => {
    const url = await createTestDatabase();
    // lfs_links is copied after every table but lfs_locks and usage; its CHECK refuses this oid.
    const bad = { ...source, lfsLinks: [...source.lfsLinks, { ...source.lfsLinks[0]!, oid: 'not-a-sha256' }] };
    const refused = await copyDocumentToPostgres(bad, url).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreCopyError);
    expect((refused as Error).message).toMatch(/nothing was written.*lfs_links_oid_check/);
    expect(await tableContents(url)).toEqual(emptyTables);
  });

  it('leaves the database empty when a reference dangles (checked once every row is in)', async () => {
    const url = await createTestDatabase();
    const bad = {
      ...source,
      stars: [...source.stars, { projectId: source.projects[0]!.id, userId: 9999, createdAt: '2026-01-01T00:00:00.000Z' }],
    };
    const refused = await copyDocumentToPostgres(bad, url).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/nothing was written.*stars_user_id_fkey/);
    expect(await tableContents(url)).toEqual(emptyTables);
    // The database is still fit for a copy of a sound document.
    await copyDocumentToPostgres(source, url);
    expect((await tableContents(url)).projects).toHaveLength(source.projects.length);
  });

  it('refuses, leaving the database empty, a document PostgreSQL would give back differently', async () => {
    const url = await createTestDatabase();
    // Written by hand without milliseconds: timestamptz reads back as 2026-01-01T00:00:00.000Z, which the API would show.
    const users = source.users.map((u, i) => (i === 1 ? { ...u, createdAt: '2026-01-01T00:00:00Z' } : u));
    const refused = await copyDocumentToPostgres({ ...source, users }, url).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreCopyError);
    expect((refused as Error).message).toBe(
      'read back inside the transaction, users row 2, field createdAt: "2026-01-01T00:00:00.000Z" where db.json has "2026-01-01T00:00:00Z"; nothing was written',
    );
    expect(await tableContents(url)).toEqual(emptyTables);
  });

  it('leaves the database empty when the connection is cut in the middle of the copy', async () => {
    const url = await createTestDatabase();
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    const sent: string[] = [];
    const refused = await copyDocumentToPostgres(source, url, async (table) => {
      sent.push(table);
      // Half-way (projects are in, stars and the rest not yet): the server ends the copy's session.
      if (table === 'projects')
        await killer.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
    }).catch((e: unknown) => e);
    await killer.end();
    expect(sent).toContain('projects');
    expect(sent).not.toContain('stars');
    expect(refused).toBeInstanceOf(StoreCopyError);
    expect((refused as Error).message).toContain('nothing was written');
    expect(await tableContents(url)).toEqual(emptyTables);
  });
});

describe('cratehouse store migrate: refusals before any copy', () => {
  const migrate = (args: string[]) => runCli(['store', 'migrate', ...args], {}, () => undefined);

  it('names what is missing or wrong, and copies nothing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-copy-none-'));
    const db = 'postgresql://nobody@/none?host=/nonexistent-socket-dir';
    await expect(migrate(['--to', 'mysql', '--data-dir', dir, '--database-url', db])).rejects.toThrow('store migrate needs --to postgres');
    await expect(migrate(['--to', 'postgres', '--data-dir', dir])).rejects.toThrow('no database: pass --database-url');
    await expect(migrate(['--to', 'postgres', '--data-dir', dir, '--database-url', 'mysql://x/y'])).rejects.toThrow(
      'must start with postgres://',
    );
    await expect(migrate(['--to', 'postgres', '--data-dir', dir, '--database-url', db])).rejects.toThrow(
      `there is no ${path.join(dir, 'db.json')}: not an embedded data dir`,
    );
    await writeFile(path.join(dir, 'db.json'), JSON.stringify({ schemaVersion: 6 }));
    await expect(migrate(['--to', 'postgres', '--data-dir', dir, '--database-url', db])).rejects.toThrow(
      'db.json has no object "sequences"; nothing was copied',
    );
    await writeFile(path.join(dir, 'db.json'), JSON.stringify({ ...emptyDb(), extra: [] }));
    await expect(migrate(['--to', 'postgres', '--data-dir', dir, '--database-url', db])).rejects.toThrow(
      'db.json has a table "extra" the PostgreSQL schema does not know',
    );
    await writeFile(path.join(dir, 'db.json'), JSON.stringify(emptyDb()));
    await expect(migrate(['--to', 'postgres', '--data-dir', dir, '--database-url', db])).rejects.toThrow(
      "the database's schema could not be created, nothing was copied",
    );
    await writeFile(path.join(dir, 'db.json'), JSON.stringify({ schemaVersion: 99 }));
    await expect(migrate(['--to', 'postgres', '--data-dir', dir, '--database-url', db])).rejects.toThrow('db.json has schema version 99');
    // The CLI let go of the data dir each time.
    await expect(readFile(path.join(dir, 'server.lock'))).rejects.toThrow();
  });
});
