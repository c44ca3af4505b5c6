import { spawn } from 'node:child_process';
import { AppError } from '../../http/errors.js';
import type { StreamFormat } from '../engines/engine.js';
import { ffmpegInputArgs } from './ffmpeg-input.js';

/** How to run one ffmpeg decode. */
export interface FfmpegDecodeOptions {
  /** Decode only about this many seconds from the start. */
  readonly headSeconds?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Options placed before `-i` (the demuxer's), e.g. where to start reading. */
  readonly inputOptions?: readonly string[];
}

/** What a decode must know of its input: the probed format, including the demuxer that recognised it. */
export type FfmpegInputFormat = Pick<StreamFormat, 'sampleRate' | 'channels'> & {
  /** The demuxer the probe named (forced with `-f`; see ffmpeg-input.ts). */
  readonly demuxer: string;
};

/**
 * Stream f32le PCM from an ffmpeg child. Sample rate and channel count are forced to the probed
 * values so the byte stream always matches `format`; chunks are re-aligned to whole frames.
 */
export async function* decodeWithFfmpeg(
  ffmpegPath: string,
  file: string,
  format: FfmpegInputFormat,
  options: FfmpegDecodeOptions = {},
): AsyncGenerator<Float32Array> {
  const { headSeconds, signal, inputOptions = [] } = options;
  const args = [
    '-v',
    'error',
    '-nostdin',
    ...ffmpegInputArgs(file, { demuxer: format.demuxer, options: inputOptions }),
    '-map',
    '0:a:0',
    ...(headSeconds ? ['-t', String(headSeconds)] : []),
    '-f',
    'f32le',
    '-acodec',
    'pcm_f32le',
    '-ar',
    String(format.sampleRate),
    '-ac',
    String(format.channels),
    'pipe:1',
  ];
  const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 8192) stderr += d;
  });
  // A decoder that cannot start (gone from disk, no processes left) is an error event: without a listener it would end the thread.
  let startError: Error | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('error', (error) => {
      startError = error;
      resolve(null);
    });
  });
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
      if (bytes.byteOffset % 4 === 0) {
        // Each pipe read is a Buffer of its own, usually 4-byte aligned: read the floats in place.
        yield new Float32Array(bytes.buffer, bytes.byteOffset, usable / 4);
        continue;
      }
      // Otherwise copy into an aligned Float32Array.
      const out = new Float32Array(usable / 4);
      new Uint8Array(out.buffer).set(bytes.subarray(0, usable));
      yield out;
    }
    const code = await exited;
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (startError)
      throw new AppError('unavailable', `The audio decoder (ffmpeg) could not be started: ${startError.message}`, {
        code: 'decoder-unavailable',
      });
    if (code !== 0) {
      const reason = stderr.trim().split('\n').pop() ?? `ffmpeg exited ${code}`;
      throw new AppError('unsupported-media', `The audio could not be decoded: ${reason}`, { code: 'undecodable' });
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
