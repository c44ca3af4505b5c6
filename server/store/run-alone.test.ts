import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresSkipReason } from '../test-support/private-postgres.js';
import { openTwoPostgresNodes, storeKinds } from '../test-support/store-kinds.js';
import type { Store } from './store.js';
import { waitFor } from '../test-support/wait-for.js';

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** Work that runs until `release()` is called; `started` resolves once it runs. */
function heldWork(): { work: () => Promise<void>; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let began!: () => void;
  const started = new Promise<void>((r) => (began = r));
  const gate = new Promise<void>((r) => (release = r));
  return {
    work: async () => {
      began();
      await gate;
    },
    started,
    release,
  };
}

describe.each(storeKinds)('Store.runAlone ($name)', (kind) => {
  it.skipIf(kind.skip !== null)(
    'skips work of a name already running in this process, runs other names, and runs it again after',
    async () => {
      const { store } = await kind.open();
      opened.push(store);
      const held = heldWork();
      const first = store.runAlone('upkeep', held.work);
      await held.started;
      let ran = 0;
      expect(await store.runAlone('upkeep', async () => void ran++)).toBe(false);
      expect(await store.runAlone('other', async () => void ran++)).toBe(true);
      expect(ran).toBe(1);
      held.release();
      expect(await first).toBe(true);
      expect(await store.runAlone('upkeep', async () => void ran++)).toBe(true);
      expect(ran).toBe(2);
    },
  );

  it.skipIf(kind.skip !== null)('passes a failure of the work on and frees the name', async () => {
    const { store } = await kind.open();
    opened.push(store);
    await expect(store.runAlone('upkeep', () => Promise.reject(new Error('disk gone')))).rejects.toThrow('disk gone');
    expect(await store.runAlone('upkeep', async () => undefined)).toBe(true);
  });
});

describe.skipIf(postgresSkipReason)('Store.runAlone across PostgreSQL nodes', () => {
  /** Two nodes on one fresh database, A running work named `upkeep` until `held.release()`. */
  async function twoNodesHoldingOnA() {
    const { url, a, b } = await openTwoPostgresNodes();
    opened.push(a, b);
    const held = heldWork();
    const onA = a.runAlone('upkeep', held.work);
    await held.started;
    return { url, b, held, onA };
  }

  it('lets one node at a time run work of a name: the other skips while it runs, and runs once it is done', async () => {
    const { b, held, onA } = await twoNodesHoldingOnA();
    let ranOnB = 0;
    expect(await b.runAlone('upkeep', async () => void ranOnB++)).toBe(false);
    expect(await b.runAlone('other', async () => void ranOnB++)).toBe(true);
    held.release();
    expect(await onA).toBe(true);
    expect(await b.runAlone('upkeep', async () => void ranOnB++)).toBe(true);
    expect(ranOnB).toBe(2);
  });

  it('frees the name when the node holding it loses its connection (a node killed mid-work)', async () => {
    const { url, b, held, onA } = await twoNodesHoldingOnA();
    expect(await b.runAlone('upkeep', async () => undefined)).toBe(false);
    // What a SIGKILL does to the lock: the holder's session ends.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'cratehouse-run-alone'`,
      );
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await admin.end();
    }
    await waitFor(() => b.runAlone('upkeep', async () => undefined), { timeoutMs: 5000, everyMs: 50 });
    held.release();
    await onA;
  });
});
