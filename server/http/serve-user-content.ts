import type { Request, Response } from 'express';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

// Bytes that users chose (project uploads, audio artifacts) are served on the GUI's origin, so a
// browser must never run them there. Every such response goes through here: the type comes from a
// safe list of inert media by extension (never from the bytes or the uploader), anything else is
// an octet-stream attachment, nosniff stops the browser guessing, and the sandbox policy puts a
// document that is opened anyway into an opaque origin with no script, no requests and no storage.

/** Raster images served inline (never SVG: it is a document that can carry script). */
const imageTypes: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
};

/**
 * Audio and video served inline. Not PDF: Chromium will not show a sandboxed PDF, and unsandboxed its
 * viewer (which runs a PDF's script) would belong to this origin; a PDF downloads like any document.
 */
const mediaTypes: Readonly<Record<string, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  aif: 'audio/aiff',
  aiff: 'audio/aiff',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/**
 * The policy on user content: sandboxed (an opaque origin: no script, forms, popups or plugins),
 * nothing loaded but what the browser's own image document shows, and never framed.
 */
export const userContentSecurityPolicy =
  "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'";

/**
 * The policy on audio and video: still sandboxed and scriptless, but keeping its origin, because
 * Chromium's media document fetches the file in CORS mode, which an opaque origin fails. Without
 * script, keeping the origin grants the document nothing.
 */
export const mediaContentSecurityPolicy =
  "sandbox allow-same-origin; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** The headers that decide how a browser treats a user file named `filename`. */
export interface UserContentHeaders {
  readonly 'Content-Type': string;
  readonly 'Content-Disposition': string;
  readonly 'X-Content-Type-Options': 'nosniff';
  readonly 'Content-Security-Policy': string;
}

/** The type, disposition and policy for a user file: inline only for the safe list, else a download. */
export function userContentHeadersFor(filename: string): UserContentHeaders {
  const dot = filename.lastIndexOf('.');
  const extension = dot === -1 ? '' : filename.slice(dot + 1).toLowerCase();
  const media = Object.hasOwn(mediaTypes, extension) ? mediaTypes[extension] : undefined;
  const inlineType = media ?? (Object.hasOwn(imageTypes, extension) ? imageTypes[extension] : undefined);
  return {
    'Content-Type': inlineType ?? 'application/octet-stream',
    'Content-Disposition': contentDispositionOf(inlineType ? 'inline' : 'attachment', filename),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': media ? mediaContentSecurityPolicy : userContentSecurityPolicy,
  };
}

/** `inline|attachment; filename="<ASCII fallback>"; filename*=UTF-8''<name>` (RFC 6266), never a broken header. */
export function contentDispositionOf(kind: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** How a user file may be cached and validated. */
export interface UserContentOptions {
  /** The Cache-Control header to send. */
  readonly cacheControl: string;
  /** A strong validator known without reading the file (content-addressed files); else express's own. */
  readonly etag?: string;
  /** Always a download (a library item: the browser saves it under its name); else inline for the safe list. */
  readonly attachment?: boolean;
}

/**
 * Stream a user file with the headers above, byte ranges, conditional GETs and 416 for a bad range.
 * Resolves true once answered, false when the file is missing (the caller answers its own 404).
 */
export function sendUserContent(res: Response, file: string, filename: string, options: UserContentOptions): Promise<boolean> {
  return new Promise((resolve, reject) => {
    // Handed to send, which sets them only once it has the file: a 404 after this stays the API's own.
    const headers = {
      ...userContentHeadersFor(filename),
      ...(options.attachment ? { 'Content-Disposition': contentDispositionOf('attachment', filename) } : {}),
      'Cache-Control': options.cacheControl,
      ...(options.etag ? { ETag: options.etag } : {}),
    };
    // The path is built by the server, so dot folders in it (a data dir under ~/.config) are fine.
    res.sendFile(
      file,
      { acceptRanges: true, etag: !options.etag, lastModified: true, cacheControl: false, dotfiles: 'allow', headers },
      (error?: Error & { status?: number; code?: string; headers?: Record<string, string> }) => {
        if (!error || error.code === 'ECONNABORTED') return resolve(true);
        if (res.headersSent) {
          res.destroy();
          return resolve(true);
        }
        if (error.status === 404) return resolve(false);
        if (error.status === 416) {
          // send puts `bytes */<size>` on the error, as RFC 9110 asks of a 416.
          const range = error.headers?.['Content-Range'];
          if (range) res.set('Content-Range', range);
          res.status(416).end();
          return resolve(true);
        }
        reject(error);
      },
    );
  });
}

/** User bytes that are not a file on disk (a git blob): their length and a way to open them. */
export interface UserContentSource {
  readonly size: number;
  open(): Readable;
}

/**
 * Stream user bytes from a source with the same headers as sendUserContent, a strong validator
 * (`etag`, quoted by the caller), conditional GETs (304), one byte range (206, or 416 with
 * `bytes *\/size`), and HEAD answered with headers only. The bytes pass through as they come: a
 * range skips what precedes it without keeping it.
 */
export async function streamUserContent(
  req: Request,
  res: Response,
  source: UserContentSource,
  filename: string,
  options: UserContentOptions & { readonly headers?: Readonly<Record<string, string>> },
): Promise<void> {
  res.set({
    ...userContentHeadersFor(filename),
    'Cache-Control': options.cacheControl,
    'Accept-Ranges': 'bytes',
    ...(options.etag ? { ETag: options.etag } : {}),
    ...options.headers,
  });
  if (options.etag && req.headers['if-none-match']?.split(',').some((t) => t.trim() === options.etag || t.trim() === `W/${options.etag}`)) {
    res.status(304).end();
    return;
  }
  const range = parseSingleRange(req.headers.range, source.size, req.get('If-Range'), options.etag);
  if (range === 'unsatisfiable') {
    res.status(416).set('Content-Range', `bytes */${source.size}`).end();
    return;
  }
  const [start, end] = range ?? [0, source.size - 1];
  const length = Math.max(0, end - start + 1);
  res.status(range ? 206 : 200).set('Content-Length', String(length));
  if (range) res.set('Content-Range', `bytes ${start}-${end}/${source.size}`);
  if (req.method === 'HEAD' || length === 0) {
    res.end();
    return;
  }
  const bytes = source.open();
  // Once the range is sent, stop reading (and the producer with it) instead of draining the rest.
  const body = range ? bytes.pipe(sliceBytes(start, length, () => bytes.unpipe().destroy())) : bytes;
  if (range) bytes.on('error', (e) => body.destroy(e));
  await pipeline(body, res);
}

/** One `bytes=a-b`, `a-` or `-n` range within `size`; null to send everything (none, several, or a stale If-Range). */
function parseSingleRange(
  header: string | undefined,
  size: number,
  ifRange: string | undefined,
  etag: string | undefined,
): [number, number] | 'unsatisfiable' | null {
  if (!header || (ifRange !== undefined && ifRange !== etag)) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return [start, end];
}

/** Pass on `length` bytes after skipping `skip`, then end and call `onEnd`. */
function sliceBytes(skip: number, length: number, onEnd: () => void): Transform {
  let toSkip = skip;
  let left = length;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (left === 0) return done();
      let part = chunk;
      if (toSkip > 0) {
        const dropped = Math.min(toSkip, part.length);
        toSkip -= dropped;
        part = part.subarray(dropped);
      }
      if (left > 0 && part.length > 0) {
        const kept = part.subarray(0, left);
        left -= kept.length;
        this.push(kept);
        if (left === 0) {
          this.push(null);
          onEnd();
        }
      }
      done();
    },
  });
}
