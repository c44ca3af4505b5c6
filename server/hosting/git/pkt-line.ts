/**
 * Incremental readers for the two parts of a push that say which refs changed: the command list at
 * the start of a receive-pack request and the report-status receive-pack answers with. Both read
 * chunks as they stream past (the pack that follows the commands is never held), keeping at most
 * one unfinished pkt-line (≤ 64 KiB).
 */

/** One packet of git's pkt-line framing: data, or a flush-pkt ("0000"). */
export type Packet = { readonly kind: 'flush' } | { readonly kind: 'data'; readonly payload: Buffer };

/** The largest pkt-line git sends: 65520 bytes including the 4-byte length. */
const MAX_PKT = 65520;

/** Splits a byte stream into pkt-lines; malformed framing stops it for good. */
export class PktLineSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private broken = false;

  /** True once the input was not pkt-line framed. */
  get failed(): boolean {
    return this.broken;
  }

  /** The complete packets that `chunk` finished. */
  push(chunk: Buffer): Packet[] {
    if (this.broken) return [];
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const packets: Packet[] = [];
    let pos = 0;
    while (this.pending.length - pos >= 4) {
      const hex = this.pending.toString('latin1', pos, pos + 4);
      const length = /^[0-9a-f]{4}$/i.test(hex) ? parseInt(hex, 16) : -1;
      if (length < 0 || length === 3 || length > MAX_PKT) {
        this.broken = true;
        return packets;
      }
      if (length < 4) {
        // 0000 flush; 0001 delim and 0002 response-end belong to protocol v2, which push does not use.
        packets.push({ kind: 'flush' });
        pos += 4;
        continue;
      }
      if (this.pending.length - pos < length) break;
      packets.push({ kind: 'data', payload: this.pending.subarray(pos + 4, pos + length) });
      pos += length;
    }
    this.pending = Buffer.from(this.pending.subarray(pos));
    return packets;
  }
}

/** One ref update a client asked receive-pack for. */
export interface PushCommand {
  readonly before: string;
  readonly after: string;
  readonly ref: string;
}

/**
 * Reads the command list at the start of a receive-pack request: optional `shallow` lines, then
 * `<old> <new> <ref>` lines (the first with NUL and the client's capabilities), ended by a flush.
 */
export class PushCommandReader {
  private readonly splitter = new PktLineSplitter();
  private readonly found: PushCommand[] = [];
  private caps: ReadonlySet<string> = new Set();
  private complete = false;
  private first = true;

  /** The commands read so far (all of them once `done`). */
  get commands(): readonly PushCommand[] {
    return this.found;
  }

  /** The capabilities the client asked for (report-status, side-band-64k, atomic, …). */
  get capabilities(): ReadonlySet<string> {
    return this.caps;
  }

  /** True once the flush that ends the command list was read. */
  get done(): boolean {
    return this.complete;
  }

  /** True when the request did not look like a command list (so nothing can be reported). */
  get failed(): boolean {
    return this.splitter.failed;
  }

  /** Feed the next bytes of the (decompressed) request; returns `done`. */
  push(chunk: Buffer): boolean {
    if (this.complete) return true;
    for (const packet of this.splitter.push(chunk)) {
      if (packet.kind === 'flush') {
        this.complete = true;
        break;
      }
      let line = packet.payload.toString('utf8');
      if (this.first) {
        const nul = line.indexOf('\0');
        if (nul >= 0) {
          this.caps = new Set(
            line
              .slice(nul + 1)
              .trim()
              .split(' ')
              .filter((c) => c !== ''),
          );
          line = line.slice(0, nul);
        }
      }
      line = line.replace(/\n$/, '');
      if (line.startsWith('shallow ')) continue;
      this.first = false;
      const m = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/.exec(line);
      if (m) this.found.push({ before: m[1]!, after: m[2]!, ref: m[3]! });
    }
    return this.complete;
  }
}

/** What receive-pack reported: whether the pack unpacked, and each ref's fate. */
export interface ReportStatus {
  readonly unpackOk: boolean;
  /** ref → true when updated, false when refused (`ng`). */
  readonly refs: ReadonlyMap<string, boolean>;
}

/**
 * Reads receive-pack's report-status (v1 or v2) from its response. When the client asked for
 * side-band, the report's own pkt-lines travel inside band 1 packets, next to progress on band 2.
 */
export class ReportStatusReader {
  private readonly outer = new PktLineSplitter();
  private readonly inner = new PktLineSplitter();
  private unpack: boolean | null = null;
  private readonly refs = new Map<string, boolean>();
  private complete = false;

  constructor(private readonly sideband: boolean) {}

  /** Feed the next bytes of the response body. */
  push(chunk: Buffer): void {
    if (this.complete) return;
    for (const packet of this.outer.push(chunk)) {
      if (!this.sideband) this.line(packet);
      else if (packet.kind === 'data' && packet.payload[0] === 1) for (const p of this.inner.push(packet.payload.subarray(1))) this.line(p);
    }
  }

  /** The report, or null when none (complete) was seen. */
  result(): ReportStatus | null {
    return this.complete && this.unpack !== null ? { unpackOk: this.unpack, refs: this.refs } : null;
  }

  private line(packet: Packet): void {
    if (this.complete) return;
    if (packet.kind === 'flush') {
      this.complete = this.unpack !== null;
      return;
    }
    const text = packet.payload.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('unpack ')) this.unpack = text === 'unpack ok';
    else if (text.startsWith('ok ')) this.refs.set(text.slice(3), true);
    else if (text.startsWith('ng ')) this.refs.set(text.slice(3).split(' ', 1)[0]!, false);
    // `option …` lines (report-status-v2) only refine the previous ref after a proc-receive hook.
  }
}

/** Encode one pkt-line (for tests and hand-made requests). */
export function pktLine(payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'latin1'), body]);
}

/** The flush-pkt. */
export const FLUSH = Buffer.from('0000', 'latin1');
