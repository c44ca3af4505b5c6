import { createHash } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyPacer } from './body-pacer.js';
import { receiveUpload } from './multipart.js';
import { waitFor } from '../test-support/wait-for.js';

/** A body of `chunks` chunks of `size` bytes, all readable at once, each chunk filled with a byte naming it. */
function body(chunks: number, size: number, end = true): { readonly source: PassThrough; readonly bytes: Buffer } {
  const source = new PassThrough();
  const parts = Array.from({ length: chunks }, (_, i) => Buffer.alloc(size, (i * 7 + chunks) & 0xff));
  for (const part of parts) source.write(part);
  if (end) source.end();
  return { source, bytes: Buffer.concat(parts) };
}

/** A sink that keeps what it is given; `delayMs` makes each write complete late (backpressure). */
function sink(delayMs = 0): { readonly stream: Writable; received(): Buffer; readonly ended: Promise<void> } {
  const got: Buffer[] = [];
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const stream = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, callback) {
      got.push(chunk);
      if (delayMs > 0) setTimeout(callback, delayMs);
      else callback();
    },
    final(callback) {
      ended();
      callback();
    },
  });
  return { stream, received: () => Buffer.concat(got), ended: done };
}

describe('BodyPacer', () => {
  it('lets at most `lanes` bodies flow at once, in turns, and delivers every byte in order', async () => {
    const pacer = new BodyPacer(2, { ms: 1000, bytes: 4096 });
    const bodies = Array.from({ length: 7 }, (_, i) => body(6 + i, 1024));
    const sinks = bodies.map(() => sink());
    let mostFlowing = 0;
    let mostWaiting = 0;
    bodies.forEach(({ source }, i) => {
      source.on('data', () => {
        const flowing = bodies.filter((b) => b.source.readableFlowing === true && !b.source.readableEnded).length;
        mostFlowing = Math.max(mostFlowing, flowing);
        mostWaiting = Math.max(mostWaiting, pacer.counts().waiting);
      });
      pacer.feed(source, sinks[i]!.stream);
    });
    await Promise.all(sinks.map((s) => s.ended));
    bodies.forEach(({ bytes }, i) => expect(sinks[i]!.received().equals(bytes)).toBe(true));
    expect(mostFlowing).toBe(2);
    expect(mostWaiting).toBeGreaterThan(0);
    expect(pacer.counts()).toEqual({ flowing: 0, waiting: 0 });
  });

  it('takes a stalled body out of its lane after one turn, so the line moves on', async () => {
    const pacer = new BodyPacer(1, { ms: 20, bytes: 1 << 20 });
    const stalled = body(1, 512, false); // a client that sent a little and went quiet
    const stalledSink = sink();
    pacer.feed(stalled.source, stalledSink.stream);
    const next = body(3, 1024);
    const nextSink = sink();
    pacer.feed(next.source, nextSink.stream);
    await nextSink.ended;
    expect(nextSink.received().equals(next.bytes)).toBe(true);
    // The stalled client comes back: it gets a turn again and finishes.
    stalled.source.end(Buffer.alloc(100, 9));
    await stalledSink.ended;
    expect(stalledSink.received().equals(Buffer.concat([stalled.bytes, Buffer.alloc(100, 9)]))).toBe(true);
  });

  it('frees a lane when a body closes early or is abandoned', async () => {
    const pacer = new BodyPacer(1, { ms: 60_000, bytes: 1 << 30 });
    const broken = body(1, 512, false);
    pacer.feed(broken.source, sink().stream);
    const dropped = body(1, 512, false);
    const droppedSink = sink();
    const droppedFeed = pacer.feed(dropped.source, droppedSink.stream);
    const last = body(2, 512);
    const lastSink = sink();
    pacer.feed(last.source, lastSink.stream);
    expect(pacer.counts()).toEqual({ flowing: 1, waiting: 2 });
    broken.source.destroy();
    await waitFor(() => pacer.counts().waiting === 1);
    droppedFeed.abandon();
    // What the abandoned body still sends is read and dropped, not fed on.
    dropped.source.end(Buffer.alloc(64, 1));
    await lastSink.ended;
    expect(lastSink.received().equals(last.bytes)).toBe(true);
    expect(droppedSink.received().length).toBe(512);
    expect(pacer.counts()).toEqual({ flowing: 0, waiting: 0 });
  });

  it("waits for a slow sink instead of buffering the body (the sink's backpressure holds)", async () => {
    const pacer = new BodyPacer(1);
    const { source, bytes } = body(40, 1024);
    const slow = sink(2);
    let mostBuffered = 0;
    source.on('data', () => (mostBuffered = Math.max(mostBuffered, slow.stream.writableLength)));
    pacer.feed(source, slow.stream);
    await slow.ended;
    expect(slow.received().equals(bytes)).toBe(true);
    // With backpressure the sink never holds more than its high-water mark plus the chunk that crossed it.
    expect(mostBuffered).toBeLessThanOrEqual(2048);
  });
});

describe('receiveUpload through a pacer', () => {
  let server: Server | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads a dozen concurrent HTTP uploads two at a time, each whole and with its own hash', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-pacer-'));
    const pacer = new BodyPacer(2, { ms: 5, bytes: 128 * 1024 });
    let mostFlowing = 0;
    const watch = setInterval(() => (mostFlowing = Math.max(mostFlowing, pacer.counts().flowing)), 1);
    server = createServer((req, res) => {
      receiveUpload(req, {
        tmpDir: dir!,
        maxBytes: 4 << 20,
        field: 'file',
        missingIssue: { loc: ['file'], msg: 'is missing', type: 'missing' },
        pacer,
      }).then(
        async (upload) => {
          await upload.discard();
          res.end(upload.sha256);
        },
        (error: unknown) => res.end(`failed: ${String(error)}`),
      );
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const boundary = 'paced';
    const contents = Array.from({ length: 12 }, (_, i) => Buffer.alloc(600_000 + i * 1000, i + 1));
    const answers = await Promise.all(
      contents.map(
        (content) =>
          new Promise<string>((resolve, reject) => {
            const payload = Buffer.concat([
              Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n`),
              content,
              Buffer.from(`\r\n--${boundary}--\r\n`),
            ]);
            const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(payload.length) };
            const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers, agent: false }, (res) => {
              let text = '';
              res.on('data', (c: Buffer) => (text += c.toString())).on('end', () => resolve(text));
            });
            req.on('error', reject).end(payload);
          }),
      ),
    );
    clearInterval(watch);
    expect(answers).toEqual(contents.map((c) => createHash('sha256').update(c).digest('hex')));
    expect(mostFlowing).toBeLessThanOrEqual(2);
    expect(mostFlowing).toBeGreaterThan(0);
    expect(pacer.counts()).toEqual({ flowing: 0, waiting: 0 });
    expect(await readdir(dir)).toEqual([]);
  });
});
