// Analysis scale-out: 200 uploads spread over two app nodes (analysis off in both,
// CRATEHOUSE_ANALYSIS_IN_APP=false) on one private PostgreSQL, one private redis-server and one data
// dir, with 1 worker, then 2 workers, then 2 workers of which one is SIGKILLed once a third of the
// uploads are answered; each run checks that every upload was answered once, with its own tone's
// loudness, and that the workers' logs account for every task.
// Usage: tsx bench/worker-bench.ts [--uploads 200] [--seconds 10] [--threads 1] [--parallel 16] [--nodes 2] [--lock 10] [--write]
// The uploads are synthetic tones (stereo 1 kHz at −10.0, −10.1 … dBFS: each a cache miss, and EBU Tech
// 3341 gives each one's loudness, −level LUFS, independently of our meter) posted to /audio/v1/loudness.
import { loadavg, availableParallelism } from 'node:os';
import {
  isRightAnswer,
  lufsTolerance,
  startAnalysisCluster,
  tallyTasks,
  uploadTones,
  type TaskTally,
} from '../server/test-support/analysis-cluster.js';
import { startPrivatePostgres } from '../server/test-support/private-postgres.js';
import { startPrivateRedis } from '../server/test-support/private-redis.js';
import { say, writeResults } from './bench-support.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const uploads = arg('uploads', 200);
const seconds = arg('seconds', 10);
const threads = arg('threads', 1);
const parallel = arg('parallel', 16);
const nodeCount = arg('nodes', 2);
const lockS = arg('lock', 10);

/** One run's figures and its exactly-once check. */
interface RunResult {
  readonly label: string;
  readonly wallS: number;
  readonly perS: number;
  /** Answers that were not 200, a cache miss and the tone's own loudness. */
  readonly failed: number;
  readonly tally: TaskTally;
  /** Whether every upload was answered right and the finished tasks add up (see checkOnce). */
  readonly once: boolean;
  readonly note: string;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * One run on a fresh database, Redis and data dir: `workers` worker processes; with `killOne`, the first
 * worker is SIGKILLed when a third of the uploads are answered.
 */
async function run(label: string, workers: number, killOne: boolean): Promise<RunResult> {
  const [redis, postgres] = await Promise.all([startPrivateRedis(), startPrivatePostgres()]);
  const cluster = await startAnalysisCluster({
    databaseUrl: await postgres.createDatabase(),
    redisUrl: redis.url,
    nodes: nodeCount,
    workers,
    lockS,
    threads,
  });
  // Let the workers' threads finish their start-up warm-up before the clock starts.
  await new Promise((r) => setTimeout(r, 3000));
  // 10.0, 10.1 … dBFS: levels 0.1 dB apart, so an answer within lufsTolerance names its own tone.
  const levels = Array.from({ length: uploads }, (_, i) => 10 + i / 10);
  const doomed = cluster.workers[0]!;
  // An object: the assignment happens in a callback, which TypeScript's narrowing of a `let` does not see.
  const kill: { at: number | null } = { at: null };
  const t0 = performance.now();
  const answers = await uploadTones(cluster.nodes, levels, {
    seconds,
    parallel,
    onAnswer: (answered) => {
      if (killOne && kill.at === null && answered >= Math.round(uploads / 3)) {
        kill.at = answered;
        doomed.child.kill('SIGKILL');
      }
    },
  });
  const wallS = (performance.now() - t0) / 1000;
  if (killOne) await doomed.exited;
  const tally = tallyTasks(cluster.workers);
  await cluster.stop();
  await Promise.all([redis.stop(), postgres.stop()]);
  const failed = answers.filter((a) => !isRightAnswer(a)).length;
  const perNode = cluster.nodes.map((_, n) => answers.filter((a) => a.node === n).length).join(' / ');
  // Exactly once: every upload answered right (one answer per request, by HTTP), each task finished by
  // some worker, none lost, and every "finished" line beyond one per upload is a task the killed worker
  // finished whose completion never reached Redis (so BullMQ ran it again elsewhere).
  const duplicatesExplained = tally.finishedTwice.every((id) => killOne && doomed.finished.includes(id));
  const once =
    failed === 0 &&
    tally.lost.length === 0 &&
    tally.distinctFinished === uploads &&
    tally.finishedLines === uploads + tally.finishedTwice.length &&
    duplicatesExplained;
  const note = [
    `uploads per node ${perNode}`,
    ...(kill.at === null
      ? []
      : [
          `worker 1 SIGKILLed after ${kill.at} answers, holding ${tally.retried.length} started task(s) (${tally.retried.join(', ')}) that worker 2 ran again`,
          `${tally.finishedTwice.length} finished by both (finished-but-lost: ${tally.finishedTwice.join(', ') || 'none'})`,
        ]),
  ].join('; ');
  return { label, wallS, perS: uploads / wallS, failed, tally, once, note };
}

const loadBefore = load();
const started = new Date().toISOString();
const results = [await run('1 worker', 1, false), await run('2 workers', 2, false), await run('2 workers, 1 SIGKILLed at 1/3', 2, true)];
const loadAfter = load();
const lines = [
  `## Analysis over two app nodes: 1 vs 2 worker processes, and a worker SIGKILLed (\`bench/worker-bench.ts\`, ${started.slice(0, 16).replace('T', ' ')} UTC)`,
  '',
  `${uploads} uploads of a ${seconds} s stereo 48 kHz 16-bit 1 kHz tone at −10.0, −10.1 … dBFS (a cache miss each; its`,
  `loudness, −level LUFS, known from EBU Tech 3341) to \`POST /audio/v1/loudness\`, alternated over ${nodeCount} \`cratehouse serve\``,
  `nodes (analysis off in each) on one private PostgreSQL, one private redis-server and one data dir; ${parallel} in flight;`,
  `each worker ${threads} thread(s); task lock ${lockS} s (CRATEHOUSE_REDIS_LOCK_S). A fresh cluster per run.`,
  `Machine: ${availableParallelism()} cores, shared with other sessions; load average before: ${loadBefore}, after: ${loadAfter}.`,
  '',
  '| run | wall s | uploads/s | tasks finished per worker | failed answers | exactly once |',
  '|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.label} | ${r.wallS.toFixed(1)} | ${r.perS.toFixed(2)} | ${r.tally.finishedPerWorker.join(' / ')} | ${r.failed} | ${r.once ? 'yes' : 'NO'} |`,
  ),
  '',
  ...results.map((r) => `- ${r.label}: ${r.note}.`),
  '',
  `speed-up 2 vs 1 worker: ${(results[1]!.perS / results[0]!.perS).toFixed(2)}×. A failed answer is one that was not 200, not a`,
  `cache miss, or more than ${lufsTolerance} LU from its tone's level. "Exactly once": no failed answer, every upload's task`,
  `finished by a worker and none lost, and the workers' "finished" lines equal the uploads plus the tasks the killed worker`,
  `logged as finished but whose completion never reached Redis (run again by the other worker; answered once).`,
  '',
];
for (const line of lines) say(line);
await writeResults();
process.exit(results.every((r) => r.once) ? 0 : 1);
