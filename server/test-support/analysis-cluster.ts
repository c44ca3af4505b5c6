import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerChild, type ServerChild } from './server-child.js';
import { encodeWav, sine } from './signals.js';
import { fileForm } from './test-app.js';
import { startWorkerChild, type WorkerChild } from './worker-child.js';

/** The admin token every node of a cluster is started with (a Bearer token for /audio/v1). */
export const clusterToken = 'cluster-admin-token';

/**
 * Several `cratehouse serve` nodes with analysis off (CRATEHOUSE_ANALYSIS_IN_APP=false) and several
 * `cratehouse worker` processes, on one PostgreSQL database, one Redis and one data dir: the
 * scale-out set-up of docs/deploy/scale-out.md as local processes, for the test and the benchmark.
 */
export interface AnalysisCluster {
  readonly nodes: readonly ServerChild[];
  readonly workers: readonly WorkerChild[];
  readonly dataDir: string;
  /** SIGTERM the nodes and every worker still running; the data dir is removed. */
  stop(): Promise<void>;
}

/** What a cluster runs on and how many of each process it starts. */
export interface ClusterOptions {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly nodes: number;
  readonly workers: number;
  /** CRATEHOUSE_REDIS_LOCK_S of every process: a dead worker's task is taken by another after this. */
  readonly lockS: number;
  /** CRATEHOUSE_ANALYSIS_THREADS of each worker. */
  readonly threads: number;
}

/** Start the nodes and the workers on a fresh data dir. */
export async function startAnalysisCluster(options: ClusterOptions): Promise<AnalysisCluster> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-cluster-'));
  const shared = { CRATEHOUSE_REDIS_URL: options.redisUrl, CRATEHOUSE_REDIS_LOCK_S: String(options.lockS) };
  const nodeEnv = { ...shared, CRATEHOUSE_DATABASE_URL: options.databaseUrl, CRATEHOUSE_ANALYSIS_IN_APP: 'false' };
  // All at once (the processes' start-up, mostly loading code, overlaps): the nodes wait for each
  // other on the migration's advisory lock, and the admin both create with the same token is one.
  const starting = [
    ...Array.from({ length: options.nodes }, () => startServerChild(dataDir, clusterToken, nodeEnv)),
    ...Array.from({ length: options.workers }, () =>
      startWorkerChild(dataDir, options.redisUrl, { ...shared, CRATEHOUSE_ANALYSIS_THREADS: String(options.threads) }),
    ),
  ];
  const settled = await Promise.allSettled(starting);
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    // No process left behind when one of them did not start.
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? stopChild(s.value.child) : undefined)));
    await rm(dataDir, { recursive: true, force: true });
    throw failure.reason;
  }
  const started = settled.map((s) => (s as PromiseFulfilledResult<ServerChild | WorkerChild>).value);
  const nodes = started.slice(0, options.nodes) as ServerChild[];
  const workers = started.slice(options.nodes) as WorkerChild[];
  return {
    nodes,
    workers,
    dataDir,
    async stop() {
      await Promise.all([...nodes, ...workers].map((p) => stopChild(p.child)));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** SIGTERM a child unless it has exited; resolved once it has. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Stereo 1 kHz at −`db` dBFS, 48 kHz 16-bit: EBU Tech 3341 case 1 reads it as −`db` LUFS (independent of our meter). */
export function toneWav(db: number, seconds: number): Buffer {
  const tone = sine(48_000, seconds, 1000, 10 ** (-db / 20));
  return encodeWav([tone, tone], 48_000, 'pcm16');
}

/** One upload's answer: which tone, which node took it, and what came back. */
export interface ToneAnswer {
  readonly db: number;
  readonly node: number;
  readonly status: number;
  readonly cache: string | null;
  /** integrated_lufs of a 200 answer, else null. */
  readonly lufs: number | null;
}

/**
 * POST one tone per level to /audio/v1/loudness, upload i to node i mod n (a round-robin balancer),
 * `parallel` in flight; `onAnswer` hears each answer as it comes (e.g. to kill a worker a third of the
 * way). Resolves with the answers in the order of `levels`.
 */
export async function uploadTones(
  nodes: readonly ServerChild[],
  levels: readonly number[],
  options: { readonly seconds: number; readonly parallel: number; readonly onAnswer?: (answered: number) => void },
): Promise<ToneAnswer[]> {
  const answers: ToneAnswer[] = new Array<ToneAnswer>(levels.length);
  let next = 0;
  let answered = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.parallel, levels.length) }, async () => {
      while (next < levels.length) {
        const i = next++;
        const db = levels[i]!;
        const node = i % nodes.length;
        const res = await fetch(`${nodes[node]!.url}/audio/v1/loudness`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${clusterToken}` },
          body: fileForm(toneWav(db, options.seconds), `tone-${i}.wav`),
        });
        const body = (await res.json().catch(() => null)) as { integrated_lufs?: unknown } | null;
        const lufs = res.status === 200 && typeof body?.integrated_lufs === 'number' ? body.integrated_lufs : null;
        answers[i] = { db, node, status: res.status, cache: res.headers.get('x-cache'), lufs };
        options.onAnswer?.(++answered);
      }
    }),
  );
  return answers;
}

/** How far an answer may be from −db LUFS and still be its own tone's (levels differ by more than twice this). */
export const lufsTolerance = 0.03;

/** An answer that is a fresh analysis (cache miss) of its own tone: 200 and −db LUFS within lufsTolerance. */
export const isRightAnswer = (a: ToneAnswer): boolean =>
  a.status === 200 && a.cache === 'miss' && a.lufs !== null && Math.abs(a.lufs + a.db) <= lufsTolerance;

/** What the workers' logs say about the tasks: each task id's runs, from the "analysis task <id> started|finished" lines. */
export interface TaskTally {
  /** Distinct task ids that some worker logged as finished. */
  readonly distinctFinished: number;
  /** "finished" lines over all workers. */
  readonly finishedLines: number;
  /** Per worker, its "finished" lines. */
  readonly finishedPerWorker: readonly number[];
  /** Ids finished by more than one worker (a run whose "finished" line was logged but whose completion never reached Redis). */
  readonly finishedTwice: readonly string[];
  /** Ids a worker started and never finished (it was killed), each finished by another worker: retried, not lost. */
  readonly retried: readonly string[];
  /** Ids a worker started and nobody finished: lost. */
  readonly lost: readonly string[];
}

/** Tally the workers' logged task runs (see TaskTally). */
export function tallyTasks(workers: readonly WorkerChild[]): TaskTally {
  const finishers = new Map<string, number>();
  for (const w of workers) for (const id of w.finished) finishers.set(id, (finishers.get(id) ?? 0) + 1);
  const unfinished = workers.flatMap((w) => w.started.filter((id) => !w.finished.includes(id)));
  return {
    distinctFinished: finishers.size,
    finishedLines: workers.reduce((n, w) => n + w.finished.length, 0),
    finishedPerWorker: workers.map((w) => w.finished.length),
    finishedTwice: [...finishers].filter(([, n]) => n > 1).map(([id]) => id),
    retried: unfinished.filter((id) => finishers.has(id)),
    lost: unfinished.filter((id) => !finishers.has(id)),
  };
}
