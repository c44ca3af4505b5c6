import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import { formatBytes } from '../shared/format-bytes.js';
import { uploadPacer, type BodyPacer, type PacedFeed } from './body-pacer.js';
import { AppError } from './errors.js';

/** An upload that reached disk whole: where it is, its sha256 (empty when hashed elsewhere) and size. */
export interface ReceivedUpload {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly filename: string;
  readonly mimeType: string;
  readonly fields: Readonly<Record<string, string>>;
  /** Delete the temp file (idempotent). */
  discard(): Promise<void>;
}

export interface UploadOptions {
  readonly tmpDir: string;
  readonly maxBytes: number;
  /** Name of the file field (`file`). */
  readonly field: string;
  /** How a missing file is reported: as a 422-style issue (audio) or a Grape message (hosting). */
  readonly missingIssue: { readonly loc: readonly (string | number)[]; readonly msg: string; readonly type: string };
  /**
   * Follow the file part to disk, so a consumer can read the temp file while it grows: called once the
   * file is open (0 bytes), after each write with the bytes on disk so far, and with `complete` once the
   * whole part is there (the upload may still be refused afterwards: empty, or a bad multipart ending).
   */
  readonly onFileProgress?: (path: string, bytesOnDisk: number, complete: boolean) => void;
  /**
   * Hash the file here (default). False leaves `sha256` empty for a caller that hashes the temp file
   * elsewhere (off this thread, while it grows: see onFileProgress).
   */
  readonly hash?: boolean;
  /** The line the body waits in to be read (default: the process's `uploadPacer`). */
  readonly pacer?: BodyPacer;
}

/**
 * Stream a multipart/form-data upload to `tmpDir` while hashing it (busboy), read in turns with the
 * other uploads (BodyPacer). Resolves once the file is fully on disk. Too large → `too-large` (partial
 * file removed); no file field → `invalid`. Other file fields are drained and ignored; text fields are
 * returned.
 */
export function receiveUpload(req: IncomingMessage, options: UploadOptions): Promise<ReceivedUpload> {
  const missing = () => new AppError('invalid', `${options.field} is missing`, { issues: [options.missingIssue] });
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes + 64 * 1024) {
    return Promise.reject(new AppError('too-large', `Upload is larger than the limit of ${formatBytes(options.maxBytes)}`));
  }
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) return Promise.reject(missing());

  return new Promise((resolve, reject) => {
    const target = path.join(options.tmpDir, `upload-${randomUUID()}`);
    const discard = () => rm(target, { force: true });
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: options.maxBytes, files: 4, fields: 50, fieldSize: 64 * 1024, parts: 60 },
      });
    } catch {
      reject(missing());
      return;
    }
    const fields: Record<string, string> = {};
    let file: Promise<{ sha256: string; bytes: number; filename: string; mimeType: string }> | null = null;
    let failed: AppError | null = null;
    let feed: PacedFeed | null = null;
    const fail = (error: AppError) => {
      if (failed) return;
      failed = error;
      feed?.abandon();
      void discard().finally(() => reject(error));
    };

    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== options.field || file) {
        stream.resume();
        return;
      }
      file = new Promise((done, error) => {
        const hash = options.hash === false ? null : createHash('sha256');
        const report = options.onFileProgress;
        let bytes = 0;
        let onDisk = 0;
        const out = createWriteStream(target, { mode: 0o600, highWaterMark: 1 << 20 });
        if (report) out.once('ready', () => report(target, 0, false));
        // Hash and write each chunk as it arrives (with backpressure, as pipe() would).
        stream.on('data', (chunk: Buffer) => {
          hash?.update(chunk);
          bytes += chunk.length;
          const length = chunk.length;
          const more = out.write(chunk, report ? () => report(target, (onDisk += length), false) : undefined);
          if (!more) stream.pause();
        });
        out.on('drain', () => stream.resume());
        stream.on('end', () => out.end());
        stream.on('limit', () => fail(new AppError('too-large', `Upload is larger than the limit of ${formatBytes(options.maxBytes)}`)));
        stream.on('error', error);
        out.on('error', error);
        out.on('finish', () => {
          report?.(target, bytes, true);
          done({ sha256: hash ? hash.digest('hex') : '', bytes, filename: info.filename ?? 'upload', mimeType: info.mimeType });
        });
      });
      file.catch(() => undefined);
    });
    parser.on('error', () =>
      fail(
        new AppError('invalid', 'The multipart body is malformed', {
          issues: [{ loc: ['body'], msg: 'The multipart body is malformed', type: 'value_error' }],
        }),
      ),
    );
    parser.on('close', () => {
      if (failed) return;
      if (!file) {
        fail(missing());
        return;
      }
      file.then(
        (f) => {
          if (failed) return;
          if (f.bytes === 0) {
            fail(
              new AppError('invalid', `${options.field} is empty`, {
                issues: [{ ...options.missingIssue, msg: 'File is empty', type: 'value_error' }],
              }),
            );
            return;
          }
          resolve({ path: target, ...f, fields, discard });
        },
        () => fail(new AppError('unavailable', 'The upload could not be stored')),
      );
    });
    req.on('aborted', () => fail(new AppError('invalid', 'The upload was interrupted')));
    feed = (options.pacer ?? uploadPacer).feed(req, parser);
  });
}

/**
 * Warm the upload path's JIT with a few synthetic multipart uploads to `tmpDir`, each removed at once:
 * sent over a loopback connection to a private listener, so the socket reads, Node's HTTP parser, busboy,
 * the temp-file writes and the progress callbacks all run as they do for a client. The first real upload
 * of a fresh server then runs optimised code. (An earlier version fed the parser from memory: with the
 * socket and HTTP-parser code still cold, the first /analyze of a 53 MB WAV cost the HTTP thread and V8's
 * compiler threads 40–80 ms more CPU than the fifth.)
 */
export async function warmUpUploads(tmpDir: string, rounds = 4, bytes = 8 << 20): Promise<void> {
  const boundary = 'cratehouse-warm-up';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="warm-up.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.alloc(bytes, 1),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const receiver = createServer((req, res) => {
    let reported = 0;
    receiveUpload(req, {
      tmpDir,
      maxBytes: body.length,
      field: 'file',
      missingIssue: { loc: ['file'], msg: 'is missing', type: 'missing' },
      onFileProgress: (_path, onDisk) => void (reported = onDisk),
    }).then(
      async (upload) => {
        await upload.discard();
        res.end(upload.bytes === bytes && reported === bytes ? 'ok' : `received ${upload.bytes} bytes (${reported} reported) of ${bytes}`);
      },
      (err: unknown) => res.end(`failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  });
  await new Promise<void>((resolve, reject) => receiver.once('error', reject).listen(0, '127.0.0.1', resolve));
  try {
    const { port } = receiver.address() as AddressInfo;
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) };
    for (let round = 0; round < rounds; round++) {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers, agent: false }, (res) => {
          const parts: Buffer[] = [];
          res
            .on('data', (c: Buffer) => parts.push(c))
            .on('end', () => resolve(Buffer.concat(parts).toString()))
            .on('error', reject);
        });
        req.on('error', reject).end(body);
      });
      if (answer !== 'ok') throw new Error(`upload warm-up: ${answer}`);
    }
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
}
