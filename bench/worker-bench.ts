// Analysis scale-out: 200 uploads through one app node (analysis off on it, CRATEHOUSE_ANALYSIS_IN_APP=false)
// with 1, then 2 `cratehouse worker` processes over a private redis-server, side by side.
// Usage: tsx bench/worker-bench.ts [--uploads 200] [--seconds 10] [--threads 1] [--parallel 16] [--write]
// The uploads are synthetic tones (stereo 1 kHz, a different level each so every one is a cache miss)
// posted to /audio/v1/loudness; each run counts the tasks the workers logged as finished.
import { loadavg, availableParallelism } from 'node:os';
import { encodeWav, sine } from '../server/test-support/signals.js';
import { fileForm, startTestApp } from '../server/test-support/test-app.js';
import { startPrivateRedis } from '../server/test-support/private-redis.js';
import { startWorkerChild } from '../server/test-support/worker-child.js';
import { say, writeResults } from './bench-support.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const uploads = arg('uploads', 200);
const seconds = arg('seconds', 10);
const threads = arg('threads', 1);
const parallel = arg('parallel', 16);
/** One run: a fresh Redis and app node, `workers` worker processes, `uploads` distinct tones; returns uploads per second. */
async function run(workers: number, offsetDb: number): Promise<{ perS: number; wallS: number; finished: number[]; failed: number }> {
  const redis = await startPrivateRedis();
  const app = await startTestApp({ redis: { url: redis.url, lockS: 30, analysisInApp: false } });
  const procs = await Promise.all(
    Array.from({ length: workers }, () => startWorkerChild(app.dataDir, redis.url, { CRATEHOUSE_ANALYSIS_THREADS: String(threads) })),
  );
  // Let the workers' threads warm up (the JIT warm-up task at start) before the clock starts.
  await new Promise((r) => setTimeout(r, 3000));
  const bodies = Array.from({ length: uploads }, (_, i) => {
    const tone = sine(48_000, seconds, 1000, 10 ** (-(offsetDb + i * 0.01) / 20));
    return encodeWav([tone, tone], 48_000, 'pcm16');
  });
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < bodies.length) {
        const i = next++;
        const res = await app.fetch('/audio/v1/loudness', {
          method: 'POST',
          headers: { Authorization: 'Bearer admin-token' },
          body: fileForm(bodies[i]!, `t${i}.wav`),
        });
        if (res.status !== 200 || res.headers.get('x-cache') !== 'miss') failed++;
        await res.arrayBuffer();
      }
    }),
  );
  const wallS = (performance.now() - t0) / 1000;
  const finished = procs.map((p) => p.finished.length);
  for (const p of procs) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
  await app.close();
  await redis.stop();
  return { perS: uploads / wallS, wallS, finished, failed };
}

const loadBefore = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const started = new Date().toISOString();
const one = await run(1, 10);
const two = await run(2, 20);
const loadAfter = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const lines = [
  `## Analysis over Redis: 1 vs 2 worker processes (\`bench/worker-bench.ts\`, ${started.slice(0, 16).replace('T', ' ')} UTC)`,
  '',
  `${uploads} uploads of a ${seconds} s stereo 48 kHz 16-bit tone (a different level each: every one a cache miss) to`,
  `\`POST /audio/v1/loudness\` on one app node (analysis off on it), ${parallel} in flight; each worker ${threads} thread(s);`,
  `a private redis-server on a Unix socket. Machine: ${availableParallelism()} cores, shared with other sessions.`,
  '',
  '| workers | wall s | uploads/s | tasks finished per worker | failed answers |',
  '|---|---|---|---|---|',
  `| 1 | ${one.wallS.toFixed(1)} | ${one.perS.toFixed(2)} | ${one.finished.join(' / ')} | ${one.failed} |`,
  `| 2 | ${two.wallS.toFixed(1)} | ${two.perS.toFixed(2)} | ${two.finished.join(' / ')} | ${two.failed} |`,
  '',
  `speed-up 2 vs 1: ${(two.perS / one.perS).toFixed(2)}×; load average before: ${loadBefore}, after: ${loadAfter}`,
  '',
];
for (const line of lines) say(line);
await writeResults();
process.exit(0);
