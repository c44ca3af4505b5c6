/**
 * Issue 23's hosting targets through HTTP, in one run: a server on the PostgreSQL store
 * (CRATEHOUSE_DATABASE_URL, a private PostgreSQL on a Unix socket started by this script) at
 * 100,000 projects beside a server on the embedded store at 10,000. Prints `POST /api/v4/projects`
 * median and p99 (sequential creates by a member, each a new bare repository plus the store write) and
 * one-page `GET /api/v4/projects` lists against `GET /api/v4/version` (interleaved on one keep-alive
 * socket). Owners, the member's token and one template project are made through the API; the bulk of
 * the projects is written at store level while the server is stopped (100,000 creates through HTTP
 * would also make 100,000 git repositories; lists read only the metadata, so the seeded projects
 * have no repository). `--small` seeds 10,000 / 1,000 (a quick check); `--write` appends to RESULTS.md;
 * `BENCH_CPU_PROF=<dir>` runs the servers with `--cpu-prof` into that directory.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { DurableJsonFile } from '../server/store/file-adapter.js';
import { openPostgresStore } from '../server/store/postgres/pg-store.js';
import type { DbSchema, ProjectRecord } from '../server/store/schema.js';
import { openStore, type Store } from '../server/store/store.js';
import { startPrivatePostgres } from '../server/test-support/private-postgres.js';
import { Client, machineHeader, median, percentile, say, startServerProcess, writeResults, type ServerProcess } from './bench-support.js';

const adminToken = 'bench-admin';
const searchTerm = 'synthwave';
const groups = 10;
const getSamples = 200;
const getWarmup = 30;
const postSamples = 100;
const postWarmup = 10;
const visibilities = ['private', 'internal', 'public'] as const;

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

function startServer(dataDir: string, databaseUrl: string | null): Promise<ServerProcess> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return startServerProcess(['--import', 'tsx', ...profile, ...serverNodeFlags, 'server/main.ts'], {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: dataDir,
    CRATEHOUSE_ADMIN_TOKEN: adminToken,
    CRATEHOUSE_LOG_LEVEL: 'error',
    CRATEHOUSE_DATABASE_URL: databaseUrl ?? '',
  });
}

/** The member's namespace path and the groups'. */
const namespacePaths = ['member', ...Array.from({ length: groups }, (_, g) => `label-${g}`)];

/** Through the API: a member user with a token, `groups` groups the member belongs to, and one project to copy. */
async function seedOwners(url: string): Promise<{ token: string; namespaceIds: readonly number[] }> {
  const admin = new Client(url, adminToken);
  const user = (
    await admin.ok('POST', '/users', { username: 'member', name: 'Member', email: 'member@bench.local', force_random_password: true })
  ).body as { id: number; namespace_id: number };
  const token = (
    (await admin.ok('POST', `/users/${user.id}/personal_access_tokens`, { name: 'bench', scopes: ['api'] })).body as { token: string }
  ).token;
  const namespaceIds = [user.namespace_id];
  for (let g = 0; g < groups; g++) {
    const group = (await admin.ok('POST', '/groups', { name: `Label ${g}`, path: `label-${g}`, visibility: visibilities[g % 3] })).body as {
      id: number;
    };
    await admin.ok('POST', `/groups/${group.id}/members`, { user_id: user.id, access_level: 30 });
    namespaceIds.push(group.id);
  }
  await new Client(url, token).ok('POST', '/projects', { name: 'Template', visibility: 'public' });
  admin.close();
  return { token, namespaceIds };
}

/**
 * Add projects up to `total` at store level, copies of the template spread over the namespaces; every
 * 20th name holds the search term. Each gets an empty directory where its repository would be: the
 * boot's reconciliation would otherwise `git init` every one (lists never open them).
 */
async function seedProjects(store: Store, total: number, namespaceIds: readonly number[], dataDir: string): Promise<void> {
  for (const ns of namespacePaths) await mkdir(path.join(dataDir, 'repositories', ns), { recursive: true });
  for (let i = 1; i < total; i++)
    await mkdir(path.join(dataDir, 'repositories', namespacePaths[i % namespacePaths.length]!, `bounce-${i}.git`));
  await store.mutate((d: DbSchema) => {
    const template = d.projects[0]!;
    const rows: ProjectRecord[] = [...d.projects];
    let id = d.sequences.projects ?? rows.length;
    for (let i = rows.length; i < total; i++) {
      id++;
      const name = i % 20 === 0 ? `Bounce ${searchTerm} ${i}` : `Bounce ${i}`;
      const namespaceId = namespaceIds[i % namespaceIds.length]!;
      // Group namespaces cap visibility; the template's settings and tokens are fine to share in a benchmark.
      const visibility = namespaceId === namespaceIds[0] ? visibilities[i % 3]! : 'private';
      rows.push({ ...template, id, name, path: `bounce-${i}`, namespaceId, visibility, description: `Stems for track ${i}` });
    }
    d.projects = rows;
    d.sequences.projects = id;
  });
  await store.close();
}

interface Figures {
  readonly store: string;
  readonly projects: number;
  readonly startS: number;
  readonly posts: readonly number[];
  readonly lists: readonly { readonly label: string; readonly list: readonly number[]; readonly floor: readonly number[] }[];
}

const listRoutes: readonly [string, string][] = [
  ['GET /projects?visibility=public&per_page=20', '/projects?visibility=public&per_page=20'],
  [`GET /projects?search=${searchTerm}&per_page=20`, `/projects?search=${searchTerm}&per_page=20`],
  ['GET /projects (default page)', '/projects'],
];

/** Seed one store to `total` projects, restart the server over it, then time lists and creates as the member. */
async function measure(name: string, total: number, databaseUrl: string | null): Promise<Figures> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-pg-bench-'));
  let server = await startServer(dataDir, databaseUrl);
  const { token, namespaceIds } = await seedOwners(server.url);
  await server.stop();
  const store = databaseUrl
    ? await openPostgresStore(databaseUrl)
    : await openStore(new DurableJsonFile<DbSchema>(path.join(dataDir, 'db.json')));
  await seedProjects(store, total, namespaceIds, dataDir);
  const t0 = performance.now();
  server = await startServer(dataDir, databaseUrl);
  const startS = (performance.now() - t0) / 1000;
  const member = new Client(server.url, token);
  try {
    const lists = [];
    for (const [label, route] of listRoutes) {
      for (let i = 0; i < getWarmup; i++) await member.ok('GET', '/version').then(() => member.ok('GET', route));
      const list: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < getSamples; i++) {
        floor.push((await member.ok('GET', '/version')).ms);
        list.push((await member.ok('GET', route)).ms);
      }
      lists.push({ label, list, floor });
    }
    for (let i = 0; i < postWarmup; i++) await member.ok('POST', '/projects', { name: `Warmup ${i}`, visibility: 'private' });
    const posts: number[] = [];
    for (let i = 0; i < postSamples; i++)
      posts.push(
        (await member.ok('POST', '/projects', { name: `Create ${i}`, visibility: visibilities[i % 3], description: 'benchmark create' }))
          .ms,
      );
    return { store: name, projects: total, startS, posts, lists };
  } finally {
    member.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const small = process.argv.includes('--small');
  const [pgTotal, embeddedTotal] = small ? [10_000, 1_000] : [100_000, 10_000];
  say(machineHeader('Hosting on PostgreSQL (bench/hosting-pg-bench.ts)'));
  say(
    `Server: \`node --import tsx server/main.ts\` in a child process; client: sequential requests on one keep-alive socket, a member's token. PostgreSQL 15 private on a Unix socket, fsync on. Load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}.`,
  );
  const cluster = await startPrivatePostgres();
  const results: Figures[] = [];
  try {
    results.push(await measure('PostgreSQL', pgTotal, await cluster.createDatabase()));
    results.push(await measure('embedded (lowdb)', embeddedTotal, null));
  } finally {
    await cluster.stop();
  }
  say('');
  say(
    `Load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}.`,
  );
  say('');
  say(`| store | projects | server start (s) | POST /projects median (ms) | p99 (ms) | target |`);
  say('|---|---|---|---|---|---|');
  for (const r of results)
    say(
      `| ${r.store} | ${r.projects.toLocaleString('en-US')} | ${r.startS.toFixed(1)} | ${ms(median(r.posts))} | ${ms(percentile(r.posts, 99))} | ${r.store === 'PostgreSQL' ? (median(r.posts) <= 10 ? '≤ 10 ms: met' : '≤ 10 ms: not met') : '–'} |`,
    );
  say('');
  say(`| store | query (${getSamples} samples) | median (ms) | p99 (ms) | /version median (ms) | ratio of medians | target ≤ 3 |`);
  say('|---|---|---|---|---|---|---|');
  for (const r of results)
    for (const l of r.lists) {
      const ratio = median(l.list) / median(l.floor);
      say(
        `| ${r.store} (${r.projects.toLocaleString('en-US')}) | ${l.label} | ${ms(median(l.list))} | ${ms(percentile(l.list, 99))} | ${ms(median(l.floor))} | ${ratio.toFixed(2)} | ${ratio <= 3 ? 'met' : 'not met'} |`,
      );
    }
  await writeResults();
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
