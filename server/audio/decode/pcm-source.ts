import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import audioType from 'audio-type';
import { decodeChunked } from 'audio-decode';
import { AppError } from '../../http/errors.js';
import type { StreamFormat } from '../engine.js';
import { exactFramesFromHeader, probeWithFfmpeg } from './probe.js';
import { readWavChunks, readWavInfo } from './wav-reader.js';

/** Decoded audio as interleaved float32 chunks, with its format known before the first chunk. */
export interface PcmSource {
  readonly format: StreamFormat;
  /** Container/codec name for `source.format` (`wav`, `mp3`, `flac`, …). */
  readonly container: string;
  /** Duration of the whole file from the container, when it says (for clip-tier answers). */
  readonly durationS: number | null;
  /** Interleaved chunks in order; each call starts a fresh decode from the beginning. */
  chunks(options?: { readonly headSeconds?: number; readonly signal?: AbortSignal }): AsyncIterable<Float32Array>;
}

/** Which decoder to use: ffmpeg (streaming child process) or the built-in JS decoders. */
export type DecoderChoice = { readonly kind: 'ffmpeg'; readonly path: string } | { readonly kind: 'js' };

/**
 * Open a file for decoding. PCM WAV is read directly (exact, and no decoder process); anything else
 * goes to the chosen decoder. Undecodable input is a 415 `unsupported-media`.
 */
export async function openPcmSource(file: string, decoder: DecoderChoice, signal?: AbortSignal): Promise<PcmSource> {
  const wav = await readWavInfo(file);
  if (wav) {
    return {
      format: { sampleRate: wav.sampleRate, channels: wav.channels, channelLayout: wav.channelLayout, totalFrames: wav.frames },
      container: 'wav',
      durationS: wav.frames / wav.sampleRate,
      chunks: (o = {}) => readWavChunks(file, wav, { ...o, signal: o.signal ?? signal }),
    };
  }
  if (decoder.kind === 'ffmpeg') {
    const info = await probeWithFfmpeg(decoder.path, file, signal);
    const format: StreamFormat = { sampleRate: info.sampleRate, channels: info.channels, channelLayout: info.channelLayout, totalFrames: info.exactFrames };
    return {
      format,
      container: containerName(info.container, info.codec),
      durationS: info.exactFrames !== null ? info.exactFrames / info.sampleRate : info.durationS,
      chunks: (o = {}) => decodeWithFfmpeg(decoder.path, file, format, o.headSeconds, o.signal ?? signal),
    };
  }
  return openWithJs(file, signal);
}

/** A short, stable name for `source.format`. */
function containerName(container: string, codec: string): string {
  if (container.startsWith('mov,mp4')) return codec === 'alac' ? 'alac' : 'mp4';
  if (container === 'ogg') return codec;
  return container.split(',')[0] ?? container;
}

/**
 * Stream f32le PCM from an ffmpeg child. Sample rate and channel count are forced to the probed
 * values so the byte stream always matches `format`; chunks are re-aligned to whole frames.
 */
export async function* decodeWithFfmpeg(
  ffmpegPath: string,
  file: string,
  format: Pick<StreamFormat, 'sampleRate' | 'channels'>,
  headSeconds?: number,
  signal?: AbortSignal,
): AsyncGenerator<Float32Array> {
  const args = ['-v', 'error', '-nostdin', '-i', file, '-map', '0:a:0', ...(headSeconds ? ['-t', String(headSeconds)] : []), '-f', 'f32le', '-acodec', 'pcm_f32le', '-ar', String(format.sampleRate), '-ac', String(format.channels), 'pipe:1'];
  const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 8192) stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const onAbort = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });
  const frameBytes = 4 * format.channels;
  let carry: Buffer | null = null;
  try {
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      const bytes: Buffer = carry ? Buffer.concat([carry, data]) : data;
      const usable = bytes.length - (bytes.length % frameBytes);
      carry = usable < bytes.length ? Buffer.from(bytes.subarray(usable)) : null;
      if (usable === 0) continue;
      // Copy into an aligned Float32Array (pipe buffers need not be 4-byte aligned).
      const out = new Float32Array(usable / 4);
      new Uint8Array(out.buffer).set(bytes.subarray(0, usable));
      yield out;
    }
    const code = await exited;
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (code !== 0) {
      const reason = stderr.trim().split('\n').pop() ?? `ffmpeg exited ${code}`;
      throw new AppError('unsupported-media', `The audio could not be decoded: ${reason}`, { code: 'undecodable' });
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

type JsFormat = Parameters<typeof decodeChunked>[1];
const jsFormats: readonly string[] = ['mp3', 'flac', 'opus', 'oga', 'm4a', 'wav', 'qoa', 'aac', 'aiff', 'caf', 'webm', 'amr', 'wma'];

/** The pure-JS fallback (audio-decode's WASM/JS codecs), streaming chunk by chunk. */
async function openWithJs(file: string, signal?: AbortSignal): Promise<PcmSource> {
  const fh = await open(file, 'r');
  const head = Buffer.alloc(4096);
  try {
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  const kind = audioType(new Uint8Array(head));
  if (!kind || !jsFormats.includes(kind)) {
    throw new AppError('unsupported-media', `The file could not be decoded as audio${kind ? ` (${kind} needs ffmpeg)` : ''}. Install ffmpeg for more formats.`, { code: 'undecodable' });
  }
  const stream = (headSeconds?: number, s?: AbortSignal) => decodeJs(file, kind as JsFormat, headSeconds, s ?? signal);
  // The format comes from the first decoded chunk.
  const first = await stream(undefined, signal)[Symbol.asyncIterator]().next();
  if (first.done || !first.value) throw new AppError('unsupported-media', 'The file could not be decoded as audio (no audio frames).', { code: 'undecodable' });
  const { sampleRate, channels } = first.value;
  const exact = await exactFramesFromHeader(file, sampleRate);
  return {
    format: { sampleRate, channels, channelLayout: null, totalFrames: exact },
    container: kind === 'oga' ? 'ogg' : kind,
    durationS: exact !== null ? exact / sampleRate : null,
    async *chunks(o = {}) {
      for await (const c of stream(o.headSeconds, o.signal)) yield c.samples;
    },
  };
}

async function* decodeJs(file: string, kind: JsFormat, headSeconds: number | undefined, signal: AbortSignal | undefined): AsyncGenerator<{ samples: Float32Array; sampleRate: number; channels: number }> {
  let framesLeft = Infinity;
  try {
    for await (const data of decodeChunked(createReadStream(file, { signal }), kind)) {
      const channels = data.channelData.length;
      const frames = data.channelData[0]?.length ?? 0;
      if (channels === 0 || frames === 0) continue;
      if (framesLeft === Infinity && headSeconds) framesLeft = Math.round(headSeconds * data.sampleRate);
      const take = Math.min(frames, framesLeft);
      const out = new Float32Array(take * channels);
      for (let c = 0; c < channels; c++) {
        const src = data.channelData[c]!;
        for (let i = 0; i < take; i++) out[i * channels + c] = src[i]!;
      }
      yield { samples: out, sampleRate: data.sampleRate, channels };
      framesLeft -= take;
      if (framesLeft <= 0) return;
    }
  } catch (error) {
    if (error instanceof AppError || signal?.aborted) throw error;
    throw new AppError('unsupported-media', `The audio could not be decoded: ${error instanceof Error ? error.message : String(error)}`, { code: 'undecodable' });
  }
}
