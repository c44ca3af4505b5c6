import path from 'node:path';
import { AppError } from '../../http/errors.js';

/**
 * The demuxers ffmpeg may open our inputs with: self-contained audio and video containers. Left out on
 * purpose: everything that opens other resources by name (hls, dash, concat/ffconcat, image2 sequences,
 * sdp/rtp/rtsp, ffmetadata, subtitle and playlist formats), virtual and device inputs (lavfi, alsa, x11grab…),
 * raw streams and images. An uploaded playlist naming /etc/passwd or another tenant's file is then
 * refused at the probe instead of decoded. Names are ffmpeg's (`ffmpeg -demuxers`).
 */
export const allowedDemuxers: readonly string[] = [
  'wav',
  'w64',
  'aiff',
  'flac',
  'mp3',
  'aac',
  'loas',
  'ac3',
  'eac3',
  'dts',
  'dtshd',
  'truehd',
  'mlp',
  'ogg',
  'matroska',
  'mov',
  'caf',
  'au',
  'ape',
  'wv',
  'tta',
  'tak',
  'mpc',
  'mpc8',
  'shn',
  'dsf',
  'amr',
  'amrnb',
  'amrwb',
  'asf',
  'xwma',
  'voc',
  'avi',
  'flv',
  'mpeg',
  'mpegts',
  'oma',
  'ircam',
  'sox',
  'nistsphere',
];

/** The only protocol an input is opened with: the local file the server wrote itself (an upload, a download). */
const inputProtocols = 'file';

/** How to open one input. */
export interface FfmpegInputOptions {
  /** The demuxer a probe named (ffmpeg's name, e.g. `mov,mp4,m4a,3gp,3g2,mj2`): forced with `-f`, so the decode cannot pick another. */
  readonly demuxer?: string;
  /** Demuxer options placed before `-i` (e.g. `-skip_initial_bytes`). */
  readonly options?: readonly string[];
}

/**
 * The arguments that open `file` as ffmpeg's input, the one place they are built: only the `file`
 * protocol (`-protocol_whitelist`, which nested opens inherit), only the allowed demuxers
 * (`-format_whitelist`, checked after ffmpeg's own probe and for any nested open), the path as an
 * explicit `file:` URL so a name can never be read as another protocol.
 */
export function ffmpegInputArgs(file: string, options: FfmpegInputOptions = {}): string[] {
  const forced = options.demuxer ? ['-f', requireAllowedDemuxer(options.demuxer)] : [];
  return [
    '-protocol_whitelist',
    inputProtocols,
    '-format_whitelist',
    allowedDemuxers.join(','),
    ...forced,
    ...(options.options ?? []),
    '-i',
    `file:${path.resolve(file)}`,
  ];
}

/** The first name of a demuxer ffmpeg reports (`mov,mp4,m4a,…` → `mov`) when it is allowed; a 415 otherwise. */
export function requireAllowedDemuxer(reported: string): string {
  const names = reported.split(',').map((n) => n.trim());
  const allowed = names.find((n) => allowedDemuxers.includes(n));
  if (!allowed) throw refusedFormat(reported);
  return allowed;
}

/** The 415 for an input whose container is not on the allow-list. */
export function refusedFormat(name: string): AppError {
  return new AppError(
    'unsupported-media',
    `The ${name} format is refused: only self-contained audio and video files are decoded (no playlists, lists or image sequences)`,
    { code: 'format_refused' },
  );
}

/** The refusal ffmpeg prints when the format whitelist stops a probe: the demuxer's name is not in it, so say what was refused. */
export function findRefusalInReport(stderr: string): AppError | undefined {
  const m = /\[([\w,]+) @ [^\]]*\] Format not on whitelist/.exec(stderr) ?? (/Format not on whitelist/.test(stderr) ? ['', 'input'] : null);
  return m ? refusedFormat(m[1]!) : undefined;
}
