import { open } from 'node:fs/promises';

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

/**
 * Parse a RIFF/WAVE header (PCM 8/16/24/32-bit integer or 32-bit float, plain or EXTENSIBLE).
 * Null for anything else (RF64, compressed WAV, malformed), which then goes to ffmpeg.
 */
export async function readWavInfo(file: string): Promise<WavInfo | null> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(Math.min(size, 1 << 16));
    await fh.read(head, 0, head.length, 0);
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
        if ((tag !== 1 && tag !== 3) || channels < 1 || sampleRate < 1 || ![8, 16, 24, 32].includes(bits) || (float && bits !== 32)) return null;
        if (blockAlign !== channels * (bits / 8)) return null;
        fmt = { sampleRate, channels, channelLayout: layout, bitsPerSample: bits as WavInfo['bitsPerSample'], float };
      } else if (id === 'data') {
        if (!fmt) return null;
        // Streaming writers leave the size at 0 or 0xFFFFFFFF; like ffmpeg, read to the end of the file.
        const available = size - body;
        const bytes = len === 0 || len === 0xffffffff ? available : Math.min(len, available);
        return { ...fmt, dataOffset: body, frames: Math.floor(bytes / blockAlign) };
      }
      offset = body + len + (len & 1);
    }
    return null;
  } finally {
    await fh.close();
  }
}

/**
 * Stream a PCM WAV's samples as interleaved float32, converting exactly as ffmpeg does
 * (u8: (x−128)/128; s16: x/2^15; s24: x/2^23; s32: x/2^31; f32 as stored), ~1 MB at a time.
 */
export async function* readWavChunks(file: string, info: WavInfo, options: { readonly headSeconds?: number; readonly signal?: AbortSignal } = {}): AsyncGenerator<Float32Array> {
  const bytesPer = info.bitsPerSample / 8;
  const frameBytes = bytesPer * info.channels;
  const framesWanted = options.headSeconds ? Math.min(info.frames, Math.round(options.headSeconds * info.sampleRate)) : info.frames;
  const framesPerRead = Math.max(1, Math.floor((1 << 20) / frameBytes));
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(framesPerRead * frameBytes);
    for (let done = 0; done < framesWanted; ) {
      if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted');
      const frames = Math.min(framesPerRead, framesWanted - done);
      const { bytesRead } = await fh.read(buf, 0, frames * frameBytes, info.dataOffset + done * frameBytes);
      const got = Math.floor(bytesRead / frameBytes);
      if (got === 0) break;
      yield convert(buf, got * info.channels, info);
      done += got;
    }
  } finally {
    await fh.close();
  }
}

function convert(buf: Buffer, samples: number, info: WavInfo): Float32Array {
  const out = new Float32Array(samples);
  if (info.float) {
    for (let i = 0; i < samples; i++) out[i] = buf.readFloatLE(i * 4);
  } else if (info.bitsPerSample === 16) {
    const view = new Int16Array(buf.buffer, buf.byteOffset, samples);
    if (buf.byteOffset % 2 === 0) for (let i = 0; i < samples; i++) out[i] = view[i]! / 32768;
    else for (let i = 0; i < samples; i++) out[i] = buf.readInt16LE(i * 2) / 32768;
  } else if (info.bitsPerSample === 24) {
    for (let i = 0, o = 0; i < samples; i++, o += 3) out[i] = ((buf[o]! | (buf[o + 1]! << 8) | (buf[o + 2]! << 16)) << 8) / 2147483648;
  } else if (info.bitsPerSample === 32) {
    for (let i = 0; i < samples; i++) out[i] = buf.readInt32LE(i * 4) / 2147483648;
  } else {
    for (let i = 0; i < samples; i++) out[i] = (buf[i]! - 128) / 128;
  }
  return out;
}
