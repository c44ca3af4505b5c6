/**
 * Hosting benchmark (npm run bench:hosting): issue 6's targets against a server in a child process
 * holding 10,000 projects. A filtered one-page `GET /api/v4/projects` against the framework's floor
 * (`GET /api/v4/version`, same token, measured interleaved), the same lists right after a write (the
 * server's list caches just dropped), and `POST /api/v4/projects` at 1,000
 * and 10,000 projects with the bytes the store writes per create. Not a test: it measures.
 * `--profile` runs the server with `--cpu-prof` and keeps the profile; `--server-js <main.js>` runs a
 * compiled server instead of tsx (profiles then have real line numbers); `--write` appends to RESULTS.md.
 * `--data <dir>` keeps the seeded data dir there: a later run with the same dir skips seeding and the
 * creates (seeding takes minutes) and measures the lists only, for iterating on the list path.
 * `--creates-only` stops after the creates at 1,000 projects, for alternating A/B rounds of the create path.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { Client, machineHeader, median, percentile, root, say, startServerProcess, writeResults, type Answer } from './bench-support.js';

const adminToken = 'bench-admin';
const searchTerm = 'synthwave';
/** Concurrent requests while seeding: the store group-commits concurrent writes into one. */
const seedConcurrency = 16;
const getSamples = 300;
const getWarmup = 50;
const postSamples = 100;
const postWarmup = 10;
/** Issue 6: a filtered one-page list costs at most 3× the framework's floor. */
const maxListRatio = 3;

/** A running server child and what we read from /proc about it. */
interface ServerChild {
  readonly url: string;
  readonly pid: number;
  readonly dataDir: string;
  stop(): Promise<void>;
}

/** Start the server in its own process (tsx on server/main.ts unless a compiled main.js is given), so client and server do not share an event loop. */
async function startServerChild(dataDir: string, nodeArgs: readonly string[], serverJs: string | null): Promise<ServerChild> {
  // node directly (not npx): the pid is the server's own, for /proc/<pid>/io.
  const entry =
    serverJs === null
      ? ['--import', 'tsx', ...serverNodeFlags, ...nodeArgs, 'server/main.ts']
      : [...serverNodeFlags, ...nodeArgs, serverJs];
  const server = await startServerProcess(entry, {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: dataDir,
    CRATEHOUSE_ADMIN_TOKEN: adminToken,
    CRATEHOUSE_LOG_LEVEL: 'error',
  });
  return { url: server.url, pid: server.pid, dataDir, stop: () => server.stop() };
}

/** Run `task(i)` for i in [from, to) with at most `limit` in flight. */
async function pool(from: number, to: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, to - from) }, worker));
}

type Visibility = 'private' | 'internal' | 'public';
const visibilityRank: readonly Visibility[] = ['private', 'internal', 'public'];

/** A namespace projects are created in, with the most open visibility it allows. */
interface Namespace {
  readonly id: number;
  readonly maxVisibility: Visibility;
}

/** Who owns what after seeding. */
interface Seeded {
  readonly namespaces: readonly Namespace[];
  readonly userCount: number;
  readonly groupCount: number;
  /** A non-admin user who belongs to some groups, and their token. */
  readonly member: { readonly id: number; readonly token: string; readonly groups: number };
}

/**
 * Users and groups through the API: 200 users (personal namespaces), 40 top-level groups of mixed
 * visibility and 10 subgroups, and one non-admin member of 12 groups whose token we measure with.
 */
async function seedOwners(admin: Client): Promise<Seeded> {
  const namespaces: Namespace[] = [];
  const userIds: number[] = [];
  await pool(0, 200, seedConcurrency, async (i) => {
    const a = await admin.ok('POST', '/users', {
      username: `user${i}`,
      name: `User ${i}`,
      email: `user${i}@bench.local`,
      force_random_password: true,
    });
    const u = a.body as { id: number; namespace_id: number };
    userIds[i] = u.id;
    namespaces.push({ id: u.namespace_id, maxVisibility: 'public' });
  });
  const groupIds: number[] = [];
  const groupVisibility: Visibility[] = [];
  await pool(0, 40, seedConcurrency, async (i) => {
    const visibility = visibilityRank[i % 3]!;
    const g = (await admin.ok('POST', '/groups', { name: `Label ${i}`, path: `label-${i}`, visibility })).body as { id: number };
    groupIds[i] = g.id;
    groupVisibility[i] = visibility;
    namespaces.push({ id: g.id, maxVisibility: visibility });
  });
  await pool(0, 10, seedConcurrency, async (i) => {
    const parent = i * 4;
    const visibility = groupVisibility[parent]!;
    const g = (await admin.ok('POST', '/groups', { name: `Sub ${i}`, path: `sub-${i}`, visibility, parent_id: groupIds[parent] })).body as {
      id: number;
    };
    namespaces.push({ id: g.id, maxVisibility: visibility });
  });
  const memberId = userIds[0]!;
  const memberGroups = groupIds.filter((_, i) => i % 3 === 0 || i === 1).slice(0, 12);
  for (const [k, groupId] of memberGroups.entries())
    await admin.ok('POST', `/groups/${groupId}/members`, { user_id: memberId, access_level: k % 2 === 0 ? 30 : 20 });
  const token = (await admin.ok('POST', `/users/${memberId}/personal_access_tokens`, { name: 'bench', scopes: ['api'] })).body as {
    token: string;
  };
  // Sort so project i's namespace does not depend on the order requests happened to finish in.
  namespaces.sort((a, b) => a.id - b.id);
  return { namespaces, userCount: 200, groupCount: 50, member: { id: memberId, token: token.token, groups: memberGroups.length } };
}

const words = [
  'Midnight',
  'Analog',
  'Dusty',
  'Velvet',
  'Neon',
  'Hollow',
  'Golden',
  'Broken',
  'Static',
  'Lunar',
  'Tape',
  'Garden',
  'Echo',
  'Drift',
  'Cassette',
  'Harbor',
];

/** Project i's attributes: names varied, every 20th carries the search term, visibilities mixed within what the namespace allows. */
function projectInput(i: number, ns: Namespace): Record<string, unknown> {
  const w = (k: number) => words[(i * 7 + k * 13) % words.length]!;
  const name = i % 20 === 0 ? `${w(0)} ${searchTerm} ${i}` : `${w(0)} ${w(1)} ${i}`;
  const wanted = visibilityRank[i % 3]!;
  const visibility = visibilityRank.indexOf(wanted) <= visibilityRank.indexOf(ns.maxVisibility) ? wanted : ns.maxVisibility;
  return { name, namespace_id: ns.id, visibility, description: i % 5 === 0 ? `Stems and bounces for track ${i}` : undefined };
}

/** Create projects [from, to) as the admin, spread over every namespace, `seedConcurrency` at a time. */
async function seedProjects(admin: Client, seeded: Seeded, from: number, to: number): Promise<number> {
  const t0 = performance.now();
  await pool(from, to, seedConcurrency, async (i) => {
    await admin.ok('POST', '/projects', projectInput(i, seeded.namespaces[i % seeded.namespaces.length]!));
  });
  return (performance.now() - t0) / 1000;
}

/** The server process's write counters: bytes passed to write(2) (files and sockets) and bytes sent to storage. */
async function processIo(pid: number): Promise<{ wchar: number; writeBytes: number }> {
  const text = await readFile(`/proc/${pid}/io`, 'utf8');
  return { wchar: Number(/wchar: (\d+)/.exec(text)?.[1] ?? 0), writeBytes: Number(/write_bytes: (\d+)/.exec(text)?.[1] ?? 0) };
}

/** Bytes under a directory (du -sb). */
function dirBytes(dir: string): number {
  return Number(execFileSync('du', ['-sb', dir]).toString().split('\t')[0]);
}

/** The count of projects the admin sees (X-Total of a one-item page). */
async function projectCount(admin: Client): Promise<number> {
  return Number((await admin.ok('GET', '/projects?per_page=1&simple=true')).headers['x-total']);
}

/** One list query compared with /version, the two requests interleaved so both see the same background. */
interface ListRow {
  readonly label: string;
  readonly caller: string;
  readonly list: readonly number[];
  readonly floor: readonly number[];
  readonly items: number;
  /** Size of the list's JSON body (the /version body is ~60 bytes). */
  readonly bytes: number;
}

/** Warm up, then time `getSamples` pairs of (/version, query) sequentially on one keep-alive socket. */
async function measureList(client: Client, callerName: string, label: string, route: string): Promise<ListRow> {
  for (let i = 0; i < getWarmup; i++) {
    await client.ok('GET', '/version');
    await client.ok('GET', route);
  }
  const list: number[] = [];
  const floor: number[] = [];
  let last: Answer | null = null;
  for (let i = 0; i < getSamples; i++) {
    floor.push((await client.ok('GET', '/version')).ms);
    last = await client.ok('GET', route);
    list.push(last.ms);
  }
  return { label, caller: callerName, list, floor, items: (last?.body as unknown[] | undefined)?.length ?? 0, bytes: last?.bytes ?? 0 };
}

/** Creates timed at one store size, with what the store wrote. */
interface PostRow {
  readonly before: number;
  readonly times: readonly number[];
  readonly dbBytes: number;
  readonly wcharPerCreate: number;
  readonly writeBytesPerCreate: number;
  readonly repoBytesPerCreate: number;
}

/** Warm up, then time `postSamples` sequential creates by the member in their own namespace. */
async function measureCreates(server: ServerChild, member: Client, existing: number, tag: string): Promise<PostRow> {
  for (let i = 0; i < postWarmup; i++)
    await member.ok('POST', '/projects', { name: `Warmup ${tag} ${i}`, visibility: visibilityRank[i % 3] });
  const repos = path.join(server.dataDir, 'repositories');
  const [io0, repo0] = [await processIo(server.pid), dirBytes(repos)];
  const times: number[] = [];
  for (let i = 0; i < postSamples; i++)
    times.push(
      (
        await member.ok('POST', '/projects', {
          name: `Bounce ${tag} ${i}`,
          visibility: visibilityRank[i % 3],
          description: 'benchmark create',
        })
      ).ms,
    );
  const [io1, repo1] = [await processIo(server.pid), dirBytes(repos)];
  const dbBytes = (await stat(path.join(server.dataDir, 'db.json'))).size;
  return {
    before: existing + postWarmup,
    times,
    dbBytes,
    wcharPerCreate: (io1.wchar - io0.wchar) / postSamples,
    writeBytesPerCreate: (io1.writeBytes - io0.writeBytes) / postSamples,
    repoBytesPerCreate: (repo1 - repo0) / postSamples,
  };
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const count = (n: number) => n.toLocaleString('en-US');

/** The commit the server ran from, and whether server/ had uncommitted edits (others work here too). */
function sourceState(): string {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'server'], { cwd: root }).toString().trim() !== '';
  return dirty ? `${head} + uncommitted changes under server/` : head;
}

/** One list query timed right after a write, when the server's caches of list items and counts have just been dropped. */
interface AfterWriteRow {
  readonly label: string;
  readonly caller: string;
  readonly list: readonly number[];
  /** /version right after the same kind of write: what a write costs the next request anyway (collecting the garbage of a db.json rewrite). */
  readonly floor: readonly number[];
}

/**
 * The lists' cold case: each sample follows a write (the admin stars or unstars project 1, an even
 * number of times so the data ends as it began), which drops the server's cached list JSON. Samples
 * alternate between the list and /version, so both follow a write.
 */
async function measureListsAfterWrites(admin: Client, member: Client, adminOne: Client): Promise<AfterWriteRow[]> {
  const rows: AfterWriteRow[] = [];
  for (const [caller, client] of [
    ['member', member],
    ['admin', adminOne],
  ] as const) {
    for (const [label, route] of listQueries) {
      const list: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < afterWriteSamples; i++) {
        await admin.ok('POST', `/projects/1/${i % 2 === 0 ? 'star' : 'unstar'}`);
        if (i % 4 < 2) list.push((await client.ok('GET', route)).ms);
        else floor.push((await client.ok('GET', '/version')).ms);
      }
      rows.push({ label, caller, list, floor });
    }
  }
  return rows;
}

function printAfterWriteTable(rows: readonly AfterWriteRow[]): void {
  say(
    `The same lists right after a write: before each request the admin stars or unstars a project, which drops the server's cached list JSON, so the page is presented afresh; ` +
      `${afterWriteSamples} samples per query, alternating between the list and \`/version\` (so both follow a write). No target; for reading the table above.`,
  );
  say('');
  say('| query | caller | median after a write (ms) | p90 (ms) | /version after a write, median (ms) | ratio of medians |');
  say('|---|---|---|---|---|---|');
  for (const r of rows)
    say(
      `| \`${r.label}\` | ${r.caller} | ${ms(median(r.list))} | ${ms(percentile(r.list, 90))} | ${ms(median(r.floor))} | ${(median(r.list) / median(r.floor)).toFixed(2)}× |`,
    );
}

function printListTable(rows: readonly ListRow[], projects: number): void {
  say(
    `| query (${count(projects)} projects) | caller | items (body) | median (ms) | p99 (ms) | /version median (ms) | /version p99 (ms) | ratio of medians | target |`,
  );
  say('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const ratio = median(r.list) / median(r.floor);
    const status = ratio <= maxListRatio ? 'met' : '**not met**';
    say(
      `| \`${r.label}\` | ${r.caller} | ${r.items} (${kb(r.bytes)}) | ${ms(median(r.list))} | ${ms(percentile(r.list, 99))} | ${ms(median(r.floor))} | ${ms(percentile(r.floor, 99))} | ${ratio.toFixed(2)}× | ≤ ${maxListRatio}× ${status} |`,
    );
  }
}

function printPostTable(rows: readonly PostRow[]): void {
  say(
    '| existing projects | creates | median (ms) | p99 (ms) | db.json after (bytes) | server write(2) per create | storage writes per create | repository per create |',
  );
  say('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    say(
      `| ${count(r.before)}–${count(r.before + postSamples)} | ${r.times.length} | ${ms(median(r.times))} | ${ms(percentile(r.times, 99))} | ${count(r.dbBytes)} (${kb(r.dbBytes)}) | ${kb(r.wcharPerCreate)} | ${kb(r.writeBytesPerCreate)} | ${count(Math.round(r.repoBytesPerCreate))} B |`,
    );
  }
}

/** What a kept data dir remembers of its seeding, so a later run can measure without re-seeding. */
const seededFile = 'bench-seeded.json';

async function readSeeded(dataDir: string): Promise<Seeded | null> {
  const text = await readFile(path.join(dataDir, seededFile), 'utf8').catch(() => null);
  return text === null ? null : (JSON.parse(text) as Seeded);
}

const listQueries: readonly [string, string][] = [
  ['GET /projects?visibility=public&per_page=20', '/projects?visibility=public&per_page=20'],
  [`GET /projects?search=${searchTerm}&per_page=20`, `/projects?search=${searchTerm}&per_page=20`],
  ['GET /projects (default list)', '/projects'],
];
/** Samples per query right after a write (each write rewrites db.json: tens of ms), half of them of /version. */
const afterWriteSamples = 40;

/** Time every list query as the member and as the admin. */
async function measureLists(member: Client, adminOne: Client): Promise<ListRow[]> {
  const queries = listQueries;
  const rows: ListRow[] = [];
  for (const [label, route] of queries) rows.push(await measureList(member, 'member', label, route));
  for (const [label, route] of queries) rows.push(await measureList(adminOne, 'admin', label, route));
  return rows;
}

async function main(): Promise<void> {
  const profile = process.argv.includes('--profile');
  const createsOnly = process.argv.includes('--creates-only');
  const dataAt = process.argv.indexOf('--data');
  const keptData = dataAt < 0 ? null : path.resolve(process.argv[dataAt + 1] ?? 'bench-data');
  const serverJsAt = process.argv.indexOf('--server-js');
  const serverJs = serverJsAt < 0 ? null : path.resolve(process.argv[serverJsAt + 1] ?? 'dist/server/main.js');
  const work = await mkdtemp(path.join(tmpdir(), 'cratehouse-hosting-bench-'));
  const profDir = path.join(work, 'cpu-prof');
  const dataDir = keptData ?? path.join(work, 'data');
  if (keptData) await mkdir(keptData, { recursive: true });
  const reused = keptData ? await readSeeded(keptData) : null;
  say(machineHeader('Hosting benchmark'));
  const command = serverJs === null ? 'node --import tsx server/main.ts' : `node ${path.relative(root, serverJs)}`;
  // The machine may be shared: the load at the start says how much the figures can be trusted.
  say(
    `Server: \`${command}\` in a child process, source at ${sourceState()}${profile ? ', with --cpu-prof' : ''}; client: sequential requests on one keep-alive socket (node:http), \`PRIVATE-TOKEN\` header. Load average at start ${loadavg()[0]!.toFixed(2)}.`,
  );
  say('');

  const server = await startServerChild(dataDir, profile ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [], serverJs);
  const admin = new Client(server.url, adminToken, seedConcurrency);
  try {
    if (reused) {
      const total = await projectCount(admin);
      const member = new Client(server.url, reused.member.token);
      const adminOne = new Client(server.url, adminToken);
      say(
        `Reused the data dir ${dataDir} (${count(total)} projects, seeded by an earlier run; no creates measured). "member" is a non-admin user in ${reused.member.groups} groups; "admin" is root.`,
      );
      say('');
      printListTable(await measureLists(member, adminOne), total);
      say('');
      printAfterWriteTable(await measureListsAfterWrites(admin, member, adminOne));
      member.close();
      adminOne.close();
    } else await seedAndMeasure(server, admin, keptData, createsOnly);
  } finally {
    admin.close();
    await server.stop();
  }
  if (profile) say(`\nCPU profile of the server: ${profDir}`);
  else await rm(work, { recursive: true, force: true });
  if (keptData) say(`\nData dir kept at ${keptData}`);
  await writeResults();
}

/** Seed 10,000 projects (timing creates at 1,000 and, unless the data dir is kept, at 10,000) and time the lists; `createsOnly` stops after the creates at 1,000. */
async function seedAndMeasure(server: ServerChild, admin: Client, keptData: string | null, createsOnly: boolean): Promise<void> {
  const t0 = performance.now();
  const seeded = await seedOwners(admin);
  const ownersS = (performance.now() - t0) / 1000;
  const member = new Client(server.url, seeded.member.token);
  const adminOne = new Client(server.url, adminToken);

  const seed1k = await seedProjects(admin, seeded, 0, 1000);
  const post1k = await measureCreates(server, member, 1000, '1k');
  if (createsOnly) {
    // For A/B rounds of the create path: the 1,000-project point only, a few minutes per side.
    printPostTable([post1k]);
    member.close();
    adminOne.close();
    return;
  }
  const extra = postWarmup + postSamples;
  const seed10k = await seedProjects(admin, seeded, 1000, 10_000 - extra);
  const total = await projectCount(admin);
  if (total !== 10_000) throw new Error(`expected 10,000 projects after seeding, found ${total}`);

  const rows = await measureLists(member, adminOne);
  const afterWrites = await measureListsAfterWrites(admin, member, adminOne);
  // A kept data dir stays at 10,000 projects so later runs measure the same lists.
  const post10k = keptData ? null : await measureCreates(server, member, total, '10k');
  if (keptData) await writeFile(path.join(keptData, seededFile), JSON.stringify(seeded));

  say(
    `Seeded through the API: ${seeded.userCount} users and ${seeded.groupCount} groups (40 top-level, public/internal/private in turn, 10 subgroups) in ${ownersS.toFixed(1)} s; ` +
      `then projects as the admin (\`POST /projects\` with \`namespace_id\`, ${seedConcurrency} requests in flight so the store group-commits them) spread over all ${seeded.namespaces.length} namespaces, ` +
      `visibility public/internal/private in turn (capped by the group's), every 20th name containing "${searchTerm}": 1,000 in ${seed1k.toFixed(1)} s, the rest to ${count(total)} in ${seed10k.toFixed(1)} s ` +
      `(the ${extra} creates measured at 1,000 included). "member" is a non-admin user in ${seeded.member.groups} groups; "admin" is root.`,
  );
  say('');
  say(
    `${getSamples} samples per query after ${getWarmup} warm-up pairs; each list request follows a \`GET /api/v4/version\` on the same socket and token, so both see the same background (the usage meter's write every 5 s).`,
  );
  say('');
  printListTable(rows, total);
  say('');
  printAfterWriteTable(afterWrites);
  say('');
  say(
    `\`POST /api/v4/projects\` by the member in their own namespace, ${postSamples} sequential creates after ${postWarmup} warm-up ones (each: \`git init --bare\` plus one durable rewrite of db.json). Writes are the server process's /proc counters over the ${postSamples} creates: write(2) bytes (files and sockets) and bytes sent to storage; the repository column is the growth of repositories/ (git children).`,
  );
  say('');
  printPostTable(post10k ? [post1k, post10k] : [post1k]);
  member.close();
  adminOne.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
