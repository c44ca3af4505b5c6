import { open } from 'node:fs/promises';

/** One MPEG audio Layer III frame header (ISO/IEC 11172-3 §2.4.2.3; ISO/IEC 13818-3 for 16–24 kHz, MPEG 2.5 for 8–12 kHz). */
export interface Mp3FrameHeader {
  /** Length of the whole frame in bytes, header included. */
  readonly bytes: number;
  readonly samplesPerFrame: 1152 | 576;
  readonly sampleRate: number;
  readonly channels: 1 | 2;
}

const baseRates = [44_100, 48_000, 32_000] as const;
/** kbit/s by bitrate index: MPEG-1 Layer III, then MPEG-2/2.5 Layer III (index 0 is free format, unsupported). */
const mpeg1Rates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320] as const;
const lsfRates = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160] as const;

/** The Layer III frame header at `at`, or null when there is none (no sync, another layer, free format, reserved values). */
export function parseMp3FrameHeader(b: Uint8Array, at: number): Mp3FrameHeader | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return null;
  const version = (b[at + 1]! >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5, 1 reserved
  const layer = (b[at + 1]! >> 1) & 3; // 1 Layer III
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  if (version === 1 || layer !== 1 || rateIndex === 3 || bitrateIndex === 0 || bitrateIndex === 15) return null;
  const mpeg1 = version === 3;
  const sampleRate = baseRates[rateIndex]! / (mpeg1 ? 1 : version === 2 ? 2 : 4);
  const kbps = (mpeg1 ? mpeg1Rates : lsfRates)[bitrateIndex]!;
  const padding = (b[at + 2]! >> 1) & 1;
  // Slots per frame: 144 × bitrate / rate for 1152 samples, half that for the 576-sample LSF frames.
  const bytes = Math.floor(((mpeg1 ? 144_000 : 72_000) * kbps) / sampleRate) + padding;
  return { bytes, samplesPerFrame: mpeg1 ? 1152 : 576, sampleRate, channels: b[at + 3]! >> 6 === 3 ? 1 : 2 };
}

/**
 * Byte offsets of frames 0..last, walking the headers from `firstOffset`, or null when the chain breaks
 * before `last` (lost sync, a change of sample rate or channel count: nothing to split safely).
 */
export async function walkMp3Frames(file: string, firstOffset: number, last: number): Promise<Float64Array | null> {
  const offsets = new Float64Array(last + 1);
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let bufStart = 0;
    let bufLength = 0;
    let at = firstOffset;
    let first: Mp3FrameHeader | null = null;
    for (let i = 0; i <= last; i++) {
      if (at + 4 > bufStart + bufLength) {
        bufStart = at;
        bufLength = (await fh.read(buf, 0, buf.length, at)).bytesRead;
      }
      const header = parseMp3FrameHeader(buf.subarray(0, bufLength), at - bufStart);
      if (!header) return null;
      first ??= header;
      if (header.sampleRate !== first.sampleRate || header.channels !== first.channels) return null;
      offsets[i] = at;
      at += header.bytes;
    }
    return offsets;
  } finally {
    await fh.close();
  }
}
