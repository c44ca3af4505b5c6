import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { receiveUpload, warmUpUploads } from './multipart.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-multipart-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A request body in socket-sized chunks, as receiveUpload reads it. */
function request(body: Buffer, boundary: string): IncomingMessage {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += 1 << 16) chunks.push(body.subarray(at, at + (1 << 16)));
  return Object.assign(Readable.from(chunks), {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
  }) as unknown as IncomingMessage;
}

describe('receiveUpload', () => {
  it('stores the file part byte for byte, hashes it and reports progress up to the whole file', async () => {
    const content = Buffer.alloc(300_000);
    for (let i = 0; i < content.length; i++) content[i] = (i * 131) & 0xff;
    const boundary = 'b0undary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const progress: [number, boolean][] = [];
    const upload = await receiveUpload(request(body, boundary), {
      tmpDir: dir,
      maxBytes: 1 << 20,
      field: 'file',
      missingIssue: { loc: ['file'], msg: 'is missing', type: 'missing' },
      onFileProgress: (_p, bytes, complete) => progress.push([bytes, complete]),
    });
    expect(upload.bytes).toBe(content.length);
    expect(upload.fields).toEqual({ note: 'hello' });
    expect(upload.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    expect((await readFile(upload.path)).equals(content)).toBe(true);
    expect(progress[0]).toEqual([0, false]);
    expect(progress.at(-1)).toEqual([content.length, true]);
    await upload.discard();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('warmUpUploads', () => {
  it('runs whole uploads through the parser and leaves nothing behind', async () => {
    await warmUpUploads(dir, 2, 1 << 20);
    expect(await readdir(dir)).toEqual([]);
  });
});
