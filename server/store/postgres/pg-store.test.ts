import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.js';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { projectFixture, seedOwner } from '../../test-support/store-fixtures.js';
import { createTestDatabase } from '../../test-support/store-kinds.js';
import { nextId } from '../schema.js';
import { openPostgresStore } from './pg-store.js';

/** Run SQL on a database directly, as another writer would. */
async function sql(url: string, text: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, params);
  } finally {
    await client.end();
  }
}

const tenant = (id: string) => ({ id, webhookSecret: 's', createdAt: '2026-01-01T00:00:00.000Z' });

describe.skipIf(postgresSkipReason !== null)('PostgreSQL store', () => {
  it('creates its schema with node-pg-migrate once, and not again', async () => {
    const url = await createTestDatabase();
    const first = await openPostgresStore(url);
    expect(first.migrationsApplied).toEqual([
      'postgres: 0001-initial-schema',
      'postgres: 0002-project-badges',
      'postgres: 0003-change-log',
    ]);
    await first.close();
    const second = await openPostgresStore(url);
    expect(second.migrationsApplied).toEqual([]);
    const { rows } = await sql(url, 'SELECT name FROM pgmigrations');
    expect(rows.map((r: { name: string }) => r.name)).toEqual(['0001-initial-schema', '0002-project-badges', '0003-change-log']);
    await second.close();
  });

  it('commits 200 concurrent mutations, each acknowledged only once its rows are in the tables', async () => {
    const url = await createTestDatabase();
    const store = await openPostgresStore(url);
    const seen: number[] = [];
    const checker = new pg.Client({ connectionString: url });
    await checker.connect();
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store
          .mutate((d) => {
            nextId(d, 'tenants');
            d.tenants.push(tenant(`t${i}`));
          })
          .then(async () => {
            // Acknowledged: the row is visible to another connection now.
            const { rowCount } = await checker.query('SELECT 1 FROM tenants WHERE id = $1', [`t${i}`]);
            if (rowCount === 1) seen.push(i);
          }),
      ),
    );
    await checker.end();
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect((await sql(url, "SELECT value FROM sequences WHERE name = 'tenants'")).rows).toEqual([{ value: '200' }]);
    await store.close();
  });

  it('rolls the mirror back and rejects the failed write and those queued behind it with unavailable', async () => {
    const url = await createTestDatabase();
    const store = await openPostgresStore(url);
    await store.mutate((d) => void d.tenants.push(tenant('kept')));
    // Another writer's rule the mirror does not know about makes the next write fail in the database.
    await sql(url, "ALTER TABLE tenants ADD CONSTRAINT no_bad CHECK (id <> 'bad')");
    // Issued in one turn: one group commit fails, and is retried change by change, so the change
    // before the bad one stands.
    const fine = store.mutate((d) => void d.tenants.push(tenant('fine')));
    const outcomes = await Promise.allSettled([
      store.mutate((d) => void d.tenants.push(tenant('bad'))),
      store.mutate((d) => void d.tenants.push(tenant('queued-behind'))),
    ]);
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect(((o as PromiseRejectedResult).reason as AppError).kind).toBe('unavailable');
    }
    await fine;
    expect(store.data.tenants.map((t) => t.id)).toEqual(['kept', 'fine']);
    // The store goes on: the next write commits.
    await store.mutate((d) => void d.tenants.push(tenant('after')));
    expect((await sql(url, 'SELECT id FROM tenants ORDER BY ord')).rows.map((r: { id: string }) => r.id)).toEqual([
      'kept',
      'fine',
      'after',
    ]);
    await store.close();
  });

  it('answers a unique violation (another writer took the path) with the error the repository gives', async () => {
    const url = await createTestDatabase();
    const store = await openPostgresStore(url);
    await seedOwner(store);
    // Another node created "Taken" behind this node's back.
    await sql(
      url,
      `INSERT INTO projects (id, name, path, namespace_id, visibility, default_branch, creator_id, settings, merge_method, tag_list,
         archived, import_status, empty_repo, runners_token, custom_attributes, created_at, updated_at, last_activity_at)
       VALUES (100, 'other', 'Taken', 1, 'private', 'main', 1, '{}', 'merge', '{}', false, 'none', true, 'x', '{}', now(), now(), now())`,
    );
    const refused = await store.mutate((d) => void d.projects.push({ id: 1, ...projectFixture('taken') })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).kind).toBe('invalid');
    expect((refused as AppError).options.fields).toEqual({ path: ['has already been taken'] });
    expect(store.data.projects).toEqual([]);
    await store.close();
  });

  it('undoes a change that throws, in memory, and writes nothing', async () => {
    const url = await createTestDatabase();
    const store = await openPostgresStore(url);
    await expect(
      store.mutate((d) => {
        d.tenants.push(tenant('half'));
        throw new Error('invalid after editing');
      }),
    ).rejects.toThrow('invalid after editing');
    expect(store.data.tenants).toEqual([]);
    await store.flush();
    expect((await sql(url, 'SELECT count(*)::int AS n FROM tenants')).rows).toEqual([{ n: 0 }]);
    await store.close();
  });
});
