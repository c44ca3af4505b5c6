import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeWav, seededNoise } from '../../test-support/signals.js';
import { openPcmSource } from './pcm-source.js';
import { FeedReader, FeedStopped, FeedWriter } from './upload-feed.js';
import { readWavChunks, readWavInfo } from './wav-reader.js';

const noise = seededNoise(5);
const frames = 700_001;
const wav = encodeWav(
  [Float32Array.from({ length: frames }, () => noise() * 0.8), Float32Array.from({ length: frames }, () => noise() * 0.3)],
  44_100,
  'pcm16',
);

async function collect(chunks: AsyncIterable<Float32Array>): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  // Each chunk is only valid until the next is requested: copy.
  for await (const c of chunks) parts.push(c.slice());
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Append `bytes` to `file` in pieces, reporting each to the feed as the upload path does. */
async function trickle(file: string, bytes: Buffer, feed: FeedWriter, piece = 100_000): Promise<void> {
  await writeFile(file, '');
  for (let o = 0; o < bytes.length; o += piece) {
    await appendFile(file, bytes.subarray(o, o + piece));
    feed.written(Math.min(bytes.length, o + piece));
    await new Promise((r) => setTimeout(r, 1));
  }
  feed.written(bytes.length, true);
}

describe('reading an upload while it arrives', () => {
  it('reads the same samples from a growing file as from the finished one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-feed-'));
    const file = path.join(dir, 'upload');
    const feed = new FeedWriter();
    const reader = new FeedReader(feed.shared);
    const writing = trickle(file, wav, feed);
    const source = await openPcmSource(file, { kind: 'js' }, { feed: reader });
    expect(source.format).toMatchObject({ sampleRate: 44_100, channels: 2, totalFrames: frames });
    const growing = await collect(source.chunks());
    await writing;
    expect(await source.confirm()).toBe(true);
    const info = (await readWavInfo(file))!;
    const whole = await collect(readWavChunks(file, info));
    expect(Buffer.from(growing.buffer).equals(Buffer.from(whole.buffer))).toBe(true);
    expect((await readFile(file)).equals(wav)).toBe(true);
  });

  it('notices an upload shorter than its header promised (confirm is false)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-feed-'));
    const file = path.join(dir, 'upload');
    const feed = new FeedWriter();
    const writing = trickle(file, wav.subarray(0, 44 + 4 * 100_000), feed);
    const source = await openPcmSource(file, { kind: 'js' }, { feed: new FeedReader(feed.shared) });
    expect(source.format.totalFrames).toBe(frames);
    expect((await collect(source.chunks())).length).toBe(2 * 100_000);
    await writing;
    expect(await source.confirm()).toBe(false);
  });

  it('waits for the whole file when the header leaves the data size open', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-feed-'));
    const file = path.join(dir, 'upload');
    const open = Buffer.from(wav);
    open.writeUInt32LE(0xffffffff, 40);
    const feed = new FeedWriter();
    const writing = trickle(file, open, feed);
    const info = await readWavInfo(file, new FeedReader(feed.shared));
    expect(new FeedReader(feed.shared).state().complete).toBe(true);
    expect(info?.frames).toBe(frames);
    await writing;
  });

  it('stops a waiting reader when the upload fails or the analysis is cancelled', async () => {
    for (const stop of ['fail', 'cancel'] as const) {
      const feed = new FeedWriter();
      const reader = new FeedReader(feed.shared);
      feed.written(10);
      const waiting = reader.waitFor(1_000_000);
      setTimeout(() => (stop === 'fail' ? feed.fail() : feed.cancel()), 5);
      await expect(waiting).rejects.toBeInstanceOf(FeedStopped);
      expect(reader.cancelled).toBe(stop === 'cancel');
      // A failed feed never turns complete afterwards.
      feed.written(1_000_000, true);
      await expect(reader.waitFor(1)).rejects.toBeInstanceOf(FeedStopped);
    }
  });
});
