/**
 * Library benchmark (npx tsx bench/library-bench.ts [--write]): search, filter, sort and similar
 * items at 100,000 items of one tenant, against a server in a child process, next to the framework's
 * floor (`GET /audio/v1/healthz`, measured interleaved). The items are SYNTHETIC (seeded random
 * summaries and feature vectors written straight into the library journal): this measures speed, not
 * the quality of any answer. Also: the boot (journal replay) time, and the first list after a write
 * (the changed row re-placed). Not a test: it measures.
 */
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { featureVectorLength, featureVectorVersion } from '../server/audio/library/feature-vector.js';
import { camelotOf, keyNameOf } from '../server/audio/library/camelot.js';
import { TenantLibraryIndex, type LibraryQuery } from '../server/audio/library/library-index.js';
import { openJournalLibraryRepo, type LibraryItemRecord } from '../server/audio/library/library-repo.js';
import { createSimilarityIndex } from '../server/audio/library/similarity-index.js';
import { machineHeader, median, say, startServerProcess, writeResults } from './bench-support.js';

const itemCount = 100_000;
const token = 'bench-admin';
const samples = 60;
const warmup = 10;
const roles = ['percs', 'bass', 'melodic', 'tops', 'atmos'] as const;
const tiers = ['S', 'A', 'B', 'C', 'D'] as const;
const words = ['kick', 'snare', 'hat', 'pad', 'bass', 'lead', 'chord', 'vox', 'fx', 'loop', 'dark', 'bright', 'warm', 'punchy'];

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function syntheticItem(id: number, r: () => number): LibraryItemRecord {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const pc = Math.floor(r() * 12);
  const mode = r() < 0.5 ? 'major' : 'minor';
  const hasKey = r() < 0.7;
  const name = `${pick(words)} ${pick(words)} ${id}.wav`;
  return {
    id,
    tenant: 'root',
    sha256: id.toString(16).padStart(64, '0'),
    name,
    size: 100_000 + Math.floor(r() * 1e7),
    addedAt: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(),
    status: 'ready',
    origin: 'upload',
    summary: {
      duration_s: Math.round(r() * 30_000) / 1000,
      sample_rate: 44_100,
      channels: 2,
      format: 'wav',
      role: pick(roles),
      role_confidence: Math.round(r() * 100) / 100,
      tempo_bpm: r() < 0.8 ? Math.round((70 + r() * 110) * 100) / 100 : null,
      key: hasKey ? keyNameOf(pc, mode) : null,
      camelot: hasKey ? camelotOf(pc, mode) : null,
      loudness_lufs: Math.round((-30 + r() * 24) * 10) / 10,
      true_peak_dbtp: Math.round((-6 + r() * 6) * 10) / 10,
      grade_tier: pick(tiers),
      suggested_name: `${String(id % 100).padStart(2, '0')}_${pick(roles)}_${pick(words)}`,
      thumbnail: Array.from({ length: 64 }, () => Math.round(r() * 1000) / 1000),
    },
    vector: Array.from({ length: featureVectorLength }, () => Math.round((r() * 4 - 2) * 1e4) / 1e4),
    vectorVersion: featureVectorVersion,
    tags: r() < 0.3 ? [pick(words)] : [],
    favourite: r() < 0.05,
    rating: Math.floor(r() * 6),
    tempoMultiplier: 1,
    collectionIds: [],
  };
}

function get(url: string, agent: http.Agent, method = 'GET', body?: string): Promise<{ ms: number; status: number; text: string }> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The search and the similarity index alone, in this process (no HTTP, no JSON): what the server's work costs. */
function measureInProcess(all: readonly LibraryItemRecord[]): void {
  const index = new TenantLibraryIndex(all);
  const base = { sort: 'added_at', descending: true, page: 1, perPage: 50 } as const;
  const queries: [string, LibraryQuery][] = [
    ['newest 50', base],
    ['q=kick', { ...base, q: 'kick' }],
    ['8A & bpm 120–130', { ...base, camelot: '8A', bpmMin: 120, bpmMax: 130 }],
    ['role=bass, sort -bpm', { ...base, role: 'bass', sort: 'bpm' }],
    ['tag=dark & favourite, sort name', { ...base, tag: 'dark', favourite: true, sort: 'name', descending: false }],
  ];
  const tBuild = process.hrtime.bigint();
  for (const [, q] of queries) index.search(q);
  say(`in process: rows and the used sort orders built in ${(Number(process.hrtime.bigint() - tBuild) / 1e6).toFixed(0)} ms`);
  say('');
  say('| in process (no HTTP), median of 30 | ms |');
  say('|---|---|');
  for (const [name, q] of queries) {
    const xs: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = process.hrtime.bigint();
      index.search(q);
      xs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    say(`| ${name} | ${median(xs).toFixed(2)} |`);
  }
  const writes: number[] = [];
  for (let i = 0; i < 30; i++) {
    const item = all[i * 1000]!;
    const t = process.hrtime.bigint();
    index.upsert({ ...item, rating: (item.rating + 1) % 6, summary: { ...item.summary!, tempo_bpm: 90 + i } });
    writes.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  say(`| one item changed (its row re-placed in every built sort order) | ${median(writes).toFixed(2)} |`);
  const sim = createSimilarityIndex(featureVectorLength);
  for (const item of all) sim.add(item.id, Float32Array.from(item.vector!));
  const xs: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = process.hrtime.bigint();
    sim.nearest(Float32Array.from(all[i * 97]!.vector!), 6);
    xs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  say(`| similar: brute-force nearest 5 of ${all.length} (${featureVectorLength} dimensions) | ${median(xs).toFixed(2)} |`);
  say('');
}

async function main(): Promise<void> {
  say(machineHeader('Library at 100,000 items (bench/library-bench.ts; synthetic summaries, speed only)'));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-library-bench-'));
  const t0 = Date.now();
  const repo = await openJournalLibraryRepo(path.join(dataDir, 'library'));
  const r = random(42);
  const all: LibraryItemRecord[] = [];
  for (let done = 0; done < itemCount; done += 1000) {
    const batch = Array.from({ length: Math.min(1000, itemCount - done) }, () => syntheticItem(repo.nextId(), r));
    all.push(...batch);
    await repo.putItems(batch);
  }
  await repo.close();
  say(`seeded ${itemCount} items into the journal in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  measureInProcess(all);

  const tBoot = Date.now();
  const server = await startServerProcess(['--import', 'tsx', ...serverNodeFlags, 'server/main.ts'], {
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: dataDir,
    CRATEHOUSE_ADMIN_TOKEN: token,
    CRATEHOUSE_LOG_LEVEL: 'error',
  });
  say(`server listening ${((Date.now() - tBoot) / 1000).toFixed(1)} s after start (tsx, warm-up and journal replay of ${itemCount} items)`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const base = `${server.url}/audio/v1`;
  try {
    const first = await get(`${base}/library/items?per_page=1`, agent);
    const total = (JSON.parse(first.text) as { total: number }).total;
    if (total !== itemCount) throw new Error(`expected ${itemCount} items, the server lists ${total}`);
    say(`first list (index and the default order built): ${first.ms.toFixed(1)} ms`);
    const cases: [string, string][] = [
      ['floor: GET /healthz', '/healthz'],
      ['newest 50 (default sort)', '/library/items'],
      ['q=kick (text)', '/library/items?q=kick'],
      ['key=Am & bpm 120–130', '/library/items?key=Am&bpm_min=120&bpm_max=130'],
      ['camelot=8A & bpm 60–65 & bpm_related', '/library/items?camelot=8A&bpm_min=60&bpm_max=65&bpm_related=true'],
      ['role=bass, sort -bpm', '/library/items?role=bass&sort=-bpm'],
      ['lufs −14…−8 & tier A & duration ≤ 2 s', '/library/items?lufs_min=-14&lufs_max=-8&tier=A&duration_max=2'],
      ['tag=dark & favourite, sort name', '/library/items?tag=dark&favourite=true&sort=name'],
      ['sort=key, page 1000 of 50', '/library/items?sort=key&page=1000'],
      ['similar items, limit 5', '/library/items/777/similar?limit=5'],
      ['similar items, limit 50', '/library/items/777/similar?limit=50'],
    ];
    // Every sort order built once before timing (the first use of each builds it).
    for (const [, route] of cases) await get(base + route, agent);
    const times = new Map<string, number[]>(cases.map(([n]) => [n, []]));
    for (let i = 0; i < warmup + samples; i++) {
      for (const [name, route] of cases) {
        const a = await get(base + route, agent);
        if (a.status !== 200) throw new Error(`${route}: ${a.status} ${a.text.slice(0, 200)}`);
        if (i >= warmup) times.get(name)!.push(a.ms);
      }
    }
    const floor = median(times.get('floor: GET /healthz')!);
    say('');
    say(`| request (${samples} samples each, interleaved, keep-alive) | median ms | p95 ms | × floor | matches |`);
    say('|---|---|---|---|---|');
    for (const [name, route] of cases) {
      const xs = [...times.get(name)!].sort((a, b) => a - b);
      const m = median(xs);
      const p95 = xs[Math.floor(xs.length * 0.95)]!;
      const body =
        route.startsWith('/library/items?') || route === '/library/items'
          ? (JSON.parse((await get(base + route, agent)).text) as { total: number }).total
          : '';
      say(`| ${name} | ${m.toFixed(2)} | ${p95.toFixed(2)} | ${(m / floor).toFixed(1)} | ${body} |`);
    }
    // After a write the tenant's index is rebuilt on the next list.
    const after: number[] = [];
    for (let i = 0; i < 10; i++) {
      await get(`${base}/library/items/${100 + i}`, agent, 'PATCH', JSON.stringify({ rating: i % 6 }));
      after.push((await get(`${base}/library/items?key=Am&bpm_min=120&bpm_max=130`, agent)).ms);
    }
    say('');
    say(`first filtered list after a write (the changed row re-placed in each built order): median ${median(after).toFixed(1)} ms over 10`);
    say(
      `load average during the run: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    agent.destroy();
    await server.stop();
  }
  await writeResults();
}

await main();
