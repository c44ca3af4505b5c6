/**
 * The input of the timbre embedding (dsp/timbre-embedding.ts): a level-free log-mel patch of a clip's first
 * 1.5 s. The mono mix (mean of the channels) at 44.1 kHz (other rates resampled by linear interpolation:
 * enough for 64 mel bands, and the same arithmetic at training and at analysis), a centred STFT of 2048-point
 * periodic-Hann frames every 512 samples (11.6 ms), power through 64 Slaney-mel triangles from 30 Hz to
 * 16 kHz (dsp/bands.ts), in dB relative to the patch's loudest cell and clipped to −80 dB, so the gain of the
 * recording does not matter. A clip shorter than the patch is padded with silence (−80 dB).
 * The layout follows the log-mel inputs of audio CNNs (Choi et al. 2016, "Automatic tagging using deep
 * convolutional neural networks"; Hershey et al. 2017, "CNN architectures for large-scale audio classification").
 */
import { applyFilterbank, createFilterbank, type Filterbank } from './bands.js';
import { createRealFft, type RealFft } from './fft.js';
import { hannWindow } from './window.js';

/** Sample rate the patch is computed at. */
export const MEL_PATCH_RATE = 44100;
/** Mel bands (rows of the patch). */
export const MEL_PATCH_BANDS = 64;
/** STFT frames (columns of the patch). */
export const MEL_PATCH_FRAMES = 128;
const N_FFT = 2048;
const HOP = 512;
/** The floor of the patch, dB below its loudest cell. */
export const MEL_PATCH_FLOOR_DB = -80;
/** Samples at 44.1 kHz the patch reads: the last frame's end, less the centring pad. */
export const MEL_PATCH_SAMPLES = N_FFT / 2 + HOP * (MEL_PATCH_FRAMES - 1);

/** Source frames (at `sampleRate`) a caller must keep for a full patch. */
export function melPatchSourceFrames(sampleRate: number): number {
  return Math.ceil((MEL_PATCH_SAMPLES * sampleRate) / MEL_PATCH_RATE) + 2;
}

let shared: { fft: RealFft; window: Float64Array; bank: Filterbank } | null = null;
function tools(): { fft: RealFft; window: Float64Array; bank: Filterbank } {
  shared ??= {
    fft: createRealFft(N_FFT),
    window: hannWindow(N_FFT),
    bank: createFilterbank('mel', MEL_PATCH_BANDS, N_FFT, MEL_PATCH_RATE, 30, 16000),
  };
  return shared;
}

/** `mono` at `sampleRate` to 44.1 kHz by linear interpolation (a copy; the same array when already 44.1 kHz). */
export function resampleLinear(mono: Float32Array, sampleRate: number): Float32Array {
  if (sampleRate === MEL_PATCH_RATE) return mono;
  const n = Math.floor((mono.length * MEL_PATCH_RATE) / sampleRate);
  const out = new Float32Array(n);
  const step = sampleRate / MEL_PATCH_RATE;
  for (let k = 0; k < n; k++) {
    const t = k * step;
    const i = Math.floor(t);
    const f = t - i;
    const a = mono[i] ?? 0;
    const b = mono[i + 1] ?? a;
    out[k] = a + (b - a) * f;
  }
  return out;
}

/**
 * The patch of a mono clip's start: MEL_PATCH_BANDS × MEL_PATCH_FRAMES values, band-major (row b holds band b's
 * frames), in dB from MEL_PATCH_FLOOR_DB to 0; null when the clip is silent.
 */
export function computeMelPatch(mono: Float32Array, sampleRate: number): Float32Array | null {
  const x = resampleLinear(mono, sampleRate);
  const { fft, window, bank } = tools();
  const power = new Float64Array(N_FFT / 2 + 1);
  const bands = new Float64Array(MEL_PATCH_BANDS);
  const cells = new Float64Array(MEL_PATCH_BANDS * MEL_PATCH_FRAMES);
  const input = fft.input;
  let max = 0;
  for (let t = 0; t < MEL_PATCH_FRAMES; t++) {
    const start = t * HOP - N_FFT / 2; // centred frames: the first is centred on sample 0
    for (let i = 0; i < N_FFT; i++) {
      const j = start + i;
      input[i] = j >= 0 && j < x.length ? x[j]! * window[i]! : 0;
    }
    fft.transform();
    for (let k = 0; k < power.length; k++) power[k] = fft.re[k]! * fft.re[k]! + fft.im[k]! * fft.im[k]!;
    applyFilterbank(bank, power, bands);
    for (let b = 0; b < MEL_PATCH_BANDS; b++) {
      cells[b * MEL_PATCH_FRAMES + t] = bands[b]!;
      if (bands[b]! > max) max = bands[b]!;
    }
  }
  if (!(max > 0)) return null;
  const patch = new Float32Array(cells.length);
  for (let i = 0; i < cells.length; i++) {
    const db = cells[i]! > 0 ? 10 * Math.log10(cells[i]! / max) : MEL_PATCH_FLOOR_DB;
    patch[i] = Math.max(MEL_PATCH_FLOOR_DB, db);
  }
  return patch;
}

/** The channel mean of a stream's first frames, as many as a patch reads (what the samples engine and the training both feed). */
export class MelPatchHead {
  private readonly mono: Float32Array;
  private fill = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly channels: number,
  ) {
    this.mono = new Float32Array(melPatchSourceFrames(sampleRate));
  }

  /** True once the patch has all it reads: later frames are ignored. */
  get full(): boolean {
    return this.fill === this.mono.length;
  }

  /** The first `frames` frames of an interleaved chunk (all of them by default). */
  push(chunk: Float32Array, frames = chunk.length / this.channels): void {
    const ch = this.channels;
    const take = Math.min(frames, this.mono.length - this.fill);
    for (let f = 0; f < take; f++) {
      let s = 0;
      for (let c = 0; c < ch; c++) s += chunk[f * ch + c]!;
      this.mono[this.fill + f] = s / ch;
    }
    this.fill += take;
  }

  /** The patch of what was kept (computeMelPatch); null for silence. */
  patch(): Float32Array | null {
    return computeMelPatch(this.mono.subarray(0, this.fill), this.sampleRate);
  }
}
