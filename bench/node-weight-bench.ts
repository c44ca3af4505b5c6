/**
 * How heavy an idle node is, and how responsive it stays under uploads (issue 23, "Lighter nodes"):
 * two builds side by side, each started in one run as `node <this checkout's serverNodeFlags> main.js`:
 * "before" is `--before <checkout>`'s dist/server/main.js, "after" this checkout's, with extra
 * environment for the after side only (`--low-memory`: glibc malloc thresholds pinned; or
 * `--after-env K=V,K=V`). For each: RSS 3 s after the analysis threads report warm; the wall time of
 * the first `/analyze` of a 3-minute WAV and the median of the next five (copies differing in the last
 * sample, so no cache hit); RSS right after those six and again after 13 s idle; then, in each of
 * `--bursts` (5) bursts of 200 4-second clips POSTed to `/analyze` at once, `/healthz` probed every
 * 20 ms from a child process (p50, p99, max over all bursts) and the uploads' wall time (median). Needs `npm run build:server` in both trees. `--write` appends to
 * RESULTS.md.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { serverNodeFlags } from '../server/config/node-flags.js';
import { machineHeader, median, percentile, root, rssOf, say, startServerProcess, writeResults } from './bench-support.js';
import { writeSynthTrack } from './synth-track.js';

const token = 'bench-token';
/**
 * glibc's thresholds pinned at its defaults (`--low-memory`): glibc otherwise raises its mmap threshold
 * to the largest block freed (up to 32 MB) and its trim threshold to twice that, so the analysis
 * threads' arenas keep freed sample buffers (docs/performance.md, "Idle memory").
 */
const lowMemoryMallocEnv: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' };
const idleAt = process.argv.indexOf('--idle-s');
/** Seconds idle after the six before RSS is read again (`--idle-s`; 70 sees a cold pool's threads exit after their minute). */
const idleS = idleAt > 0 ? Number(process.argv[idleAt + 1]) : 13;
const uploads = 200;
const burstsAt = process.argv.indexOf('--bursts');
/** Bursts of uploads per side (`--bursts`, default 5): the p99 pools every burst's probes (one burst gives ~250, so its p99 is its third-worst). */
const bursts = burstsAt > 0 ? Number(process.argv[burstsAt + 1]) : 5;
const uploadSeconds = 4;

/** Resident memory of a process, in MiB. */
const rssMib = (pid: number) => rssOf(pid) / 2 ** 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POST a file to an audio route; the wall time in ms. */
async function upload(url: string, route: string, bytes: Buffer, name: string): Promise<number> {
  const form = new FormData();
  form.set('file', new Blob([bytes], { type: 'audio/wav' }), name);
  const t = performance.now();
  const res = await fetch(`${url}/audio/v1${route}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${route}: ${res.status}`);
  return performance.now() - t;
}

/**
 * The `/healthz` prober runs in a process of its own: in this one, preparing and sending the 200
 * uploads keeps the event loop busy, and the probe would time the client's delays with the server's.
 * It prints one latency (ms) per line until its stdin closes.
 */
const proberScript = `
const url = process.argv[1];
let done = false;
process.stdin.on('end', () => (done = true)).resume();
(async () => {
  while (!done) {
    const t = performance.now();
    await (await fetch(url)).arrayBuffer();
    process.stdout.write((performance.now() - t).toFixed(3) + '\\n');
    await new Promise((r) => setTimeout(r, 20));
  }
})();
`;

/** Start probing `url` every 20 ms from a child process; `stop` resolves to the latencies (ms). */
function startProber(url: string): { stop(): Promise<number[]> } {
  const child = spawn(process.execPath, ['-e', proberScript, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      child.stdin.end();
      await exited;
      return out.split('\n').filter(Boolean).map(Number);
    },
  };
}

interface Side {
  readonly label: string;
  readonly idleMib: number;
  readonly firstMs: number;
  readonly nextMs: number;
  readonly busyMib: number;
  readonly releasedMib: number;
  readonly probes: readonly number[];
  readonly uploadsS: number;
}

async function measure(
  label: string,
  serverJs: string,
  env: Readonly<Record<string, string>>,
  track: Buffer,
  clips: readonly Buffer[],
): Promise<Side> {
  const data = await mkdtemp(path.join(tmpdir(), 'node-weight-'));
  const server = await startServerProcess([...serverNodeFlags, serverJs], {
    ...env,
    CRATEHOUSE_PORT: '0',
    CRATEHOUSE_HOST: '127.0.0.1',
    CRATEHOUSE_DATA_DIR: data,
    CRATEHOUSE_ADMIN_TOKEN: token,
    CRATEHOUSE_LOG_LEVEL: 'error',
    CRATEHOUSE_AUTH_FAIL_LIMIT: '0',
  });
  try {
    for (;;) {
      const health = (await (await fetch(`${server.url}/audio/v1/healthz`)).json()) as { analysis?: { warm?: boolean } };
      if (health.analysis?.warm) break;
      await sleep(200);
    }
    await sleep(3000);
    const idleMib = rssMib(server.pid);
    const firstMs = await upload(server.url, '/analyze', track, 'track.wav');
    const next: number[] = [];
    // A new name each time: same bytes would be a cache hit.
    for (let i = 0; i < 5; i++) {
      const copy = Buffer.from(track);
      copy.writeInt16LE(i + 1, copy.length - 2);
      next.push(await upload(server.url, '/analyze', copy, `track-${i}.wav`));
    }
    const busyMib = rssMib(server.pid);
    await sleep(idleS * 1000);
    const releasedMib = rssMib(server.pid);

    const probes: number[] = [];
    const walls: number[] = [];
    for (let burst = 0; burst < bursts; burst++) {
      // Each burst's clips differ from the last burst's (another sample changed): no cache hits.
      const fresh = clips.map((clip) => {
        const copy = Buffer.from(clip);
        copy.writeInt16LE(burst + 1, copy.length - 4);
        return copy;
      });
      const prober = startProber(`${server.url}/audio/v1/healthz`);
      const t = performance.now();
      await Promise.all(fresh.map((clip, i) => upload(server.url, '/analyze', clip, `clip-${i}.wav`)));
      walls.push((performance.now() - t) / 1000);
      probes.push(...(await prober.stop()));
      await sleep(1500);
    }
    return { label, idleMib, firstMs, nextMs: median(next), busyMib, releasedMib, probes, uploadsS: median(walls) };
  } finally {
    await server.stop();
    await rm(data, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--before');
  if (at < 0 || !process.argv[at + 1]) throw new Error('usage: node-weight-bench.ts --before <checkout with dist/server built> [--write]');
  const beforeJs = path.resolve(process.argv[at + 1]!, 'dist/server/main.js');
  const afterJs = path.join(root, 'dist/server/main.js');
  // `--after-env K=V,K=V`: environment for the after side only (`--low-memory`: lowMemoryMallocEnv).
  const envAt = process.argv.indexOf('--after-env');
  const afterEnv: Readonly<Record<string, string>> = process.argv.includes('--low-memory')
    ? lowMemoryMallocEnv
    : envAt < 0
      ? {}
      : Object.fromEntries((process.argv[envAt + 1] ?? '').split(',').map((kv) => kv.split('=') as [string, string]));
  const work = await mkdtemp(path.join(tmpdir(), 'node-weight-audio-'));
  const track = await readFile((await writeSynthTrack(path.join(work, 'track.wav'), 180)).file);
  const clip = await readFile((await writeSynthTrack(path.join(work, 'clip.wav'), uploadSeconds)).file);
  // Every clip different in its last sample, so none is a cache hit.
  const clips = Array.from({ length: uploads }, (_, i) => {
    const copy = Buffer.from(clip);
    copy.writeInt16LE(i + 1, copy.length - 2);
    return copy;
  });
  await rm(work, { recursive: true, force: true });

  say(machineHeader('Node weight: idle RSS, first-call speed, /healthz under 200 uploads'));
  say(
    `Load average at start ${loadavg()[0]!.toFixed(2)}. Before: \`node ${serverNodeFlags.join(' ')} ${path.relative(root, beforeJs)}\` . After: the same flags with ${Object.entries(
      afterEnv,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')} (this npm start).`,
  );
  say('');
  const sides = [await measure('before', beforeJs, {}, track, clips), await measure('after', afterJs, afterEnv, track, clips)];
  const [b, a] = sides as [Side, Side];
  const row = (name: string, f: (s: Side) => number, unit: string, digits = 1) =>
    say(`| ${name} | ${f(b).toFixed(digits)} ${unit} | ${f(a).toFixed(digits)} ${unit} | ${(f(a) / f(b)).toFixed(2)}× |`);
  say('| measure | before | after | after / before |');
  say('|---|---|---|---|');
  row('RSS, idle after the warm-up', (s) => s.idleMib, 'MiB');
  row('first /analyze of a 3-minute WAV', (s) => s.firstMs, 'ms', 0);
  row('median of the next five', (s) => s.nextMs, 'ms', 0);
  row('RSS right after those six', (s) => s.busyMib, 'MiB');
  row(`RSS ${idleS} s later (idle)`, (s) => s.releasedMib, 'MiB');
  row(`/healthz p50 during ${bursts} bursts of ${uploads} concurrent ${uploadSeconds} s uploads`, (s) => percentile(s.probes, 50), 'ms');
  row('/healthz p99', (s) => percentile(s.probes, 99), 'ms');
  row('/healthz max', (s) => Math.max(...s.probes), 'ms');
  row(`the ${uploads} uploads, wall (median of the bursts)`, (s) => s.uploadsS, 's');
  say('');
  say(`Probes: ${b.probes.length} before, ${a.probes.length} after. Load average at the end ${loadavg()[0]!.toFixed(2)}.`);
  await writeResults();
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
