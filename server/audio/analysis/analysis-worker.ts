import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { threadId, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { AppError } from '../../http/errors.js';
import { openPcmSource, type DecoderChoice, type PcmRanges, type PcmSource } from '../decode/pcm-source.js';
import { headSeconds, type EngineSpec } from '../engines/engine.js';
import { roundTo } from '../dsp/round.js';
import { FeedReader, FeedStopped, FeedWriter } from '../decode/upload-feed.js';
import { toFailure, type AnalysisFailure } from './analysis-failure.js';
import { DeadlineClock, type AnalysisBudget } from './task-deadline.js';
import { wavHeader } from '../decode/wav-reader.js';
import { engines, getEngineId, type EngineId } from '../engines/registry.js';
import { lowerThisThreadPriority } from './thread-priority.js';

/** What the pool gives each of its threads at start (worker-pool.ts). */
export interface AnalysisThreadData {
  /** How much lower than the HTTP thread's this thread's CPU priority is (thread-priority.ts). */
  readonly nice: number;
}

// Imported on a pool thread: step back for the HTTP thread (null workerData: imported elsewhere, e.g. a test).
lowerThisThreadPriority((workerData as Partial<AnalysisThreadData> | null)?.nice ?? 0);

/** One analysis to run in a worker thread: decode `file` and stream it through the engine. */
export interface AnalysisTask {
  readonly engineId: EngineId;
  readonly params: unknown;
  readonly file: string;
  /** The sha256 of `file`'s bytes when already known (a complete upload): the queued pool then need not read it again. */
  readonly sha256?: string;
  readonly decoder: DecoderChoice;
  /** Clip tier: decode only this many seconds from the start. */
  readonly headSeconds?: number;
  /** A FeedWriter's shared buffer: the cancel flag, and the upload's progress when `growing`. */
  readonly control?: SharedArrayBuffer;
  /** `file` is an upload still being written: read it as it arrives (see decode/upload-feed.ts). */
  readonly growing?: boolean;
  /**
   * This task is part `part` of the split engine `whole` (engineId is the part's engine). Splitting
   * pays only when each part can read the audio itself cheaply (a WAV read directly); for a source
   * that needs a decoder, part 0 runs `whole` on its own (one decode) and the other parts skip.
   */
  readonly split?: { readonly whole: EngineId; readonly part: number };
  /** The task's time budget, and the shared slot where the worker publishes its deadline for the pool (see task-deadline.ts). */
  readonly deadline?: { readonly shared: SharedArrayBuffer; readonly budget: AnalysisBudget };
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
  /** For a split task: `whole` when it ran the whole engine instead of its part, `skipped` when it left that to part 0. */
  readonly split?: 'whole' | 'skipped';
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
    if (error instanceof FeedStopped)
      return { failure: { kind: 'unavailable', message: `The analysis stopped: ${error.message}`, code: 'cancelled' } };
    if (error instanceof AppError) return toFailure(error);
    throw error;
  }
}

async function run(task: AnalysisTask): Promise<AnalysisOutput> {
  getEngineId(task.engineId); // the task crossed a thread boundary: refuse an unknown engine before decoding
  const control = task.control ? new FeedReader(task.control) : null;
  const clock = task.deadline ? new DeadlineClock(task.deadline.shared, task.deadline.budget) : null;
  const pace: Pace = {
    check() {
      control?.check();
      // The clock runs from the moment the whole upload is there: waiting for a slow client costs no CPU.
      if (clock && control && task.growing && !control.state().complete) clock.restart();
      else clock?.check();
    },
    advance: (frames, format) => clock?.advance(frames, format.channels, format.sampleRate),
  };
  if (control && task.growing) {
    // Started while the upload arrives: the answer stands if the complete file confirms the length
    // its header promised; otherwise (a truncated upload) analyse the complete file again.
    const source = await openPcmSource(task.file, task.decoder, { feed: control, skipProbe: !task.headSeconds });
    const out = await runOn(source, task, pace);
    if (await source.confirm()) return out;
  }
  pace.check();
  return runOn(await openPcmSource(task.file, task.decoder, { skipProbe: !task.headSeconds }), task, pace);
}

/** Between chunks: cancellation and the deadline (check), and the audio decoded so far (advance, which earns time). */
interface Pace {
  check(): void;
  advance(frames: number, format: { readonly channels: number; readonly sampleRate: number }): void;
}

/** Parallel decodes of one file: at most this many, and each range at least this long (a process start costs ~20 ms). */
const maxRanges = 4;
const minRangeSeconds = 15;

async function runOn(source: PcmSource, task: AnalysisTask, pace: Pace): Promise<AnalysisOutput> {
  if (task.split && !source.direct) {
    if (task.split.part > 0)
      return {
        result: null,
        source: { duration_s: 0, sample_rate: source.format.sampleRate, channels: source.format.channels, format: source.container },
        analysedSeconds: 0,
        split: 'skipped',
      };
    return { ...(await runOn(source, { ...task, engineId: task.split.whole, split: undefined }, pace)), split: 'whole' };
  }
  const engine = engines[task.engineId];
  let format = source.format;
  if (engine.needsTotalFrames && format.totalFrames === null && engine.createRanges && source.ranges && !task.headSeconds) {
    // A tagged MP3 states its length: decode parts of it on every core at once.
    const out = await runRanges(engine.createRanges.bind(engine), source.ranges);
    if (out) return out;
  }
  if (engine.needsTotalFrames && format.totalFrames === null && engine.createEstimated && source.lengthEstimate && !task.headSeconds) {
    // The container only suggests the length (lossy formats): one pass with the estimate, which
    // stands when the decoded length confirms it.
    const run = engine.createEstimated(format, task.params as never, source.lengthEstimate);
    const frames = await pushAll(source.chunks(), run.push.bind(run), Infinity);
    const result = run.finish();
    if (result !== null) return output(result, frames, frames / format.sampleRate);
    // Off the estimate: the pass counted the exact length, so one more decode does it.
    format = { ...format, totalFrames: frames };
  }
  if (engine.needsTotalFrames && format.totalFrames === null) {
    // The container does not state an exact length (lossy formats): count it with a first pass.
    let frames = 0;
    for await (const chunk of source.chunks()) {
      pace.check();
      frames += chunk.length / format.channels;
      pace.advance(chunk.length / format.channels, format);
    }
    format = { ...format, totalFrames: frames };
  }
  const run = engine.create(format, task.params as never);
  // Clip tier: exactly round(head · rate) frames, whatever the decoder's own cut (ffmpeg's -t is
  // asked for a little more), so a clip route and the composite /analyze see identical samples. An
  // engine that ignores the stream after `maxSeconds` is not fed (nor the file read) past that.
  const headSeconds = task.headSeconds && engine.maxSeconds ? Math.min(task.headSeconds, engine.maxSeconds) : task.headSeconds;
  const limit = headSeconds ? Math.round(headSeconds * format.sampleRate) : Infinity;
  const decodeOptions = headSeconds ? { headSeconds: headSeconds + 1 } : {};
  const frames =
    run.pushPcm16 && source.pcm16
      ? await pushAll(source.pcm16(decodeOptions), run.pushPcm16.bind(run), limit)
      : await pushAll(source.chunks(decodeOptions), run.push.bind(run), limit);
  const decodedSeconds = frames / format.sampleRate;
  return output(run.finish(), frames, task.headSeconds ? (source.durationS ?? decodedSeconds) : decodedSeconds);

  function output(result: unknown, frames: number, wholeSeconds: number): AnalysisOutput {
    return {
      result: requireFiniteResult(result),
      source: {
        duration_s: roundTo(wholeSeconds, 3),
        sample_rate: format.sampleRate,
        channels: format.channels,
        format: source.container,
      },
      analysedSeconds: frames / format.sampleRate,
    };
  }

  /** Null when the ranges cannot answer (a file that does not match its tags): the single decode below then has the last word. */
  async function runRanges(
    createRanges: NonNullable<EngineSpec<unknown, unknown>['createRanges']>,
    ranges: PcmRanges,
  ): Promise<AnalysisOutput | null> {
    const total = ranges.totalFrames;
    const count = Math.min(maxRanges, availableParallelism(), Math.floor(total / (minRangeSeconds * format.sampleRate)));
    if (count < 2) return null;
    const run = createRanges(
      { ...format, totalFrames: total },
      task.params,
      Array.from({ length: count - 1 }, (_, i) => Math.round(((i + 1) * total) / count)),
    );
    if (run.starts.length < 2) return null;
    const stop = new AbortController();
    try {
      await Promise.all(
        run.parts.map((part, i) =>
          pushAll(ranges.decode(run.starts[i]!, run.starts[i + 1] ?? total, stop.signal), part.push.bind(part), Infinity),
        ),
      );
    } catch (error) {
      // A file that does not match its tags, or a decoder that cannot start mid-file: the single decode
      // below answers (and reports what is really wrong with a broken file). Cancellation stands.
      if (error instanceof FeedStopped) throw error;
      return null;
    } finally {
      stop.abort(); // the other decoders, when one failed
    }
    return output(run.finish(), total, total / format.sampleRate);
  }

  /** Push chunks up to `limit` frames; the frames pushed. */
  async function pushAll<T extends Float32Array | Int16Array>(
    chunks: AsyncIterable<T>,
    push: (chunk: T) => void,
    limit: number,
  ): Promise<number> {
    const channels = format.channels;
    let pushed = 0;
    for await (const chunk of chunks) {
      pace.check();
      const take = Math.min(chunk.length / channels, limit - pushed);
      if (take <= 0) break;
      push(take * channels === chunk.length ? chunk : (chunk.subarray(0, take * channels) as T));
      pushed += take;
      pace.advance(take, format);
    }
    return pushed;
  }
}

/** The results of a split engine's parts, to combine in a worker thread. */
export interface CombineTask {
  readonly engineId: EngineId;
  readonly results: readonly unknown[];
  readonly seconds: number;
}

/**
 * Worker entry (export name `combineParts`): a split engine's `combine`. It may do DSP (joining
 * /analyze's onset frames picks onsets and tempo), so it runs here rather than on the HTTP event loop.
 */
export function combineParts(task: CombineTask): unknown {
  const split = engines[task.engineId].split;
  if (!split) throw new Error(`engine ${task.engineId} has no parts`);
  try {
    return requireFiniteResult(split.combine(task.results, task.seconds));
  } catch (error) {
    if (error instanceof AppError) return toFailure(error);
    throw error;
  }
}

/**
 * The result, when every number in it is finite. JSON would answer NaN and infinity as null, which no
 * response schema promises; engines map the values they expect to be undefined (silence) to null
 * themselves, so anything else means the audio defeated the analysis: a 415 rather than a bogus answer.
 */
export function requireFiniteResult<T>(result: T): T {
  const at = findNonFinite(result, '');
  if (at !== undefined)
    throw new AppError('unsupported-media', `This audio cannot be analysed: the analysis gave no finite value for ${at || 'the result'}`, {
      code: 'no_finite_result',
    });
  return result;
}

function findNonFinite(value: unknown, at: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : at;
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    // By index: a spectrogram holds millions of numbers, and Object.entries would copy them all.
    const items = value as ArrayLike<unknown>;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (typeof item === 'number' ? !Number.isFinite(item) : findNonFinite(item, '') !== undefined)
        return findNonFinite(item, `${at}[${i}]`);
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findNonFinite(item, at ? `${at}.${key}` : key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** What a thread warms at start (see warmUp). */
export interface WarmUpTask {
  /** A directory for a temporary WAV file: with it, the /analyze path is warmed too. */
  readonly dir?: string;
}

/** Seconds of the synthetic WAV the /analyze warm-up reads: past the features' 30 s, so the second part's onsets run too. */
const warmUpFileSeconds = 36;

/**
 * Warm this worker thread's JIT, so the first real request is not the slow one:
 * - every engine over 2 s of synthetic stereo audio (a chirp, noise and clicks), three times with new
 *   instances: V8 optimises the hot loops during the first round and throws some of that code away when
 *   the second round's new instances generalise the field types it recorded;
 * - with `dir`, the path a WAV upload to /analyze takes, three times: both parts of the split engine
 *   reading a 36 s WAV file through the upload feed, and their combine. The engines alone left the first
 *   /analyze of a fresh server about 25 % slower on its worker threads than the tenth (the WAV reader,
 *   the feed and the parts over minutes rather than seconds were
 *   still unoptimised); with this the first one runs the code a long-running server has.
 * The server passes `dir` (its upload directory); tests and the command line skip the file (~1 s of CPU).
 */
export async function warmUp(task?: WarmUpTask | null): Promise<number> {
  const sampleRate = 44_100;
  const chunk = synthesizeWarmUp(sampleRate, 2);
  const format = { sampleRate, channels: 2, channelLayout: 'stereo', totalFrames: chunk.length / 2 };
  const params: Record<string, unknown> = {
    waveform: { bins: 100 },
    spectrum: { bands: 64, frames: 50, mel: true },
    features: { rhythm: true },
    samples: { name: '' },
    grade: { role: '' },
    naming: { index: 1 },
    summary: { index: 1 },
  };
  let ran = 0;
  for (let round = 0; round < 3; round++) {
    for (const [id, engine] of Object.entries(engines)) {
      const run = engine.create(format, (params[id] ?? {}) as never);
      for (let o = 0; o < chunk.length; o += 16_384) run.push(chunk.subarray(o, Math.min(chunk.length, o + 16_384)));
      run.finish();
      ran++;
    }
  }
  if (task?.dir) ran += await warmUpAnalyzePath(task.dir, sampleRate);
  return ran;
}

/** The /analyze path over a synthetic WAV written to `dir` (removed afterwards): see warmUp. */
async function warmUpAnalyzePath(dir: string, sampleRate: number): Promise<number> {
  const audio = synthesizeWarmUp(sampleRate, warmUpFileSeconds);
  const pcm = Buffer.alloc(44 + audio.length * 2);
  wavHeader(sampleRate, 2, audio.length / 2).copy(pcm);
  for (let i = 0; i < audio.length; i++) pcm.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(audio[i]! * 32767))), 44 + 2 * i);
  const file = path.join(dir, `warm-up-${threadId}-${randomUUID()}.wav`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, pcm);
  const split = engines.analyze.split;
  let ran = 0;
  try {
    for (let round = 0; round < 3 && split; round++) {
      const complete = () => {
        const feed = new FeedWriter();
        feed.written(pcm.length, true);
        return feed.shared;
      };
      const outs: AnalysisOutput[] = [];
      for (const [part, id] of split.parts.entries()) {
        const out = await analyse({
          engineId: getEngineId(id),
          split: { whole: 'analyze', part },
          params: {},
          file,
          decoder: { kind: 'js' },
          headSeconds: headSeconds.emotion,
          control: complete(),
          growing: true,
        });
        if ('failure' in out) throw new Error(`warm-up: ${out.failure.message}`);
        outs.push(out);
      }
      combineParts({ engineId: 'analyze', results: outs.map((o) => o.result), seconds: Math.max(...outs.map((o) => o.analysedSeconds)) });
      ran++;
    }
  } finally {
    await rm(file, { force: true });
  }
  return ran;
}

/** `seconds` of interleaved stereo test audio: a chirp, noise and a click every quarter second. */
function synthesizeWarmUp(sampleRate: number, seconds: number): Float32Array {
  const frames = Math.round(sampleRate * seconds);
  const out = new Float32Array(frames * 2);
  let seed = 7;
  for (let i = 0; i < frames; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const t = (i % (2 * sampleRate)) / sampleRate;
    const v = 0.3 * Math.sin(2 * Math.PI * (100 + 400 * t) * t) + 0.05 * (seed / 2 ** 31 - 1) + (i % 11025 < 200 ? 0.5 : 0);
    out[2 * i] = v;
    out[2 * i + 1] = v * 0.9;
  }
  return out;
}
