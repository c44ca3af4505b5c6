import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeWav, sine } from '../../test-support/signals.js';
import { startServerChild } from '../../test-support/server-child.js';

const token = 'library-crash-token';
const auth = { Authorization: `Bearer ${token}` };

describe('library durability', () => {
  it('keeps every acknowledged library write when the server is SIGKILLed mid-burst', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cratehouse-library-crash-'));
    const { child, url } = await startServerChild(dataDir, token);
    const exited = new Promise((r) => child.once('exit', r));
    // Four items first (uploads), then a burst: writers 0–3 each edit their own item, 4–7 create collections.
    const items: number[] = [];
    for (let i = 0; i < 4; i++) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(encodeWav([sine(44_100, 0.5, 200 + 100 * i, 0.3)], 44_100))]), `item${i}.wav`);
      const res = await fetch(`${url}/audio/v1/library/items`, { method: 'POST', headers: auth, body: form });
      expect(res.status).toBe(201);
      items.push(((await res.json()) as { id: number }).id);
    }
    const collections: string[] = [];
    /** Per editing writer: the last acknowledged tag, and the one in flight at the kill. */
    const acked = new Map<number, string>();
    const inFlight = new Map<number, string>();
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          if (w >= 4) {
            const name = `c${w}-${i}`;
            const res = await fetch(`${url}/audio/v1/library/collections`, {
              method: 'POST',
              headers: { ...auth, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name }),
            });
            if (res.status !== 201) throw new Error(`unexpected ${res.status}`);
            collections.push(name);
          } else {
            const item = items[w]!;
            const tags = [`w${w}-${i}`];
            inFlight.set(w, tags[0]!);
            const res = await fetch(`${url}/audio/v1/library/items/${item}`, {
              method: 'PATCH',
              headers: { ...auth, 'Content-Type': 'application/json' },
              body: JSON.stringify({ tags }),
            });
            if (res.status !== 200) throw new Error(`unexpected ${res.status}`);
            acked.set(w, tags[0]!);
          }
        } catch (e) {
          if (!killed) throw e;
        }
        if (collections.length >= 150 && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    await exited;

    const second = await startServerChild(dataDir, token);
    try {
      const listed = (await (await fetch(`${second.url}/audio/v1/library/collections`, { headers: auth })).json()) as {
        items: { name: string }[];
      };
      const names = new Set(listed.items.map((c) => c.name));
      expect(collections.filter((n) => !names.has(n))).toEqual([]);
      const page = (await (await fetch(`${second.url}/audio/v1/library/items?sort=added_at`, { headers: auth })).json()) as {
        items: { id: number; tags: string[] }[];
      };
      expect(page.items.map((i) => i.id)).toEqual(items);
      // Each item holds its writer's last acknowledged edit, or the one in flight when the kill came.
      expect(acked.size).toBe(4);
      for (const [w, tag] of acked) {
        const tags = page.items.find((i) => i.id === items[w])!.tags;
        expect([[tag], [inFlight.get(w)]]).toContainEqual(tags);
      }
    } finally {
      const stopped = new Promise((r) => second.child.once('exit', r));
      second.child.kill('SIGTERM');
      await stopped;
    }
  }, 120_000);
});
