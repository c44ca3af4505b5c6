/** Synthesized test audio: every expected value in the audio tests is derived from these definitions. */

import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { wavHeader } from '../audio/decode/wav-reader.js';

export { sha256File } from '../shared/sha256-file.js';

/** dBFS (peak) to linear amplitude. */
export const dbToAmp = (db: number): number => 10 ** (db / 20);

/** A sine of `seconds` at `freq` Hz with peak `amp`, starting at `phase` radians. */
export function sine(sampleRate: number, seconds: number, freq: number, amp: number, phase = 0): Float32Array {
  const n = Math.round(seconds * sampleRate);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / sampleRate + phase);
  return out;
}

/** Segments of a 1 kHz sine at the given peak levels (dBFS), back to back, phase-continuous. */
export function toneSequence(
  sampleRate: number,
  segments: readonly { readonly seconds: number; readonly db: number }[],
  freq = 1000,
): Float32Array {
  const total = segments.reduce((n, s) => n + Math.round(s.seconds * sampleRate), 0);
  const out = new Float32Array(total);
  let i = 0;
  for (const s of segments) {
    const amp = s.db === -Infinity ? 0 : dbToAmp(s.db);
    const n = Math.round(s.seconds * sampleRate);
    for (let k = 0; k < n; k++, i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / sampleRate);
  }
  return out;
}

/** Interleave per-channel arrays (all the same length) into one array. */
export function interleave(channels: readonly Float32Array[]): Float32Array {
  const frames = channels[0]?.length ?? 0;
  const out = new Float32Array(frames * channels.length);
  for (let c = 0; c < channels.length; c++) {
    const ch = channels[c]!;
    for (let i = 0; i < frames; i++) out[i * channels.length + c] = ch[i]!;
  }
  return out;
}

/** Deterministic pseudo-random numbers in [-1, 1) (LCG), so noise fixtures are reproducible. */
export function seededNoise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

/** Encode per-channel float samples as a WAV file (16- or 24-bit PCM, or 32-bit float). */
export function encodeWav(channels: readonly Float32Array[], sampleRate: number, format: 'pcm16' | 'pcm24' | 'float32' = 'pcm16'): Buffer {
  const frames = channels[0]?.length ?? 0;
  const nch = channels.length;
  const bytesPer = format === 'pcm16' ? 2 : format === 'pcm24' ? 3 : 4;
  const dataBytes = frames * nch * bytesPer;
  const buf = Buffer.alloc(44 + dataBytes);
  wavHeader(sampleRate, nch, frames, format).copy(buf);
  let o = 44;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < nch; c++) {
      const v = Math.max(-1, Math.min(1, channels[c]![i]!));
      if (format === 'pcm16') buf.writeInt16LE(Math.round(v * 32767), o);
      else if (format === 'pcm24') buf.writeIntLE(Math.round(v * 8388607), o, 3);
      else buf.writeFloatLE(channels[c]![i]!, o);
      o += bytesPer;
    }
  }
  return buf;
}

/** Write a 16-bit stereo 44.1 kHz WAV of noise (incompressible), about `size` bytes in all, without holding it in memory. */
export function writeNoiseWav(file: string, size: number): void {
  const frames = Math.floor((size - 44) / 4);
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, wavHeader(44_100, 2, frames, 'pcm16'));
    for (let left = frames * 4; left > 0;) {
      const chunk = randomBytes(Math.min(left, 1 << 20));
      writeSync(fd, chunk);
      left -= chunk.length;
    }
  } finally {
    closeSync(fd);
  }
}
