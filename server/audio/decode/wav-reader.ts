import { open } from 'node:fs/promises';
import { Pcm16ToFloat } from '../dsp/pcm16-to-float.js';

/** A PCM WAV file the reader can stream directly (no decoder process needed). */
export interface WavInfo {
  readonly sampleRate: number;
  readonly channels: number;
  /** `FL+FR+…` from WAVE_FORMAT_EXTENSIBLE's channel mask, or null (defaults by count apply). */
  readonly channelLayout: string | null;
  readonly bitsPerSample: 8 | 16 | 24 | 32;
  readonly float: boolean;
  readonly dataOffset: number;
  /** Whole frames present (the data chunk, clamped to the bytes actually in the file). */
  readonly frames: number;
}

const maskNames = ['FL', 'FR', 'FC', 'LFE', 'BL', 'BR', 'FLC', 'FRC', 'BC', 'SL', 'SR', 'TC', 'TFL', 'TFC', 'TFR', 'TBL', 'TBC', 'TBR'];

/** How much of the file's start the header parser reads. */
const HEAD_BYTES = 1 << 16;

/** A WAV header parsed from the file's first bytes: its format and where the data starts. */
export interface WavHeader extends Omit<WavInfo, 'frames'> {
  /** The data chunk's declared size; null when a streaming writer left it open (0 or 0xFFFFFFFF). */
  readonly dataBytes: number | null;
  readonly blockAlign: number;
}

/** The 44-byte header of a plain RIFF/WAVE file: 16/24-bit integer PCM or 32-bit float, `frames` frames of `channels` channels. */
export function wavHeader(sampleRate: number, channels: number, frames: number, format: 'pcm16' | 'pcm24' | 'float32' = 'pcm16'): Buffer {
  const bytesPer = format === 'pcm16' ? 2 : format === 'pcm24' ? 3 : 4;
  const dataBytes = frames * channels * bytesPer;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(format === 'float32' ? 3 : 1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * bytesPer, 28);
  header.writeUInt16LE(channels * bytesPer, 32);
  header.writeUInt16LE(bytesPer * 8, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/**
 * Parse a RIFF/WAVE header (PCM 8/16/24/32-bit integer or 32-bit float, plain or EXTENSIBLE) from the
 * file's first bytes. Null for anything else (RF64, compressed WAV, malformed), which then goes to ffmpeg.
 */
export function parseWavHeader(head: Buffer): WavHeader | null {
  if (head.length < 44 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') return null;
  let offset = 12;
  let fmt: Omit<WavInfo, 'dataOffset' | 'frames'> | null = null;
  let blockAlign = 0;
  while (offset + 8 <= head.length) {
    const id = head.toString('ascii', offset, offset + 4);
    const len = head.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= head.length) {
      let tag = head.readUInt16LE(body);
      const channels = head.readUInt16LE(body + 2);
      const sampleRate = head.readUInt32LE(body + 4);
      blockAlign = head.readUInt16LE(body + 12);
      const bits = head.readUInt16LE(body + 14);
      let layout: string | null = null;
      if (tag === 0xfffe && len >= 40 && body + 40 <= head.length) {
        const mask = head.readUInt32LE(body + 20);
        tag = head.readUInt16LE(body + 24);
        const names = maskNames.filter((_, bit) => mask & (1 << bit));
        if (names.length === channels) layout = names.join('+');
      }
      const float = tag === 3;
      if ((tag !== 1 && tag !== 3) || channels < 1 || sampleRate < 1 || ![8, 16, 24, 32].includes(bits) || (float && bits !== 32))
        return null;
      if (blockAlign !== channels * (bits / 8)) return null;
      fmt = { sampleRate, channels, channelLayout: layout, bitsPerSample: bits as WavInfo['bitsPerSample'], float };
    } else if (id === 'data') {
      if (!fmt) return null;
      return { ...fmt, dataOffset: body, blockAlign, dataBytes: len === 0 || len === 0xffffffff ? null : len };
    }
    offset = body + len + (len & 1);
  }
  return null;
}

/**
 * Whole frames present: the data chunk clamped to the bytes in a file of `fileSize` bytes. Streaming
 * writers leave the size at 0 or 0xFFFFFFFF; like ffmpeg, those read to the end of the file.
 */
export function wavFrames(header: WavHeader, fileSize: number): number {
  const available = Math.max(0, fileSize - header.dataOffset);
  const bytes = header.dataBytes === null ? available : Math.min(header.dataBytes, available);
  return Math.floor(bytes / header.blockAlign);
}

/** Bytes of a file that may still be arriving (an upload being written); see upload-feed.ts. */
export interface ByteFeed {
  /** Wait until `bytes` are there or the file is complete; throws once the reader should stop. */
  waitFor(bytes: number): Promise<{ readonly available: number; readonly complete: boolean }>;
}

/**
 * Read a PCM WAV's header; null when the file is not one the direct reader handles. With a `feed`
 * (the file is still arriving), the frame count is the header's declared size, to be confirmed once
 * the file is complete (`readWavInfo` again without a feed); a streaming size waits for the whole file.
 */
export async function readWavInfo(file: string, feed?: ByteFeed): Promise<WavInfo | null> {
  let state = feed ? await feed.waitFor(HEAD_BYTES) : null;
  const fh = await open(file, 'r');
  try {
    const size = state ? state.available : (await fh.stat()).size;
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await fh.read(head, 0, head.length, 0);
    const header = parseWavHeader(head);
    if (!header) return null;
    if (state && !state.complete && header.dataBytes === null) state = await feed!.waitFor(Infinity);
    const { dataBytes: _d, blockAlign: _b, ...info } = header;
    const frames =
      state && !state.complete ? Math.floor(header.dataBytes! / header.blockAlign) : wavFrames(header, state ? state.available : size);
    return { ...info, frames };
  } finally {
    await fh.close();
  }
}

/** Options of the chunk readers. */
export interface WavReadOptions {
  /** Only the first round(headSeconds · rate) frames. */
  readonly headSeconds?: number;
  readonly signal?: AbortSignal;
  /** The file is still arriving: wait for its bytes. */
  readonly feed?: ByteFeed;
}

/**
 * Stream a PCM WAV's samples as interleaved float32, converting exactly as ffmpeg does
 * (u8: (x−128)/128; s16: x/2^15; s24: x/2^23; s32: x/2^31; f32 as stored), ~1 MB at a time. Each
 * array is only valid until the next one is requested: the output array is reused.
 */
export async function* readWavChunks(file: string, info: WavInfo, options: WavReadOptions = {}): AsyncGenerator<Float32Array> {
  // One output array for every chunk: allocating (and zeroing, then collecting) 2 MB per chunk cost as
  // much as the conversion itself, about 5 ms of a worker's CPU per minute of 44.1 kHz stereo.
  let out = new Float32Array(0);
  // 16-bit PCM, the common case, converts in the WebAssembly kernel into the converter's own memory.
  let pcm16: Pcm16ToFloat | null = null;
  for await (const bytes of readWavBytes(file, info, options)) {
    const samples = bytes.length / (info.bitsPerSample / 8);
    if (info.bitsPerSample === 16 && !info.float) {
      if (!pcm16 || pcm16.capacity < samples) pcm16 = new Pcm16ToFloat(samples);
      yield pcm16.convert(bytes);
      continue;
    }
    if (out.length < samples) out = new Float32Array(samples);
    yield convert(bytes, samples, info, out.subarray(0, samples));
  }
}

/**
 * Stream a 16-bit PCM WAV's samples as they are stored (interleaved; x stands for x/2^15). Each array
 * is only valid until the next one is requested: the read buffers are reused.
 */
export async function* readWavPcm16(file: string, info: WavInfo, options: WavReadOptions = {}): AsyncGenerator<Int16Array> {
  if (info.bitsPerSample !== 16 || info.float) throw new Error('readWavPcm16 needs 16-bit PCM');
  for await (const bytes of readWavBytes(file, info, options)) yield new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
}

/**
 * Whole frames of the data chunk, ~1 MB per read, with the next read already under way while the caller
 * works on the current chunk. Two read buffers alternate: a chunk is valid until the next is requested.
 */
async function* readWavBytes(file: string, info: WavInfo, options: WavReadOptions): AsyncGenerator<Buffer> {
  const frameBytes = (info.bitsPerSample / 8) * info.channels;
  const framesWanted = options.headSeconds ? Math.min(info.frames, Math.round(options.headSeconds * info.sampleRate)) : info.frames;
  const framesPerRead = Math.max(1, Math.floor((1 << 20) / frameBytes));
  const buffers = [Buffer.alloc(framesPerRead * frameBytes), Buffer.alloc(framesPerRead * frameBytes)];
  const fh = await open(file, 'r');
  let turn = 0;
  let requested = 0;
  /** The next read: its bytes (fewer than asked when the file ends early) and how many frames were asked. */
  const request = (): Promise<{ bytes: Buffer; frames: number }> | null => {
    const frames = Math.min(framesPerRead, framesWanted - requested);
    if (frames <= 0) return null;
    const start = info.dataOffset + requested * frameBytes;
    requested += frames;
    const buf = buffers[turn++ & 1]!;
    return (async () => {
      if (options.feed) await options.feed.waitFor(start + frames * frameBytes);
      const { bytesRead } = await fh.read(buf, 0, frames * frameBytes, start);
      return { bytes: buf.subarray(0, bytesRead - (bytesRead % frameBytes)), frames };
    })();
  };
  let pending = request();
  try {
    while (pending) {
      if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted');
      const { bytes, frames } = await pending;
      // A file shorter than its header said ends here.
      pending = bytes.length === frames * frameBytes ? request() : null;
      if (bytes.length > 0) yield bytes;
    }
  } finally {
    if (pending) await pending.catch(() => undefined);
    await fh.close();
  }
}

/** `samples` samples of `buf` (any PCM but 16-bit: see readWavChunks) as floats in `out` (full scale ±1). */
function convert(buf: Buffer, samples: number, info: WavInfo, out: Float32Array): Float32Array {
  if (info.float) {
    if (buf.byteOffset % 4 === 0) out.set(new Float32Array(buf.buffer, buf.byteOffset, samples));
    else for (let i = 0; i < samples; i++) out[i] = buf.readFloatLE(i * 4);
  } else if (info.bitsPerSample === 24) {
    for (let i = 0, o = 0; i < samples; i++, o += 3) out[i] = ((buf[o]! | (buf[o + 1]! << 8) | (buf[o + 2]! << 16)) << 8) / 2147483648;
  } else if (info.bitsPerSample === 32) {
    for (let i = 0; i < samples; i++) out[i] = buf.readInt32LE(i * 4) / 2147483648;
  } else {
    for (let i = 0; i < samples; i++) out[i] = (buf[i]! - 128) / 128;
  }
  return out;
}
