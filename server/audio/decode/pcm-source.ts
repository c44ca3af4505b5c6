import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import audioType from 'audio-type';
import { decodeChunked } from 'audio-decode';
import { AppError } from '../../http/errors.js';
import type { LengthEstimate, StreamFormat } from '../engines/engine.js';
import { fileIdentity, decodeRemembered, fitsDecodedMemo } from './decoded-memo.js';
import { decodeWithFfmpeg, type FfmpegInputFormat } from './ffmpeg-decode.js';
import { requireAnalysableFormat, requireFiniteSamples } from './format-limits.js';
import { decodeMp3Range } from './mp3-range.js';
import { exactFramesFromHeader, probeWithFfmpeg, readFlacStreamInfo, readMp3Info, type FlacStreamInfo, type ProbeInfo } from './probe.js';
import { readWavChunks, readWavInfo, readWavPcm16, type ByteFeed } from './wav-reader.js';

/** Decoded audio as interleaved float32 chunks, with its format known before the first chunk. */
export interface PcmSource {
  readonly format: StreamFormat;
  /** Container/codec name for `source.format` (`wav`, `mp3`, `flac`, …). */
  readonly container: string;
  /** Duration of the whole file from the container, when it says (for clip-tier answers). */
  readonly durationS: number | null;
  /** Read directly (a PCM WAV): cheap to read again, no decoder process. */
  readonly direct: boolean;
  /** When format.totalFrames is unknown: the decoded length expected, from the container's tags. */
  readonly lengthEstimate: LengthEstimate | null;
  /** Interleaved chunks in order, each valid until the next is requested; each call starts a fresh decode. */
  chunks(options?: { readonly headSeconds?: number; readonly signal?: AbortSignal }): AsyncIterable<Float32Array>;
  /**
   * 16-bit PCM sources only (null otherwise): the stored integers, interleaved (x stands for x/2^15),
   * each array valid until the next is requested. The same samples as `chunks`, without converting.
   */
  readonly pcm16: ((options?: { readonly headSeconds?: number; readonly signal?: AbortSignal }) => AsyncIterable<Int16Array>) | null;
  /**
   * Tagged MP3s decoded by ffmpeg (null otherwise): the length the tags state, and frames [from, to)
   * of the stream decoded on their own, so parts of one file can decode on several cores at once. A
   * range that does not match the tags throws RangeMismatch (decode/mp3-range.ts).
   */
  readonly ranges: PcmRanges | null;
  /**
   * Whether `format` and `durationS` hold for the complete file. Always true unless the source was
   * opened while its file was still arriving (then the header's declared length was assumed, and this
   * waits for the whole file to check it).
   */
  confirm(): Promise<boolean>;
}

/** Independent decodes of parts of one stream (see PcmSource.ranges). */
export interface PcmRanges {
  readonly totalFrames: number;
  decode(from: number, to: number, signal?: AbortSignal): AsyncIterable<Float32Array>;
}

/** How to open a source: its cancellation, and a feed when the file is still being written. */
export interface OpenOptions {
  readonly signal?: AbortSignal;
  readonly feed?: ByteFeed;
  /**
   * A tagged MP3 may skip ffmpeg's probe (one process start, ~50 ms): its format and length come from
   * its first frame and gapless tags. `durationS` is then that gapless length, not the container
   * duration ffmpeg reports (which includes the padding), so only callers that take the length from the
   * decode itself (full-track analyses) ask for this.
   */
  readonly skipProbe?: boolean;
}

/** Which decoder to use: ffmpeg (streaming child process) or the built-in JS decoders. */
export type DecoderChoice = { readonly kind: 'ffmpeg'; readonly path: string } | { readonly kind: 'js' };

/**
 * Open a file for decoding. PCM WAV is read directly (exact, and no decoder process); anything else
 * goes to the chosen decoder. Undecodable input is a 415 `unsupported-media`. With a `feed`, a WAV is
 * read while it arrives; other formats wait for the whole file first.
 */
export async function openPcmSource(file: string, decoder: DecoderChoice, options: OpenOptions = {}): Promise<PcmSource> {
  const { signal, feed, skipProbe = false } = options;
  const wav = await readWavInfo(file, feed);
  if (wav) {
    requireAnalysableFormat(wav);
    const pcm16 = wav.bitsPerSample === 16 && !wav.float;
    return {
      format: { sampleRate: wav.sampleRate, channels: wav.channels, channelLayout: wav.channelLayout, totalFrames: wav.frames },
      container: 'wav',
      direct: true,
      durationS: wav.frames / wav.sampleRate,
      lengthEstimate: null,
      ranges: null,
      chunks: (o = {}) => {
        const chunks = readWavChunks(file, wav, { ...o, signal: o.signal ?? signal, ...(feed ? { feed } : {}) });
        return wav.float ? requireFiniteSamples(chunks) : chunks;
      },
      pcm16: pcm16 ? (o = {}) => readWavPcm16(file, wav, { ...o, signal: o.signal ?? signal, ...(feed ? { feed } : {}) }) : null,
      async confirm() {
        if (!feed) return true;
        await feed.waitFor(Infinity);
        const whole = await readWavInfo(file);
        return whole !== null && whole.frames === wav.frames && whole.dataOffset === wav.dataOffset;
      },
    };
  }
  if (feed) await feed.waitFor(Infinity);
  const always = async () => true;
  if (decoder.kind === 'ffmpeg') {
    const flac = await readFlacStreamInfo(file);
    if (flac && decodesInProcess(flac)) return openFlacInProcess(file, flac, decoder.path, signal);
    const mp3 = skipProbe ? await readMp3Info(file) : null;
    if (mp3) {
      requireAnalysableFormat(mp3);
      // A tagged MP3 states its format and (to be confirmed by the decode) its length: no probe needed.
      const format: StreamFormat = {
        sampleRate: mp3.sampleRate,
        channels: mp3.channels,
        channelLayout: mp3.channels === 1 ? 'mono' : 'stereo',
        totalFrames: null,
      };
      const input = { ...format, demuxer: 'mp3' };
      return {
        format,
        container: 'mp3',
        direct: false,
        durationS: mp3.frames / mp3.sampleRate,
        lengthEstimate: { frames: mp3.frames, tolerance: 1152 },
        ranges: {
          totalFrames: mp3.frames,
          decode: (from, to, s) => requireFiniteSamples(decodeMp3Range(decoder.path, file, mp3, from, to, s ?? signal)),
        },
        chunks: (o = {}) => decodeOnce(decoder.path, file, input, mp3.frames, o.headSeconds, o.signal ?? signal),
        pcm16: null,
        confirm: always,
      };
    }
    const info = await probeWithFfmpeg(decoder.path, file, signal);
    requireAnalysableFormat(info);
    const format: StreamFormat = {
      sampleRate: info.sampleRate,
      channels: info.channels,
      channelLayout: info.channelLayout,
      totalFrames: info.exactFrames,
    };
    const container = containerName(info.container, info.codec);
    const input = { ...format, demuxer: info.container };
    return {
      format,
      container,
      direct: false,
      durationS: info.exactFrames !== null ? info.exactFrames / info.sampleRate : info.durationS,
      lengthEstimate: info.exactFrames !== null ? null : estimateLength(info),
      ranges: null,
      chunks: (o = {}) =>
        decodeOnce(
          decoder.path,
          file,
          input,
          info.exactFrames ?? (info.durationS ?? 0) * info.sampleRate,
          o.headSeconds,
          o.signal ?? signal,
        ),
      pcm16: null,
      confirm: always,
    };
  }
  return { ...(await openWithJs(file, signal)), direct: false, lengthEstimate: null, ranges: null, pcm16: null, confirm: always };
}

/** ffmpeg's decode of a file, every sample checked finite. */
function decodeByFfmpeg(
  ffmpegPath: string,
  file: string,
  input: FfmpegInputFormat,
  headSeconds: number | undefined,
  signal: AbortSignal | undefined,
): AsyncIterable<Float32Array> {
  return requireFiniteSamples(decodeWithFfmpeg(ffmpegPath, file, input, { headSeconds, signal }));
}

/** An ffmpeg decode, replayed from this thread's memory when the same short file was decoded whole just before (decoded-memo.ts). */
async function* decodeOnce(
  ffmpegPath: string,
  file: string,
  input: FfmpegInputFormat,
  expectedFrames: number,
  headSeconds: number | undefined,
  signal: AbortSignal | undefined,
): AsyncGenerator<Float32Array> {
  const decode = () => decodeByFfmpeg(ffmpegPath, file, input, headSeconds, signal);
  // A file the memo would not keep anyway (a track, not a sample) is not copied chunk by chunk.
  if (!fitsDecodedMemo(expectedFrames * input.channels * 4)) return yield* decode();
  const identity = await fileIdentity(file, `${ffmpegPath}\n${input.demuxer}\n${input.sampleRate}\n${input.channels}`);
  yield* decodeRemembered({ identity, sampleRate: input.sampleRate, channels: input.channels, headSeconds, signal }, decode);
}

/** The longest FLAC decoded in the server's own thread (a sample, not a track: ffmpeg is faster on long files). */
const inProcessFlacSeconds = 30;

/**
 * Whether a FLAC is decoded in process instead of by ffmpeg: a short 16-bit mono or stereo file with a
 * stated length. For those the WebAssembly decoder gives ffmpeg's samples exactly (after rescaling, see
 * decodeFlacWhole), and a sample's analyses then start no process at all.
 */
function decodesInProcess(info: FlacStreamInfo): boolean {
  return (
    info.bitsPerSample === 16 &&
    (info.channels === 1 || info.channels === 2) &&
    info.frames > 0 &&
    info.sampleRate > 0 &&
    info.frames <= inProcessFlacSeconds * info.sampleRate
  );
}

/** A short FLAC decoded in process (decodesInProcess), falling back to ffmpeg wherever the two could differ. */
function openFlacInProcess(file: string, info: FlacStreamInfo, ffmpegPath: string, signal: AbortSignal | undefined): PcmSource {
  requireAnalysableFormat(info);
  const { sampleRate, channels, frames } = info;
  const input: FfmpegInputFormat = { sampleRate, channels, demuxer: 'flac' };
  return {
    format: { sampleRate, channels, channelLayout: channels === 1 ? 'mono' : 'stereo', totalFrames: frames },
    container: 'flac',
    direct: false,
    durationS: frames / sampleRate,
    lengthEstimate: null,
    ranges: null,
    pcm16: null,
    confirm: async () => true,
    async *chunks(o = {}) {
      const s = o.signal ?? signal;
      // ffmpeg's -t trims a longer file at a point of its own choosing: a head within the file is left to it.
      if (o.headSeconds !== undefined && frames >= Math.floor((o.headSeconds - 0.01) * sampleRate)) {
        yield* decodeOnce(ffmpegPath, file, input, frames, o.headSeconds, s);
        return;
      }
      const identity = await fileIdentity(file, `in-process flac\n${sampleRate}\n${channels}`);
      yield* decodeRemembered({ identity, sampleRate, channels, headSeconds: o.headSeconds, signal: s }, async function* () {
        const whole = await decodeFlacWhole(file, info, s);
        if (!whole) return yield* decodeByFfmpeg(ffmpegPath, file, input, undefined, s);
        // In pieces the size of ffmpeg's pipe reads (64 KiB), as the engines are used to.
        for (let at = 0; at < whole.length; at += 16_384) yield whole.subarray(at, at + 16_384);
      });
    },
  };
}

/**
 * The whole of a short 16-bit FLAC, interleaved, as ffmpeg gives it (integer / 32768), or null when the
 * WebAssembly decoder fails or disagrees with STREAMINFO (the caller then asks ffmpeg). The decoder scales
 * by 1/32767; each value is an exact integer step, so rounding back and dividing by 32768 is exact.
 */
async function decodeFlacWhole(file: string, info: FlacStreamInfo, signal: AbortSignal | undefined): Promise<Float32Array | null> {
  const expected = info.frames * info.channels;
  // Memory follows what really decodes, not what a (possibly lying) STREAMINFO claims.
  const parts: Float32Array[] = [];
  let total = 0;
  try {
    for await (const chunk of decodeJs(file, 'flac', undefined, signal)) {
      if (chunk.channels !== info.channels || chunk.sampleRate !== info.sampleRate || total + chunk.samples.length > expected) return null;
      const samples = chunk.samples; // a fresh array per chunk (decodeJs): rescaled in place
      for (let i = 0; i < samples.length; i++) {
        const v = Math.round(samples[i]! * 32767) / 32768;
        if (!Number.isFinite(v)) return null;
        samples[i] = v;
      }
      parts.push(samples);
      total += samples.length;
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    return null;
  }
  if (total !== expected) return null;
  const out = new Float32Array(expected);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * The decoded length of a lossy file, approximately: the container's duration (printed to 10 ms; MP3
 * durations include the encoder's padding), within 0.2 s.
 */
function estimateLength(info: ProbeInfo): LengthEstimate | null {
  return info.durationS !== null
    ? { frames: Math.round(info.durationS * info.sampleRate), tolerance: Math.ceil(0.2 * info.sampleRate) }
    : null;
}

/** A short, stable name for `source.format`. */
function containerName(container: string, codec: string): string {
  if (container.startsWith('mov,mp4')) return codec === 'alac' ? 'alac' : 'mp4';
  if (container === 'ogg') return codec;
  return container.split(',')[0] ?? container;
}

type JsFormat = Parameters<typeof decodeChunked>[1];
const jsFormats: readonly string[] = ['mp3', 'flac', 'opus', 'oga', 'm4a', 'wav', 'qoa', 'aac', 'aiff', 'caf', 'webm', 'amr', 'wma'];

/** The pure-JS fallback (audio-decode's WASM/JS codecs), streaming chunk by chunk. */
async function openWithJs(
  file: string,
  signal?: AbortSignal,
): Promise<Omit<PcmSource, 'direct' | 'pcm16' | 'confirm' | 'lengthEstimate' | 'ranges'>> {
  const fh = await open(file, 'r');
  const head = Buffer.alloc(4096);
  try {
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  const kind = audioType(new Uint8Array(head));
  if (!kind || !jsFormats.includes(kind)) {
    throw new AppError(
      'unsupported-media',
      `The file could not be decoded as audio${kind ? ` (${kind} needs ffmpeg)` : ''}. Install ffmpeg for more formats.`,
      { code: 'undecodable' },
    );
  }
  const stream = (headSeconds?: number, s?: AbortSignal) => decodeJs(file, kind as JsFormat, headSeconds, s ?? signal);
  // The format comes from the first decoded chunk.
  const first = await stream(undefined, signal)[Symbol.asyncIterator]().next();
  if (first.done || !first.value)
    throw new AppError('unsupported-media', 'The file could not be decoded as audio (no audio frames).', { code: 'undecodable' });
  const { sampleRate, channels } = first.value;
  requireAnalysableFormat(first.value);
  const exact = await exactFramesFromHeader(file, sampleRate);
  return {
    format: { sampleRate, channels, channelLayout: null, totalFrames: exact },
    container: kind === 'oga' ? 'ogg' : kind,
    durationS: exact !== null ? exact / sampleRate : null,
    async *chunks(o = {}) {
      async function* samples() {
        for await (const c of stream(o.headSeconds, o.signal)) yield c.samples;
      }
      yield* requireFiniteSamples(samples());
    },
  };
}

async function* decodeJs(
  file: string,
  kind: JsFormat,
  headSeconds: number | undefined,
  signal: AbortSignal | undefined,
): AsyncGenerator<{ samples: Float32Array; sampleRate: number; channels: number }> {
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
    throw new AppError('unsupported-media', `The audio could not be decoded: ${error instanceof Error ? error.message : String(error)}`, {
      code: 'undecodable',
    });
  }
}
