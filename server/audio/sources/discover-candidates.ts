import { Parser } from 'htmlparser2';

/** A media file a page points to, with what the page declares about it. */
export interface MediaCandidate {
  /** Absolute http(s) URL. */
  readonly url: string;
  /** Where it was found: `audio`, `video`, `source`, `og:audio`, `og:video`, `link`. */
  readonly via: string;
  /** Declared media type (`type=` attribute, `og:*:type`), or one guessed from the file extension. */
  readonly mediaType: string | null;
  /** Declared bitrate in kbit/s (`data-bitrate`, `bitrate`, or a `320k`/`320 kbps` label), or null. */
  readonly bitrateKbps: number | null;
  /** Declared duration in seconds (`data-duration`, `duration`, `og:*:duration`), or null. */
  readonly durationS: number | null;
  /** True for audio containers that are lossless (WAV, FLAC, AIFF, ALAC). */
  readonly lossless: boolean;
  /** True when the element or media type is video (its audio track is what we keep). */
  readonly video: boolean;
  /** Position in the document, to keep ties stable. */
  readonly order: number;
}

const extensionTypes: Readonly<Record<string, string>> = {
  wav: 'audio/wav',
  wave: 'audio/wav',
  flac: 'audio/flac',
  aif: 'audio/aiff',
  aiff: 'audio/aiff',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  weba: 'audio/webm',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  mov: 'video/quicktime',
  alac: 'audio/mp4',
};
const losslessTypes = new Set([
  'audio/wav',
  'audio/wave',
  'audio/x-wav',
  'audio/vnd.wave',
  'audio/flac',
  'audio/x-flac',
  'audio/aiff',
  'audio/x-aiff',
]);

/** What a page offers: its title (og:title, else <title>) and its media candidates in document order. */
export interface PageMedia {
  readonly title: string | null;
  readonly candidates: readonly MediaCandidate[];
}

/**
 * Find the media a page offers: `<audio src>`, `<video src>`, `<source>` inside them,
 * `og:audio`/`og:video` (with their `:url`, `:secure_url`, `:type`, `:duration` properties) and
 * `<link rel="alternate">` with a media type. Relative URLs resolve against `<base href>` or the
 * page URL; non-http(s) URLs and duplicates are dropped. Pure: no fetching.
 */
export function discoverCandidates(html: string, pageUrl: string): PageMedia {
  let base = pageUrl;
  const found: MediaCandidate[] = [];
  const seen = new Set<string>();
  const stack: string[] = [];
  let og: { via: string; attrs: Record<string, string>; order: number } | null = null;
  let sequence = 0;
  let ogTitle: string | null = null;
  let title = '';
  let inTitle = false;

  const add = (
    raw: string | undefined,
    via: string,
    attrs: Readonly<Record<string, string>>,
    declaredType: string | undefined,
    parentVideo: boolean,
    order = sequence++,
  ) => {
    const url = absolute(raw, base);
    if (!url || seen.has(url)) return;
    seen.add(url);
    const mediaType = normaliseType(declaredType) ?? typeFromExtension(url);
    const video = parentVideo || via === 'og:video' || (mediaType?.startsWith('video/') ?? false);
    found.push({
      url,
      via,
      mediaType,
      bitrateKbps: declaredBitrate(attrs, url),
      durationS: positiveNumber(attrs['data-duration'] ?? attrs.duration),
      lossless: mediaType !== null && losslessTypes.has(mediaType),
      video,
      order,
    });
  };
  const flushOg = () => {
    if (og) add(og.attrs.url, og.via, og.attrs, og.attrs.type, og.via === 'og:video', og.order);
    og = null;
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href && base === pageUrl) base = absolute(attrs.href, pageUrl) ?? base;
        if (name === 'audio' || name === 'video') {
          stack.push(name);
          if (attrs.src) add(attrs.src, name, attrs, attrs.type, name === 'video');
        } else if (name === 'source' && stack.length > 0) {
          add(attrs.src, 'source', attrs, attrs.type, stack[stack.length - 1] === 'video');
        } else if (name === 'title') {
          inTitle = true;
        } else if (name === 'meta') {
          const property = (attrs.property ?? attrs.name ?? '').toLowerCase();
          if (property === 'og:title' && attrs.content) ogTitle ??= attrs.content.trim();
          const m = /^og:(audio|video)(?::(url|secure_url|type|duration))?$/.exec(property);
          if (!m || !attrs.content) return;
          const via = `og:${m[1]}`;
          const field = m[2] ?? 'url';
          // og:audio starts a new structured property; its :type, :duration… follow it.
          if ((field === 'url' && m[2] === undefined) || !og || og.via !== via) {
            flushOg();
            og = { via, attrs: {}, order: sequence++ };
          }
          if (field === 'secure_url') og.attrs.url = attrs.content;
          else if (field === 'url') og.attrs.url ??= attrs.content;
          else og.attrs[field] = attrs.content;
        } else if (name === 'link') {
          const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
          const type = normaliseType(attrs.type);
          if (rel.includes('alternate') && type && /^(audio|video)\//.test(type)) add(attrs.href, 'link', attrs, type, false);
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if ((name === 'audio' || name === 'video') && stack[stack.length - 1] === name) stack.pop();
      },
    },
    { decodeEntities: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  flushOg();
  // An og: group is added when it ends, but keeps its place in the document.
  const candidates = found.sort((a, b) => a.order - b.order).map((c, i) => ({ ...c, order: i }));
  return { title: ogTitle || title.trim() || null, candidates };
}

/**
 * Order candidates best first: lossless before lossy, then the higher declared bitrate, then the
 * longer declared duration, then audio before video, then document order.
 */
export function rankCandidates(candidates: readonly MediaCandidate[]): MediaCandidate[] {
  return [...candidates].sort(
    (a, b) =>
      Number(b.lossless) - Number(a.lossless) ||
      (b.bitrateKbps ?? 0) - (a.bitrateKbps ?? 0) ||
      (b.durationS ?? 0) - (a.durationS ?? 0) ||
      Number(a.video) - Number(b.video) ||
      a.order - b.order,
  );
}

function absolute(raw: string | undefined, base: string): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.toString();
  } catch {
    return null;
  }
}

function normaliseType(type: string | undefined): string | null {
  const t = (type ?? '').split(';')[0]!.trim().toLowerCase();
  return t === '' ? null : t;
}

function typeFromExtension(url: string): string | null {
  const ext = /\.([a-z0-9]{2,5})$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return ext ? (extensionTypes[ext] ?? null) : null;
}

function positiveNumber(raw: string | undefined): number | null {
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isFinite(n) && n > 0 ? n : null;
}

/** A bitrate stated in an attribute, or as `320k`/`320 kbps` in a label, title or the file name. */
function declaredBitrate(attrs: Readonly<Record<string, string>>, url: string): number | null {
  const direct = positiveNumber(attrs['data-bitrate'] ?? attrs.bitrate);
  if (direct !== null) return direct >= 8000 ? direct / 1000 : direct; // bit/s or kbit/s
  for (const text of [attrs['data-quality'], attrs.label, attrs.title, attrs['data-label'], decodeURIComponent(new URL(url).pathname)]) {
    const m = /(\d{2,4})\s*(?:k\b|kbps|kbit|kb\/s)/i.exec(text ?? '');
    if (m) return Number(m[1]);
  }
  return null;
}
