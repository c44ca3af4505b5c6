import { decodeWithFfmpeg, type FfmpegInputFormat } from './ffmpeg-decode.js';
import { walkMp3Frames } from './mp3-frames.js';
import type { Mp3Info } from './probe.js';

/** A range's decode did not deliver what the tags promised (a damaged or re-tagged file): decode the whole file instead. */
export class RangeMismatch extends Error {}

/**
 * Frames decoded before a range's first sample and thrown away. An MP3 decoder's state is short: the
 * bit reservoir (main data up to 511 bytes back, ISO/IEC 11172-3 §2.4.3.4.2), the IMDCT overlap (one
 * granule) and the synthesis filterbank (512 subband samples). Starting at least this many frames and
 * priming bytes early, the decoder reaches the frame it is asked for in exactly the state a decode from
 * the start has, so the samples are identical bit for bit (measured: they agree from the second frame on).
 */
const primingFrames = 4;
const primingBytes = 1024;

/**
 * Frames [from, to) of a tagged MP3's gapless stream (the samples ffmpeg gives for the whole file), from
 * a decode of its own: range 0 from the start, later ranges from a few frames before their first sample
 * (`-skip_initial_bytes`, no gapless trim) with those frames dropped. Several ranges decode in parallel
 * on separate cores. Throws RangeMismatch when the file does not hold the frames its tag counts.
 */
export async function* decodeMp3Range(
  ffmpegPath: string,
  file: string,
  info: Mp3Info,
  from: number,
  to: number,
  signal?: AbortSignal,
): AsyncGenerator<Float32Array> {
  const format: FfmpegInputFormat = { sampleRate: info.sampleRate, channels: info.channels, demuxer: 'mp3' };
  const channels = info.channels;
  const want = to - from;
  let skip = 0;
  let inputOptions: readonly string[] = [];
  let first = 0;
  if (from > 0) {
    const spf = info.samplesPerFrame;
    const target = Math.floor((from + info.startSkip) / spf);
    const offsets = await walkMp3Frames(file, info.firstPacketOffset, target);
    if (!offsets) throw new RangeMismatch(`frame headers break before frame ${target}`);
    first = Math.max(0, target - primingFrames);
    while (first > 0 && offsets[target - primingFrames + 1]! - offsets[first]! < primingBytes) first--;
    skip = from + info.startSkip - first * spf;
    inputOptions = ['-skip_initial_bytes', String(offsets[first]!)];
  }
  const last = to === info.frames;
  let seen = 0; // frames decoded, skipped ones included
  let given = 0;
  for await (const chunk of decodeWithFfmpeg(ffmpegPath, file, format, { signal, inputOptions })) {
    const frames = chunk.length / channels;
    const start = Math.max(0, skip - seen);
    const take = Math.min(frames - start, want - given);
    seen += frames;
    if (take > 0) {
      yield start === 0 && take === frames ? chunk : chunk.subarray(start * channels, (start + take) * channels);
      given += take;
    }
    if (given === want && !last) return; // the rest belongs to the next range: stop this decoder
  }
  if (given !== want) throw new RangeMismatch(`decoded ${given} of ${want} frames`);
  // The last range read to the end: every frame the tag counts was there (the end padding follows).
  if (from > 0 && seen !== (info.packets - first) * info.samplesPerFrame)
    throw new RangeMismatch(`the file holds ${seen / info.samplesPerFrame} frames after frame ${first}, not ${info.packets - first}`);
}
