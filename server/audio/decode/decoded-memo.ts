/**
 * The decoded samples of the short files this thread decoded last, so that the next analysis of the same
 * file on this thread replays them instead of starting ffmpeg again. A library summary analyses one file
 * six times (two /analyze tasks, loudness, onsets, grade, the waveform); for a short FLAC or MP3 the
 * decoder's start (~120 ms on a busy analysis thread) is most of each analysis. Bounded in memory and
 * emptied when the thread has been idle a while, so an idle server holds none of it.
 */
import { stat } from 'node:fs/promises';

/** One remembered decode: the chunks as the decoder gave them (so a replay feeds the engines identically). */
interface Decoded {
  readonly chunks: readonly Float32Array[];
  readonly frames: number;
  readonly bytes: number;
}

/** A file longer than this is not remembered (about 23 s of 44.1 kHz stereo). */
const entryLimitBytes = 8 * 1024 * 1024;
/** What one thread holds at most. */
const totalLimitBytes = 24 * 1024 * 1024;
/** Forget everything after this long without a decode. */
const idleMs = 10_000;

const remembered = new Map<string, Decoded>();
let heldBytes = 0;
let idleTimer: NodeJS.Timeout | undefined;

/** Whether a decode of this many bytes of float samples could be remembered (the container's length is a hint: a little over still tries). */
export function fitsDecodedMemo(bytes: number): boolean {
  return !(bytes > entryLimitBytes * 1.1);
}

/**
 * What a file is now, with how it is read: path, device, inode, size and modification time, after `how`.
 * The key of this thread's memories of a file (its decodes here, its probes in probe.ts): any change to the
 * file gives another key.
 */
export async function fileIdentity(file: string, how: string): Promise<string> {
  const s = await stat(file, { bigint: true });
  return `${how}\n${file}\n${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
}

/** How one decode is asked for. */
export interface DecodeRequest {
  /** From fileIdentity. */
  readonly identity: string;
  readonly sampleRate: number;
  readonly channels: number;
  /** The decode stops after about this many seconds (undefined: the whole file). */
  readonly headSeconds?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The chunks of `decode()`, or of an earlier complete decode of the same identity on this thread. Only a
 * decode that ran to the end of the file, short of any head limit, is remembered, and it is replayed only
 * to a request whose head limit it is short of: a replay is always the whole file, exactly as the decoder
 * gave it. Every chunk is a copy the caller may keep or change.
 */
export async function* decodeRemembered(request: DecodeRequest, decode: () => AsyncIterable<Float32Array>): AsyncGenerator<Float32Array> {
  const { identity, sampleRate, channels, headSeconds, signal } = request;
  // A trimmed decode (ffmpeg's -t) may end a frame early or late: only files clearly shorter than the head count as whole.
  const wholeBelowFrames = headSeconds === undefined ? Infinity : Math.floor((headSeconds - 0.01) * sampleRate);
  keepAlive();
  const known = remembered.get(identity);
  if (known && known.frames < wholeBelowFrames) {
    remembered.delete(identity); // most recently used last
    remembered.set(identity, known);
    for (const chunk of known.chunks) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      yield chunk.slice();
    }
    return;
  }
  const kept: Float32Array[] = [];
  let bytes = 0;
  let samples = 0;
  for await (const chunk of decode()) {
    samples += chunk.length;
    if (bytes <= entryLimitBytes) {
      kept.push(chunk.slice());
      bytes += chunk.byteLength;
      if (bytes > entryLimitBytes) kept.length = 0; // too long to keep: let the copies go now
    }
    yield chunk;
  }
  // Reached only when the decode ended and the caller read it all (an early return or a throw skips this).
  const frames = samples / channels;
  if (bytes <= entryLimitBytes && frames < wholeBelowFrames) remember(identity, { chunks: kept, frames, bytes });
}

function remember(identity: string, decoded: Decoded): void {
  const old = remembered.get(identity);
  if (old) heldBytes -= old.bytes;
  remembered.delete(identity);
  remembered.set(identity, decoded);
  heldBytes += decoded.bytes;
  for (const [key, entry] of remembered) {
    if (heldBytes <= totalLimitBytes) break;
    remembered.delete(key);
    heldBytes -= entry.bytes;
  }
}

function keepAlive(): void {
  if (idleTimer) idleTimer.refresh();
  else idleTimer = setTimeout(forgetDecoded, idleMs).unref();
}

/** Forget every remembered decode (the idle timer; tests). */
export function forgetDecoded(): void {
  remembered.clear();
  heldBytes = 0;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
}
