import { describe, expect, it } from 'vitest';
import { createRealFft, type RealFft } from './fft.js';
import { FrameKernels, SampleFrameKernels, frameKernelWorkspace } from './frame-kernels.js';
import { slaneyMelFilterbank } from './mfcc.js';
import { logFilterbank } from './onset-detection.js';
import { applySparseFilterbank } from './reference/mfcc.js';
import { hannMagnitudes } from './reference/onset-detection.js';
import { contrastPeakValley, magnitudeSum, rolloffFluxPass, spectrumPass } from './reference/spectral-features.js';
import { StreamingHpss } from './role-features.js';
import { FLATNESS_AMIN, ROLL_PERCENT, binFrequencies, contrastBands, type ContrastBands } from './spectral-features.js';
import { hannWindow } from './window.js';

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Plenty for every test's arrays (the kernels' own sizing is tested separately). */
const WORKSPACE = 1 << 20;

/** Same bits, value for value (toEqual compares numbers with Object.is, so 0 and −0 differ). */
function expectSameBits(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(Array.from(actual)).toEqual(Array.from(expected));
}

/** Equal to `rel` relative: for sums the kernel reassociates. */
function expectNear(actual: number, expected: number, rel = 1e-12): void {
  if (Object.is(actual, expected)) return;
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.max(Math.abs(actual), Math.abs(expected)));
}

/** A Float64Array in the FFT's memory holding `values`. */
function placed(fft: RealFft, values: ArrayLike<number>): Float64Array {
  const a = fft.allocate(values.length);
  a.set(values);
  return a;
}

/** Sines of random frequencies, levels and phases plus noise, Hann-windowed into the FFT's input, then transformed. */
function toneFrame(fft: RealFft, rand: () => number, noise = 0.01): void {
  const n = fft.size;
  const w = hannWindow(n);
  const partials = Array.from({ length: 5 }, () => ({ f: 0.45 * rand(), a: rand() ** 2, phase: 2 * Math.PI * rand() }));
  for (let i = 0; i < n; i++) {
    let x = noise * (2 * rand() - 1);
    for (const p of partials) x += p.a * Math.sin(2 * Math.PI * p.f * i + p.phase);
    fft.input[i] = x * w[i]!;
  }
  fft.transform();
}

/**
 * Random bins straight into the FFT's output: levels over 12 decades (so some powers fall below the
 * flatness floor) and a quarter of the bins exactly zero.
 */
function randomBins(fft: RealFft, rand: () => number): void {
  for (let k = 0; k < fft.re.length; k++) {
    const zero = rand() < 0.25;
    const level = 10 ** (6 * rand() - 8);
    fft.re[k] = zero ? 0 : level * (2 * rand() - 1);
    fft.im[k] = zero ? 0 : level * (2 * rand() - 1);
  }
}

/** The FFT's output of an all-zero frame. */
function silence(fft: RealFft): void {
  fft.input.fill(0);
  fft.transform();
}

/** The spectra the FrameKernels tests run on: they set the FFT's re/im. */
const spectra: [string, (fft: RealFft, rand: () => number) => void][] = [
  ['tones and noise', (fft, rand) => toneFrame(fft, rand)],
  ['random bins', randomBins],
  ['silence', silence],
];

/** |X[k]| of the FFT's output, computed in JavaScript. */
function magnitudes(fft: RealFft): Float64Array {
  return Float64Array.from(fft.re, (r, k) => Math.sqrt(r * r + fft.im[k]! * fft.im[k]!));
}

describe('FrameKernels.windowInput', () => {
  it.each([8, 2048])('writes buf·window to the FFT input and returns the even-plus-odd energy, bit for bit (n = %i)', (n) => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const window = placed(fft, hannWindow(n));
    const buf = fft.allocate(n);
    const rand = rng(n);
    for (let trial = 0; trial < 5; trial++) {
      // Full-scale noise, then quieter and quieter signals (the energy's rounding depends on the level).
      const scale = 10 ** -(2 * trial);
      for (let i = 0; i < n; i++) buf[i] = scale * (Math.sin(0.01 * i * (trial + 1)) + (2 * rand() - 1));
      const expected = new Float64Array(n);
      let e0 = 0;
      let e1 = 0;
      for (let i = 0; i < n; i += 2) {
        const a = buf[i]! * window[i]!;
        const b = buf[i + 1]! * window[i + 1]!;
        expected[i] = a;
        expected[i + 1] = b;
        e0 += a * a;
        e1 += b * b;
      }
      const energy = kernels.windowInput(buf, window);
      expect(Object.is(energy, e0 + e1)).toBe(true);
      expectSameBits(fft.input, expected);
    }
  });
});

describe('FrameKernels.spectrumPass', () => {
  const n = 2048;
  const sr = 44_100;
  // All bins (a tail of one after the 32-bin blocks), and shorter rows with longer tails or no block at all.
  const lengths = [n / 2 + 1, 1000, 33, 7];

  describe.each(spectra)('on %s', (_name, makeSpectrum) => {
    it.each(lengths)('gives bit-identical power and magnitude and the same moments (%i bins)', (bins) => {
      const fft = createRealFft(n, WORKSPACE);
      const kernels = new FrameKernels(fft);
      const freqs = placed(fft, binFrequencies(sr, n).subarray(0, bins));
      const power = fft.allocate(bins);
      const mag = fft.allocate(bins);
      const rand = rng(bins);
      for (let trial = 0; trial < 3; trial++) {
        makeSpectrum(fft, rand);
        const out = new Float64Array(4);
        kernels.spectrumPass(freqs, power, mag, FLATNESS_AMIN, out);
        const refPower = new Float64Array(bins);
        const refMag = new Float64Array(bins);
        const ref = new Float64Array(4);
        spectrumPass(fft.re, fft.im, freqs, refPower, refMag, ref);
        expectSameBits(power, refPower);
        expectSameBits(mag, refMag);
        for (let i = 0; i < 4; i++) expectNear(out[i]!, ref[i]!);
      }
    });
  });
});

describe('FrameKernels.rolloffFlux', () => {
  const n = 2048;
  const sr = 44_100;
  const bins = n / 2 + 1;

  /** Kernel and JavaScript results for the same inputs. */
  const both = (
    kernels: FrameKernels,
    mag: Float64Array,
    freqs: Float64Array,
    sum: number,
    prev: Float64Array,
    prevSum: number,
    rollPercent: number,
  ) => {
    const out = new Float64Array(2);
    kernels.rolloffFlux(mag, freqs, sum, prev, prevSum, rollPercent, out);
    const ref = new Float64Array(2);
    rolloffFluxPass(mag, freqs, sum, prev, prevSum, ref, rollPercent);
    return { out: Array.from(out), ref: Array.from(ref) };
  };

  // Row lengths 0..3 mod 4, so the flux's scalar tail takes 0 to 3 bins.
  it.each([bins, bins - 1, bins - 2, bins - 3])('matches rolloffFluxPass bit for bit on consecutive spectra (%i bins)', (len) => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const freqs = placed(fft, binFrequencies(sr, n));
    const rand = rng(len);
    let prev = fft.allocate(len);
    let prevSum = 0;
    for (let t = 0; t < 8; t++) {
      if (t % 3 === 2) randomBins(fft, rand);
      else toneFrame(fft, rand, t % 2 === 0 ? 0.01 : 0.3);
      const mag = placed(fft, magnitudes(fft).subarray(0, len));
      const sum = magnitudeSum(mag);
      for (const rollPercent of [ROLL_PERCENT, 0.5, 0.99, 0, 1]) {
        const { out, ref } = both(kernels, mag, freqs, sum, prev, prevSum, rollPercent);
        expect(out).toEqual(ref);
      }
      prev = mag;
      prevSum = sum;
    }
  });

  it('gives 0, 0 for a frame whose sum is not positive, and flux 1 after one whose sum is not', () => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const freqs = placed(fft, binFrequencies(sr, n));
    const rand = rng(7);
    toneFrame(fft, rand);
    const prev = placed(fft, magnitudes(fft));
    toneFrame(fft, rand);
    const mag = placed(fft, magnitudes(fft));
    const sum = magnitudeSum(mag);
    for (const bad of [0, -1, Number.NaN]) {
      const silentNow = both(kernels, mag, freqs, bad, prev, magnitudeSum(prev), ROLL_PERCENT);
      expect(silentNow.out).toEqual([0, 0]);
      expect(silentNow.out).toEqual(silentNow.ref);
      const silentBefore = both(kernels, mag, freqs, sum, prev, bad, ROLL_PERCENT);
      expect(silentBefore.out[1]).toBe(1);
      expect(silentBefore.out).toEqual(silentBefore.ref);
    }
    // An all-zero frame after a silent one: the caller's sum is 0.
    const zeros = fft.allocate(bins);
    expect(both(kernels, zeros, freqs, 0, zeros, 0, ROLL_PERCENT).out).toEqual([0, 0]);
  });

  it('agrees where the sum it is given is not Σ mag (flux clipped at 1, roll-off at the last bin)', () => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const freqs = placed(fft, binFrequencies(sr, n));
    const rand = rng(11);
    toneFrame(fft, rand);
    const prev = placed(fft, magnitudes(fft));
    toneFrame(fft, rand, 0.5);
    const mag = placed(fft, magnitudes(fft));
    const sum = magnitudeSum(mag);
    const prevSum = magnitudeSum(prev);
    // Half the sum doubles the normalised frame, so its excess over the previous one passes 1; twice the
    // sum puts the threshold beyond the total.
    const clipped = both(kernels, mag, freqs, sum / 2, prev, prevSum, ROLL_PERCENT);
    expect(clipped.out[1]).toBe(1);
    expect(clipped.out).toEqual(clipped.ref);
    const last = both(kernels, mag, freqs, 2 * sum, prev, prevSum, ROLL_PERCENT);
    expect(last.out[0]).toBe(freqs[bins - 1]);
    expect(last.out).toEqual(last.ref);
  });
});

describe('FrameKernels.contrastPeakValley', () => {
  /** Magnitude rows of several shapes, including ties, zeros and monotonic slopes. */
  const rows = (fft: RealFft, bins: number): Float64Array[] => {
    const rand = rng(bins);
    const out: Float64Array[] = [];
    for (let t = 0; t < 3; t++) {
      toneFrame(fft, rand, 0.05 * t);
      out.push(magnitudes(fft));
    }
    out.push(Float64Array.from({ length: bins }, () => Math.floor(4 * rand())));
    out.push(Float64Array.from({ length: bins }, () => rand()));
    out.push(Float64Array.from({ length: bins }, (_, k) => 1 / (k + 1)));
    out.push(Float64Array.from({ length: bins }, (_, k) => k));
    out.push(new Float64Array(bins));
    return out;
  };

  it.each([
    [44_100, 2048],
    [22_050, 1024],
    [48_000, 4096],
  ])('writes the same peaks and valleys as contrastPeakValley, bit for bit (sr %i, n %i)', (sr, n) => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const cb = contrastBands(sr, n);
    const placedBands = kernels.placeContrastBands(cb);
    const bins = n / 2 + 1;
    const mag = fft.allocate(bins);
    const frames = rows(fft, bins);
    // Rows of results as the features engine keeps them: frame t at offset t·bands.
    const peak = new Float64Array(frames.length * cb.bands);
    const valley = new Float64Array(frames.length * cb.bands);
    const refPeak = new Float64Array(frames.length * cb.bands);
    const refValley = new Float64Array(frames.length * cb.bands);
    const scratch = new Float64Array(Math.max(...cb.count));
    frames.forEach((row, t) => {
      mag.set(row);
      kernels.contrastPeakValley(mag, placedBands, peak, valley, t * cb.bands);
      contrastPeakValley(row, cb, refPeak, refValley, t * cb.bands, scratch);
    });
    expectSameBits(peak, refPeak);
    expectSameBits(valley, refValley);
  });

  it('agrees on bands narrower than their count', () => {
    const fft = createRealFft(64, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const cb: ContrastBands = {
      bands: 3,
      start: Int32Array.of(0, 3, 10),
      end: Int32Array.of(3, 10, 30),
      count: Int32Array.of(5, 1, 4),
      lowHz: Float64Array.of(0, 100, 200),
    };
    const placedBands = kernels.placeContrastBands(cb);
    const rand = rng(3);
    const row = Float64Array.from({ length: 33 }, () => rand());
    const peak = new Float64Array(3);
    const valley = new Float64Array(3);
    const refPeak = new Float64Array(3);
    const refValley = new Float64Array(3);
    kernels.contrastPeakValley(placed(fft, row), placedBands, peak, valley, 0);
    contrastPeakValley(row, cb, refPeak, refValley, 0, new Float64Array(5));
    expectSameBits(peak, refPeak);
    expectSameBits(valley, refValley);
  });
});

describe('FrameKernels.applySparseFilterbank', () => {
  // The last has triangles narrower than a bin (empty rows).
  it.each([
    [44_100, 2048],
    [22_050, 1024],
    [16_000, 512],
  ])('gives the same mel bands as applySparseFilterbank, bit for bit (sr %i, n %i)', (sr, n) => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const fb = slaneyMelFilterbank(sr, n, 128);
    const bank = kernels.placeFilterbank(fb);
    const bins = n / 2 + 1;
    const power = fft.allocate(bins);
    const rand = rng(n);
    for (const [, makeSpectrum] of spectra) {
      for (let trial = 0; trial < 2; trial++) {
        makeSpectrum(fft, rand);
        const row = Float64Array.from(fft.re, (r, k) => r * r + fft.im[k]! * fft.im[k]!);
        power.set(row);
        const out = kernels.applySparseFilterbank(bank, power);
        const ref = new Float64Array(fb.bands);
        applySparseFilterbank(fb, row, ref);
        expectSameBits(out, ref);
      }
    }
  });
});

describe('FrameKernels.superFluxBands', () => {
  // from = 0 and to = n/2 + 1 take the mirrored-neighbour edge bins; the onset bank starts at bin 1.
  it.each([
    [44_100, 2048, null, null],
    [22_050, 1024, 0, 513],
    [48_000, 2048, 3, 1024],
  ])('gives the Hann magnitudes and band values of hannMagnitudes + the band sums, bit for bit (sr %i, n %i)', (sr, n, fromArg, toArg) => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const fb = logFilterbank(n, sr, 24, 30, Math.min(17_000, sr / 2));
    const bank = kernels.placeFilterbank(fb);
    const from = fromArg ?? fb.start[0]!;
    const to = toArg ?? fb.binEnd;
    const mag = fft.allocate(n / 2 + 1);
    const lin = fft.allocate(fb.bands);
    const rand = rng(sr + n);
    for (const [, makeSpectrum] of spectra) {
      makeSpectrum(fft, rand);
      kernels.superFluxBands(mag, from, to, bank, 10, lin);
      const refMag = new Float64Array(n / 2 + 1);
      hannMagnitudes(fft.re, fft.im, from, to, refMag);
      expectSameBits(mag.subarray(from, to), refMag.subarray(from, to));
      const refLin = new Float64Array(fb.bands);
      for (let b = 0; b < fb.bands; b++) {
        let sum = 0;
        for (let j = 0; j < fb.length[b]!; j++) sum += fb.weights[fb.offset[b]! + j]! * refMag[fb.start[b]! + j]!;
        refLin[b] = 1 + 10 * sum;
      }
      expectSameBits(lin, refLin);
    }
  });
});

describe('FrameKernels, frame after frame as the features engine runs them', () => {
  it('matches the JavaScript passes on a signal with tones and bursts', () => {
    const n = 2048;
    const hop = 512;
    const sr = 44_100;
    const bins = n / 2 + 1;
    const cb = contrastBands(sr, n);
    const fb = slaneyMelFilterbank(sr, n, 128);
    const fft = createRealFft(n, frameKernelWorkspace(2 * n + 4 * bins, 6, cb, fb));
    const kernels = new FrameKernels(fft);
    const window = placed(fft, hannWindow(n));
    const buf = fft.allocate(n);
    const power = fft.allocate(bins);
    let mag = fft.allocate(bins);
    let prevMag = fft.allocate(bins);
    const freqs = placed(fft, binFrequencies(sr, n));
    const bank = kernels.placeFilterbank(fb);
    const placedBands = kernels.placeContrastBands(cb);
    const rand = rng(5);
    const frames = 12;
    const x = Float64Array.from({ length: n + hop * frames }, (_, i) => {
      const burst = Math.floor(i / 3000) % 2 === 1 ? 0.5 * (2 * rand() - 1) : 0;
      return 0.3 * Math.sin((2 * Math.PI * 440 * i) / sr) + 0.1 * Math.sin((2 * Math.PI * 3520 * i) / sr) + burst;
    });
    const stats = new Float64Array(4);
    const ref = new Float64Array(4);
    const peak = new Float64Array(frames * cb.bands);
    const valley = new Float64Array(frames * cb.bands);
    const refPeak = new Float64Array(frames * cb.bands);
    const refValley = new Float64Array(frames * cb.bands);
    let prevSum = 0;
    for (let t = 0; t < frames; t++) {
      buf.set(x.subarray(t * hop, t * hop + n));
      let e0 = 0;
      let e1 = 0;
      const frame = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = buf[i]! * window[i]!;
        frame[i] = v;
        if (i % 2 === 0) e0 += v * v;
        else e1 += v * v;
      }
      expect(Object.is(kernels.windowInput(buf, window), e0 + e1)).toBe(true);
      expectSameBits(fft.input, frame);
      fft.transform();
      kernels.spectrumPass(freqs, power, mag, FLATNESS_AMIN, stats);
      const refPower = new Float64Array(bins);
      const refMag = new Float64Array(bins);
      spectrumPass(fft.re, fft.im, freqs, refPower, refMag, ref);
      expectSameBits(power, refPower);
      expectSameBits(mag, refMag);
      for (let i = 0; i < 4; i++) expectNear(stats[i]!, ref[i]!);
      // Both roll-off/flux passes get the kernel's sum, so their results must agree to the bit.
      const sum = stats[0]!;
      const flux = new Float64Array(2);
      kernels.rolloffFlux(mag, freqs, sum, prevMag, t === 0 ? 0 : prevSum, ROLL_PERCENT, flux);
      const refFlux = new Float64Array(2);
      rolloffFluxPass(refMag, freqs, sum, prevMag, t === 0 ? 0 : prevSum, refFlux);
      expectSameBits(flux, refFlux);
      kernels.contrastPeakValley(mag, placedBands, peak, valley, t * cb.bands);
      contrastPeakValley(refMag, cb, refPeak, refValley, t * cb.bands, new Float64Array(Math.max(...cb.count)));
      const mel = kernels.applySparseFilterbank(bank, power);
      const refMel = new Float64Array(fb.bands);
      applySparseFilterbank(fb, refPower, refMel);
      expectSameBits(mel, refMel);
      [mag, prevMag] = [prevMag, mag];
      prevSum = sum;
    }
    expectSameBits(peak, refPeak);
    expectSameBits(valley, refValley);
  });
});

describe('SampleFrameKernels.windowRing', () => {
  it.each([8, 16, 2048])('reads the window from the ring at every kind of start, bit for bit (n = %i)', (n) => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new SampleFrameKernels(fft);
    const rand = rng(n);
    const ring = placed(
      fft,
      Array.from({ length: n }, () => 2 * rand() - 1),
    );
    const window = placed(fft, hannWindow(n));
    const firsts = n <= 16 ? Array.from({ length: n }, (_, i) => i) : [0, 1, 2, 3, 511, n / 2, n / 2 + 1, n - 2, n - 1];
    for (const first of firsts) {
      fft.input.fill(Number.NaN);
      kernels.windowRing(ring, first, window);
      expectSameBits(
        fft.input,
        Float64Array.from({ length: n }, (_, k) => ring[(first + k) % n]! * window[k]!),
      );
    }
  });
});

describe('SampleFrameKernels.powerSlots', () => {
  it.each([
    ['sample-analysis bands', 2048, [1, 3, 10, 47, 94, 186, 1025]],
    ['empty, one-bin and odd slots', 2048, [1, 1, 2, 5, 9, 100, 101, 102, 1025]],
    ['a single slot', 2048, [1, 1025]],
    ['a small FFT', 8, [1, 2, 5]],
  ])('gives bit-identical power and the same slot sums and moments (%s)', (_name, n, starts) => {
    const fft = createRealFft(n, WORKSPACE);
    const kernels = new SampleFrameKernels(fft);
    const half = n / 2;
    const slotStart = fft.allocateInt32(starts.length);
    slotStart.set(starts);
    const acc = fft.allocate(starts.length - 1);
    const power = fft.allocate(half + 1);
    const rand = rng(n + starts.length);
    for (const [, makeSpectrum] of spectra) {
      for (let trial = 0; trial < 2; trial++) {
        makeSpectrum(fft, rand);
        const moments = new Float64Array(1);
        const total = kernels.powerSlots(power, slotStart, acc, moments);
        const refPower = Float64Array.from(fft.re, (r, k) => r * r + fft.im[k]! * fft.im[k]!);
        expectSameBits(power.subarray(1), refPower.subarray(1));
        let refTotal = 0;
        let refMoment = 0;
        for (let k = 1; k <= half; k++) {
          refTotal += refPower[k]!;
          refMoment += k * refPower[k]!;
        }
        for (let s = 0; s + 1 < starts.length; s++) {
          let slot = 0;
          for (let k = starts[s]!; k < starts[s + 1]!; k++) slot += refPower[k]!;
          expectNear(acc[s]!, slot);
        }
        expectNear(total, refTotal);
        expectNear(moments[0]!, refMoment);
      }
    }
  });
});

/**
 * StreamingHpss as its doc comment describes it, written plainly: magnitudes √power, silent frames before
 * the start and after the end, every even frame t < `upTo` split by the Wiener mask of the 5-tap medians
 * over time (t−4 … t+4) and over frequency (k−4 … k+4, clamped to the row).
 */
function hpssReference(frames: readonly Float64Array[], bins: number, upTo = frames.length): { percussive: number; harmonic: number } {
  const mag = (t: number, k: number) => (t >= 0 && t < frames.length ? Math.sqrt(frames[t]![k]!) : 0);
  const median = (v: number[]) => v.sort((a, b) => a - b)[2]!;
  const taps = [-4, -2, 0, 2, 4];
  let percussive = 0;
  let harmonic = 0;
  for (let t = 0; t < upTo; t += 2) {
    for (let k = 0; k < bins; k++) {
      const h = median(taps.map((d) => mag(t + d, k)));
      const p = median(taps.map((d) => mag(t, Math.min(bins - 1, Math.max(0, k + d)))));
      const den = h * h + p * p;
      const wp = den === 0 ? 0.5 : (p * p) / den;
      const power = frames[t]![k]!;
      percussive += power * wp;
      harmonic += power - power * wp;
    }
  }
  return { percussive, harmonic };
}

/** Random power rows of an FFT of 2048 (1025 bins); `density` of the bins non-zero, over 8 decades. */
function randomPowers(seed: number, count: number, density: number): Float64Array[] {
  const rand = rng(seed);
  return Array.from({ length: count }, () => Float64Array.from({ length: 1025 }, () => (rand() < density ? 10 ** (8 * rand() - 6) : 0)));
}

describe('StreamingHpss', () => {
  const binCounts = [9, 10, 64, 513];

  /** Both energies of an HPSS against the reference for the same frames. */
  const expectReference = (hpss: StreamingHpss, frames: readonly Float64Array[], bins: number, upTo?: number) => {
    const ref = hpssReference(frames, bins, upTo);
    expectNear(hpss.percussive, ref.percussive);
    expectNear(hpss.harmonic, ref.harmonic);
  };

  it.each(binCounts)('splits random spectra from outside its memory like the reference (%i bins)', (bins) => {
    const frames = randomPowers(bins, 23, 0.9);
    const hpss = new StreamingHpss(bins);
    for (const p of frames) hpss.push(p);
    hpss.flush();
    expect(hpss.percussive).toBeGreaterThan(0);
    expect(hpss.harmonic).toBeGreaterThan(0);
    expectReference(hpss, frames, bins);
  });

  // Sparse rows make both medians 0 under a lone non-zero bin: the mask's 0.5 case.
  it.each(binCounts)('splits sparse spectra, where both medians vanish, like the reference (%i bins)', (bins) => {
    const frames = randomPowers(1000 + bins, 20, 0.05);
    const hpss = new StreamingHpss(bins);
    for (const p of frames) hpss.push(p);
    hpss.flush();
    expectReference(hpss, frames, bins);
  });

  it.each(binCounts)('splits tones and clicks transformed by the FFT whose memory it shares (%i bins)', (bins) => {
    const n = 2048;
    const fft = createRealFft(n, StreamingHpss.workspace(bins) + 8 * (n / 2 + 1) + 16);
    const hpss = new StreamingHpss(bins, fft);
    // The power row is in the FFT's memory, so push reads it in place.
    const row = fft.allocate(n / 2 + 1);
    const rand = rng(bins);
    const frames: Float64Array[] = [];
    for (let t = 0; t < 21; t++) {
      if (t % 5 === 3) {
        // A click: broadband, the percussive case.
        fft.input.fill(0);
        fft.input[n / 2] = 1;
        fft.transform();
      } else {
        toneFrame(fft, rand, 0.02);
      }
      for (let k = 0; k < row.length; k++) row[k] = fft.re[k]! * fft.re[k]! + fft.im[k]! * fft.im[k]!;
      frames.push(Float64Array.from(row));
      hpss.push(row);
    }
    hpss.flush();
    expectReference(hpss, frames, bins);
  });

  it.each(binCounts)('takes power rows from its FFT memory and from outside alike (%i bins)', (bins) => {
    const frames = randomPowers(2000 + bins, 15, 0.7);
    const fft = createRealFft(2048, StreamingHpss.workspace(bins) + 8 * 1025 + 16);
    const inside = new StreamingHpss(bins, fft);
    const row = fft.allocate(1025);
    const outside = new StreamingHpss(bins, createRealFft(2048, StreamingHpss.workspace(bins)));
    for (const p of frames) {
      row.set(p);
      inside.push(row);
      outside.push(p);
    }
    inside.flush();
    outside.flush();
    expect(Object.is(inside.percussive, outside.percussive)).toBe(true);
    expect(Object.is(inside.harmonic, outside.harmonic)).toBe(true);
    expectReference(inside, frames, bins);
  });

  it('splits a frame once the four after it have arrived, and flush splits the rest', () => {
    const bins = 64;
    const frames = randomPowers(99, 13, 0.8);
    const hpss = new StreamingHpss(bins);
    frames.forEach((p, i) => {
      hpss.push(p);
      // After i + 1 frames, frames 0 .. i − 4 have their successors.
      expectReference(hpss, frames.slice(0, i + 1), bins, Math.max(0, i - 3));
    });
    hpss.flush();
    expectReference(hpss, frames, bins);
  });

  it.each([0, 1, 2, 3, 4, 5])('handles a stream of %i frames (all padding around them)', (count) => {
    const bins = 10;
    const frames = randomPowers(count, count, 0.9);
    const hpss = new StreamingHpss(bins);
    for (const p of frames) hpss.push(p);
    hpss.flush();
    expectReference(hpss, frames, bins);
    if (count === 0) expect([hpss.percussive, hpss.harmonic]).toEqual([0, 0]);
  });
});

describe('kernel workspace', () => {
  it('refuses arrays outside the FFT workspace', () => {
    const n = 64;
    const fft = createRealFft(n, WORKSPACE);
    const other = createRealFft(n, WORKSPACE);
    const kernels = new FrameKernels(fft);
    const sample = new SampleFrameKernels(fft);
    const window = placed(fft, hannWindow(n));
    const plain = new Float64Array(n);
    const foreign = other.allocate(n);
    expect(() => kernels.windowInput(plain, window)).toThrow(RangeError);
    expect(() => kernels.windowInput(foreign, window)).toThrow(RangeError);
    expect(() => kernels.windowInput(window, plain)).toThrow(RangeError);
    const bins = n / 2 + 1;
    const freqs = placed(fft, binFrequencies(8000, n));
    expect(() => kernels.spectrumPass(freqs, new Float64Array(bins), fft.allocate(bins), FLATNESS_AMIN, new Float64Array(4))).toThrow(
      RangeError,
    );
    expect(() => kernels.rolloffFlux(new Float64Array(bins), freqs, 1, fft.allocate(bins), 1, ROLL_PERCENT, new Float64Array(2))).toThrow(
      RangeError,
    );
    const bank = kernels.placeFilterbank(slaneyMelFilterbank(8000, n, 8));
    expect(() => kernels.applySparseFilterbank(bank, new Float64Array(bins))).toThrow(RangeError);
    const cb = kernels.placeContrastBands(contrastBands(8000, n, 200, 3));
    expect(() => kernels.contrastPeakValley(new Float64Array(bins), cb, new Float64Array(4), new Float64Array(4), 0)).toThrow(RangeError);
    expect(() => sample.windowRing(plain, 0, window)).toThrow(RangeError);
    const slotStart = fft.allocateInt32(2);
    slotStart.set([1, bins]);
    expect(() => sample.powerSlots(fft.allocate(bins), Int32Array.of(1, bins), fft.allocate(1), new Float64Array(1))).toThrow(RangeError);
    expect(() => sample.powerSlots(fft.allocate(bins), slotStart, new Float64Array(1), new Float64Array(1))).toThrow(RangeError);
  });

  it('throws RangeError when the workspace is exhausted', () => {
    // Regions are rounded up to 16 bytes: 64 + 32 of the 100 bytes fit, then nothing more.
    const fft = createRealFft(64, 100);
    const a = fft.allocate(8);
    const b = fft.allocateInt32(5);
    expect(() => fft.allocate(1)).toThrow(RangeError);
    expect(() => fft.allocateInt32(1)).toThrow(RangeError);
    // The arrays handed out stay distinct.
    a.fill(1);
    b.fill(-1);
    expect(Array.from(a)).toEqual(Array(8).fill(1));
    expect(Array.from(b)).toEqual(Array(5).fill(-1));
    // No workspace at all: the kernels cannot even take their result row.
    expect(() => new FrameKernels(createRealFft(64))).toThrow(RangeError);
    expect(() => new SampleFrameKernels(createRealFft(64))).toThrow(RangeError);
    expect(() => new StreamingHpss(64, createRealFft(64, StreamingHpss.workspace(64) / 2))).toThrow(RangeError);
  });

  it('sizes the workspaces the kernels ask for', () => {
    const n = 2048;
    const bins = n / 2 + 1;
    const cb = contrastBands(44_100, n);
    const fb = slaneyMelFilterbank(44_100, n, 128);
    // The features engine's layout: 2 arrays of n and 4 of the bins.
    const fft = createRealFft(n, frameKernelWorkspace(2 * n + 4 * bins, 6, cb, fb));
    const kernels = new FrameKernels(fft);
    kernels.placeFilterbank(fb);
    kernels.placeContrastBands(cb);
    expect(() => [
      fft.allocate(n),
      fft.allocate(n),
      fft.allocate(bins),
      fft.allocate(bins),
      fft.allocate(bins),
      fft.allocate(bins),
    ]).not.toThrow();
    for (const hpssBins of [9, 10, 513])
      expect(() => new StreamingHpss(hpssBins, createRealFft(n, StreamingHpss.workspace(hpssBins)))).not.toThrow();
  });
});
