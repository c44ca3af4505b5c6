import type { EngineSpec, StreamEngine } from './engine.js';

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
 * Exact streaming reduction: bin i covers frames [floor(i·N/bins), floor((i+1)·N/bins)), with N the
 * exact frame count known before streaming. Memory is O(bins) whatever the length.
 */
export const waveformEngine: EngineSpec<WaveformParams, WaveformResult> = {
  id: 'waveform',
  version: '1',
  needsTotalFrames: true,
  create(format, params): StreamEngine<WaveformResult> {
    const total = format.totalFrames;
    if (total === null) throw new Error('waveform needs the exact frame count');
    const bins = params.bins;
    const channels = format.channels;
    const mins = new Float32Array(bins).fill(Infinity);
    const maxs = new Float32Array(bins).fill(-Infinity);
    const sumsq = new Float64Array(bins);
    const counts = new Float64Array(bins);
    let frame = 0;
    let bin = 0;
    // First frame of the next bin; bins may be empty when there are fewer frames than bins.
    const binStart = (i: number) => Math.floor((i * total) / bins);
    let nextStart = binStart(1);
    return {
      push(chunk) {
        const frames = chunk.length / channels;
        let offset = 0;
        while (offset < frames && bin < bins) {
          while (bin < bins - 1 && frame >= nextStart) nextStart = binStart(++bin + 1);
          const take = Math.min(frames - offset, (bin === bins - 1 ? Infinity : nextStart) - frame);
          let lo = mins[bin]!;
          let hi = maxs[bin]!;
          let s = 0;
          const end = (offset + take) * channels;
          for (let k = offset * channels; k < end; k++) {
            const v = chunk[k]!;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
            s += v * v;
          }
          mins[bin] = lo;
          maxs[bin] = hi;
          sumsq[bin] = sumsq[bin]! + s;
          counts[bin] = counts[bin]! + take * channels;
          offset += take;
          frame += take;
        }
        frame += frames - offset; // frames beyond N (a file longer than its header said) are ignored
      },
      finish() {
        const minMax: [number, number][] = [];
        const rms: number[] = [];
        for (let i = 0; i < bins; i++) {
          const empty = counts[i] === 0;
          minMax.push(empty ? [0, 0] : [mins[i]!, maxs[i]!]);
          rms.push(empty ? 0 : Math.min(1, Math.round(Math.sqrt(sumsq[i]! / counts[i]!) * 1e6) / 1e6));
        }
        return { bins, frames: total, samples_per_bin: Math.round((total / bins) * 1000) / 1000, min_max: minMax, rms };
      },
    };
  },
};
