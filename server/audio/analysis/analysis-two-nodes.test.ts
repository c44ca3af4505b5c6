import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRightAnswer, startAnalysisCluster, tallyTasks, uploadTones, type AnalysisCluster } from '../../test-support/analysis-cluster.js';
import { postgresSkipReason } from '../../test-support/private-postgres.js';
import { redisSkipReason, startPrivateRedis, type PrivateRedis } from '../../test-support/private-redis.js';
import { createTestDatabase } from '../../test-support/store-kinds.js';

const skip = postgresSkipReason ?? redisSkipReason(process.env);
if (skip) console.warn(skip);

let redis: PrivateRedis | null = null;
let databaseUrl = '';
let cluster: AnalysisCluster | null = null;

describe.skipIf(skip !== null)('analysis over two app nodes and two workers (one PostgreSQL, one Redis, one data dir)', () => {
  beforeAll(async () => {
    [redis, databaseUrl] = await Promise.all([startPrivateRedis(), createTestDatabase()]);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    await redis?.stop();
  }, 30_000);

  it('answers 12 uploads spread over both nodes, each with its own tone, when one worker is SIGKILLed mid-run', async () => {
    // Lock 2 s: a dead worker's tasks go back to waiting within ~3 s (BullMQ's stalled-job check).
    cluster = await startAnalysisCluster({
      databaseUrl,
      redisUrl: redis!.url,
      nodes: 2,
      workers: 2,
      lockS: 2,
      threads: 1,
    });
    const [doomed, survivor] = cluster.workers;
    // 10, 11 … 21 dBFS: each answer names its own tone (EBU Tech 3341: −db LUFS), and each is a cache miss.
    const levels = Array.from({ length: 12 }, (_, i) => 10 + i);
    // An object: the assignment happens in a callback, which TypeScript's narrowing of a `let` does not see.
    const kill: { after: number | null } = { after: null };
    const answers = await uploadTones(cluster.nodes, levels, {
      seconds: 10,
      parallel: 12,
      onAnswer: (answered) => {
        // From a third answered on (the rest queued or running), at the first moment the doomed worker
        // has logged a task as started and not as finished: the kill lands mid-task.
        if (kill.after === null && answered >= 4 && doomed!.started.length > doomed!.finished.length) {
          kill.after = answered;
          doomed!.child.kill('SIGKILL');
        }
      },
    });
    expect(kill.after).not.toBeNull();
    await doomed!.exited;
    expect(answers.map((a) => a.node)).toEqual(levels.map((_, i) => i % 2));
    for (const a of answers)
      expect({ db: a.db, status: a.status, cache: a.cache, lufs: a.lufs, right: isRightAnswer(a) }).toMatchObject({
        status: 200,
        cache: 'miss',
        right: true,
      });

    const tally = tallyTasks(cluster.workers);
    // The killed worker held tasks it never finished; each was run again by the survivor, none lost.
    expect(tally.retried.length).toBeGreaterThan(0);
    expect(tally.lost).toEqual([]);
    for (const id of tally.retried) expect(survivor!.finished).toContain(id);
    // Every upload is one task, finished at least once; a second "finished" is only possible for a task
    // the killed worker finished in its last instant (its completion never reached Redis).
    expect(tally.distinctFinished).toBe(12);
    expect(tally.finishedLines).toBe(12 + tally.finishedTwice.length);
    for (const id of tally.finishedTwice) expect(doomed!.finished).toContain(id);
    expect(survivor!.finished.length).toBeGreaterThan(doomed!.finished.length);
  }, 240_000);
});
