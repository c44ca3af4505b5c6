import { open, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../http/errors.js';
import { outboundRequest, type OutboundPolicy } from '../../http/outbound.js';
import { bareMediaType, kindFromContentType, sniffMedia } from './sniff-media.js';

/** Limits of one fetch, besides the outbound address rules. */
export interface FetchLimits {
  readonly policy: OutboundPolicy;
  /** Largest body accepted (media or page). */
  readonly maxBytes: number;
}

/** A media body saved to disk. */
export interface FetchedMedia {
  readonly kind: 'media';
  readonly file: string;
  readonly bytes: number;
  readonly mediaType: string | null;
  readonly finalUrl: string;
  /** From Content-Disposition, else the last path segment of the final URL. */
  readonly fileName: string | null;
}

/** An HTML page, read into memory. */
export interface FetchedPage {
  readonly kind: 'html';
  readonly html: string;
  readonly finalUrl: string;
}

/** Pages larger than this are not audio pages worth reading. */
const maxPageBytes = 8 * 1024 * 1024;
/** Bytes needed to sniff a container or an HTML document. */
const sniffBytes = 512;

/**
 * GET a URL under the outbound rules and find out what it is: a media file (Content-Type, or the
 * bytes when the type is missing, generic or wrong) is streamed to `dest` within `maxBytes`; an HTML
 * page is read and returned; anything else is refused with a sentence saying what it was.
 * `onProgress(bytes, total)` is called per chunk and may throw to stop (cancellation).
 */
export async function fetchMedia(
  url: string,
  dest: string,
  limits: FetchLimits,
  signal: AbortSignal,
  onProgress: (bytes: number, total: number | null) => void,
): Promise<FetchedMedia | FetchedPage> {
  const res = await outboundRequest(
    url,
    { method: 'GET', signal, headers: { Accept: 'audio/*, video/*, text/html;q=0.9, */*;q=0.5' } },
    limits.policy,
  );
  const body = res.body;
  try {
    if (res.status < 200 || res.status > 299)
      throw new AppError('invalid', `${res.url} answered HTTP ${res.status}${statusText(res.status)}`, { code: 'http_status' });
    const total = contentLength(res.headers);
    if (total !== null && total > limits.maxBytes) throw tooLarge(res.url, limits.maxBytes);

    const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const head: Buffer[] = [];
    let headBytes = 0;
    let ended = false;
    while (headBytes < sniffBytes) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headBytes += next.value.length;
    }
    const first = Buffer.concat(head);
    const sniffed = sniffMedia(first);
    const declared = kindFromContentType(res.headers['content-type']);
    // The bytes win when they are conclusive; the header decides when they are not.
    const kind = sniffed.kind !== 'other' ? sniffed.kind : (declared ?? 'other');
    const mediaType =
      sniffed.kind === 'media' ? sniffed.mediaType : declared === 'media' ? bareMediaType(res.headers['content-type']) : null;

    if (kind === 'other') {
      const what = bareMediaType(res.headers['content-type']) ?? 'data of an unknown type';
      throw new AppError('unsupported-media', `${res.url} is not audio, video or a web page (it serves ${what})`, { code: 'not_media' });
    }
    if (first.length === 0) throw new AppError('unsupported-media', `${res.url} answered with an empty body`, { code: 'not_media' });

    if (kind === 'html') {
      const parts: Buffer[] = [first];
      let size = first.length;
      while (!ended) {
        const next = await chunks.next();
        if (next.done) break;
        size += next.value.length;
        if (size > maxPageBytes)
          throw new AppError('unsupported-media', `${res.url} is a web page larger than ${maxPageBytes / 1024 / 1024} MB; not reading it`, {
            code: 'page_too_large',
          });
        parts.push(next.value);
      }
      return { kind: 'html', html: Buffer.concat(parts).toString('utf8'), finalUrl: res.url };
    }

    const fh = await open(dest, 'w');
    let bytes = 0;
    try {
      const write = async (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > limits.maxBytes) throw tooLarge(res.url, limits.maxBytes);
        await fh.write(chunk);
        onProgress(bytes, total);
      };
      await write(first);
      while (!ended) {
        const next = await chunks.next();
        if (next.done) break;
        await write(next.value);
      }
      if (total !== null && bytes < total)
        throw new AppError('unavailable', `The download from ${res.url} ended after ${bytes} of ${total} bytes`, { code: 'truncated' });
    } catch (error) {
      await fh.close();
      await rm(dest, { force: true });
      throw error;
    }
    await fh.close();
    return { kind: 'media', file: dest, bytes, mediaType, finalUrl: res.url, fileName: fileNameOf(res.headers, res.url) };
  } finally {
    body.destroy();
  }
}

function contentLength(headers: IncomingHttpHeaders): number | null {
  const raw = headers['content-length'];
  const n = raw === undefined ? NaN : Number(raw);
  // A compressed body's length says nothing about the bytes we will count.
  return Number.isSafeInteger(n) && n >= 0 && !headers['content-encoding'] ? n : null;
}

function tooLarge(url: string, maxBytes: number): AppError {
  return new AppError('too-large', `${url} is larger than the ${formatSize(maxBytes)} source limit (CRATEHOUSE_MAX_SOURCE_MB)`, {
    code: 'source_too_large',
  });
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} kB`;
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    401: ' Unauthorized',
    403: ' Forbidden',
    404: ' Not Found',
    410: ' Gone',
    429: ' Too Many Requests',
    500: ' Internal Server Error',
    502: ' Bad Gateway',
    503: ' Service Unavailable',
  };
  return texts[status] ?? '';
}

/** The file name a response suggests: Content-Disposition's filename, else the URL's last segment. */
export function fileNameOf(headers: IncomingHttpHeaders, url: string): string | null {
  const disposition = headers['content-disposition'] ?? '';
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(disposition);
  if (plain) return plain[1]!.trim();
  const segment = new URL(url).pathname.split('/').filter(Boolean).pop();
  if (!segment) return null;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
