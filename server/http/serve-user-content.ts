import type { Response } from 'express';

// Bytes that users chose (project uploads, audio artifacts) are served on the GUI's origin, so a
// browser must never run them there. Every such response goes through here: the type comes from a
// safe list of inert media by extension (never from the bytes or the uploader), anything else is
// an octet-stream attachment, nosniff stops the browser guessing, and the sandbox policy puts a
// document that is opened anyway into an opaque origin with no script, no requests and no storage.

/** Raster images served inline (never SVG: it is a document that can carry script). */
const imageTypes: Readonly<Record<string, string>> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif', bmp: 'image/bmp' };

/**
 * Audio and video served inline. Not PDF: Chromium will not show a sandboxed PDF, and unsandboxed its
 * viewer (which runs a PDF's script) would belong to this origin; a PDF downloads like any document.
 */
const mediaTypes: Readonly<Record<string, string>> = {
  wav: 'audio/wav', mp3: 'audio/mpeg', ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/ogg', flac: 'audio/flac', m4a: 'audio/mp4',
  aac: 'audio/aac', aif: 'audio/aiff', aiff: 'audio/aiff', mp4: 'video/mp4', webm: 'video/webm',
};

/**
 * The policy on user content: sandboxed (an opaque origin: no script, forms, popups or plugins),
 * nothing loaded but what the browser's own image document shows, and never framed.
 */
export const userContentSecurityPolicy = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'";

/**
 * The policy on audio and video: still sandboxed and scriptless, but keeping its origin, because
 * Chromium's media document fetches the file in CORS mode, which an opaque origin fails. Without
 * script, keeping the origin grants the document nothing.
 */
export const mediaContentSecurityPolicy = "sandbox allow-same-origin; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'";

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
}

/**
 * Stream a user file with the headers above, byte ranges, conditional GETs and 416 for a bad range.
 * Resolves true once answered, false when the file is missing (the caller answers its own 404).
 */
export function sendUserContent(res: Response, file: string, filename: string, options: UserContentOptions): Promise<boolean> {
  return new Promise((resolve, reject) => {
    // Handed to send, which sets them only once it has the file: a 404 after this stays the API's own.
    const headers = { ...userContentHeadersFor(filename), 'Cache-Control': options.cacheControl, ...(options.etag ? { ETag: options.etag } : {}) };
    // The path is built by the server, so dot folders in it (a data dir under ~/.config) are fine.
    res.sendFile(file, { acceptRanges: true, etag: !options.etag, lastModified: true, cacheControl: false, dotfiles: 'allow', headers }, (error?: Error & { status?: number; code?: string; headers?: Record<string, string> }) => {
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
    });
  });
}
