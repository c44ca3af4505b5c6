/** What the first bytes of a response say it is. */
export type SniffedKind = 'media' | 'html' | 'other';

/** A media type recognised from magic bytes, with whether it is lossless audio. */
export interface SniffedMedia {
  readonly kind: SniffedKind;
  /** IANA media type when recognised (`audio/wav`, `video/mp4`, `text/html`, …), else null. */
  readonly mediaType: string | null;
}

const ascii = (b: Uint8Array, start: number, end: number) => String.fromCharCode(...b.subarray(start, end));

/**
 * Recognise audio and video containers by their signatures (the WHATWG MIME Sniffing standard's
 * audio/video pattern table, plus FLAC, AIFF, WebM/Matroska and ADTS AAC), and HTML by its opening
 * tags. Needs the first ~512 bytes; anything unrecognised is `other`.
 */
export function sniffMedia(head: Uint8Array): SniffedMedia {
  const at = (i: number) => head[i] ?? -1;
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WAVE') return media('audio/wav');
  if (head.length >= 12 && ascii(head, 0, 4) === 'RF64' && ascii(head, 8, 12) === 'WAVE') return media('audio/wav');
  if (head.length >= 12 && ascii(head, 0, 4) === 'FORM' && /^AIF[FC]$/.test(ascii(head, 8, 12))) return media('audio/aiff');
  if (ascii(head, 0, 4) === 'fLaC') return media('audio/flac');
  if (ascii(head, 0, 4) === 'OggS') return media('audio/ogg');
  if (ascii(head, 0, 3) === 'ID3') return media('audio/mpeg');
  if (ascii(head, 0, 4) === '.snd') return media('audio/basic');
  if (head.length >= 12 && ascii(head, 4, 8) === 'ftyp') {
    const brand = ascii(head, 8, 12);
    return media(/^M4[AB] /.test(brand) ? 'audio/mp4' : 'video/mp4');
  }
  if (at(0) === 0x1a && at(1) === 0x45 && at(2) === 0xdf && at(3) === 0xa3)
    return media(containsAscii(head, 'webm') ? 'video/webm' : 'video/x-matroska');
  // MPEG audio frame sync (11 bits) with a valid layer, or ADTS (AAC) sync with layer 0.
  if (at(0) === 0xff && (at(1) & 0xe0) === 0xe0) {
    const layer = (at(1) >> 1) & 3;
    if (layer !== 0 && (at(1) & 0x18) !== 0x08) return media('audio/mpeg');
    if (layer === 0 && (at(1) & 0xf6) === 0xf0) return media('audio/aac');
  }
  if (looksLikeHtml(head)) return { kind: 'html', mediaType: 'text/html' };
  return { kind: 'other', mediaType: null };
}

function media(mediaType: string): SniffedMedia {
  return { kind: 'media', mediaType };
}

function containsAscii(head: Uint8Array, needle: string): boolean {
  return Buffer.from(head).includes(needle, 0, 'latin1');
}

/** HTML per the sniffing standard: after optional whitespace/BOM, one of the tags that open a document. */
function looksLikeHtml(head: Uint8Array): boolean {
  const text = Buffer.from(head.subarray(0, 1024))
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  return /^<(!doctype html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|!--)[\s>]/.test(text);
}

/** Kind implied by a Content-Type header; null when it says nothing useful (missing, octet-stream). */
export function kindFromContentType(contentType: string | undefined): SniffedKind | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream' || type === 'application/x-download')
    return null;
  if (type.startsWith('audio/') || type.startsWith('video/') || type === 'application/ogg' || type === 'application/mp4') return 'media';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  return 'other';
}

/** The media type without parameters, lowercased; null when absent. */
export function bareMediaType(contentType: string | undefined): string | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === '' ? null : type;
}
