import { execFile } from 'node:child_process';
import { open } from 'node:fs/promises';
import { AppError } from '../../http/errors.js';
import { fileIdentity } from './decoded-memo.js';
import { findRefusalInReport, ffmpegInputArgs, requireAllowedDemuxer } from './ffmpeg-input.js';
import { parseMp3FrameHeader } from './mp3-frames.js';

/** What a file holds, as far as decoding needs to know before the first sample. */
export interface ProbeInfo {
  /** Container as ffmpeg names it (`wav`, `mp3`, `flac`, `ogg`, `mov,mp4,m4a,3gp,3g2,mj2`, …). */
  readonly container: string;
  readonly codec: string;
  readonly sampleRate: number;
  readonly channels: number;
  readonly channelLayout: string | null;
  /** Duration from the container (estimated for some lossy formats). */
  readonly durationS: number | null;
  /** Exact frame count when the header states it (PCM WAV, FLAC); otherwise null. */
  readonly exactFrames: number | null;
}

/** Probes of the files this thread analysed last, by file identity (see probeWithFfmpeg). */
const probed = new Map<string, ProbeInfo>();
const probedLimit = 64;

/**
 * Probe with ffmpeg (`ffmpeg -i`, stderr parsed) plus an exact frame count from WAV/FLAC headers. A file
 * probed before by this thread, unchanged (same path, device, inode, size and modification time), is
 * answered from memory: a library summary analyses one file five times, and starting ffmpeg is most of
 * the cost of a short sample's analysis (~170 ms here). Only successful probes are kept.
 */
export async function probeWithFfmpeg(ffmpegPath: string, file: string, signal?: AbortSignal): Promise<ProbeInfo> {
  const key = await fileIdentity(file, ffmpegPath);
  const known = probed.get(key);
  if (known) {
    probed.delete(key); // most recently used last
    probed.set(key, known);
    return known;
  }
  const report = parseFfmpegProbe(await readFfmpegReport(ffmpegPath, file, { signal, timeoutMs: 30_000 }));
  const info = { ...report, exactFrames: await exactFramesFromHeader(file, report.sampleRate) };
  probed.set(key, info);
  if (probed.size > probedLimit) probed.delete(probed.keys().next().value!);
  return info;
}

/**
 * What `ffmpeg -i` prints about `file` (its stderr), opened through ffmpegInputArgs (file protocol and
 * allowed demuxers only). A container the allow-list refuses is a 415 naming it.
 */
export async function readFfmpegReport(
  ffmpegPath: string,
  file: string,
  options: { readonly signal?: AbortSignal | undefined; readonly timeoutMs: number },
): Promise<string> {
  const stderr = await new Promise<string>((resolve, reject) => {
    execFile(
      ffmpegPath,
      ['-hide_banner', '-nostdin', ...ffmpegInputArgs(file)],
      { timeout: options.timeoutMs, signal: options.signal, maxBuffer: 4 * 1024 * 1024 },
      (error, _stdout, err) => {
        // ffmpeg exits 1 here ("At least one output file must be specified"); the report is on stderr.
        if (error && (error as NodeJS.ErrnoException).code === 'ABORT_ERR') reject(error);
        else resolve(err);
      },
    );
  });
  const refused = findRefusalInReport(stderr);
  if (refused) throw refused;
  return stderr;
}

/** Parse the input report ffmpeg prints for `-i` (first audio stream). Throws a clear 415 when there is none. */
export function parseFfmpegProbe(stderr: string): Omit<ProbeInfo, 'exactFrames'> {
  const input = /Input #0, ([^,]+(?:,[^ ]+)*), from/.exec(stderr);
  const stream = /Stream #0:\d+(?:\[[^\]]*\])?(?:\([^)]*\))?: Audio: ([^,\s]+)[^,]*, (\d+) Hz, ([^,]+),/.exec(stderr);
  if (!input || !stream) {
    const reason =
      /Invalid data found|could not find codec|does not contain any stream|Invalid argument|End of file|moov atom not found/i.exec(
        stderr,
      )?.[0];
    const detail = !input
      ? `The file could not be decoded as audio${reason ? ` (${reason.toLowerCase()})` : ''}.`
      : 'The file has no audio stream.';
    throw new AppError('unsupported-media', detail, { code: 'undecodable' });
  }
  const duration = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  // Whatever ffmpeg recognised must be on the allow-list too (a probe without the whitelist, an older ffmpeg).
  requireAllowedDemuxer(input[1]!.trim());
  const layout = stream[3]!.trim();
  const channels = channelsFromLayout(layout);
  return {
    container: input[1]!.trim(),
    codec: stream[1]!,
    sampleRate: Number(stream[2]),
    channels,
    channelLayout: /^\d+ channels$/.test(layout) ? null : layout,
    durationS: duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : null,
  };
}

const layoutChannels: Readonly<Record<string, number>> = {
  mono: 1,
  stereo: 2,
  '2.1': 3,
  '3.0': 3,
  '3.0(back)': 3,
  '4.0': 4,
  quad: 4,
  'quad(side)': 4,
  '3.1': 4,
  '5.0': 5,
  '5.0(side)': 5,
  '4.1': 5,
  '5.1': 6,
  '5.1(side)': 6,
  '6.0': 6,
  '6.0(front)': 6,
  hexagonal: 6,
  '6.1': 7,
  '6.1(back)': 7,
  '6.1(front)': 7,
  '7.0': 7,
  '7.0(front)': 7,
  '7.1': 8,
  '7.1(wide)': 8,
  '7.1(wide-side)': 8,
  octagonal: 8,
  downmix: 2,
};

function channelsFromLayout(layout: string): number {
  const n = /^(\d+) channels/.exec(layout);
  if (n) return Number(n[1]);
  const known = layoutChannels[layout];
  if (known) return known;
  throw new AppError('unsupported-media', `Unsupported channel layout ${layout}`, { code: 'undecodable' });
}

/** A FLAC file's STREAMINFO (the block every FLAC starts with): what its frames hold and how many there are. */
export interface FlacStreamInfo {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  /** 0 when the encoder did not know the length. */
  readonly frames: number;
}

/** The STREAMINFO of a file that starts with `fLaC` (a FLAC without a tag in front), or null. */
export async function readFlacStreamInfo(file: string): Promise<FlacStreamInfo | null> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(42);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    if (bytesRead < 42 || head.toString('ascii', 0, 4) !== 'fLaC' || (head[4]! & 0x7f) !== 0) return null;
    // STREAMINFO after its 4-byte block header: block and frame sizes (10 bytes), then rate (20 bits),
    // channels − 1 (3), bits per sample − 1 (5) and total samples (36).
    const si = 8;
    return {
      sampleRate: (head[si + 10]! << 12) | (head[si + 11]! << 4) | (head[si + 12]! >> 4),
      channels: ((head[si + 12]! >> 1) & 0x07) + 1,
      bitsPerSample: (((head[si + 12]! & 0x01) << 4) | (head[si + 13]! >> 4)) + 1,
      frames: (head[si + 13]! & 0x0f) * 2 ** 32 + head.readUInt32BE(si + 14),
    };
  } finally {
    await fh.close();
  }
}

/** The exact frame count a FLAC's STREAMINFO states, when its rate is `sampleRate`; null for other formats or an unknown length. */
export async function exactFramesFromHeader(file: string, sampleRate: number): Promise<number | null> {
  const info = await readFlacStreamInfo(file);
  return info && info.frames > 0 && info.sampleRate === sampleRate ? info.frames : null;
}

/** What an MP3's first frame and gapless tags say: enough to decode it without probing with ffmpeg. */
export interface Mp3Info {
  readonly sampleRate: number;
  readonly channels: 1 | 2;
  /** The length ffmpeg will decode: frames × samples per frame − encoder delay − end padding (at least the decoder's 529). */
  readonly frames: number;
  readonly samplesPerFrame: 1152 | 576;
  /** Audio frames (packets) the tag counts, the tag's own frame excluded. */
  readonly packets: number;
  /** Byte offset of the first audio frame, just after the tag's frame. */
  readonly firstPacketOffset: number;
  /**
   * Samples libavformat drops at the start: the encoder delay plus the decoder's own 528 + 1
   * (libavformat/mp3dec.c). Decoded sample s of the gapless stream is sample s + startSkip of the
   * packets decoded from the first one.
   */
  readonly startSkip: number;
}

/**
 * Read an MP3's first frame header and its Xing/Info frame count with a LAME (or Lavf/Lavc) gapless
 * tag, from which libavformat's mp3 demuxer trims the encoder delay and end padding. Null for anything
 * else (no tags, another layer, junk before the first frame). The length is an estimate to check, not
 * a promise: the decode has the last word.
 */
export async function readMp3Info(file: string): Promise<Mp3Info | null> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(10);
    if ((await fh.read(head, 0, 10, 0)).bytesRead < 10) return null;
    let start = 0;
    if (head.toString('ascii', 0, 3) === 'ID3') {
      const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
      start = 10 + size + (head[5]! & 0x10 ? 10 : 0);
    }
    const frame = Buffer.alloc(512);
    const { bytesRead } = await fh.read(frame, 0, frame.length, start);
    const header = bytesRead >= 200 ? parseMp3FrameHeader(frame, 0) : null;
    if (!header) return null;
    const mono = header.channels === 1;
    const sideInfo = header.samplesPerFrame === 1152 ? (mono ? 17 : 32) : mono ? 9 : 17;
    let p = 4 + sideInfo;
    const tag = frame.toString('ascii', p, p + 4);
    if (tag !== 'Xing' && tag !== 'Info') return null;
    const flags = frame.readUInt32BE(p + 4);
    p += 8;
    if (!(flags & 1)) return null;
    const packets = frame.readUInt32BE(p);
    p += 4;
    if (flags & 2) p += 4;
    if (flags & 4) p += 100;
    if (flags & 8) p += 4;
    if (p + 24 > bytesRead || !/^(LAME|Lavf|Lavc)/.test(frame.toString('ascii', p, p + 4))) return null;
    const delays = frame.readUIntBE(p + 21, 3);
    const startPad = delays >> 12;
    const endPad = delays & 0xfff;
    // libavformat drops samples [frames·spf − endPad + 529, frames·spf) of the decoder's output, so an
    // end padding under 529 drops nothing.
    const total = packets * header.samplesPerFrame - startPad - Math.max(endPad, 528 + 1);
    if (total <= 0) return null;
    return {
      sampleRate: header.sampleRate,
      channels: header.channels,
      frames: total,
      samplesPerFrame: header.samplesPerFrame,
      packets,
      firstPacketOffset: start + header.bytes,
      startSkip: startPad + 528 + 1,
    };
  } finally {
    await fh.close();
  }
}
