/**
 * The `features` engine: about 35 named descriptors of the head of a track (the first `FEATURES_HEAD_S`
 * seconds), streamed, in five groups — spectral shape, MFCC, chroma and key, amplitude envelope, and (on
 * request) rhythm. Every field carries its unit in its name and in the result's `units` map.
 *
 * Signal path. Interleaved chunks of any size are mixed to mono (the mean of the channels) into one STFT:
 * periodic Hann window of 2048 samples, hop 512, frames centred on sample t·512 with 1024 zeros of padding
 * before the first and after the last sample (librosa's `stft(center=True, pad_mode='constant')`; frame
 * count 1 + ⌊N/512⌋), at the file's own sample rate (librosa's definitions with `sr=None`: at 44.1 kHz a
 * frame is 46 ms and the hop 11.6 ms). One real FFT serves every frame; nothing is allocated per frame.
 * The same mono samples feed the 10 ms RMS envelope and the zero-crossing counter; peak and RMS for the
 * crest factor are taken over every sample of every channel. With `rhythm`, the same chunks (up to the
 * head) also go, unchanged, through the `onsets` engine for the tempo and the onset rate.
 *
 * Frame statistics (means, standard deviations) are taken over the frames whose windowed RMS is at least
 * 1e-4 of full scale (−80 dB), so silence before, after or inside a sample does not pull the spectral
 * means towards the degenerate values of empty frames (centroid 0 Hz, flatness 1); when every frame is
 * below that, over all frames. Standard deviations are population deviations (numpy's default).
 *
 * Memory: the dB mel spectrum of every frame is kept (128 floats per frame, 2.6 MB for 30 s at 44.1 kHz)
 * because librosa's dB scale clips at 80 dB below the maximum over the whole clip; the engine therefore
 * ignores samples after the head, whatever it is fed.
 *
 * Groups (definitions in the dsp modules named):
 * - spectral (dsp/spectral-features.ts): librosa's centroid, bandwidth, roll-off (85 %), flatness and
 *   contrast (7 bands), frame means and some deviations; the positive spectral flux of L1-normalised
 *   spectra; the zero-crossing rate.
 * - mfcc (dsp/mfcc.ts): librosa's `feature.mfcc` (128 Slaney mel bands of the power spectrum, power_to_db
 *   with top_db 80, orthonormal DCT-II), the first 13 coefficients, mean and deviation over frames.
 * - chroma (dsp/chroma.ts, dsp/key.ts): a 12-class profile from interpolated spectral peaks with tuning
 *   correction, and the Krumhansl–Schmuckler key (Temperley's Kostka–Payne profiles) with the runner-up and a confidence.
 * - envelope (dsp/envelope.ts): attack, decay, sustain level, temporal centroid, crest factor, dynamic range.
 * - rhythm (dsp/rhythm-features.ts; only with `rhythm: true`): tempo and onset rate from the onsets engine,
 *   beat strength and pulse clarity from librosa's mel-flux onset strength of this STFT.
 *
 * Why one file of ~600 lines: it is one streaming pipeline. A single STFT's frames feed all five groups,
 * and the per-frame state (the mel dB rows, the contrast bands, the frame mask) is read again by the
 * summary at the end; the group definitions already live in their dsp modules. Cutting the groups apart
 * would pass that state between files or run the STFT more than once. The result types (about 150 lines)
 * are the only clean cut left; they stay next to the code that fills them.
 */
import { headSeconds, type EngineSpec, type StreamEngine, type StreamFormat } from './engine.js';
import { onsetsEngine, type OnsetsResult } from './onsets.js';
import { createRealFft, type RealFft } from '../dsp/fft.js';
import { FrameKernels, frameKernelWorkspace, type PlacedContrastBands, type PlacedFilterbank } from '../dsp/frame-kernels.js';
import { hannWindow } from '../dsp/window.js';
import { dctIIOrtho, mfccFrame, powersToDb, powerToDb, slaneyMelFilterbank, TOP_DB } from '../dsp/mfcc.js';
import {
  binFrequencies,
  CONTRAST_BANDS,
  CONTRAST_FMIN,
  contrastBands,
  FLATNESS_AMIN,
  ROLL_PERCENT,
  ZeroCrossingCounter,
} from '../dsp/spectral-features.js';
import { roundTo } from '../dsp/round.js';
import { PeakChroma, PITCH_CLASSES, type PitchClass } from '../dsp/chroma.js';
import { estimateKey, judgeKey, type KeyReason, type Mode } from '../dsp/key.js';
import { envelopeFeatures, RmsEnvelope } from '../dsp/envelope.js';
import { beatStrength, melFluxEnvelope, pulseClarity, smoothEnvelope } from '../dsp/rhythm-features.js';

/** Query parameters of /features. */
export interface FeaturesParams {
  /** Add the rhythm group (runs the onsets engine as well). */
  readonly rhythm: boolean;
}

/** Seconds analysed from the start of the stream; later samples are ignored. */
export const FEATURES_HEAD_S = headSeconds.clip;
export const STFT_SIZE = 2048;
export const STFT_HOP = 512;
export const MEL_BANDS = 128;
export const MFCC_COUNT = 13;
/** Frames whose windowed RMS is below this (linear, full scale 1) are left out of frame statistics. */
export const SILENT_FRAME_RMS = 1e-4;

export interface SpectralFeatures {
  /** Mean spectral centroid, Hz (0..Nyquist). */
  readonly centroid_hz: number;
  /** Standard deviation of the centroid over frames, Hz. */
  readonly centroid_std_hz: number;
  /** Mean spectral bandwidth (2nd-order spread around the centroid), Hz. */
  readonly bandwidth_hz: number;
  /** Mean 85 % roll-off frequency, Hz. */
  readonly rolloff_hz: number;
  /** Standard deviation of the roll-off over frames, Hz. */
  readonly rolloff_std_hz: number;
  /** Mean spectral flatness (Wiener entropy of the power spectrum), 0..1: 0 tonal, 1 white noise. */
  readonly flatness: number;
  /** Mean positive flux between consecutive L1-normalised magnitude spectra, 0..1 (0 steady, 1 all new). */
  readonly flux: number;
  /** Standard deviation of the flux over frames, 0..1. */
  readonly flux_std: number;
  /** Mean spectral contrast per band, dB (10·log10 of peak/valley magnitude): bands 0–200, 200–400, …, 3200–6400 Hz, 6400 Hz–Nyquist. */
  readonly contrast_db: number[];
  /** Sign changes per sample over the clip, 0..1 (a sine of f Hz gives 2f/sr). */
  readonly zero_crossing_rate: number;
}

export interface MfccFeatures {
  /** Mean of c0..c12 over frames, dB-scaled cepstral units (c0 = √(1/128)·Σ mel dB). */
  readonly mean: number[];
  /** Standard deviation of c0..c12 over frames, same units. */
  readonly std: number[];
}

export interface RunnerUpKey {
  readonly key: PitchClass;
  readonly mode: Mode;
  /** Pearson correlation with the key profile, −1..1. */
  readonly correlation: number;
}

export interface ChromaFeatures {
  /** Mean chroma per pitch class, 0..1 (the largest is 1). */
  readonly mean: Record<PitchClass, number>;
  /** Deviation of the reference pitch from A4 = 440 Hz, cents (−50..50). */
  readonly tuning_cents: number;
  /** Tonic of the Krumhansl–Schmuckler key; null when `key_reason` says why there is none. */
  readonly key: PitchClass | null;
  readonly mode: Mode | null;
  /** Why `key` is null (dsp/key.ts `judgeKey`): no stable pitch content, or no key fits clearly; null with a key. */
  readonly key_reason: KeyReason | null;
  /** The best-fitting key even when it is withheld (null only without a pitch-class profile). */
  readonly best_guess: RunnerUpKey | null;
  /** 0..1: (r₁ − r₂)/(1 − r₂) of the correlations of the best and second key (0 a tie, 1 a perfect match). */
  readonly key_confidence: number;
  /** 0..1: mean correlation of the pitch-class profiles of consecutive frames (white noise about 0.3, a held chord about 0.9). */
  readonly tonal_stability: number;
  /** Pearson correlation of the mean chroma with the best key's profile, −1..1. */
  readonly key_correlation: number | null;
  /** The second-best key. */
  readonly runner_up: RunnerUpKey | null;
}

export interface EnvelopeGroup {
  /** 10 % → 90 % of the peak RMS, s. Null (like every field here) for a silent clip. */
  readonly attack_s: number | null;
  /** Peak → 90 % of the way down to the sustain level, s. */
  readonly decay_s: number | null;
  /** Median RMS after the peak while the sound lasts, relative to the peak, 0..1. */
  readonly sustain_level: number | null;
  /** RMS-weighted mean time, s from the start. */
  readonly temporal_centroid_s: number | null;
  /** Sample peak / RMS over all channels, dB (a sine: 3.01). */
  readonly crest_db: number | null;
  /** 95th − 10th percentile of the 10 ms block levels, dB. */
  readonly dynamic_range_db: number | null;
}

export interface RhythmGroup {
  /** Tempo of the onsets engine, BPM (60–200); null with too few onsets. */
  readonly tempo_bpm: number | null;
  /** Onsets per second (the onsets engine's detections). */
  readonly onset_rate_per_s: number;
  /** Mean onset strength on the best beat grid at tempo_bpm / overall mean (≥ about 1; 1 = no beat emphasis); null without a tempo. */
  readonly beat_strength: number | null;
  /** Normalised autocorrelation peak of the onset strength over 40–200 BPM, 0..1; null for clips under about 0.6 s or without onset strength (silence). */
  readonly pulse_clarity: number | null;
}

export interface StftInfo {
  readonly n_fft: number;
  readonly hop: number;
  /** STFT frames of the analysed audio. */
  readonly frames: number;
  /** Frames above the silence gate, over which frame statistics are taken. */
  readonly active_frames: number;
}

export interface FeaturesResult {
  /** Seconds of audio analysed (at most FEATURES_HEAD_S). */
  readonly duration_analysed_s: number;
  readonly stft: StftInfo;
  readonly spectral: SpectralFeatures;
  readonly mfcc: MfccFeatures;
  readonly chroma: ChromaFeatures;
  readonly envelope: EnvelopeGroup;
  /** Present only when params.rhythm is true. */
  readonly rhythm?: RhythmGroup;
  /** Unit or range of every field, by group and name. */
  readonly units: typeof FEATURE_UNITS;
}

/** The unit or range of every feature, mirrored in each result. */
export const FEATURE_UNITS = {
  duration_analysed_s: 's',
  spectral: {
    centroid_hz: 'Hz',
    centroid_std_hz: 'Hz',
    bandwidth_hz: 'Hz',
    rolloff_hz: 'Hz',
    rolloff_std_hz: 'Hz',
    flatness: '0..1',
    flux: '0..1',
    flux_std: '0..1',
    contrast_db: 'dB',
    zero_crossing_rate: 'crossings per sample, 0..1',
  },
  mfcc: { mean: 'dB (cepstral)', std: 'dB (cepstral)' },
  chroma: {
    mean: '0..1',
    tuning_cents: 'cents',
    key: 'pitch class',
    mode: 'major | minor',
    key_reason: 'no_pitched_content | low_confidence',
    best_guess: 'key, mode, correlation -1..1',
    key_confidence: '0..1',
    tonal_stability: '0..1',
    key_correlation: '-1..1',
    runner_up: 'key, mode, correlation -1..1',
  },
  envelope: { attack_s: 's', decay_s: 's', sustain_level: '0..1', temporal_centroid_s: 's', crest_db: 'dB', dynamic_range_db: 'dB' },
  rhythm: { tempo_bpm: 'BPM', onset_rate_per_s: '1/s', beat_strength: 'ratio (1 = no beat emphasis)', pulse_clarity: '0..1' },
} as const;

/** Options for tests: `round: false` keeps full precision. */
export interface FeaturesStreamOptions {
  readonly round?: boolean;
  /** Override of FEATURES_HEAD_S. */
  readonly headSeconds?: number;
  /**
   * With `rhythm`: the onsets result of the head, from a caller that runs the onsets engine over the
   * same stream anyway (called once, at finish) instead of a second onsets engine of our own.
   */
  readonly rhythmOnsets?: () => OnsetsResult;
}

/** Mean and population standard deviation of values[i] over the frames with mask[i] (all when `all`). */
function meanStd(values: Float64Array, count: number, mask: Uint8Array, all: boolean): [number, number] {
  let n = 0;
  let s = 0;
  for (let i = 0; i < count; i++) {
    if (all || mask[i]) {
      s += values[i]!;
      n++;
    }
  }
  if (n === 0) return [0, 0];
  const mean = s / n;
  let v = 0;
  for (let i = 0; i < count; i++) {
    if (all || mask[i]) {
      const d = values[i]! - mean;
      v += d * d;
    }
  }
  return [mean, Math.sqrt(v / n)];
}

/** The streaming analysis; `featuresEngine` wraps it. */
class FeaturesAnalysis {
  private readonly sampleRate: number;
  private readonly channels: number;
  private readonly round: boolean;
  private readonly headFrames: number;
  private readonly rhythm: boolean;
  private readonly onsets: StreamEngine<OnsetsResult> | null;
  private readonly rhythmOnsets: (() => OnsetsResult) | null;

  private readonly fft: RealFft;
  private readonly kernels: FrameKernels;
  private readonly window: Float64Array;
  private readonly buf: Float64Array;
  private readonly power: Float64Array;
  private mag: Float64Array;
  private prevMag: Float64Array;
  private prevSum = 0;
  private readonly freqs: Float64Array;
  private readonly stats = new Float64Array(4);
  private readonly gateEnergy: number;
  private readonly melBank: PlacedFilterbank;
  private readonly contrast: PlacedContrastBands;
  private readonly chroma: PeakChroma;
  private readonly envelope: RmsEnvelope;
  private readonly zcr = new ZeroCrossingCounter();

  // Per-frame stores, preallocated for the whole head.
  private readonly maxFrames: number;
  private readonly centroid: Float64Array;
  private readonly bandwidth: Float64Array;
  private readonly rolloff: Float64Array;
  private readonly flatness: Float64Array;
  private readonly flux: Float64Array;
  private readonly active: Uint8Array;
  private readonly peak: Float64Array;
  private readonly valley: Float64Array;
  private readonly melDb: Float64Array;
  private melDbMax = -Infinity;

  private fill: number;
  private frames = 0;
  private seen = 0;
  private samplePeak = 0;
  private sumSquares = 0;
  private finished = false;

  constructor(format: StreamFormat, params: FeaturesParams, options: FeaturesStreamOptions) {
    const sr = format.sampleRate;
    this.sampleRate = sr;
    this.channels = format.channels;
    this.round = options.round ?? true;
    this.headFrames = Math.round((options.headSeconds ?? FEATURES_HEAD_S) * sr);
    this.rhythm = params.rhythm;
    this.rhythmOnsets = params.rhythm ? (options.rhythmOnsets ?? null) : null;
    this.onsets = params.rhythm && !this.rhythmOnsets ? onsetsEngine.create(format, {}) : null;
    const n = STFT_SIZE;
    const bins = n / 2 + 1;
    const melBank = slaneyMelFilterbank(sr, n, MEL_BANDS);
    // librosa refuses bands at or above Nyquist; at low sample rates we keep the bands that fit.
    let nBands = CONTRAST_BANDS;
    while (nBands > 1 && CONTRAST_FMIN * 2 ** (nBands - 1) >= sr / 2) nBands--;
    const contrast = contrastBands(sr, n, CONTRAST_FMIN, nBands);
    // The frame's arrays live in the FFT's WebAssembly memory, where the per-frame loops run (dsp/frame-kernels.ts).
    this.fft = createRealFft(n, frameKernelWorkspace(2 * n + 4 * bins, 6, contrast, melBank));
    this.kernels = new FrameKernels(this.fft);
    this.window = this.fft.place(hannWindow(n));
    let w2 = 0;
    for (let i = 0; i < n; i++) w2 += this.window[i]! * this.window[i]!;
    this.gateEnergy = SILENT_FRAME_RMS * SILENT_FRAME_RMS * w2;
    this.buf = this.fft.allocate(n);
    this.power = this.fft.allocate(bins);
    this.mag = this.fft.allocate(bins);
    this.prevMag = this.fft.allocate(bins);
    this.freqs = this.fft.place(binFrequencies(sr, n));
    this.melBank = this.kernels.placeFilterbank(melBank);
    this.contrast = this.kernels.placeContrastBands(contrast);
    this.chroma = new PeakChroma(sr, n);
    this.envelope = new RmsEnvelope(sr, this.headFrames);
    this.maxFrames = 1 + Math.floor(this.headFrames / STFT_HOP);
    const m = this.maxFrames;
    this.centroid = new Float64Array(m);
    this.bandwidth = new Float64Array(m);
    this.rolloff = new Float64Array(m);
    this.flatness = new Float64Array(m);
    this.flux = new Float64Array(m);
    this.active = new Uint8Array(m);
    this.peak = new Float64Array(m * this.contrast.bands);
    this.valley = new Float64Array(m * this.contrast.bands);
    this.melDb = new Float64Array(m * MEL_BANDS);
    this.fill = n / 2; // centred frames: 1024 zeros before the first sample
  }

  push(chunk: Float32Array): void {
    if (this.finished) throw new Error('features: push after finish');
    const ch = this.channels;
    let frames = chunk.length / ch;
    const room = this.headFrames - this.seen;
    if (room <= 0 || frames === 0) return;
    if (frames > room) {
      chunk = chunk.subarray(0, room * ch);
      frames = room;
    }
    this.seen += frames;
    this.onsets?.push(chunk);

    // Mix to mono into the STFT buffer; sample peak and Σx² over every channel on the way.
    const buf = this.buf;
    const n = STFT_SIZE;
    let peak = this.samplePeak;
    let ss = this.sumSquares;
    let f = 0;
    while (f < frames) {
      const start = this.fill;
      const take = Math.min(frames - f, n - start);
      let pos = start;
      if (ch === 2) {
        for (let i = 0, s = 2 * f; i < take; i++, s += 2) {
          const l = chunk[s]!;
          const r = chunk[s + 1]!;
          const al = l < 0 ? -l : l;
          const ar = r < 0 ? -r : r;
          if (al > peak) peak = al;
          if (ar > peak) peak = ar;
          ss += l * l;
          ss += r * r;
          buf[pos++] = (l + r) * 0.5;
        }
      } else {
        const scale = 1 / ch;
        for (let i = 0, s = f * ch; i < take; i++) {
          let sum = 0;
          for (let c = 0; c < ch; c++, s++) {
            const v = chunk[s]!;
            const a = v < 0 ? -v : v;
            if (a > peak) peak = a;
            ss += v * v;
            sum += v;
          }
          buf[pos++] = ch === 1 ? sum : sum * scale;
        }
      }
      f += take;
      this.envelope.push(buf, start, pos);
      this.zcr.push(buf, start, pos);
      this.fill = pos;
      if (pos === n) this.nextFrame();
    }
    this.samplePeak = peak;
    this.sumSquares = ss;
  }

  finish(): FeaturesResult {
    if (this.finished) throw new Error('features: finish called twice');
    this.finished = true;
    // 1024 zeros after the last sample (librosa's centred padding).
    let pad = STFT_SIZE / 2;
    while (pad > 0) {
      const take = Math.min(pad, STFT_SIZE - this.fill);
      this.buf.fill(0, this.fill, this.fill + take);
      this.fill += take;
      pad -= take;
      if (this.fill === STFT_SIZE) this.nextFrame();
    }
    return this.result();
  }

  private nextFrame(): void {
    if (this.frames < this.maxFrames) this.computeFrame(this.frames++);
    this.buf.copyWithin(0, STFT_HOP, STFT_SIZE);
    this.fill = STFT_SIZE - STFT_HOP;
  }

  private computeFrame(t: number): void {
    const { buf, window, fft, power, kernels } = this;
    // The windowed frame goes straight into the FFT's input, and its output is read in place.
    const energy = kernels.windowInput(buf, window);
    const active = energy >= this.gateEnergy;
    this.active[t] = active ? 1 : 0;
    fft.transform();
    const mag = this.mag;
    const stats = this.stats;
    kernels.spectrumPass(this.freqs, power, mag, FLATNESS_AMIN, stats);
    const sum = stats[0]!;
    this.centroid[t] = stats[1]!;
    this.bandwidth[t] = stats[2]!;
    this.flatness[t] = stats[3]!;
    kernels.rolloffFlux(mag, this.freqs, sum, this.prevMag, t === 0 ? 0 : this.prevSum, ROLL_PERCENT, stats);
    this.rolloff[t] = stats[0]!;
    this.flux[t] = t === 0 ? 0 : stats[1]!;
    kernels.contrastPeakValley(mag, this.contrast, this.peak, this.valley, t * this.contrast.bands);
    const mel = kernels.applySparseFilterbank(this.melBank, power);
    const max = powersToDb(mel, this.melDb, t * MEL_BANDS, MEL_BANDS);
    if (max > this.melDbMax) this.melDbMax = max;
    if (active) this.chroma.addFrame(mag);
    // The current magnitudes become the previous ones.
    this.mag = this.prevMag;
    this.prevMag = mag;
    this.prevSum = sum;
  }

  private result(): FeaturesResult {
    const T = this.frames;
    const sr = this.sampleRate;
    const mask = this.active;
    let activeCount = 0;
    for (let t = 0; t < T; t++) activeCount += mask[t]!;
    const all = activeCount === 0;
    const r = this.round;
    const hz = r ? (x: number) => roundTo(x, 1) : (x: number) => x;
    const r2 = r ? (x: number) => roundTo(x, 2) : (x: number) => x;
    const r3 = r ? (x: number) => roundTo(x, 3) : (x: number) => x;
    const r4 = r ? (x: number) => roundTo(x, 4) : (x: number) => x;
    const r5 = r ? (x: number) => roundTo(x, 5) : (x: number) => x;

    // Spectral.
    const [centroid, centroidStd] = meanStd(this.centroid, T, mask, all);
    const [bandwidth] = meanStd(this.bandwidth, T, mask, all);
    const [rolloff, rolloffStd] = meanStd(this.rolloff, T, mask, all);
    const [flatness] = meanStd(this.flatness, T, mask, all);
    // Flux is defined from frame 1 on.
    const fluxMask = mask.slice(0, T);
    fluxMask[0] = 0;
    const fluxAll = all || fluxMask.every((v) => v === 0);
    const [flux, fluxStd] = T > 1 ? meanStd(this.flux.subarray(1, T), T - 1, fluxMask.subarray(1), fluxAll) : [0, 0];
    const nb = this.contrast.bands;
    const contrast = this.contrastMeans(T, mask, all);

    // MFCC over the top_db-clipped dB mel spectrogram.
    const floor = this.melDbMax - TOP_DB;
    const basis = dctIIOrtho(MEL_BANDS, MFCC_COUNT);
    const coef = new Float64Array(MFCC_COUNT);
    const clipped = new Float64Array(MEL_BANDS);
    const mfccs = new Float64Array(T * MFCC_COUNT);
    for (let t = 0; t < T; t++) {
      mfccFrame(this.melDb, t * MEL_BANDS, MEL_BANDS, floor, basis, coef, clipped);
      mfccs.set(coef, t * MFCC_COUNT);
    }
    const mfccMean: number[] = [];
    const mfccStd: number[] = [];
    const column = new Float64Array(T);
    for (let k = 0; k < MFCC_COUNT; k++) {
      for (let t = 0; t < T; t++) column[t] = mfccs[t * MFCC_COUNT + k]!;
      const [m, s] = meanStd(column, T, mask, all);
      mfccMean.push(r3(m));
      mfccStd.push(r3(s));
    }

    // Chroma and key.
    const chroma = this.chroma.finish();
    const key = estimateKey(chroma.chroma);
    const judged = judgeKey(key, chroma.stability);
    const chromaMean = {} as Record<PitchClass, number>;
    PITCH_CLASSES.forEach((pc, i) => (chromaMean[pc] = r3(chroma.chroma[i]!)));

    // Envelope.
    const { env, lastBlockSamples } = this.envelope.finish();
    const blockS = this.envelope.blockSize / sr;
    const ef = envelopeFeatures(env, blockS, lastBlockSamples / sr);
    const count = this.seen * this.channels;
    const rms = count > 0 ? Math.sqrt(this.sumSquares / count) : 0;
    const crest = rms > 0 ? 20 * Math.log10(this.samplePeak / rms) : null;

    const result: FeaturesResult = {
      duration_analysed_s: r3(this.seen / sr),
      stft: { n_fft: STFT_SIZE, hop: STFT_HOP, frames: T, active_frames: activeCount },
      spectral: {
        centroid_hz: hz(centroid),
        centroid_std_hz: hz(centroidStd),
        bandwidth_hz: hz(bandwidth),
        rolloff_hz: hz(rolloff),
        rolloff_std_hz: hz(rolloffStd),
        flatness: r5(flatness),
        flux: r4(flux),
        flux_std: r4(fluxStd),
        contrast_db: Array.from({ length: nb }, (_, b) => r2(contrast[b]!)),
        zero_crossing_rate: r5(this.zcr.rate()),
      },
      mfcc: { mean: mfccMean, std: mfccStd },
      chroma: {
        mean: chromaMean,
        tuning_cents: r ? roundTo(chroma.tuningCents, 1) : chroma.tuningCents,
        key: judged.key ? judged.key.key : null,
        mode: judged.key ? judged.key.mode : null,
        key_reason: judged.reason,
        best_guess: key ? { key: key.best.key, mode: key.best.mode, correlation: r3(key.best.correlation) } : null,
        key_confidence: key ? r3(key.confidence) : 0,
        tonal_stability: r3(chroma.stability),
        key_correlation: key ? r3(key.best.correlation) : null,
        runner_up: key ? { key: key.runnerUp.key, mode: key.runnerUp.mode, correlation: r3(key.runnerUp.correlation) } : null,
      },
      envelope: {
        attack_s: ef ? r3(ef.attackS) : null,
        decay_s: ef ? r3(ef.decayS) : null,
        sustain_level: ef ? r3(ef.sustainLevel) : null,
        temporal_centroid_s: ef ? r3(ef.temporalCentroidS) : null,
        crest_db: crest === null ? null : r2(crest),
        dynamic_range_db: ef ? r2(ef.dynamicRangeDb) : null,
      },
      ...(this.rhythm ? { rhythm: this.rhythmGroup(T, floor, r2, r3) } : {}),
      units: FEATURE_UNITS,
    };
    return result;
  }

  /** Mean contrast per band: power_to_db (with its top_db clip over the whole clip) of peaks and valleys. */
  private contrastMeans(T: number, mask: Uint8Array, all: boolean): Float64Array {
    const nb = this.contrast.bands;
    const len = T * nb;
    // In place: the stores are not needed afterwards.
    const peakDb = this.peak;
    const valleyDb = this.valley;
    let maxPeakDb = -Infinity;
    let maxValleyDb = -Infinity;
    for (let i = 0; i < len; i++) {
      const p = powerToDb(peakDb[i]!);
      const v = powerToDb(valleyDb[i]!);
      peakDb[i] = p;
      valleyDb[i] = v;
      if (p > maxPeakDb) maxPeakDb = p;
      if (v > maxValleyDb) maxValleyDb = v;
    }
    const peakFloor = maxPeakDb - TOP_DB;
    const valleyFloor = maxValleyDb - TOP_DB;
    const out = new Float64Array(nb);
    const perFrame = new Float64Array(T);
    for (let b = 0; b < nb; b++) {
      for (let t = 0; t < T; t++) {
        const p = peakDb[t * nb + b]!;
        const v = valleyDb[t * nb + b]!;
        perFrame[t] = (p > peakFloor ? p : peakFloor) - (v > valleyFloor ? v : valleyFloor);
      }
      out[b] = meanStd(perFrame, T, mask, all)[0];
    }
    return out;
  }

  private rhythmGroup(T: number, floor: number, r2: (x: number) => number, r3: (x: number) => number): RhythmGroup {
    const onsets = this.rhythmOnsets ? this.rhythmOnsets() : this.onsets!.finish();
    const env = new Float64Array(T);
    melFluxEnvelope(this.melDb, T, MEL_BANDS, floor, env);
    const smoothed = smoothEnvelope(env);
    const frameRate = this.sampleRate / STFT_HOP;
    const clarity = pulseClarity(smoothed, frameRate);
    const strength = onsets.tempo_bpm === null ? null : beatStrength(smoothed, frameRate, onsets.tempo_bpm);
    return {
      tempo_bpm: onsets.tempo_bpm === null ? null : r2(onsets.tempo_bpm),
      onset_rate_per_s: r3(onsets.onset_rate),
      beat_strength: strength === null ? null : r3(strength),
      pulse_clarity: clarity === null ? null : r3(clarity.clarity),
    };
  }
}

/** A features stream with options (tests use `round: false`); the engine is this with the defaults. */
export function createFeaturesStream(
  format: StreamFormat,
  params: FeaturesParams,
  options: FeaturesStreamOptions = {},
): StreamEngine<FeaturesResult> {
  const analysis = new FeaturesAnalysis(format, params, options);
  return { push: (chunk) => analysis.push(chunk), finish: () => analysis.finish() };
}

export const featuresEngine: EngineSpec<FeaturesParams, FeaturesResult> = {
  id: 'features',
  version: '1',
  needsTotalFrames: false,
  create(format, params): StreamEngine<FeaturesResult> {
    return createFeaturesStream(format, params);
  },
};
