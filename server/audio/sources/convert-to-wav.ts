import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { AppError } from '../../http/errors.js';
import { ffmpegInputArgs } from '../decode/ffmpeg-input.js';
import { requireAnalysableFormat } from '../decode/format-limits.js';
import { parseFfmpegProbe, readFfmpegReport, type ProbeInfo } from '../decode/probe.js';

/** The sample rate every fetched source is stored at. */
export const sourceSampleRate = 44_100;

/** What the input holds, as far as choosing the output format needs. */
export interface SourceProbe extends Omit<ProbeInfo, 'exactFrames'> {
  /** Bits per sample of the decoded input when lossless and above 16 (24, 32), else 16. */
  readonly bitsPerSample: 16 | 24;
}

/** Probe an input with `ffmpeg -i`; throws a 415 AppError (`undecodable`) when it has no audio. */
export async function probeSource(ffmpegPath: string, file: string, signal: AbortSignal): Promise<SourceProbe> {
  const stderr = await readFfmpegReport(ffmpegPath, file, { signal, timeoutMs: 60_000 });
  const info = parseFfmpegProbe(stderr);
  requireAnalysableFormat(info);
  return { ...info, bitsPerSample: highResolution(stderr, info.codec) ? 24 : 16 };
}

/** Lossless input deeper than 16 bits: `pcm_s24le`, `pcm_s32le`, float PCM, or FLAC/ALAC marked `(24 bit)`. */
function highResolution(stderr: string, codec: string): boolean {
  if (/^pcm_(s24|s32|f32|f64|u24|u32)/.test(codec)) return true;
  const line = /Stream #0:\d+[^\n]*Audio: [^\n]*/.exec(stderr)?.[0] ?? '';
  return (
    /^(flac|alac|wavpack|tta|ape|mlp|truehd)$/.test(codec) && /\((2[0-9]|3[0-2]) bit\)|, s32p?\b/.test(line) && !/\(16 bit\)/.test(line)
  );
}

/**
 * Convert the first audio stream of `input` to a 44.1 kHz PCM WAV at `output`, channels kept,
 * metadata dropped and the output bit-exact (the same audio always gives the same bytes, which is
 * what makes artifacts content-addressed). Resampling uses SoX's resampler when ffmpeg has it.
 * `onProgress` receives 0..1 from ffmpeg's `-progress` reports; aborting `signal` kills ffmpeg.
 */
export async function convertToWav(options: {
  readonly ffmpegPath: string;
  readonly input: string;
  readonly output: string;
  readonly probe: SourceProbe;
  readonly soxr: boolean;
  readonly signal: AbortSignal;
  readonly onProgress: (fraction: number) => void;
}): Promise<void> {
  const { probe } = options;
  const resample = probe.sampleRate !== sourceSampleRate;
  const args = [
    '-hide_banner',
    '-nostdin',
    '-y',
    ...ffmpegInputArgs(options.input, { demuxer: probe.container }),
    '-map',
    '0:a:0',
    '-vn',
    '-sn',
    '-dn',
    '-map_metadata',
    '-1',
    '-map_chapters',
    '-1',
    '-fflags',
    '+bitexact',
    '-flags:a',
    '+bitexact',
    ...(resample
      ? ['-af', options.soxr ? `aresample=${sourceSampleRate}:resampler=soxr:precision=28` : `aresample=${sourceSampleRate}`]
      : []),
    '-ar',
    String(sourceSampleRate),
    '-c:a',
    probe.bitsPerSample === 24 ? 'pcm_s24le' : 'pcm_s16le',
    '-rf64',
    'auto',
    '-f',
    'wav',
    '-progress',
    'pipe:1',
    '-nostats',
    '-loglevel',
    'error',
    options.output,
  ];
  // SIGKILL: ffmpeg blocked reading a slow input would let SIGTERM wait for the next byte; the output is discarded anyway.
  const child = spawn(options.ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal, killSignal: 'SIGKILL' });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 8000) stderr += d.toString();
  });
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    const m = /^out_time_us=(\d+)/.exec(line);
    if (m && probe.durationS) options.onProgress(Math.min(1, Number(m[1]) / 1e6 / probe.durationS));
  });
  // Settle only once ffmpeg has exited, also when aborted: a cancelled job has really stopped.
  let failure: Error | null = null;
  child.once('error', (error) => (failure = error));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (failure) throw failure;
  if (code !== 0) {
    const reason = stderr.trim().split('\n').pop() ?? `exit code ${code}`;
    throw new AppError('unsupported-media', `The audio could not be converted to WAV (ffmpeg: ${reason})`, { code: 'conversion_failed' });
  }
}

/** True when this ffmpeg's aresample has the SoX resampler (libsoxr). */
export async function ffmpegHasSoxr(ffmpegPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(ffmpegPath, ['-hide_banner', '-buildconf'], { timeout: 10_000 }, (error, stdout) =>
      resolve(!error && stdout.includes('--enable-libsoxr')),
    );
  });
}
