import { AppError } from '../http/errors.js';
import { openPcmSource, type DecoderChoice } from './decode/pcm-source.js';
import { engines } from './engines.js';

/** One analysis to run in a worker thread: decode `file` and stream it through the engine. */
export interface AnalysisTask {
  readonly engineId: string;
  readonly params: unknown;
  readonly file: string;
  readonly decoder: DecoderChoice;
  /** Clip tier: decode only this many seconds from the start. */
  readonly headSeconds?: number;
}

/** The `source` block every analysis answer carries. */
export interface SourceInfo {
  /** Length of the whole file (exact when fully decoded or stated by the header). */
  readonly duration_s: number;
  readonly sample_rate: number;
  readonly channels: number;
  readonly format: string;
}

export interface AnalysisOutput {
  readonly result: unknown;
  readonly source: SourceInfo;
  /** Seconds of audio that went through the engine (metered). */
  readonly analysedSeconds: number;
}

/** An AppError crossing the thread boundary as plain data (structured clone drops Error subclasses' fields). */
export interface AnalysisFailure {
  readonly failure: { readonly kind: AppError['kind']; readonly message: string; readonly code?: string };
}

/**
 * Worker entry (piscina, export name `analyse`). Runs off the HTTP event loop: ffmpeg decodes in a
 * child process, the engine reduces chunk by chunk, so memory stays bounded for any length.
 * Expected failures (undecodable input) come back as an AnalysisFailure value, not a throw.
 */
export async function analyse(task: AnalysisTask): Promise<AnalysisOutput | AnalysisFailure> {
  try {
    return await run(task);
  } catch (error) {
    if (error instanceof AppError) return { failure: { kind: error.kind, message: error.message, ...(error.options.code ? { code: error.options.code } : {}) } };
    throw error;
  }
}

async function run(task: AnalysisTask): Promise<AnalysisOutput> {
  const engine = engines[task.engineId];
  if (!engine) throw new Error(`unknown engine ${task.engineId}`);
  const source = await openPcmSource(task.file, task.decoder);
  let format = source.format;
  if (engine.needsTotalFrames && format.totalFrames === null) {
    // The container does not state an exact length (lossy formats): count it with a first pass.
    let frames = 0;
    for await (const chunk of source.chunks()) frames += chunk.length / format.channels;
    format = { ...format, totalFrames: frames };
  }
  const run = engine.create(format, task.params as never);
  // Clip tier: exactly round(head · rate) frames, whatever the decoder's own cut (ffmpeg's -t is
  // asked for a little more), so a clip route and the composite /analyze see identical samples.
  const limit = task.headSeconds ? Math.round(task.headSeconds * format.sampleRate) : Infinity;
  let frames = 0;
  for await (const chunk of source.chunks(task.headSeconds ? { headSeconds: task.headSeconds + 1 } : {})) {
    const take = Math.min(chunk.length / format.channels, limit - frames);
    if (take <= 0) break;
    run.push(take * format.channels === chunk.length ? chunk : chunk.subarray(0, take * format.channels));
    frames += take;
  }
  const result = run.finish();
  const decodedSeconds = frames / format.sampleRate;
  const whole = task.headSeconds ? (source.durationS ?? decodedSeconds) : decodedSeconds;
  return {
    result,
    source: { duration_s: Math.round(whole * 1000) / 1000, sample_rate: format.sampleRate, channels: format.channels, format: source.container },
    analysedSeconds: decodedSeconds,
  };
}

/**
 * Warm this worker thread's JIT: run every engine once over 2 s of synthetic stereo audio (a chirp,
 * noise and clicks). The pool calls it at start so the first real request is not the slow one.
 */
export function warmUp(): number {
  const sampleRate = 44_100;
  const frames = sampleRate * 2;
  const chunk = new Float32Array(frames * 2);
  let seed = 7;
  for (let i = 0; i < frames; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const t = i / sampleRate;
    const v = 0.3 * Math.sin(2 * Math.PI * (100 + 400 * t) * t) + 0.05 * (seed / 2 ** 31 - 1) + (i % 11025 < 200 ? 0.5 : 0);
    chunk[2 * i] = v;
    chunk[2 * i + 1] = v * 0.9;
  }
  const format = { sampleRate, channels: 2, channelLayout: 'stereo', totalFrames: frames };
  const params: Record<string, unknown> = { waveform: { bins: 100 }, spectrum: { bands: 64, frames: 50, mel: true }, features: { rhythm: true }, samples: { name: '' }, grade: { role: '' }, naming: { index: 1 }, summary: { index: 1 } };
  let ran = 0;
  for (const [id, engine] of Object.entries(engines)) {
    const run = engine.create(format, (params[id] ?? {}) as never);
    for (let o = 0; o < chunk.length; o += 16_384) run.push(chunk.subarray(o, Math.min(chunk.length, o + 16_384)));
    run.finish();
    ran++;
  }
  return ran;
}
