import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from './journal.js';

async function tempFile(): Promise<string> {
  return path.join(await mkdtemp(path.join(tmpdir(), 'cratehouse-journal-')), 'j.jsonl');
}

async function replay(file: string): Promise<{ journal: Journal<{ n: number }>; seen: number[] }> {
  const seen: number[] = [];
  const journal = await Journal.open<{ n: number }>(file, (e) => seen.push(e.n));
  return { journal, seen };
}

/** The entries a fresh open of `file` replays (the journal is closed again: no handle left to the GC). */
async function replayed(file: string): Promise<number[]> {
  const { journal, seen } = await replay(file);
  await journal.close();
  return seen;
}

describe('journal', () => {
  it('replays every acknowledged entry in order, one group commit for concurrent appends', async () => {
    const file = await tempFile();
    const { journal } = await replay(file);
    await Promise.all(Array.from({ length: 500 }, (_, n) => journal.append({ n })));
    await journal.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines).toHaveLength(501); // 500 lines and the empty string after the last newline
    expect(await replayed(file)).toEqual(Array.from({ length: 500 }, (_, n) => n));
  });

  it('ignores and cuts off a torn last line, then appends after the good ones', async () => {
    const file = await tempFile();
    await writeFile(file, '{"n":1}\n{"n":2}\n{"n":');
    const first = await replay(file);
    expect(first.seen).toEqual([1, 2]);
    await first.journal.append({ n: 3 });
    await first.journal.close();
    expect(await readFile(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(await replayed(file)).toEqual([1, 2, 3]);
  });

  it('cuts a torn line at its byte offset after multi-byte text', async () => {
    const file = await tempFile();
    await writeFile(file, '{"n":1,"s":"éé€"}\n{"n":2,"s":"ü');
    const first = await replay(file);
    expect(first.seen).toEqual([1]);
    await first.journal.append({ n: 3 });
    await first.journal.close();
    expect(await readFile(file, 'utf8')).toBe('{"n":1,"s":"éé€"}\n{"n":3}\n');
  });

  it('compacts to the live entries, keeping appends made during the compaction', async () => {
    const file = await tempFile();
    const { journal } = await replay(file);
    for (let n = 0; n < 100; n++) await journal.append({ n });
    const compaction = journal.compact([{ n: 7 }, { n: 8 }]);
    const during = journal.append({ n: 9 });
    await Promise.all([compaction, during]);
    await journal.close();
    expect(await replayed(file)).toEqual([7, 8, 9]);
  });

  it('replays nothing after a line that is not JSON (only a torn tail can be)', async () => {
    const file = await tempFile();
    await writeFile(file, '{"n":1}\n');
    await appendFile(file, 'garbage\n{"n":3}\n');
    expect(await replayed(file)).toEqual([1]);
  });
});
