import type { KernelExports, RealFft } from './fft.js';
import type { SparseFilterbank } from './mfcc.js';
import { shapeFromMoments, type ContrastBands } from './spectral-features.js';

/** The kernel of one FFT and the byte offsets of the arrays in its memory that the kernels are given. */
abstract class KernelArrays {
  protected readonly kernel: KernelExports;
  /** The kernels' results, read back after each call. */
  protected readonly out: Float64Array;

  constructor(
    protected readonly fft: RealFft,
    results: number,
  ) {
    this.kernel = fft.exports;
    this.out = fft.allocate(results);
  }

  /** Byte offset of an array in the kernel's memory; throws for one elsewhere. */
  protected at(a: Float64Array | Int32Array): number {
    if (a.buffer !== this.fft.buffer) throw new RangeError('frame kernels need arrays in the FFT workspace (RealFft.allocate)');
    return a.byteOffset;
  }
}

/**
 * The per-frame loops of the features engine in the FFT's WebAssembly kernel (dsp/frame-kernels.as.ts),
 * on arrays in that FFT's memory (`RealFft.allocate`), so the frame never leaves it: the windowing writes
 * the FFT's input, and the spectrum passes read its output. Each method has the contract of the
 * JavaScript function it names (dsp/reference/, imported by tests only), which stays the reference: the
 * tests compare the two. About 2–6× the JavaScript's speed (two bins per SIMD instruction, no JIT).
 */
export class FrameKernels extends KernelArrays {
  constructor(fft: RealFft) {
    super(fft, 8);
  }

  /** fft.input[i] = buf[i]·window[i] (both of the FFT's size); returns Σ input² (the energy of the windowed frame). */
  windowInput(buf: Float64Array, window: Float64Array): number {
    return this.kernel.windowEnergy(this.at(buf), this.at(window), this.at(this.fft.input), this.fft.size);
  }

  /**
   * `spectrumPass` of the FFT's output: power and mag of bins 0..n/2, and out[0] = Σ mag, out[1] =
   * centroid, out[2] = bandwidth, out[3] = flatness (`out` may be any array).
   */
  spectrumPass(freqs: Float64Array, power: Float64Array, mag: Float64Array, amin: number, out: Float64Array): void {
    const n = power.length;
    const r = this.out;
    this.kernel.spectrumMoments(
      this.at(this.fft.re),
      this.at(this.fft.im),
      this.at(freqs),
      this.at(power),
      this.at(mag),
      n,
      amin,
      this.at(r),
    );
    shapeFromMoments(r[0]!, r[1]!, r[2]!, r[3]!, r[4]!, n, out);
  }

  /** `rolloffFluxPass`: roll-off (Hz) into out[0] and flux (0..1) into out[1]. */
  rolloffFlux(
    mag: Float64Array,
    freqs: Float64Array,
    sum: number,
    prev: Float64Array,
    prevSum: number,
    rollPercent: number,
    out: Float64Array,
  ): void {
    if (!(sum > 0)) {
      out[0] = 0;
      out[1] = 0;
      return;
    }
    const r = this.out;
    if (!(prevSum > 0)) {
      // Roll-off only: the kernel needs a positive previous sum for the flux, which is 1 here.
      this.kernel.rolloffFlux(this.at(mag), this.at(freqs), sum, this.at(mag), sum, mag.length, rollPercent, this.at(r));
      out[0] = r[0]!;
      out[1] = 1;
      return;
    }
    this.kernel.rolloffFlux(this.at(mag), this.at(freqs), sum, this.at(prev), prevSum, mag.length, rollPercent, this.at(r));
    out[0] = r[0]!;
    out[1] = r[1]!;
  }

  /** The contrast bands, copied into the kernel's memory for `contrastPeakValley`. */
  placeContrastBands(cb: ContrastBands): PlacedContrastBands {
    let maxCount = 1;
    for (let b = 0; b < cb.bands; b++) maxCount = Math.max(maxCount, cb.count[b]!);
    const fft = this.fft;
    return {
      bands: cb.bands,
      start: fft.placeInt32(cb.start),
      end: fft.placeInt32(cb.end),
      count: fft.placeInt32(cb.count),
      peak: fft.allocate(cb.bands),
      valley: fft.allocate(cb.bands),
      scratch: fft.allocate(maxCount),
    };
  }

  /** `contrastPeakValley`: peak and valley magnitudes of each band into peak[at + b] and valley[at + b]. */
  contrastPeakValley(mag: Float64Array, cb: PlacedContrastBands, peak: Float64Array, valley: Float64Array, at: number): void {
    this.kernel.contrastPeakValley(
      this.at(mag),
      cb.bands,
      this.at(cb.start),
      this.at(cb.end),
      this.at(cb.count),
      this.at(cb.peak),
      this.at(cb.valley),
      this.at(cb.scratch),
    );
    peak.set(cb.peak, at);
    valley.set(cb.valley, at);
  }

  /** A sparse filterbank (mel or onset-detection's log bank), copied into the kernel's memory. */
  placeFilterbank(fb: BandWeights): PlacedFilterbank {
    const fft = this.fft;
    return {
      bands: fb.bands,
      start: fft.placeInt32(fb.start),
      length: fft.placeInt32(fb.length),
      offset: fft.placeInt32(fb.offset),
      weights: fft.place(fb.weights),
      out: fft.allocate(fb.bands),
    };
  }

  /**
   * onset-detection's SuperFlux bands: `hannMagnitudes` (dsp/reference/) of the FFT's output, bins [from, to), into mag,
   * then lin[b] = 1 + λ·(band b's weighted sum of mag) for the placed log filterbank.
   */
  superFluxBands(mag: Float64Array, from: number, to: number, fb: PlacedFilterbank, lambda: number, lin: Float64Array): void {
    const k = this.kernel;
    k.superFluxBands(
      this.at(this.fft.re),
      this.at(this.fft.im),
      this.fft.size >> 1,
      from,
      to,
      this.at(mag),
      fb.bands,
      this.at(fb.start),
      this.at(fb.length),
      this.at(fb.offset),
      this.at(fb.weights),
      lambda,
      this.at(lin),
    );
  }

  /** `applySparseFilterbank` of `power`: the band values, in the placed bank's `out` (valid until the next call). */
  applySparseFilterbank(fb: PlacedFilterbank, power: Float64Array): Float64Array {
    this.kernel.sparseFilterbank(
      fb.bands,
      this.at(fb.start),
      this.at(fb.length),
      this.at(fb.offset),
      this.at(fb.weights),
      this.at(power),
      this.at(fb.out),
    );
    return fb.out;
  }
}

/**
 * The per-frame loops of the sample analysis (server/audio/engines/sample-analysis.ts) and its HPSS
 * (dsp/role-features.ts `StreamingHpss`) in the FFT's WebAssembly kernel, on arrays in its memory.
 */
export class SampleFrameKernels extends KernelArrays {
  constructor(fft: RealFft) {
    super(fft, 2);
  }

  /** fft.input[k] = ring[(first + k) mod n]·window[k]: a full window read from a ring of the FFT's size. */
  windowRing(ring: Float64Array, first: number, window: Float64Array): void {
    this.kernel.windowRing(this.at(ring), first, this.at(window), this.at(this.fft.input), this.fft.size);
  }

  /**
   * power[k] = |X[k]|² of the FFT's output for k ≥ 1; acc[s] = Σ power over bins slotStart[s]..slotStart[s+1]−1
   * (slotStart[0] = 1); returns Σ power and writes Σ k·power to `moments[0]`.
   */
  powerSlots(power: Float64Array, slotStart: Int32Array, acc: Float64Array, moments: Float64Array): number {
    const r = this.out;
    this.kernel.powerSlots(
      this.at(this.fft.re),
      this.at(this.fft.im),
      this.at(power),
      this.at(slotStart),
      acc.length,
      this.at(acc),
      this.at(r),
    );
    moments[0] = r[1]!;
    return r[0]!;
  }

  /** HPSS: powers[k] = src[k] and mags[k] = √src[k] for k < bins. */
  hpssRow(src: Float64Array, powers: Float64Array, mags: Float64Array, bins: number): void {
    this.kernel.hpssRow(this.at(src), this.at(powers), this.at(mags), bins);
  }

  /** HPSS split of one frame from its magnitude rows (t−4, t−2, t, t+2, t+4) and power row: [percussive, harmonic] power. */
  hpssSplit(
    rows: readonly [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array],
    power: Float64Array,
    bins: number,
  ): Float64Array {
    this.kernel.hpssSplit(
      this.at(rows[0]),
      this.at(rows[1]),
      this.at(rows[2]),
      this.at(rows[3]),
      this.at(rows[4]),
      this.at(power),
      bins,
      this.at(this.out),
    );
    return this.out;
  }
}

/** The sparse band layout of dsp/mfcc.ts `SparseFilterbank` and dsp/onset-detection.ts `LogFilterbank`. */
export type BandWeights = Pick<SparseFilterbank, 'bands' | 'start' | 'length' | 'offset' | 'weights'>;

/** ContrastBands in a kernel's memory, with the kernel's output rows. */
export interface PlacedContrastBands {
  readonly bands: number;
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly count: Int32Array;
  readonly peak: Float64Array;
  readonly valley: Float64Array;
  readonly scratch: Float64Array;
}

/** A SparseFilterbank in a kernel's memory, with the kernel's output row. */
export interface PlacedFilterbank {
  readonly bands: number;
  readonly start: Int32Array;
  readonly length: Int32Array;
  readonly offset: Int32Array;
  readonly weights: Float64Array;
  readonly out: Float64Array;
}

/** Bytes of FFT workspace that `FrameKernels` with these tables and `arrays` more Float64Arrays of `values` in total need. */
export function frameKernelWorkspace(values: number, arrays: number, cb?: ContrastBands, fb?: BandWeights): number {
  const pad = 16;
  let bytes = 8 * 8 + pad + 8 * values + pad * arrays;
  if (cb) bytes += 3 * (4 * cb.bands + pad) + 2 * (8 * cb.bands + pad) + 8 * Math.max(...cb.count) + pad;
  if (fb) bytes += 3 * (4 * fb.bands + pad) + 8 * fb.weights.length + pad + 8 * fb.bands + pad;
  return bytes;
}
