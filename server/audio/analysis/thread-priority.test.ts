import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAnalysisPool } from './worker-pool.js';
import { waitFor } from '../../test-support/wait-for.js';

/** The nice value of each thread of this process, read from /proc (field 19 of a task's stat line). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => niceOf(`/proc/self/task/${tid}/stat`));
}

function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  // The command name may hold spaces: count fields from the closing parenthesis (field 3 onwards).
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe.skipIf(process.platform !== 'linux')('analysis thread priority', () => {
  it('runs the analysis threads 10 nice steps below the thread that serves HTTP, and leaves that thread as it was', async () => {
    const before = niceOf('/proc/thread-self/stat');
    const niced = (nices: number[]) => nices.filter((n) => n === before + 10).length;
    const already = niced(threadNices());
    const pool = createAnalysisPool(2);
    try {
      await waitFor(() => pool.isWarm(), { timeoutMs: 60_000 });
      expect(niced(threadNices()) - already).toBe(2);
      expect(niceOf('/proc/thread-self/stat')).toBe(before);
    } finally {
      await pool.destroy();
    }
  });

  it('keeps the threads at the same priority with nice 0', async () => {
    const mine = niceOf('/proc/thread-self/stat');
    const before = threadNices();
    const pool = createAnalysisPool(2, { nice: 0 });
    try {
      await waitFor(() => pool.isWarm(), { timeoutMs: 60_000 });
      const after = threadNices();
      expect(after.length).toBeGreaterThanOrEqual(before.length + 2);
      expect(after.filter((n) => n !== mine)).toEqual(before.filter((n) => n !== mine));
    } finally {
      await pool.destroy();
    }
  });
});
