/**
 * The `samples` engine: a per-sample exploratory analysis, and the sample's role measured from it.
 *
 * Everything is streamed. Interleaved chunks are reduced sample by sample into:
 * - running stereo sums (ΣL², ΣR², ΣLR of the first two channels) and the peak;
 * - a 5 ms block-power envelope (mean square over all channels): attack, decay, sustain, drop, the beat
 *   period (loopability);
 * - an STFT of the channel mean (Hann, 2048 points up to 50 kHz, 4096 up to 100 kHz, 8192 above; hop n/2,
 *   frames centred on multiples of the hop): band powers, centroid, flatness and tonal-peak share, 24
 *   log-spaced band powers (kept per frame for onsets and the loop seam) and a median-filter HPSS;
 * - the channel mean decimated to about 22 kHz (a triangular kernel): a YIN pitch track (dsp/pitch.ts;
 *   2048-sample frames, hop 2048, 30–2000 Hz), whose frame spectra (~5 Hz bins) also split the power
 *   below 250 Hz into sub and low.
 * Per-frame reductions are a few floats per frame; samples are never kept. `finish` turns them into the
 * measurements of `SampleAnalysisResult`, and the role model (role-model.ts, a logistic regression fitted
 * on real recordings by `npm run fit:roles`) gives the five roles' probabilities and the reasons. The file name takes no part in that: it can only turn percussive material (`percussive`) into
 * `percs` when it names a drum loop or break (`DRUM_LOOP_WORDS`), and the answer then says `name_used`.
 * Only the first `MAX_SECONDS` are analysed (the routes feed the first ~30 s).
 *
 * Every measurement is relative (to the clip's own peak or total power), so the level does not matter,
 * and the arithmetic is the same however the stream is chunked, so the answer is too.
 */
import { applyFilterbank, createFilterbank } from '../dsp/bands.js';
import { createRealFft, type RealFft } from '../dsp/fft.js';
import { SampleFrameKernels } from '../dsp/frame-kernels.js';
import { Yin, hzToMidi, midiToHz, noteName, type PitchEstimate } from '../dsp/pitch.js';
import {
  GrowableArray,
  StreamingHpss,
  beatPeriod,
  envelopeShape,
  pickPeaks,
  powerDb,
  ramp,
  SpectralShape,
} from '../dsp/role-features.js';
import { hannWindow } from '../dsp/window.js';
import { inferLoopTempo, type TempoSource } from '../dsp/loop-tempo.js';
import { estimateMixShares, explainRole, isMixture, MIX_CONFIDENCE_CAP, scoreRoleModel } from './role-model.js';
import type { RoleMeasurements } from './role-model-features.js';
import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';

export const SAMPLE_ROLES = ['percs', 'bass', 'melodic', 'tops', 'atmos'] as const;
export type SampleRole = (typeof SAMPLE_ROLES)[number];

/** Audio after this many seconds is ignored (bounds memory; the routes send the first ~30 s). */
export const MAX_SECONDS = 60;

/** Words in a file name that mark drum loops and breaks (matched case-insensitively anywhere in the name). */
export const DRUM_LOOP_WORDS = ['break', 'loop', 'drum', 'beat'] as const;

export interface SampleAnalysisParams {
  /** The file name (may be empty). Only used to call percussive material a drum loop or break (`percs`). */
  readonly name: string;
}

export interface RoleScore {
  readonly role: SampleRole;
  readonly confidence: number;
}

export interface SampleAnalysisResult {
  readonly role: SampleRole;
  /** Calibrated probability of the role (the model's softmax at its fitted temperature; at most 0.4 for a mix), 0..1. */
  readonly confidence: number;
  readonly runner_up: RoleScore;
  /** Calibrated probability of every role (sums to 1). */
  readonly scores: Record<SampleRole, number>;
  /** The role from the audio alone (differs from `role` only when the name hint applied). */
  readonly measured_role: SampleRole;
  /** True when the name marked percussive material as a drum loop or break, making it `percs`. */
  readonly name_used: boolean;
  /** Seconds analysed. */
  readonly duration_s: number;
  readonly level: { readonly peak_dbfs: number | null; readonly rms_dbfs: number | null };
  /** Share of the spectral power (channel mean) per band; sums to 1 (all 0 for silence). */
  readonly bands: { readonly sub: number; readonly low: number; readonly low_mid: number; readonly high_mid: number; readonly high: number };
  readonly spectrum: {
    /** Power-weighted mean frequency, Hz. */
    readonly centroid_hz: number;
    /** Share of the power above 4 kHz. */
    readonly above_4k: number;
    /** Mean spectral flatness (100 Hz–16 kHz) over the frames, power-weighted, 0 (tonal) .. 1 (white noise). */
    readonly flatness: number;
    /** Share of the power (50 Hz–16 kHz) in spectral peaks, 0..1. */
    readonly tonal_peak_share: number;
    /** Standard deviation of the frame centroids over the active frames, in octaves (timbre movement). */
    readonly centroid_motion_oct: number;
  };
  readonly percussion: {
    /** HPSS percussive share of the power, 0..1. */
    readonly hpss_percussive: number;
    readonly onset_count: number;
    /** Onsets per second of active audio. */
    readonly onset_density: number;
    /** Combined percussiveness 0..1 (see `percussivenessOf`). */
    readonly percussiveness: number;
    /** Combined harmonicity 0..1 (see `harmonicityOf`). */
    readonly harmonicity: number;
    /**
     * The material counts as percussive: percussiveness ≥ 0.5 and the model hears percs or tops. Only
     * then can the name make it `percs`.
     */
    readonly percussive: boolean;
  };
  readonly pitch: {
    /** Median f0 of the voiced frames, Hz; null when under a fifth of the active frames are voiced. */
    readonly f0_hz: number | null;
    readonly note: string | null;
    readonly midi: number | null;
    /** Mean periodicity of the active frames, 0..1 (1 − 2·YIN aperiodicity, clipped). */
    readonly salience: number;
    /** Share of the active frames with YIN aperiodicity ≤ 0.2. */
    readonly voiced_fraction: number;
    /** Interquartile range of the voiced frames' pitch, semitones (null without f0). */
    readonly spread_semitones: number | null;
  };
  readonly envelope: {
    /**
     * Attack of the first event, s: from the first 5 ms block within 30 dB of the peak to the first within
     * 3 dB of the loudest of the next 2 s (or of the first event, when it decays before the next onset).
     */
    readonly attack_s: number;
    /** From the peak to the first block 15 dB below it (to the end when it never falls that far), s. */
    readonly decay_s: number;
    /** Fraction of the clip within 20 dB of the peak, 0..1. */
    readonly sustain: number;
    /** Mean, over the blocks within 25 dB of the peak, of their level under the loudest of the preceding 0.3 s, dB (0 held or rising, large for fast-decaying hits). */
    readonly mean_drop_db: number;
  };
  readonly stereo: {
    /** Side/mid energy ratio: 1 − 2·ΣLR/(ΣL² + ΣR²), clipped to 0..1 (0 mono, 1 uncorrelated or wider). */
    readonly width: number;
    /** Pearson correlation of the first two channels at lag 0 (1 for mono input; null for silence). */
    readonly correlation: number | null;
  };
  /** The 2–3 measurements that decided the role, in words (the model's largest contributions). */
  readonly reasons: readonly string[];
  /** The material is a full mix (role-model.ts isMixture): the confidence is capped and `shares` estimates each role's part. */
  readonly mixture: boolean;
  /** Each role's estimated share of a mix (sums to 1); null unless `mixture`. */
  readonly shares: Record<SampleRole, number> | null;
  /** The role model's inputs and outputs (role-model.ts, weights in role-model-weights.ts). */
  readonly role_model: {
    /** The feature values, by name (before standardisation). */
    readonly features: Record<string, number>;
    /** Logit of each role before the temperature. */
    readonly logits: Record<SampleRole, number>;
    readonly temperature: number;
  };
  readonly loop: {
    /** Similarity of the two halves' mean spectra (24 log bands): exp(−mean |ΔdB| / 6), 0..1. */
    readonly halves_similarity: number;
    /** Level of the last eighth of the clip (50 ms .. 0.5 s) against the median frame level, dB (null for silence); a one-shot's tail is far below. */
    readonly end_level_db: number | null;
    /**
     * Beat tempo from the periodicity of the amplitude-onset curve (70–180 BPM, clips ≥ 1.5 s), null when not
     * periodic. A kick/snare backbeat above ~130 BPM may read at half tempo. The role model's `has_tempo`
     * reads this one (it was fitted on it).
     */
    readonly detected_tempo_bpm: number | null;
    /**
     * The tempo: from the loop length when the clip is 1, 2, 4 or 8 whole 4/4 bars whose amplitude onsets fit
     * that grid (dsp/loop-tempo.ts), else detected_tempo_bpm.
     */
    readonly tempo_bpm: number | null;
    /** 'loop_length', 'onsets' (= detected_tempo_bpm), or null without a tempo. */
    readonly tempo_source: TempoSource | null;
    /** Whole bars at tempo_bpm when tempo_source is 'loop_length', else null. */
    readonly bars: number | null;
    /** Duration in beats at tempo_bpm. */
    readonly beats: number | null;
    /** beats within 0.1 of a whole number ≥ 2. */
    readonly whole_beats: boolean;
    /**
     * 0.6·halves_similarity·ramp(end_level_db, −15, −6 dB) + 0.4·beat fit (1 − |beats − round(beats)|/0.25,
     * clipped; 0 without tempo).
     */
    readonly score: number;
    readonly is_loop: boolean;
  };
}

/** x rounded to `digits` decimals (never −0, which JSON would not keep). */
const round = (x: number, digits = 3) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f + 0;
};

/** Band edges of the `bands` split, Hz. */
export const BAND_EDGES_HZ = { sub: 60, low: 250, low_mid: 2000, high_mid: 6000 } as const;

/** Measurements the role model reads (all level-independent). */
export interface RoleFeatures {
  readonly duration: number;
  readonly bands: SampleAnalysisResult['bands'];
  readonly above4k: number;
  readonly centroidHz: number;
  readonly flatness: number;
  readonly tonal: number;
  readonly centroidMotion: number;
  readonly hpss: number;
  readonly onsetDensity: number;
  readonly onsetCount: number;
  readonly salience: number;
  readonly voiced: number;
  readonly f0: number | null;
  readonly spread: number | null;
  readonly attack: number;
  readonly decay: number;
  readonly sustain: number;
  readonly drop: number;
  readonly activeSeconds: number;
}

/**
 * Percussiveness 0..1: the mean of four cues, each a ramp over a documented range —
 * mean drop under the recent maximum (3 → 8 dB), fast attack (50 ms → 10 ms), HPSS percussive share
 * (0.15 → 0.5) and onsets per second (0.5 → 2.5).
 */
export function percussivenessOf(f: RoleFeatures): number {
  return (ramp(f.drop, 3, 8) + ramp(f.attack, 0.05, 0.01) + ramp(f.hpss, 0.15, 0.5) + ramp(f.onsetDensity, 0.5, 2.5)) / 4;
}

/**
 * Harmonicity 0..1: the mean of pitch salience (0.3 → 0.8), tonal-peak share (0.3 → 0.7) and HPSS
 * harmonic share (1 − percussive share, 0.5 → 0.85).
 */
export function harmonicityOf(f: RoleFeatures): number {
  return (ramp(f.salience, 0.3, 0.8) + ramp(f.tonal, 0.3, 0.7) + ramp(1 - f.hpss, 0.5, 0.85)) / 3;
}

/** True when the name contains one of `DRUM_LOOP_WORDS`. */
export function nameSuggestsDrumLoop(name: string): boolean {
  const lower = name.toLowerCase();
  return DRUM_LOOP_WORDS.some((w) => lower.includes(w));
}

/** The sample engine's analysis state; one per stream. */
class SampleAnalyser implements StreamEngine<SampleAnalysisResult> {
  private readonly channels: number;
  private readonly sampleRate: number;
  private readonly maxFrames: number;
  private frames = 0;
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

  constructor(
    format: StreamFormat,
    private readonly params: SampleAnalysisParams,
  ) {
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
    this.nextPitchAt = this.pitchN;
    this.pitchRing = new Float64Array(this.pitchN);
    // Bins [1, lowSubBins) of the pitch frames' spectra are below 60 Hz, [lowSubBins, lowLowBins) 60–250 Hz.
    this.lowSubBins = Math.ceil((BAND_EDGES_HZ.sub * 2 * this.pitchN) / this.decRate);
    this.lowLowBins = Math.ceil((BAND_EDGES_HZ.low * 2 * this.pitchN) / this.decRate);
    this.pitchFrame = new Float64Array(this.pitchN);
    this.box1 = new Float64Array(this.decim);
    this.box2 = new Float64Array(this.decim);
  }

  push(chunk: Float32Array): void {
    const ch = this.channels;
    let frames = chunk.length / ch;
    if (this.frames + frames > this.maxFrames) frames = Math.max(0, this.maxFrames - this.frames);
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

  finish(): SampleAnalysisResult {
    const sr = this.sampleRate;
    // Remaining STFT frames: centres up to the last sample, zero-padded past the end.
    while (this.frames > 0 && this.stftFrames * this.hop < this.frames) this.analyseFrame(this.frames);
    this.hpss.flush();
    if (this.blockFill > 0) this.blocks.push(this.blockSum / this.blockFill);
    // A clip shorter than one pitch frame: analyse it zero-padded.
    if (this.pitchF0.length === 0 && this.decSeen > 0) {
      for (let k = this.decSeen; k < this.pitchN; k++) this.pitchRing[k] = 0;
      this.analysePitch(0);
    }
    return this.result(sr);
  }

  private result(sr: number): SampleAnalysisResult {
    const duration = this.frames / sr;
    const blockSeconds = this.blockSize / sr;
    const blocks = this.blocks.view();

    // Bands and spectral summaries.
    const total = this.total;
    const share = (x: number) => (total > 0 ? x / total : 0);
    // The STFT's bins are 21.5 Hz wide at 44.1 kHz, too coarse for a 60 Hz edge: its power below 250 Hz
    // is split between sub and low in the proportion of the pitch frames' finer spectra (93 ms frames,
    // ≈5 Hz bins).
    const below250 = this.bandSum[0]! + this.bandSum[1]!;
    const fine = this.lowSub + this.lowLow;
    const subPart = fine > 0 ? (below250 * this.lowSub) / fine : this.bandSum[0]!;
    const bands = {
      sub: round(share(subPart)),
      low: round(share(below250 - subPart)),
      low_mid: round(share(this.bandSum[2]!)),
      high_mid: round(share(this.bandSum[3]!)),
      high: round(share(this.bandSum[4]!)),
    };
    const centroidHz = share(this.centroidSum);
    const flatness = share(this.flatSum);
    const tonal = this.tonalPower > 0 ? this.tonalSum / this.tonalPower : 0;
    const hpssTotal = this.hpss.percussive + this.hpss.harmonic;
    const hpss = hpssTotal > 0 ? this.hpss.percussive / hpssTotal : 0;

    // Active frames (within 40 dB of the loudest) for centroid motion and onsets.
    const energy = this.frameEnergy.view();
    let maxEnergy = 0;
    for (let i = 0; i < energy.length; i++) maxEnergy = Math.max(maxEnergy, energy[i]!);
    const activeFrame = (i: number) => energy[i]! >= maxEnergy * 1e-4 && maxEnergy > 0;
    const cents = this.frameCentroid.view();
    let cm = 0;
    let cm2 = 0;
    let cn = 0;
    for (let i = 0; i < energy.length; i++) {
      if (!activeFrame(i) || !(cents[i]! > 0)) continue;
      const o = Math.log2(cents[i]!);
      cm += o;
      cm2 += o * o;
      cn++;
    }
    const centroidMotion = cn > 1 ? Math.sqrt(Math.max(0, cm2 / cn - (cm / cn) ** 2)) : 0;

    // Onsets: mean rise in dB over 24 log bands between consecutive frames.
    const logBands = this.frameLogBands.view();
    const nFrames = energy.length;
    let maxBand = 0;
    for (let i = 0; i < logBands.length; i++) maxBand = Math.max(maxBand, logBands[i]!);
    const floorDb = powerDb(maxBand) - 80;
    const flux = new Float64Array(nFrames);
    for (let t = 0; t < nFrames; t++) {
      let s = 0;
      for (let b = 0; b < 24; b++) {
        const cur = Math.max(floorDb, powerDb(logBands[t * 24 + b]!));
        const prev = t > 0 ? Math.max(floorDb, powerDb(logBands[(t - 1) * 24 + b]!)) : floorDb;
        if (cur > prev) s += cur - prev;
      }
      flux[t] = activeFrame(t) ? s / 24 : 0;
    }
    const onsetFrames = pickPeaks(flux, 3, 2);
    const onsetCount = onsetFrames.length;
    // The envelope; the first event ends 10 ms before the second onset (frame t is centred on t·hop).
    const secondOnset = onsetFrames.length >= 2 ? (onsetFrames[1]! * this.hop) / sr - 0.01 : Infinity;
    const env = envelopeShape(blocks, blockSeconds, Math.floor(secondOnset / blockSeconds));
    const activeSeconds = blocks.length > 0 ? (env.lastActive - env.firstActive + 1) * blockSeconds : 0;
    const onsetDensity = activeSeconds > 0 ? onsetCount / Math.max(activeSeconds, 0.25) : 0;

    // Pitch.
    const f0s = this.pitchF0.view();
    const apers = this.pitchAper.view();
    const pe = this.pitchEnergy.view();
    let maxPe = 0;
    for (let i = 0; i < pe.length; i++) maxPe = Math.max(maxPe, pe[i]!);
    let active = 0;
    let salienceSum = 0;
    const voicedMidi: number[] = [];
    for (let i = 0; i < pe.length; i++) {
      if (!(maxPe > 0) || pe[i]! < maxPe * 1e-3) continue;
      active++;
      salienceSum += Math.max(0, Math.min(1, 1 - 2 * apers[i]!));
      if (apers[i]! <= 0.2 && f0s[i]! > 0) voicedMidi.push(hzToMidi(f0s[i]!));
    }
    const salience = active > 0 ? salienceSum / active : 0;
    const voiced = active > 0 ? voicedMidi.length / active : 0;
    voicedMidi.sort((a, b) => a - b);
    const quantile = (q: number) => {
      const pos = q * (voicedMidi.length - 1);
      const lo = Math.floor(pos);
      const hi = Math.min(voicedMidi.length - 1, lo + 1);
      return voicedMidi[lo]! + (voicedMidi[hi]! - voicedMidi[lo]!) * (pos - lo);
    };
    const hasPitch = voicedMidi.length >= 1 && voiced >= 0.2;
    const midi = hasPitch ? quantile(0.5) : null;
    const f0 = midi !== null ? midiToHz(midi) : null;
    const spread = hasPitch ? quantile(0.75) - quantile(0.25) : null;

    // Stereo.
    const ll = this.sLL;
    const rr = this.sRR;
    const lr = this.sLR;
    const stereoPower = ll + rr;
    const width = this.channels >= 2 && stereoPower > 0 ? Math.max(0, Math.min(1, 1 - (2 * lr) / stereoPower)) : 0;
    const correlation = this.channels < 2 ? (this.sumSquares > 0 ? 1 : null) : ll > 0 && rr > 0 ? lr / Math.sqrt(ll * rr) : null;

    // Loop: the two halves' spectra alike, the end not faded out, and a whole number of beats.
    const meanSpectrum = (from: number, to: number) => {
      const out = new Float64Array(24);
      for (let t = from; t < to; t++) for (let b = 0; b < 24; b++) out[b] = out[b]! + logBands[t * 24 + b]! / (to - from);
      return out;
    };
    let halvesSimilarity = 0;
    let endLevelDb: number | null = null;
    if (nFrames >= 2 && maxBand > 0) {
      const a = meanSpectrum(0, nFrames >> 1);
      const z = meanSpectrum(nFrames >> 1, nFrames);
      let diff = 0;
      for (let b = 0; b < 24; b++) diff += Math.abs(Math.max(floorDb, powerDb(a[b]!)) - Math.max(floorDb, powerDb(z[b]!)));
      halvesSimilarity = Math.exp(-diff / 24 / 6);
      const endFrames = Math.max(1, Math.min(nFrames - 1, Math.round((Math.min(0.5, Math.max(0.05, duration / 8)) * sr) / this.hop)));
      // Against the median frame level: a loop's quiet moments are many, a one-shot's tail is its quietest.
      const frameDb = Float64Array.from({ length: nFrames }, (_, t) => powerDb(energy[t]!)).sort();
      const medianDb = frameDb[nFrames >> 1]!;
      let endPower = 0;
      for (let t = nFrames - endFrames; t < nFrames; t++) endPower += energy[t]! / endFrames;
      endLevelDb = Math.max(-100, powerDb(endPower) - medianDb);
    }
    // Onset curve: the rise of RMS amplitude over 20 ms (4 blocks), on a 20 ms moving average. Single
    // 5 ms blocks follow the ripple of low tones (a 55 Hz kick swings its block energy every 9 ms), and
    // rises in dB rate a soft hat like a kick; either way the beat drowned (124 BPM loops read as 82.6).
    const rise = 4;
    const level = new Float64Array(blocks.length);
    let window = 0;
    for (let i = 0; i < blocks.length; i++) {
      window += blocks[i]! - (i >= rise ? blocks[i - rise]! : 0);
      level[i] = Math.sqrt(Math.max(0, window) / Math.min(i + 1, rise));
    }
    const onsetCurve = new Float64Array(blocks.length);
    for (let i = rise; i < blocks.length; i++) onsetCurve[i] = Math.max(0, level[i]! - level[i - rise]!);
    const beat = duration >= 1.5 && onsetCount >= 3 ? beatPeriod(onsetCurve, 1 / blockSeconds) : null;
    const detectedTempo = beat && beat.strength >= 0.2 ? beat.bpm : null;
    // Onset times for the loop-length grid: peaks of the 5 ms onset curve (the 23 ms STFT hop of the flux
    // onsets is too coarse for a 16th-note grid), at least a tenth of the largest rise, 30 ms apart.
    let maxRise = 0;
    for (let i = 0; i < onsetCurve.length; i++) maxRise = Math.max(maxRise, onsetCurve[i]!);
    const risePeaks = maxRise > 0 ? pickPeaks(onsetCurve, 0.1 * maxRise, 6) : [];
    const loopTempo = inferLoopTempo({
      onsets: risePeaks.map((i) => i * blockSeconds),
      strengths: risePeaks.map((i) => onsetCurve[i]!),
      duration,
      detectedBpm: detectedTempo,
      sampleRate: sr,
    });
    const tempo = loopTempo ? loopTempo.bpm : null;
    const beats = tempo !== null ? (duration * tempo) / 60 : null;
    const beatError = beats !== null ? Math.abs(beats - Math.round(beats)) : 1;
    const wholeBeats = beats !== null && Math.round(beats) >= 2 && beatError <= 0.1;
    const beatFit = beats !== null ? Math.max(0, 1 - beatError / 0.25) : 0;
    const loopScore = 0.6 * halvesSimilarity * (endLevelDb === null ? 0 : ramp(endLevelDb, -15, -6)) + 0.4 * beatFit;

    const features: RoleFeatures = {
      duration,
      bands,
      above4k: share(this.above4k),
      centroidHz,
      flatness,
      tonal,
      centroidMotion,
      hpss,
      onsetDensity,
      onsetCount,
      salience,
      voiced,
      f0,
      spread,
      attack: env.attackBlocks * blockSeconds,
      decay: env.decayBlocks * blockSeconds,
      sustain: env.sustain,
      drop: env.meanDropDb,
      activeSeconds,
    };
    const percussiveness = percussivenessOf(features);
    const harmonicity = harmonicityOf(features);
    const peakDb = this.peak > 0 ? 20 * Math.log10(this.peak) : null;
    const samples = this.frames * this.channels;
    const rmsDb = this.sumSquares > 0 && samples > 0 ? 10 * Math.log10(this.sumSquares / samples) : null;
    // The role model reads the reported (rounded) values, so the answer alone reproduces its input.
    const measurements = {
      duration_s: round(duration),
      bands,
      spectrum: {
        centroid_hz: round(centroidHz, 1),
        above_4k: round(features.above4k),
        flatness: round(flatness),
        tonal_peak_share: round(tonal),
        centroid_motion_oct: round(centroidMotion),
      },
      pitch: {
        f0_hz: f0 === null ? null : round(f0, 2),
        note: f0 === null ? null : noteName(f0),
        midi: midi === null ? null : round(midi, 2),
        salience: round(salience),
        voiced_fraction: round(voiced),
        spread_semitones: spread === null ? null : round(spread, 2),
      },
      envelope: {
        attack_s: round(features.attack),
        decay_s: round(features.decay),
        sustain: round(env.sustain),
        mean_drop_db: round(env.meanDropDb, 2),
      },
      stereo: { width: round(width), correlation: correlation === null ? null : round(correlation) },
      loop: {
        halves_similarity: round(halvesSimilarity),
        end_level_db: endLevelDb === null ? null : round(endLevelDb, 2),
        detected_tempo_bpm: detectedTempo === null ? null : round(detectedTempo, 2),
        tempo_bpm: tempo === null ? null : round(tempo, 2),
        tempo_source: loopTempo ? loopTempo.source : null,
        bars: loopTempo ? loopTempo.bars : null,
        beats: beats === null ? null : round(beats, 2),
        whole_beats: wholeBeats,
        score: round(loopScore),
        is_loop: loopScore >= 0.6,
      },
    };
    const hpssRounded = round(hpss);
    // The role model was fitted with has_tempo on the periodicity tempo: it keeps reading that one.
    const modelInput: RoleMeasurements = { ...measurements, loop: { ...measurements.loop, tempo_bpm: measurements.loop.detected_tempo_bpm }, percussion: { hpss_percussive: hpssRounded, onset_count: onsetCount, onset_density: round(onsetDensity) } };
    const silent = !(this.sumSquares > 0);
    const model = scoreRoleModel(modelInput);
    const mixture = !silent && isMixture(modelInput);
    const probs = silent ? uniformRoles() : mixture ? capConfidence(model.probabilities, MIX_CONFIDENCE_CAP) : model.probabilities;
    const scores = Object.fromEntries(SAMPLE_ROLES.map((r) => [r, round(probs[r])])) as Record<SampleRole, number>;
    const ranked = [...SAMPLE_ROLES].sort((a, b) => probs[b] - probs[a] || SAMPLE_ROLES.indexOf(a) - SAMPLE_ROLES.indexOf(b));
    const measured = ranked[0]!;
    const percussive = percussiveness >= 0.5 && (measured === 'percs' || measured === 'tops');
    const nameUsed = percussive && nameSuggestsDrumLoop(this.params.name);
    const role: SampleRole = nameUsed ? 'percs' : measured;
    const runnerUp = ranked.find((r) => r !== role)!;
    const reasons = silent ? ['silence: nothing to measure'] : explainRole(measured, modelInput);
    if (nameUsed) reasons.unshift('the file name marks percussive material as a drum loop or break');
    const shares = mixture ? (Object.fromEntries(Object.entries(estimateMixShares(modelInput)).map(([r, v]) => [r, round(v)])) as Record<SampleRole, number>) : null;
    if (mixture) reasons.unshift('a full mix (long, many onsets, percussive and harmonic parts, broadband): no single role fits');

    return {
      role,
      confidence: scores[role],
      runner_up: { role: runnerUp, confidence: scores[runnerUp] },
      scores,
      measured_role: measured,
      name_used: nameUsed,
      reasons,
      mixture,
      shares,
      level: { peak_dbfs: peakDb === null ? null : round(peakDb, 2), rms_dbfs: rmsDb === null ? null : round(rmsDb, 2) },
      ...measurements,
      percussion: {
        hpss_percussive: hpssRounded,
        onset_count: onsetCount,
        onset_density: round(onsetDensity),
        percussiveness: round(percussiveness),
        harmonicity: round(harmonicity),
        percussive,
      },
      role_model: {
        features: Object.fromEntries(Object.entries(model.features).map(([k, v]) => [k, round(v, 4)])),
        logits: Object.fromEntries(SAMPLE_ROLES.map((r) => [r, round(model.logits[r], 4)])) as Record<SampleRole, number>,
        temperature: model.temperature,
      },
    };
  }
}

/** Equal probabilities (silence: nothing to decide on). */
const uniformRoles = (): Record<SampleRole, number> => Object.fromEntries(SAMPLE_ROLES.map((r) => [r, 1 / SAMPLE_ROLES.length])) as Record<SampleRole, number>;

/**
 * Scale the probabilities so that none exceeds `cap`: the excess of the top roles is spread over the
 * others in proportion to their room below the cap (the order is kept; sums to 1).
 */
export function capConfidence(p: Record<SampleRole, number>, cap: number): Record<SampleRole, number> {
  const out = { ...p };
  let excess = 0;
  for (const r of SAMPLE_ROLES) if (out[r] > cap) {
    excess += out[r] - cap;
    out[r] = cap;
  }
  const room = SAMPLE_ROLES.reduce((s, r) => s + (cap - out[r]), 0);
  if (excess > 0 && room > 0) for (const r of SAMPLE_ROLES) out[r] += (excess * (cap - out[r])) / room;
  return out;
}

export const sampleAnalysisEngine: EngineSpec<SampleAnalysisParams, SampleAnalysisResult> = {
  id: 'samples',
  version: '4',
  needsTotalFrames: false,
  create(format, params): StreamEngine<SampleAnalysisResult> {
    return new SampleAnalyser(format, params);
  },
};
