import { applyFilterbank, createFilterbank } from '../dsp/bands.js';
import { createRealFft } from '../dsp/fft.js';
import { roundTo } from '../dsp/round.js';
import { hannWindow, windowSum } from '../dsp/window.js';
import type { EngineSpec, StreamEngine } from './engine.js';

/** A 16-bit sample x stands for x/2^15. */
const pcm16Scale = 2 ** -15;

/** Query parameters of /spectrum (bounds in `spectrumBounds`). */
export interface SpectrumParams {
  readonly bands: number;
  readonly frames: number;
  readonly mel: boolean;
}

/** Documented limits of the parameters. */
export const spectrumBounds = { bands: { min: 4, max: 512 }, frames: { min: 1, max: 4000 } } as const;

/** The dB value mapped to 0; 0 dBFS (a full-scale sine's power) maps to 1. */
export const spectrumDbFloor = -100;

/** Lowest band edge. */
const fmin = 20;

export interface SpectrumResult {
  readonly bands: number;
  readonly frames: number;
  readonly scale: 'mel' | 'log';
  readonly fft_size: number;
  readonly db_floor: number;
  /** Band centre frequencies (Hz). */
  readonly band_hz: readonly number[];
  /** Time of each frame's centre (s); for frames = 1, the middle of the track. */
  readonly frame_times_s: readonly number[];
  /** `frames` rows of `bands` values in 0..1: (dB − floor) / −floor, dB relative to a full-scale sine. */
  readonly data: readonly (readonly number[])[];
}

/**
 * Spectrogram downsampled for rendering. Frame i is an FFT (Hann, 4096 points up to 50 kHz sample
 * rates, 8192 above) of the channel-averaged signal centred on frame floor((i + 0.5)·N/frames), zero
 * padded at the edges, so frames span the whole track. With frames = 1 the spectrum is the average
 * power of up to 2000 windows spread evenly over the track (Welch's method).
 */
export const spectrumEngine: EngineSpec<SpectrumParams, SpectrumResult> = {
  id: 'spectrum',
  version: '1',
  needsTotalFrames: true,
  create(format, params): StreamEngine<SpectrumResult> {
    const total = format.totalFrames;
    if (total === null) throw new Error('spectrum needs the exact frame count');
    const channels = format.channels;
    const n = format.sampleRate > 50_000 ? 8192 : 4096;
    const half = n >> 1;
    const fft = createRealFft(n);
    const window = hannWindow(n);
    // Power of a full-scale sine's bin: (sum(w)/2)²; dividing by it puts 0 dBFS at 0 dB.
    const fullScale = (windowSum(window) / 2) ** 2;
    const fb = createFilterbank(params.mel ? 'mel' : 'log', params.bands, n, format.sampleRate, fmin, format.sampleRate / 2);
    const averaged = params.frames === 1;
    const windowsWanted = averaged ? Math.max(1, Math.min(2000, Math.floor(total / half))) : params.frames;
    const centers = Array.from({ length: windowsWanted }, (_, i) => Math.floor(((i + 0.5) * total) / windowsWanted));

    // Ring buffer of the last n mono samples; index = absolute frame mod n.
    const ring = new Float32Array(n);
    let seen = 0;
    let next = 0;
    // Frames are windowed straight into the FFT's input, and its output is read in place.
    const { input: frameIn, re, im } = fft;
    const power = new Float64Array(half + 1);
    const bandOut = new Float64Array(params.bands);
    const rows: Float64Array[] = [];
    const sum = new Float64Array(params.bands);

    const mask = n - 1; // n is a power of two
    const analyse = (center: number) => {
      const start = center - half;
      // Frames [start, start + n): zero before the track and past what has arrived, else the ring's
      // sample times the window (the ring holds every frame of that span: see `push`).
      const from = Math.max(0, -start);
      const to = Math.min(n, seen - start);
      frameIn.fill(0, 0, from);
      for (let j = from, r = (start + from) & mask; j < to; j++, r = (r + 1) & mask) frameIn[j] = ring[r]! * window[j]!;
      frameIn.fill(0, Math.max(from, to), n);
      fft.transform();
      for (let k = 0; k <= half; k++) power[k] = (re[k]! * re[k]! + im[k]! * im[k]!) / fullScale;
      applyFilterbank(fb, power, bandOut);
      if (averaged) for (let b = 0; b < bandOut.length; b++) sum[b] = sum[b]! + bandOut[b]!;
      else rows.push(Float64Array.from(bandOut));
    };
    // A window is complete once frame center + n/2 has arrived (or the stream ended).
    const drainReady = () => {
      while (next < centers.length && centers[next]! + half <= seen) analyse(centers[next++]!);
    };
    const inv = 1 / channels;
    /**
     * Skip the frames from chunk frame `i` on that no window reads: those before the next window's
     * start (windows start in order) or after the last window. With 1000 frames over minutes of audio,
     * that is about half of them. Returns the first frame to keep (`frames` when none is).
     */
    const skipUnread = (i: number, frames: number): number => {
      const windowStart = next < centers.length ? centers[next]! - half : Infinity;
      const skip = Math.min(frames - i, Math.max(0, windowStart - seen));
      seen += skip;
      return i + skip;
    };
    /** The end of the frames to take from `i` on: feeding stops at the next window's end so the ring still holds its start. */
    const takeEnd = (i: number, frames: number): number => Math.min(frames, i + centers[next]! + half - seen);
    /** Feed a chunk whose sample x stands for x·`scale` (1 for floats, 2^-15 for 16-bit integers). */
    const feed = (chunk: Float32Array | Int16Array, scale: number) => {
      const frames = chunk.length / channels;
      // The channel sum is exact in doubles and 2^-15 only moves the exponent, so (Σx)·(2^-15/channels)
      // rounds exactly as (Σ x/2^15)·(1/channels): 16-bit integers give bit for bit what their floats
      // give (the engine contract, engine.ts). One loop for both: the FFT dominates, not the feeding.
      const gain = scale * inv;
      for (let i = skipUnread(0, frames); i < frames; i = skipUnread(i, frames)) {
        const to = takeEnd(i, frames);
        let r = seen & mask;
        if (channels === 2) {
          for (let k = 2 * i; k < 2 * to; k += 2, r = (r + 1) & mask) ring[r] = (chunk[k]! + chunk[k + 1]!) * gain;
        } else {
          for (let f = i; f < to; f++, r = (r + 1) & mask) {
            let m = 0;
            for (let c = 0; c < channels; c++) m += chunk[f * channels + c]!;
            ring[r] = m * gain;
          }
        }
        seen += to - i;
        i = to;
        drainReady();
      }
    };
    return {
      push: (chunk) => feed(chunk, 1),
      pushPcm16: (chunk) => feed(chunk, pcm16Scale),
      finish() {
        while (next < centers.length) analyse(centers[next++]!);
        const toUnit = (p: number) => {
          const db = 10 * Math.log10(Math.max(p, 1e-20));
          return roundTo(Math.min(1, Math.max(0, (db - spectrumDbFloor) / -spectrumDbFloor)), 3);
        };
        const data = averaged ? [Array.from(sum, (s) => toUnit(s / windowsWanted))] : rows.map((r) => Array.from(r, toUnit));
        const times = averaged ? [roundTo(total / 2 / format.sampleRate, 3)] : centers.map((c) => roundTo(c / format.sampleRate, 3));
        return {
          bands: params.bands,
          frames: params.frames,
          scale: params.mel ? 'mel' : 'log',
          fft_size: n,
          db_floor: spectrumDbFloor,
          band_hz: Array.from(fb.centers, (f) => roundTo(f, 1)),
          frame_times_s: times,
          data,
        };
      },
    };
  },
};
