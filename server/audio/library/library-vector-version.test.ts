import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { startServerChild, type ServerChild } from '../../test-support/server-child.js';
import { featureVectorLength, featureVectorVersion } from './feature-vector.js';
import { openJournalLibraryRepo } from './library-repo.js';

const token = 'library-vector-version-token';
const auth = { Authorization: `Bearer ${token}` };

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stop(server: ServerChild): Promise<void> {
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
}

/** The ids of an item's similar items, once it is ready. */
async function similarIds(url: string, id: number): Promise<number[]> {
  const res = await fetch(`${url}/audio/v1/library/items/${id}/similar?limit=5`, { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: { item: { id: number } }[] }).items.map((n) => n.item.id);
}

describe('library: similarity vectors of an older version', () => {
  it('are computed again at start, so a library from before the embedding finds its similar items again', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-vector-version-'));
    let server = await startServerChild(dataDir, token);
    const ids: number[] = [];
    try {
      for (const hz of [220, 330]) {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(encodeWav([sine(44_100, 1, hz, 0.3)], 44_100))]), `tone${hz}.wav`);
        const res = await fetch(`${server.url}/audio/v1/library/items`, { method: 'POST', headers: auth, body: form });
        expect(res.status).toBe(201);
        ids.push(((await res.json()) as { id: number }).id);
      }
      const url = server.url;
      await until('both items ready', async () => {
        const states = await Promise.all(
          ids.map(
            async (id) =>
              ((await (await fetch(`${url}/audio/v1/library/items/${id}`, { headers: auth })).json()) as { status: string }).status,
          ),
        );
        return states.every((s) => s === 'ready') ? true : undefined;
      });
      expect(await similarIds(url, ids[0]!)).toContain(ids[1]);
    } finally {
      await stop(server);
    }

    // As a library written before constants v3 holds them: 45 numbers of version 2.
    const repo = await openJournalLibraryRepo(path.join(dataDir, 'library'));
    const stale = ids.map((id) => ({ ...repo.items.get(id)!, vector: Array.from({ length: 45 }, () => 0.1), vectorVersion: 2 }));
    expect(stale.every((i) => i.status === 'ready')).toBe(true);
    await repo.putItems(stale);
    await repo.close();

    server = await startServerChild(dataDir, token);
    try {
      const url = server.url;
      // A stale vector is not searchable (another length); the restart computes it again in the background.
      await until('the first item similar to the second again', async () =>
        (await similarIds(url, ids[0]!)).includes(ids[1]!) ? true : undefined,
      );
    } finally {
      await stop(server);
    }
    const after = await openJournalLibraryRepo(path.join(dataDir, 'library'));
    for (const id of ids) {
      expect(after.items.get(id)!.vectorVersion).toBe(featureVectorVersion);
      expect(after.items.get(id)!.vector).toHaveLength(featureVectorLength);
    }
    await after.close();
  }, 240_000);
});
