/**
 * tar.gz archives (project export and import use them): a small writer and a reader for untrusted archives. The reader checks
 * every entry (name, type, size, count) before anything of it is written, writes only regular
 * files and directories, and only into a fresh folder; links, devices, FIFOs, absolute names and
 * `..` are refused, as are archives that grow beyond their limits while they are decompressed.
 * One file (over 400 lines) on purpose: the writer and the checking reader share the ustar header format.
 */
import { constants as fsConstants, createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { formatBytes } from './format-bytes.js';

/** What an entry is, by its tar type flag. */
export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'character-device' | 'block-device' | 'fifo';

/** One entry to write: data from memory or from a file on disk. */
export interface TarInput {
  /** The name inside the archive, written as given (the writer trusts its caller). */
  readonly path: string;
  readonly type?: TarEntryType;
  readonly data?: Buffer | string;
  /** A file whose contents become the entry's data. */
  readonly source?: string;
  /** Target of a symbolic or hard link. */
  readonly linkTarget?: string;
  readonly mode?: number;
  readonly mtime?: Date;
}

/** How large an untrusted archive may become when read. */
export interface ArchiveLimits {
  /** Decompressed bytes (headers included). */
  readonly maxBytes: number;
  /** Files and directories. */
  readonly maxEntries: number;
}

/** The defaults for project imports: 2 GiB uncompressed, 50,000 entries. */
export const defaultArchiveLimits: ArchiveLimits = { maxBytes: 2 * 1024 ** 3, maxEntries: 50_000 };

/** A problem with an archive's contents; the message is meant for the person who sent it. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

/** An entry the reader accepted. */
export interface ExtractedEntry {
  /** Normalised relative name (`tree/project.json`), `/`-separated. */
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly size: number;
  /** Whether its data was written under the target folder. */
  readonly written: boolean;
}

const BLOCK = 512;
const typeFlags: Readonly<Record<TarEntryType, string>> = {
  file: '0',
  hardlink: '1',
  symlink: '2',
  'character-device': '3',
  'block-device': '4',
  directory: '5',
  fifo: '6',
};

/** Write entries as a gzip-compressed ustar archive (pax headers for long or non-ASCII names). */
export async function writeTarGz(out: string, entries: Iterable<TarInput> | AsyncIterable<TarInput>): Promise<void> {
  async function* blocks(): AsyncGenerator<Buffer> {
    for await (const entry of entries) yield* entryBlocks(entry);
    yield Buffer.alloc(BLOCK * 2);
  }
  await pipeline(blocks(), createGzip(), createWriteStream(out, { flags: 'wx', mode: 0o600 }));
}

async function* entryBlocks(entry: TarInput): AsyncGenerator<Buffer> {
  const type = entry.type ?? 'file';
  const data = entry.data === undefined ? null : Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data, 'utf8');
  const size = type !== 'file' ? 0 : data ? data.length : entry.source ? (await stat(entry.source)).size : 0;
  const mtime = Math.floor((entry.mtime ?? new Date()).getTime() / 1000);
  const link = entry.linkTarget ?? '';
  const pax: [string, string][] = [];
  const split = splitName(entry.path);
  if (!split) pax.push(['path', entry.path]);
  if (Buffer.byteLength(link) > 100 || !isAscii(link)) pax.push(['linkpath', link]);
  if (size > 0o77777777777) pax.push(['size', String(size)]);
  if (pax.length > 0) {
    const body = Buffer.from(pax.map(([k, v]) => paxRecord(k, v)).join(''), 'utf8');
    yield header({ name: 'PaxHeader', prefix: '', size: body.length, type: 'x', mode: 0o644, mtime, link: '' });
    yield* padded(body);
  }
  const name = split ?? { name: asciiTail(entry.path, 100), prefix: '' };
  yield header({
    ...name,
    size: size > 0o77777777777 ? 0 : size,
    type: typeFlags[type],
    mode: entry.mode ?? (type === 'directory' ? 0o755 : 0o644),
    mtime,
    link: isAscii(link) ? link.slice(0, 100) : '',
  });
  if (type !== 'file') return;
  if (data) {
    yield* padded(data);
    return;
  }
  if (!entry.source) return;
  let written = 0;
  for await (const chunk of createReadStream(entry.source)) {
    const buf = chunk as Buffer;
    // A file that grows while it is archived must not overrun the size its header promised.
    const take = buf.subarray(0, Math.max(0, size - written));
    written += take.length;
    if (take.length > 0) yield take;
  }
  if (written !== size) throw new Error(`${entry.path} changed while it was archived`);
  if (size % BLOCK !== 0) yield Buffer.alloc(BLOCK - (size % BLOCK));
}

function* padded(data: Buffer): Generator<Buffer> {
  yield data;
  if (data.length % BLOCK !== 0) yield Buffer.alloc(BLOCK - (data.length % BLOCK));
}

/** A pax record: `<length> <key>=<value>\n`, where length counts itself. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  const restBytes = Buffer.byteLength(rest);
  let length = restBytes + String(restBytes).length;
  if (String(length).length !== String(restBytes).length) length = restBytes + String(length).length;
  return `${length}${rest}`;
}

/** Name and prefix fields for an ASCII name that fits ustar (≤ 100, or prefix ≤ 155 + `/` + name ≤ 100). */
function splitName(name: string): { name: string; prefix: string } | null {
  if (!isAscii(name)) return null;
  if (name.length <= 100) return { name, prefix: '' };
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    if (i <= 155 && name.length - i - 1 <= 100 && name.length - i - 1 > 0) return { prefix: name.slice(0, i), name: name.slice(i + 1) };
  }
  return null;
}

function isAscii(s: string): boolean {
  return /^[\x20-\x7e]*$/.test(s);
}

function asciiTail(s: string, max: number): string {
  return s.replace(/[^\x20-\x7e]/g, '_').slice(-max);
}

function header(h: { name: string; prefix: string; size: number; type: string; mode: number; mtime: number; link: string }): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(h.name, 0, 100, 'utf8');
  writeOctal(b, h.mode & 0o7777, 100, 8);
  writeOctal(b, 0, 108, 8);
  writeOctal(b, 0, 116, 8);
  writeOctal(b, h.size, 124, 12);
  writeOctal(b, h.mtime, 136, 12);
  b.fill(0x20, 148, 156);
  b.write(h.type, 156, 1, 'latin1');
  b.write(h.link, 157, 100, 'utf8');
  b.write('ustar\u000000', 257, 8, 'latin1');
  b.write(h.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of b) sum += byte;
  writeOctal(b, sum, 148, 8);
  return b;
}

function writeOctal(b: Buffer, value: number, offset: number, length: number): void {
  b.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'latin1');
}

// ---- reading ------------------------------------------------------------------------------------

/** Options of extractTarGz. */
export interface ExtractOptions {
  readonly limits: ArchiveLimits;
  /** Which accepted files to write; the others are checked and skipped. Default: all. */
  readonly select?: (entryPath: string) => boolean;
}

/** Pax and GNU meta headers larger than this are refused (a real one holds a name or two). */
const MAX_META_BYTES = 1024 * 1024;

/**
 * Read an untrusted tar.gz into `targetDir`, which must not exist or be empty. Every entry is
 * checked before anything of it is written; the first problem stops the read with an ArchiveError
 * (what was written so far stays in `targetDir`: the caller removes the folder).
 */
export async function extractTarGz(archive: string, targetDir: string, options: ExtractOptions): Promise<ExtractedEntry[]> {
  const target = path.resolve(targetDir);
  await mkdir(target, { recursive: true, mode: 0o700 });
  if ((await readdir(target)).length > 0) throw new Error('extractTarGz needs an empty target folder');
  const reader = new TarReader(target, options);
  // The reader's own verdict; pipeline may report the streams' teardown (an AbortError) instead.
  let verdict: unknown = null;
  try {
    await pipeline(createReadStream(archive), createGunzip(), async (source: AsyncIterable<Buffer>) => {
      try {
        for await (const chunk of source) await reader.push(chunk);
      } catch (e) {
        verdict = e;
        throw e;
      }
    });
    reader.end();
  } catch (e) {
    await reader.abort();
    throw archiveFailure(verdict ?? e);
  }
  return reader.entries;
}

function archiveFailure(e: unknown): unknown {
  if (e instanceof ArchiveError) return e;
  const code = (e as NodeJS.ErrnoException).code ?? '';
  if (code.startsWith('Z_') || code === 'ERR_INVALID_ARG_VALUE') {
    const reason = code === 'Z_BUF_ERROR' ? 'it ends too early' : (e as Error).message;
    return new ArchiveError(`The archive is not a valid gzip file (${reason})`);
  }
  return e;
}

type Pending =
  | { kind: 'meta'; type: string; remaining: number; parts: Buffer[]; pad: number }
  | { kind: 'data'; remaining: number; pad: number; file: FileHandle | null };

/** The tar state machine over decompressed chunks. */
class TarReader {
  readonly entries: ExtractedEntry[] = [];
  private readonly seen = new Set<string>();
  private buffered: Buffer = Buffer.alloc(0);
  private pending: Pending | null = null;
  private skip = 0;
  /** Decompressed bytes received. */
  private total = 0;
  /** Decompressed bytes consumed by the state machine (headers, data, padding). */
  private position = 0;
  private ended = false;
  private paxPath: string | null = null;
  private paxSize: number | null = null;
  private longName: string | null = null;

  constructor(
    private readonly target: string,
    private readonly options: ExtractOptions,
  ) {}

  async push(chunk: Buffer): Promise<void> {
    // Counted even after the end marker: gunzip keeps inflating whatever follows it.
    this.total += chunk.length;
    if (this.total > this.options.limits.maxBytes) throw tooLarge(this.options.limits);
    if (this.ended) return;
    let data = this.buffered.length > 0 ? Buffer.concat([this.buffered, chunk]) : chunk;
    this.buffered = Buffer.alloc(0);
    while (data.length > 0 && !this.ended) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, data.length);
        this.skip -= n;
        this.position += n;
        data = data.subarray(n);
        continue;
      }
      const p = this.pending;
      if (p) {
        const n = Math.min(p.remaining, data.length);
        const part = data.subarray(0, n);
        data = data.subarray(n);
        this.position += n;
        p.remaining -= n;
        if (p.kind === 'meta') p.parts.push(Buffer.from(part));
        else if (p.file) await writeAll(p.file, part);
        if (p.remaining === 0) {
          this.pending = null;
          this.skip = p.pad;
          if (p.kind === 'meta') this.meta(p.type, Buffer.concat(p.parts));
          else await p.file?.close();
        }
        continue;
      }
      if (data.length < BLOCK) {
        this.buffered = Buffer.from(data);
        return;
      }
      const block = data.subarray(0, BLOCK);
      data = data.subarray(BLOCK);
      this.position += BLOCK;
      await this.header(block);
    }
  }

  /** The stream ended: it must not end inside an entry. */
  end(): void {
    if (this.pending || this.skip > 0 || this.buffered.length > 0) throw new ArchiveError('The archive is truncated');
  }

  async abort(): Promise<void> {
    if (this.pending?.kind === 'data') await this.pending.file?.close().catch(() => undefined);
    this.pending = null;
  }

  private async header(block: Buffer): Promise<void> {
    if (block.every((b) => b === 0)) {
      this.ended = true;
      return;
    }
    const stored = parseNumber(block.subarray(148, 156));
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
    if (stored !== sum) throw new ArchiveError('The archive is corrupt: a tar header checksum does not match');
    const flag = String.fromCharCode(block[156]!);
    const declared = this.paxSize ?? parseNumber(block.subarray(124, 136));
    if (declared === null || declared < 0) throw new ArchiveError('The archive is corrupt: an entry has an unreadable size');
    const pad = (BLOCK - (declared % BLOCK)) % BLOCK;

    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      if (declared > MAX_META_BYTES) throw new ArchiveError('The archive is corrupt: an extended header is too large');
      this.pending = { kind: 'meta', type: flag, remaining: declared, parts: [], pad };
      if (declared === 0) {
        this.pending = null;
        this.meta(flag, Buffer.alloc(0));
      }
      return;
    }

    const rawName = this.paxPath ?? this.longName ?? joinUstarName(block);
    this.paxPath = null;
    this.longName = null;
    this.paxSize = null;
    const shown = printable(rawName);
    const type = entryType(flag);
    if (type === 'symlink' || type === 'hardlink') throw new ArchiveError(`The archive contains a link (${shown}); links are not allowed`);
    if (type === 'character-device' || type === 'block-device')
      throw new ArchiveError(`The archive contains a device file (${shown}); only files and folders are allowed`);
    if (type === 'fifo') throw new ArchiveError(`The archive contains a FIFO (${shown}); only files and folders are allowed`);
    if (type === null) throw new ArchiveError(`The archive contains an entry of an unsupported type '${printable(flag)}' (${shown})`);
    const relative = safeEntryPath(rawName);
    if (relative === '') {
      // The archive's own root (`./`): nothing to create.
      if (type === 'file' && declared > 0) throw new ArchiveError('The archive is corrupt: its root is a file');
      return;
    }
    if (this.entries.length >= this.options.limits.maxEntries)
      throw new ArchiveError(`The archive has more than ${this.options.limits.maxEntries} entries`);
    // Refused before a byte of it is written, rather than once the stream has grown too large.
    if (this.position + declared > this.options.limits.maxBytes) throw tooLarge(this.options.limits);
    const key = relative.toLowerCase();
    if (this.seen.has(key)) throw new ArchiveError(`The archive contains ${shown} twice`);
    this.seen.add(key);

    const dest = path.resolve(this.target, ...relative.split('/'));
    if (!dest.startsWith(this.target + path.sep)) throw new ArchiveError(`The archive contains a path outside the archive (${shown})`);
    if (type === 'directory') {
      this.entries.push({ path: relative, type, size: 0, written: false });
      this.skip = declared + pad; // a directory's data (there should be none) is not read
      return;
    }
    const write = this.options.select ? this.options.select(relative) : true;
    let file: FileHandle | null = null;
    if (write) {
      try {
        await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
        // O_EXCL and O_NOFOLLOW: never through a link, never over another file.
        file = await open(dest, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0), 0o600);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR')
          throw new ArchiveError(`The archive contains ${shown} where a file and a folder clash`);
        throw e;
      }
    }
    this.entries.push({ path: relative, type: 'file', size: declared, written: write });
    if (declared === 0) {
      await file?.close();
      return;
    }
    this.pending = { kind: 'data', remaining: declared, pad, file };
  }

  private meta(type: string, body: Buffer): void {
    if (type === 'L') this.longName = cString(body);
    if (type !== 'x') return; // global pax headers and GNU long link names change nothing we keep
    for (const [key, value] of parsePax(body)) {
      if (key === 'path') this.paxPath = value;
      if (key === 'size') {
        if (!/^\d+$/.test(value)) throw new ArchiveError('The archive is corrupt: an extended header has an unreadable size');
        this.paxSize = Number(value);
      }
    }
  }
}

function tooLarge(limits: ArchiveLimits): ArchiveError {
  return new ArchiveError(`The archive is larger than ${formatBytes(limits.maxBytes)} uncompressed`);
}

function entryType(flag: string): TarEntryType | null {
  switch (flag) {
    case '0':
    case '\0':
    case '7':
      return 'file';
    case '5':
      return 'directory';
    case '1':
      return 'hardlink';
    case '2':
      return 'symlink';
    case '3':
      return 'character-device';
    case '4':
      return 'block-device';
    case '6':
      return 'fifo';
    default:
      return null;
  }
}

/**
 * A relative, `/`-separated name inside the archive, or an ArchiveError: no absolute names (also
 * not `C:` or `\\`), no `..`, no backslashes or control characters. `.` segments and a leading
 * `./` are dropped; '' is the archive's root.
 */
export function safeEntryPath(raw: string): string {
  const shown = printable(raw);
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw new ArchiveError(`The archive contains an absolute path (${shown})`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\\\u0000-\u001f\u007f]/.test(raw))
    throw new ArchiveError(`The archive contains a name with a backslash or a control character (${shown})`);
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new ArchiveError(`The archive contains a path that leaves the archive (${shown})`);
  if (segments.some((s) => Buffer.byteLength(s) > 255))
    throw new ArchiveError(`The archive contains a name that is too long (${shown.slice(0, 80)}…)`);
  return segments.join('/');
}

function joinUstarName(block: Buffer): string {
  const name = cString(block.subarray(0, 100));
  const ustar = block.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = ustar ? cString(block.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cString(b: Buffer): string {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString('utf8');
}

/** An octal field (NUL/space terminated) or GNU base-256 (high bit set); null when unreadable. */
function parseNumber(field: Buffer): number | null {
  if (field[0]! & 0x80) {
    if (field[0] === 0xff) return null; // negative
    let n = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return Number.isSafeInteger(n) ? n : null;
  }
  const text = field
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) return null;
  return parseInt(text, 8);
}

function parsePax(body: Buffer): [string, string][] {
  const out: [string, string][] = [];
  let pos = 0;
  while (pos < body.length) {
    const space = body.indexOf(0x20, pos);
    if (space < 0) break;
    const length = Number(body.subarray(pos, space).toString('latin1'));
    if (!Number.isInteger(length) || length <= 0 || pos + length > body.length)
      throw new ArchiveError('The archive is corrupt: an extended header is malformed');
    const record = body.subarray(space + 1, pos + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out.push([record.slice(0, eq), record.slice(eq + 1)]);
    pos += length;
  }
  return out;
}

async function writeAll(file: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) offset += (await file.write(data, offset, data.length - offset)).bytesWritten;
}

/** A name as it can be shown in a message: control characters escaped, bounded. */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex -- escaping control characters for display
  const clean = s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}
