/**
 * Store-level benchmark of the PostgreSQL store (issue 23): 100,000 projects in PostgreSQL beside the
 * embedded store at 10,000, in one run. Times opening (loading the mirror), the write a
 * `POST /projects` makes (`ProjectsRepo.insert`, median of 100, without the git work and HTTP around
 * it) and a by-path lookup. Not the HTTP benchmark: seeding 100,000 projects through the API creates
 * 100,000 repositories. Needs PostgreSQL's binaries (starts a private server). `--write` appends to
 * RESULTS.md.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createProjectsRepo } from '../server/hosting/projects/projects-repo.js';
import { DurableJsonFile } from '../server/store/file-adapter.js';
import { openPostgresStore } from '../server/store/postgres/pg-store.js';
import type { DbSchema, ProjectRecord } from '../server/store/schema.js';
import { openStore, type Store } from '../server/store/store.js';
import { startPrivatePostgres } from '../server/test-support/private-postgres.js';
import { projectFixture } from '../server/test-support/store-fixtures.js';
import { machineHeader, median, say, writeResults } from './bench-support.js';

const namespaces = 100;
const at = '2026-01-01T00:00:00.000Z';

function project(id: number, namespaceId: number, path: string): ProjectRecord {
  return { id, ...projectFixture(path, namespaceId), description: `project ${id}`, tagList: ['bench'] };
}

/** Users (each with a namespace) and `count` projects spread over them, in one write. */
async function seed(store: Store, count: number): Promise<void> {
  await store.mutate((d) => {
    for (let u = 1; u <= namespaces; u++) {
      d.tenants.push({ id: `t${u}`, webhookSecret: 's', createdAt: at });
      d.namespaces.push({ id: u, kind: 'user', name: `u${u}`, path: `u${u}`, ownerId: u, parentId: null, createdAt: at });
      d.users.push({
        id: u,
        username: `u${u}`,
        name: `u${u}`,
        email: `u${u}@x`,
        admin: false,
        state: 'active',
        tenant: `t${u}`,
        namespaceId: u,
        passwordHash: null,
        createdAt: at,
      });
    }
    const rows: ProjectRecord[] = [];
    for (let i = 1; i <= count; i++) rows.push(project(i, ((i - 1) % namespaces) + 1, `p${i}`));
    d.projects = rows;
    d.sequences = { users: namespaces, namespaces, projects: count };
  });
}

/** Open, then time 100 inserts (after 10 warm-up) and 1,000 by-path lookups. */
async function measure(open: () => Promise<Store>): Promise<{ openMs: number; insertMs: number; byPathUs: number }> {
  let t = performance.now();
  const store = await open();
  const openMs = performance.now() - t;
  const repo = createProjectsRepo(store);
  const times: number[] = [];
  for (let i = 0; i < 110; i++) {
    const { id: _, ...input } = project(0, (i % namespaces) + 1, `new-${i}`);
    t = performance.now();
    await repo.insert(input);
    if (i >= 10) times.push(performance.now() - t);
  }
  t = performance.now();
  for (let i = 0; i < 1000; i++) repo.byPath((i % namespaces) + 1, `P${i * 7 + 1}`);
  // ms for 1,000 lookups is µs per lookup.
  const byPathUs = performance.now() - t;
  await store.close();
  return { openMs, insertMs: median(times), byPathUs };
}

const pgCount = 100_000;
const embeddedCount = 10_000;
const cluster = await startPrivatePostgres();
try {
  const url = await cluster.createDatabase();
  let t = performance.now();
  const seeding = await openPostgresStore(url);
  await seed(seeding, pgCount);
  await seeding.close();
  say(`postgres: seeded ${pgCount} projects in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const pg = await measure(() => openPostgresStore(url));

  const file = path.join(await mkdtemp(path.join(tmpdir(), 'cratehouse-bench-')), 'db.json');
  t = performance.now();
  const embeddedSeed = await openStore(new DurableJsonFile<DbSchema>(file));
  await seed(embeddedSeed, embeddedCount);
  await embeddedSeed.close();
  say(`embedded: seeded ${embeddedCount} projects in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const embedded = await measure(() => openStore(new DurableJsonFile<DbSchema>(file)));

  say(machineHeader('PostgreSQL store vs embedded store (bench/postgres-bench.ts)'));
  say('| store | projects | open (load) | ProjectsRepo.insert median | byPath |');
  say('|---|---|---|---|---|');
  say(`| PostgreSQL | ${pgCount} | ${pg.openMs.toFixed(0)} ms | ${pg.insertMs.toFixed(2)} ms | ${pg.byPathUs.toFixed(1)} µs |`);
  say(
    `| embedded (lowdb) | ${embeddedCount} | ${embedded.openMs.toFixed(0)} ms | ${embedded.insertMs.toFixed(2)} ms | ${embedded.byPathUs.toFixed(1)} µs |`,
  );
} finally {
  await cluster.stop();
}
await writeResults();
