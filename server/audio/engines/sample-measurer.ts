/**
 * The streaming measurement of the `samples` engine (sample-analysis.ts turns what it measures into the
 * answer, sample-role.ts judges the role).
 *
 * Interleaved chunks are reduced sample by sample into:
 * - running stereo sums (ΣL², ΣR², ΣLR of the first two channels) and the peak;
 * - a 5 ms block-power envelope (mean square over all channels);
 * - an STFT of the channel mean (Hann, 2048 points up to 50 kHz, 4096 up to 100 kHz, 8192 above; hop n/2,
 *   frames centred on multiples of the hop): band powers, centroid, flatness and tonal-peak share, 24
 *   log-spaced band powers (kept per frame for onsets and the loop seam) and a median-filter HPSS;
 * - the channel mean decimated to about 22 kHz (a triangular kernel): a YIN pitch track (dsp/pitch.ts;
 *   2048-sample frames, hop 2048, 30–2000 Hz), whose frame spectra (~5 Hz bins) also split the power
 *   below 250 Hz into sub and low.
 * Per-frame reductions are a few floats per frame; samples are never kept. Only the first `MAX_SECONDS`
 * are measured. The arithmetic is the same however the stream is chunked.
 *
 * Over 400 lines because `push` is one hand-inlined per-sample loop (the engine's hot path) over state
 * that the frame and pitch analyses share; splitting it would cost a call per sample.
 */
import { applyFilterbank, createFilterbank } from '../dsp/bands.js';
import { createRealFft, type RealFft } from '../dsp/fft.js';
import { SampleFrameKernels } from '../dsp/frame-kernels.js';
import { HarmonicTimbre, type HarmonicTimbreSummary } from '../dsp/harmonic-timbre.js';
import { Yin, type PitchEstimate } from '../dsp/pitch.js';
import { GrowableArray, StreamingHpss, SpectralShape } from '../dsp/role-features.js';
import { MelPatchHead } from '../dsp/mel-patch.js';
import { hannWindow } from '../dsp/window.js';
import type { StreamFormat } from './engine.js';

/** Audio after this many seconds is ignored (bounds memory; the routes send the first ~30 s). */
export const MAX_SECONDS = 60;

/** A pitch frame at or below this YIN aperiodicity is voiced. */
export const VOICED_APERIODICITY = 0.2;

/** Band edges of the `bands` split, Hz. */
export const BAND_EDGES_HZ = { sub: 60, low: 250, low_mid: 2000, high_mid: 6000 } as const;

/** What the measurer accumulated over the stream: sums and per-frame reductions, no samples. */
export interface SampleMeasures {
  readonly sampleRate: number;
  readonly channels: number;
  /** Frames measured (at most MAX_SECONDS of them). */
  readonly frames: number;
  readonly peak: number;
  /** Σx² over all channels. */
  readonly sumSquares: number;
  /** ΣL², ΣR², ΣLR of the first two channels (0 for mono). */
  readonly stereo: { readonly ll: number; readonly rr: number; readonly lr: number };
  readonly blockSeconds: number;
  /** Mean square per 5 ms block (all channels). */
  readonly blocks: Float64Array;
  /** STFT hop, samples (frame t is centred on sample t·hop). */
  readonly hop: number;
  /** STFT power summed over frames and bins. */
  readonly total: number;
  /** STFT power per band: sub, low, low-mid, high-mid, high. */
  readonly bandSum: Float64Array;
  /** Pitch frames' power below 60 Hz and 60–250 Hz (finer bins than the STFT's). */
  readonly lowSub: number;
  readonly lowLow: number;
  readonly above4k: number;
  /** Σ frame centroid × frame power, Hz. */
  readonly centroidSum: number;
  /** Σ frame flatness × frame power. */
  readonly flatSum: number;
  readonly tonalSum: number;
  readonly tonalPower: number;
  readonly hpssPercussive: number;
  readonly hpssHarmonic: number;
  /** Per STFT frame: power, centroid (Hz) and 24 log-band powers (frame-major). */
  readonly frameEnergy: Float64Array;
  readonly frameCentroid: Float64Array;
  readonly frameLogBands: Float64Array;
  /** Per pitch frame: YIN f0, aperiodicity and energy. */
  readonly pitchF0: Float64Array;
  readonly pitchAperiodicity: Float64Array;
  readonly pitchEnergy: Float64Array;
  /** Harmonic timbre of the voiced pitch frames (dsp/harmonic-timbre.ts), null when none had partials. */
  readonly timbre: HarmonicTimbreSummary | null;
  /** The level-free log-mel patch of the first 1.5 s (dsp/mel-patch.ts), the timbre embedding's input; null for silence. */
  readonly melPatch: Float32Array | null;
}

/** The sample engine's streaming measurement; one per stream. */
export class SampleMeasurer {
  private readonly channels: number;
  private readonly sampleRate: number;
  private readonly maxFrames: number;
  private frames = 0;
  /** The mono mix of the first frames, for the mel patch. */
  private readonly head: MelPatchHead;
  private peak = 0;
  private sumSquares = 0;
  private sLL = 0;
  private sRR = 0;
  private sLR = 0;

  // 5 ms block envelope.
  private readonly blockSize: number;
  private blockFill = 0;
  private blockSum = 0;
  private readonly blocks = new GrowableArray(1024);

  // STFT of the channel mean.
  private readonly n: number;
  private readonly hop: number;
  private readonly ring: Float64Array;
  private nextFrameAt: number;
  private stftFrames = 0;
  private readonly fft: RealFft;
  private readonly window: Float64Array;
  private readonly power: Float64Array;
  private readonly shape: SpectralShape;
  private readonly binHz: number;
  private readonly bandOf: Uint8Array;
  private readonly slotStart: Int32Array;
  private readonly frameBands: Float64Array;
  private readonly kernels: SampleFrameKernels;
  private readonly moments = new Float64Array(1);
  private readonly bandSum = new Float64Array(5);
  private above4k = 0;
  private total = 0;
  private centroidSum = 0;
  private flatSum = 0;
  private tonalSum = 0;
  private tonalPower = 0;
  private readonly lo100: number;
  private readonly lo50: number;
  private readonly hi16k: number;
  private readonly logBank;
  private readonly logBands: Float64Array;
  private readonly frameLogBands = new GrowableArray(4096);
  private readonly frameEnergy = new GrowableArray(512);
  private readonly frameCentroid = new GrowableArray(512);
  private readonly hpss: StreamingHpss;

  // Pitch track on the decimated mean.
  private readonly decim: number;
  private readonly decRate: number;
  private readonly yin: Yin;
  private readonly timbre: HarmonicTimbre;
  private readonly pitchN = 2048;
  private readonly pitchHop = 2048;
  private readonly pitchRing: Float64Array;
  // Sub/low split from the pitch frames' fine spectra (bins of decRate/4096 ≈ 5.4 Hz).
  private readonly lowSubBins: number;
  private readonly lowLowBins: number;
  private lowSub = 0;
  private lowLow = 0;
  private readonly pitchFrame: Float64Array;
  private decSeen = 0;
  /** decSeen at which the next pitch frame is complete. */
  private nextPitchAt: number;
  private readonly box1: Float64Array;
  private readonly box2: Float64Array;
  private boxPos = 0;
  private box1Sum = 0;
  private box2Sum = 0;
  private decCount = 0;
  private readonly pitchF0 = new GrowableArray(256);
  private readonly pitchAper = new GrowableArray(256);
  private readonly pitchEnergy = new GrowableArray(256);
  private readonly estimate: PitchEstimate = { f0: 0, aperiodicity: 1, energy: 0 };

  constructor(format: StreamFormat) {
    this.channels = Math.max(1, format.channels);
    const sr = format.sampleRate;
    this.sampleRate = sr;
    this.maxFrames = Math.round(MAX_SECONDS * sr);
    this.blockSize = Math.max(1, Math.round(sr * 0.005));
    this.n = sr > 100_000 ? 8192 : sr > 50_000 ? 4096 : 2048;
    this.hop = this.n >> 1;
    const half = this.n >> 1;
    this.nextFrameAt = half;
    this.binHz = sr / this.n;
    const bin = (hz: number) => Math.min(half, Math.max(1, Math.round(hz / this.binHz)));
    const hpssBins = Math.min(half, bin(11_025)) + 1;
    // The frame's arrays live in the FFT's WebAssembly memory, where the per-frame loops run (dsp/frame-kernels.ts):
    // ring, window, power, slots, results and the HPSS rows.
    this.fft = createRealFft(this.n, 8 * (2 * this.n + half + 1) + 256 + StreamingHpss.workspace(hpssBins));
    this.kernels = new SampleFrameKernels(this.fft);
    this.ring = this.fft.allocate(this.n);
    this.window = this.fft.place(hannWindow(this.n));
    this.power = this.fft.allocate(half + 1);
    this.frameBands = this.fft.allocate(6);
    this.shape = new SpectralShape(half + 1);
    // Slot of each bin by its centre frequency: 0 sub, 1 low, 2 low-mid, 3 high-mid below 4 kHz, 4 high-mid
    // from 4 kHz, 5 high (so that above_4k is slots 4 + 5).
    this.bandOf = new Uint8Array(half + 1);
    const edges = [BAND_EDGES_HZ.sub, BAND_EDGES_HZ.low, BAND_EDGES_HZ.low_mid, 4000, BAND_EDGES_HZ.high_mid];
    for (let k = 0; k <= half; k++) this.bandOf[k] = edges.filter((hz) => k * this.binHz >= hz).length;
    // First bin (from 1) of each slot, and half + 1 after the last.
    this.slotStart = this.fft.allocateInt32(this.frameBands.length + 1);
    for (let slot = 0; slot <= this.frameBands.length; slot++) {
      let k = 1;
      while (k <= half && this.bandOf[k]! < slot) k++;
      this.slotStart[slot] = slot === this.frameBands.length ? half + 1 : k;
    }
    this.lo100 = bin(100);
    this.lo50 = bin(50);
    this.hi16k = Math.max(this.lo100 + 8, Math.min(half - 1, bin(16_000)));
    this.logBank = createFilterbank('log', 24, this.n, sr, 40, Math.min(16_000, sr / 2));
    this.logBands = new Float64Array(24);
    this.hpss = new StreamingHpss(hpssBins, this.fft);
    // Pitch: decimate by d (two cascaded length-d boxcars, a triangle) to about 22 kHz.
    this.decim = Math.max(1, Math.round(sr / 22_050));
    this.decRate = sr / this.decim;
    this.yin = new Yin(this.pitchN, this.decRate, 30, 2000);
    this.timbre = new HarmonicTimbre(this.pitchN, this.decRate);
    this.nextPitchAt = this.pitchN;
    this.pitchRing = new Float64Array(this.pitchN);
    // Bins [1, lowSubBins) of the pitch frames' spectra are below 60 Hz, [lowSubBins, lowLowBins) 60–250 Hz.
    this.lowSubBins = Math.ceil((BAND_EDGES_HZ.sub * 2 * this.pitchN) / this.decRate);
    this.lowLowBins = Math.ceil((BAND_EDGES_HZ.low * 2 * this.pitchN) / this.decRate);
    this.pitchFrame = new Float64Array(this.pitchN);
    this.box1 = new Float64Array(this.decim);
    this.box2 = new Float64Array(this.decim);
    this.head = new MelPatchHead(sr, this.channels);
  }

  push(chunk: Float32Array): void {
    const ch = this.channels;
    let frames = chunk.length / ch;
    if (this.frames + frames > this.maxFrames) frames = Math.max(0, this.maxFrames - this.frames);
    this.head.push(chunk, frames);
    const inv = 1 / ch;
    const stereo = ch >= 2;
    const n = this.n;
    const halfN = n >> 1;
    const ring = this.ring;
    const blockSize = this.blockSize;
    const d = this.decim;
    const invD2 = 1 / (d * d);
    const box1 = this.box1;
    const box2 = this.box2;
    const pitchRing = this.pitchRing;
    const pitchN = this.pitchN;
    let peak = this.peak;
    let sumSquares = this.sumSquares;
    let sLL = this.sLL;
    let sRR = this.sRR;
    let sLR = this.sLR;
    let blockSum = this.blockSum;
    let blockFill = this.blockFill;
    let boxPos = this.boxPos;
    let box1Sum = this.box1Sum;
    let box2Sum = this.box2Sum;
    let decCount = this.decCount;
    let seen = this.frames;
    let nextFrameAt = this.nextFrameAt;
    let decSeen = this.decSeen;
    let nextPitchAt = this.nextPitchAt;
    // STFT ring, indexed by padded position (sample + n/2) mod n, so frame j is centred on sample j·hop
    // and is complete once sample j·hop + n/2 − 1 has arrived.
    let ringPos = (seen + halfN) % n;
    for (let i = 0; i < frames; i++) {
      const base = i * ch;
      let m = 0;
      let sq = 0;
      if (ch === 2) {
        // The loop below for two channels, with the stereo sums (the same operations in the same order).
        const l = chunk[base]!;
        const r = chunk[base + 1]!;
        m += l;
        m += r;
        const ll = l * l;
        const rr = r * r;
        sq += ll;
        sq += rr;
        const al = l < 0 ? -l : l;
        if (al > peak) peak = al;
        const ar = r < 0 ? -r : r;
        if (ar > peak) peak = ar;
        sLL += ll;
        sRR += rr;
        sLR += l * r;
      } else {
        for (let c = 0; c < ch; c++) {
          const v = chunk[base + c]!;
          m += v;
          sq += v * v;
          const a = v < 0 ? -v : v;
          if (a > peak) peak = a;
        }
        if (stereo) {
          const l = chunk[base]!;
          const r = chunk[base + 1]!;
          sLL += l * l;
          sRR += r * r;
          sLR += l * r;
        }
      }
      m *= inv;
      sumSquares += sq;
      // Envelope block.
      blockSum += sq * inv;
      if (++blockFill === blockSize) {
        this.blocks.push(blockSum / blockSize);
        blockSum = 0;
        blockFill = 0;
      }
      ring[ringPos] = m;
      if (++ringPos === n) ringPos = 0;
      if (++seen === nextFrameAt) {
        this.analyseFrame(seen);
        nextFrameAt += this.hop;
      }
      // Decimation for the pitch track (two cascaded length-d running sums: a triangular kernel).
      let dec = m;
      if (d > 1) {
        box1Sum += m - box1[boxPos]!;
        box1[boxPos] = m;
        box2Sum += box1Sum - box2[boxPos]!;
        box2[boxPos] = box1Sum;
        if (++boxPos === d) boxPos = 0;
        if (++decCount < d) continue;
        decCount = 0;
        dec = box2Sum * invD2;
      }
      pitchRing[decSeen % pitchN] = dec;
      if (++decSeen === nextPitchAt) {
        this.analysePitch(decSeen - pitchN);
        nextPitchAt += this.pitchHop;
      }
    }
    this.frames = seen;
    this.nextFrameAt = nextFrameAt;
    this.decSeen = decSeen;
    this.nextPitchAt = nextPitchAt;
    this.peak = peak;
    this.sumSquares = sumSquares;
    this.sLL = sLL;
    this.sRR = sRR;
    this.sLR = sLR;
    this.blockSum = blockSum;
    this.blockFill = blockFill;
    this.boxPos = boxPos;
    this.box1Sum = box1Sum;
    this.box2Sum = box2Sum;
    this.decCount = decCount;
  }

  private analysePitch(start: number): void {
    const n = this.pitchN;
    for (let j = 0; j < n; j++) this.pitchFrame[j] = this.pitchRing[(start + j) % n]!;
    const e = this.yin.analyse(this.pitchFrame, this.estimate);
    const spectrum = this.yin.powerSpectrum();
    for (let k = 1; k < this.lowSubBins; k++) this.lowSub += spectrum[k]!;
    for (let k = this.lowSubBins; k < this.lowLowBins; k++) this.lowLow += spectrum[k]!;
    this.pitchF0.push(e.f0);
    this.pitchAper.push(e.aperiodicity);
    this.pitchEnergy.push(e.energy);
    // Voiced frames (the pitch summary's rule: aperiodicity ≤ 0.2) carry the harmonic timbre.
    if (e.aperiodicity <= VOICED_APERIODICITY) this.timbre.addSignalFrame(this.pitchFrame, e.f0, e.energy);
  }

  /** Analyse the next STFT frame, `seen` real samples having arrived (later samples read as 0). */
  private analyseFrame(seen: number): void {
    // Frame j covers padded positions [j·hop, j·hop + n) = real samples [j·hop − n/2, j·hop + n/2).
    const n = this.n;
    const half = n >> 1;
    const j = this.stftFrames++;
    const start = j * this.hop; // padded position
    const ring = this.ring;
    const w = this.window;
    // The windowed frame goes straight into the FFT's input, and its output is read in place.
    const frameIn = this.fft.input;
    // Padded positions [start, start + n) sit in the ring from start mod n on; real samples past `seen`
    // (only at the end of the stream) read as 0, as do those before the first.
    const first = start % n;
    const valid = Math.min(n, seen + half - start);
    if (start >= half && valid === n) {
      // The whole window is in the ring: two straight runs.
      this.kernels.windowRing(ring, first, w);
    } else {
      for (let k = 0; k < n; k++) {
        const r = first + k;
        frameIn[k] = k < valid && start + k >= half ? ring[r < n ? r : r - n]! * w[k]! : 0;
      }
    }
    this.fft.transform();
    const power = this.power;
    const re = this.fft.re;
    const binHz = this.binHz;
    const acc = this.frameBands;
    // Slot s holds the bins [slotStart[s], slotStart[s + 1]) (the slots follow frequency).
    const total = this.kernels.powerSlots(power, this.slotStart, acc, this.moments);
    const centroid = this.moments[0]!;
    power[0] = re[0]! * re[0]!;
    const bands = this.bandSum;
    bands[0] = bands[0]! + acc[0]!;
    bands[1] = bands[1]! + acc[1]!;
    bands[2] = bands[2]! + acc[2]!;
    bands[3] = bands[3]! + acc[3]! + acc[4]!;
    bands[4] = bands[4]! + acc[5]!;
    this.above4k += acc[4]! + acc[5]!;
    this.total += total;
    this.centroidSum += centroid * binHz;
    this.frameEnergy.push(total);
    this.frameCentroid.push(total > 0 ? (centroid / total) * binHz : 0);
    // Flatness and peaks: every second frame (clip averages; halves the logarithms).
    if (total > 0 && (j & 1) === 0) {
      const shape = this.shape;
      shape.analyse(power, this.lo50, this.lo100, this.hi16k);
      this.flatSum += shape.flatness * total;
      this.tonalSum += shape.tonal * shape.power;
      this.tonalPower += shape.power;
    }
    applyFilterbank(this.logBank, power, this.logBands);
    for (let i = 0; i < 24; i++) this.frameLogBands.push(this.logBands[i]!);
    this.hpss.push(power);
  }

  /** Close the stream (the last, zero-padded frames) and hand over what was measured; call once. */
  finish(): SampleMeasures {
    // Remaining STFT frames: centres up to the last sample, zero-padded past the end.
    while (this.frames > 0 && this.stftFrames * this.hop < this.frames) this.analyseFrame(this.frames);
    this.hpss.flush();
    if (this.blockFill > 0) this.blocks.push(this.blockSum / this.blockFill);
    // A clip shorter than one pitch frame: analyse it zero-padded.
    if (this.pitchF0.length === 0 && this.decSeen > 0) {
      for (let k = this.decSeen; k < this.pitchN; k++) this.pitchRing[k] = 0;
      this.analysePitch(0);
    }
    return {
      sampleRate: this.sampleRate,
      channels: this.channels,
      frames: this.frames,
      peak: this.peak,
      sumSquares: this.sumSquares,
      stereo: { ll: this.sLL, rr: this.sRR, lr: this.sLR },
      blockSeconds: this.blockSize / this.sampleRate,
      blocks: this.blocks.view(),
      hop: this.hop,
      total: this.total,
      bandSum: this.bandSum,
      lowSub: this.lowSub,
      lowLow: this.lowLow,
      above4k: this.above4k,
      centroidSum: this.centroidSum,
      flatSum: this.flatSum,
      tonalSum: this.tonalSum,
      tonalPower: this.tonalPower,
      hpssPercussive: this.hpss.percussive,
      hpssHarmonic: this.hpss.harmonic,
      frameEnergy: this.frameEnergy.view(),
      frameCentroid: this.frameCentroid.view(),
      frameLogBands: this.frameLogBands.view(),
      pitchF0: this.pitchF0.view(),
      pitchAperiodicity: this.pitchAper.view(),
      pitchEnergy: this.pitchEnergy.view(),
      timbre: this.timbre.finish(),
      melPatch: this.head.patch(),
    };
  }
}
