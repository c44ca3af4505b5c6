import { pcm16Stats } from '../dsp/pcm16-stats.js';
import type { EngineSpec, LengthEstimate, StreamEngine, StreamFormat } from './engine.js';

/** Query parameters of /waveform. */
export interface WaveformParams {
  readonly bins: number;
}

/** Render-ready waveform: per-bin [min, max] over all channels and an RMS envelope. */
export interface WaveformResult {
  readonly bins: number;
  readonly frames: number;
  readonly samples_per_bin: number;
  /** [min, max] of every sample of every channel in the bin; [0, 0] for a bin with no samples. */
  readonly min_max: readonly (readonly [number, number])[];
  /** sqrt(mean x²) over the bin's samples of all channels, full scale = 1 (a full-scale square wave), clipped to 0..1. */
  readonly rms: readonly number[];
}

/**
 * Raw samples the estimated-length mode may keep around uncertain bin boundaries (16 MB of float32);
 * the tolerance is narrowed to fit.
 */
export const WINDOW_BUDGET_SAMPLES = 4 << 20;

/**
 * Exact streaming reduction: bin i covers frames [floor(i·N/bins), floor((i+1)·N/bins)), with N the
 * exact frame count known before streaming. Memory is O(bins) whatever the length.
 *
 * 16-bit PCM can be pushed as stored (`pushPcm16`): min and max of the integers, and Σx² summed exactly
 * in integers (dsp/pcm16-stats.ts, WebAssembly SIMD), then scaled by 2^-15 and 2^-30. For pushes of fewer than 2^23 samples (the readers push
 * 2^19 at most) every partial sum is exact both ways (Σx² < 2^53; Σv² a multiple of 2^-30 below 2^23),
 * so the result is bit for bit that of `push` over the converted samples.
 *
 * When N is only estimated (lossy formats: the decoder's exact length is known only at the end),
 * `createEstimated` streams once: see `createEstimatedWaveform`.
 */
export const waveformEngine: EngineSpec<WaveformParams, WaveformResult> = {
  id: 'waveform',
  version: '1',
  needsTotalFrames: true,
  create(format, params): StreamEngine<WaveformResult> {
    const stats = new BinStats(params.bins);
    const input = reduceFrom(stats, format, params.bins, 0);
    return { ...input, finish: () => stats.result(format.totalFrames!) };
  },
  createRanges(format, params, near) {
    const total = format.totalFrames;
    if (total === null) throw new Error('waveform needs the exact frame count');
    const bins = params.bins;
    // Split where a bin starts: every bin's samples then come from one range, reduced in frame order as in `create`.
    const starts = [0];
    for (const n of near) {
      const start = Math.floor((Math.round((n * bins) / total) * total) / bins);
      if (start > starts[starts.length - 1]! && start < total) starts.push(start);
    }
    const stats = new BinStats(bins);
    return { starts, parts: starts.map((from) => reduceFrom(stats, format, bins, from)), finish: () => stats.result(total) };
  },
  createEstimated: (format, params, estimate) => createEstimatedWaveform(format, params, estimate),
};

/**
 * Reduce frames from `start` on into `stats`, bin i covering [floor(i·N/bins), floor((i+1)·N/bins)).
 * Several reducers may share one BinStats when their frames never share a bin.
 */
function reduceFrom(stats: BinStats, format: StreamFormat, bins: number, start: number): Pick<StreamEngine<unknown>, 'push' | 'pushPcm16'> {
  const total = format.totalFrames;
  if (total === null) throw new Error('waveform needs the exact frame count');
  const channels = format.channels;
  const range = new Float64Array(3);
  let frame = start;
  let bin = 0;
  // First frame of the next bin; bins may be empty when there are fewer frames than bins.
  const binStart = (i: number) => Math.floor((i * total) / bins);
  let nextStart = binStart(1);
  /** Walk a chunk of `frames` frames bin by bin; `reduce` fills range with [min, max, Σx²] of samples [from, to). */
  const walk = (frames: number, reduce: (from: number, to: number) => void) => {
    let offset = 0;
    while (offset < frames && bin < bins) {
      while (bin < bins - 1 && frame >= nextStart) nextStart = binStart(++bin + 1);
      const take = Math.min(frames - offset, (bin === bins - 1 ? Infinity : nextStart) - frame);
      reduce(offset * channels, (offset + take) * channels);
      stats.add(bin, range, take * channels);
      offset += take;
      frame += take;
    }
    frame += frames - offset; // frames beyond N (a file longer than its header said) are ignored
  };
  return {
    push(chunk) {
      walk(chunk.length / channels, (from, to) => reduceFloat(chunk, from, to, range));
    },
    pushPcm16(chunk) {
      walk(chunk.length / channels, (from, to) => pcm16Stats(chunk, from, to, range));
    },
  };
}

/** Per-bin reductions: min and max (float32, like the samples), Σv² and the number of samples. */
class BinStats {
  private readonly mins: Float32Array;
  private readonly maxs: Float32Array;
  private readonly sumsq: Float64Array;
  private readonly counts: Float64Array;

  constructor(private readonly bins: number) {
    this.mins = new Float32Array(bins).fill(Infinity);
    this.maxs = new Float32Array(bins).fill(-Infinity);
    this.sumsq = new Float64Array(bins);
    this.counts = new Float64Array(bins);
  }

  /** Merge [min, max, Σv²] of `samples` samples into bin i. */
  add(i: number, range: Float64Array, samples: number): void {
    if (range[0]! < this.mins[i]!) this.mins[i] = range[0]!;
    if (range[1]! > this.maxs[i]!) this.maxs[i] = range[1]!;
    this.sumsq[i] = this.sumsq[i]! + range[2]!;
    this.counts[i] = this.counts[i]! + samples;
  }

  result(total: number): WaveformResult {
    const { bins, mins, maxs, sumsq, counts } = this;
    const minMax: [number, number][] = [];
    const rms: number[] = [];
    for (let i = 0; i < bins; i++) {
      const empty = counts[i] === 0;
      minMax.push(empty ? [0, 0] : [mins[i]!, maxs[i]!]);
      rms.push(empty ? 0 : Math.min(1, Math.round(Math.sqrt(sumsq[i]! / counts[i]!) * 1e6) / 1e6));
    }
    return { bins, frames: total, samples_per_bin: Math.round((total / bins) * 1000) / 1000, min_max: minMax, rms };
  }
}

/**
 * One pass over a stream whose length N is only estimated: N̂ ± t. Boundary i, floor(i·N/bins), lies in
 * [floor(i·(N̂−t)/bins), floor(i·(N̂+t)/bins)] for every N in range, so a frame outside all those
 * windows belongs to the same bin whatever N is: it is reduced at once. Frames inside a window are
 * kept raw (at most about t·bins frames; t is narrowed to WINDOW_BUDGET_SAMPLES) and assigned once N,
 * the number of frames pushed, is known. Min and max are exact; Σv² of a bin adds its parts in another
 * order than one pass in frame order (the same values to rounding, and rms is rounded to 1e-6). When N
 * falls outside the range, `finish` returns null: the caller decodes again with N known.
 */
export function createEstimatedWaveform(
  format: StreamFormat,
  params: WaveformParams,
  estimate: LengthEstimate,
): StreamEngine<WaveformResult | null> {
  const bins = params.bins;
  const channels = format.channels;
  const tolerance = Math.max(0, Math.min(Math.ceil(estimate.tolerance), Math.floor(WINDOW_BUDGET_SAMPLES / channels / bins)));
  const lo = Math.max(0, Math.round(estimate.frames) - tolerance);
  const hi = Math.round(estimate.frames) + tolerance;
  // Segments in frame order: [start, end) reduced into `bin`, or kept raw (bin −1) from `raw` on.
  const segStart: number[] = [];
  const segEnd: number[] = [];
  const segBin: number[] = [];
  const segRaw: number[] = [];
  let rawFrames = 0;
  const emit = (start: number, end: number, bin: number) => {
    const last = segStart.length - 1;
    if (bin === -1 && last >= 0 && segBin[last] === -1 && segEnd[last] === start) segEnd[last] = end;
    else {
      segStart.push(start);
      segEnd.push(end);
      segBin.push(bin);
      segRaw.push(rawFrames);
    }
    if (bin === -1) rawFrames += end - start;
  };
  let pos = 0;
  for (let i = 1; i < bins; i++) {
    const a = Math.floor((i * lo) / bins);
    const b = Math.floor((i * hi) / bins);
    // Between the windows of boundaries i − 1 and i every frame is in bin i − 1.
    if (a > pos) {
      emit(pos, a, i - 1);
      pos = a;
    }
    if (b > pos) {
      emit(pos, b, -1);
      pos = b;
    }
  }
  emit(pos, Infinity, bins - 1);
  const raw = new Float32Array(rawFrames * channels);
  const stats = new BinStats(bins);
  const range = new Float64Array(3);
  let frame = 0;
  let seg = 0;
  return {
    push(chunk) {
      const frames = chunk.length / channels;
      let offset = 0;
      while (offset < frames) {
        while (frame >= segEnd[seg]!) seg++;
        const take = Math.min(frames - offset, segEnd[seg]! - frame);
        const bin = segBin[seg]!;
        if (bin >= 0) {
          reduceFloat(chunk, offset * channels, (offset + take) * channels, range);
          stats.add(bin, range, take * channels);
        } else {
          raw.set(chunk.subarray(offset * channels, (offset + take) * channels), (segRaw[seg]! + frame - segStart[seg]!) * channels);
        }
        offset += take;
        frame += take;
      }
    },
    finish() {
      const total = frame;
      if (total < lo || total > hi) return null;
      // Kept frames, bin by bin with the true boundaries.
      let bin = 0;
      let next = Math.floor(total / bins); // start of bin + 1
      for (let k = 0; k < segStart.length; k++) {
        if (segBin[k] !== -1) continue;
        const end = Math.min(segEnd[k]!, total);
        for (let f = segStart[k]!; f < end;) {
          while (bin < bins - 1 && f >= next) next = Math.floor(((++bin + 1) * total) / bins);
          const stop = bin === bins - 1 ? end : Math.min(end, next);
          const base = segRaw[k]! - segStart[k]!;
          reduceFloat(raw, (base + f) * channels, (base + stop) * channels, range);
          stats.add(bin, range, (stop - f) * channels);
          f = stop;
        }
      }
      return stats.result(total);
    },
  };
}

/** [min, max, Σv²] of samples [from, to) into out, summed in order. */
export function reduceFloat(chunk: Float32Array, from: number, to: number, out: Float64Array): void {
  let lo = Infinity;
  let hi = -Infinity;
  let s = 0;
  for (let k = from; k < to; k++) {
    const v = chunk[k]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    s += v * v;
  }
  out[0] = lo;
  out[1] = hi;
  out[2] = s;
}
