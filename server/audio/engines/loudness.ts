import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';
import {
  createKWeightingState,
  kWeightingCoefficients,
  kWeightSumOfSquares,
  kWeightSumOfSquaresPair,
  type KWeighting,
} from '../dsp/k-weighting.js';
import { createTruePeakMeter, type TruePeakMeter } from '../dsp/true-peak.js';
import { channelWeights, integratedLoudness, loudnessOfMeanSquare, loudnessRange } from '../dsp/loudness-math.js';
import { roundTo } from '../dsp/round.js';

/** Loudness targets for gain_to_target_db: typical streaming-platform normalisation and a loud club master. */
export const LOUDNESS_TARGETS = { streaming: -14, club: -9 } as const;

/** BS.1770 / EBU R 128 loudness of a whole file. dB values are rounded to 0.01; null where the value is −∞ (e.g. silence). */
export interface LoudnessResult {
  /** Gated integrated loudness I (BS.1770-5), LUFS; null under one 400 ms gating block. */
  readonly integrated_lufs: number | null;
  /**
   * Clip loudness, LUFS: BS.1770 K-weighting and channel weights, but UNGATED and over every frame of the
   * clip (−0.691 + 10·log10(Σ G_i·z_i), z_i the K-weighted mean square over the whole clip). Not BS.1770
   * integrated loudness; present for a clip of any length, so one-shots under 400 ms get a figure. Null
   * only where the weighted channels are digitally silent (or the stream is empty).
   */
  readonly clip_lufs: number | null;
  /** Always false: I is computed exactly from every 400 ms block's energy, not from a histogram or a sample. */
  readonly approximate: false;
  /** Loudness range LRA (EBU Tech 3342), LU; null for silence or under 3 s of audio. */
  readonly loudness_range_lu: number | null;
  /** Highest momentary (400 ms) loudness, evaluated every 10 ms, LUFS. */
  readonly max_momentary_lufs: number | null;
  /** Highest short-term (3 s) loudness, evaluated every 10 ms, LUFS. */
  readonly max_short_term_lufs: number | null;
  readonly sample_peak_dbfs: number | null;
  /** max(true peak, sample peak), BS.1770-5 Annex 2 interpolator, dBTP. */
  readonly true_peak_dbtp: number | null;
  /** RMS over all samples of all channels, unweighted, dBFS (a full-scale sine reads −3.01). */
  readonly rms_dbfs: number | null;
  /** sample_peak_dbfs − rms_dbfs (from unrounded values). */
  readonly crest_factor_db: number | null;
  /** Target minus integrated loudness, dB. */
  readonly gain_to_target_db: { readonly streaming: number | null; readonly club: number | null };
  readonly targets: { readonly streaming: -14; readonly club: -9 };
  /** BS.1770 channel weights G_i used, in channel order. */
  readonly channel_weights: number[];
}

const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? roundTo(v, 2) : null);

/** Fine sub-blocks per 100 ms hop: M and S maxima are evaluated every 10 ms. */
const FINES_PER_HOP = 10;
const MOMENTARY_FINES = 4 * FINES_PER_HOP;
const SHORT_TERM_FINES = 30 * FINES_PER_HOP;
/** Tech 3342: file-based meters append ≥ 1.5 s of silence before computing LRA. */
const LRA_PADDING_HOPS = 15;

/**
 * Streaming meter. Memory is bounded by the 100 ms hop energies kept for gating (36 000 doubles for an
 * hour) plus fixed-size state; samples are never stored.
 *
 * Each channel is K-weighted (two biquads in Float64, channels two at a time) and its Σ y² accumulated per 10 ms "fine" sub-block
 * (10 per 100 ms hop; hop = round(fs/10) frames, so a gating block is exactly 4 hops and a short-term
 * window exactly 30). Channel-weighted fine energies feed a ring of prefix sums for the running M and S
 * maxima; hop energies are kept, and at the end give I (400 ms blocks, 75 % overlap) and LRA (3 s windows
 * every 100 ms).
 */
class LoudnessMeter implements StreamEngine<LoudnessResult> {
  private readonly channels: number;
  private readonly weights: number[];
  /** Channels with a non-zero weight (LFE is not filtered at all). */
  private readonly active: number[];
  private readonly kw: KWeighting;
  private readonly filterStates: Float64Array[];
  private readonly hopFrames: number;
  /** End (frames into the hop) of each fine sub-block. */
  private readonly fineEnds: Int32Array;
  private readonly truePeak: TruePeakMeter;

  private posInHop = 0;
  private fineIndex = 0;
  private fineEnergy = 0;
  private hopEnergy = 0;
  private hops = new Float64Array(1024);
  private hopCount = 0;
  /** prefix[j mod size] = Σ of the first j fine energies. */
  private readonly prefix = new Float64Array(SHORT_TERM_FINES + 1);
  private cumulative = 0;
  private fineCount = 0;
  private maxMomentary = -Infinity;
  private maxShortTerm = -Infinity;
  private rawSumOfSquares = 0;
  /** Σ_i G_i·Σ y_i² over every measured frame (no gating, no block boundaries): the clip loudness's energy. */
  private clipEnergy = 0;
  private frames = 0;
  private finished = false;

  /** `integratedOnly`: only the hop energies for I (then end with finishIntegrated). */
  constructor(
    format: StreamFormat,
    private readonly integratedOnly = false,
  ) {
    const { sampleRate, channels } = format;
    this.channels = channels;
    this.weights = channelWeights(channels, format.channelLayout);
    this.active = this.weights.flatMap((g, c) => (g > 0 ? [c] : []));
    this.kw = kWeightingCoefficients(sampleRate);
    this.filterStates = this.weights.map(() => createKWeightingState());
    this.hopFrames = Math.round(sampleRate / 10);
    this.fineEnds = new Int32Array(FINES_PER_HOP);
    for (let k = 0; k < FINES_PER_HOP; k++) this.fineEnds[k] = Math.round(((k + 1) * this.hopFrames) / FINES_PER_HOP);
    this.truePeak = createTruePeakMeter(sampleRate, channels);
  }

  push(chunk: Float32Array): void {
    if (this.finished) throw new Error('loudness: push after finish');
    if (chunk.length % this.channels !== 0)
      throw new RangeError(`chunk length ${chunk.length} is not a multiple of ${this.channels} channels`);
    const frames = chunk.length / this.channels;
    if (frames === 0) return;
    if (this.integratedOnly) {
      this.frames += frames;
      this.filter(chunk, frames, false);
      return;
    }
    this.truePeak.push(chunk);
    let s = 0;
    for (let i = 0; i < chunk.length; i++) {
      const v = chunk[i]!;
      s += v * v;
    }
    this.rawSumOfSquares += s;
    this.frames += frames;
    this.filter(chunk, frames, true);
  }

  /** K-weight `frames` frames into fine/hop energies; `measure` false for the LRA-only silence padding. */
  private filter(chunk: Float32Array, frames: number, measure: boolean): void {
    const { active, weights, filterStates, kw, channels, fineEnds } = this;
    let pos = 0;
    while (pos < frames) {
      const fineEnd = fineEnds[this.fineIndex]!;
      const n = Math.min(frames - pos, fineEnd - this.posInHop);
      let e = 0;
      let a = 0;
      for (; a + 1 < active.length; a += 2) {
        const c = active[a]!;
        const d = active[a + 1]!;
        e += kWeightSumOfSquaresPair(kw, filterStates[c]!, filterStates[d]!, weights[c]!, weights[d]!, chunk, c, d, channels, pos, pos + n);
      }
      if (a < active.length) {
        const c = active[a]!;
        e += weights[c]! * kWeightSumOfSquares(kw, filterStates[c]!, chunk, c, channels, pos, pos + n);
      }
      this.fineEnergy += e;
      if (measure) this.clipEnergy += e;
      pos += n;
      this.posInHop += n;
      if (this.posInHop === fineEnd) this.completeFine(measure);
    }
  }

  private completeFine(measure: boolean): void {
    const e = this.fineEnergy;
    this.fineEnergy = 0;
    this.hopEnergy += e;
    if (measure) {
      const size = this.prefix.length;
      const j = ++this.fineCount;
      // Prefix sums only grow (energies are ≥ 0), so window differences are never negative.
      this.cumulative += e;
      this.prefix[j % size] = this.cumulative;
      if (j >= MOMENTARY_FINES) {
        const m = this.cumulative - this.prefix[(j - MOMENTARY_FINES) % size]!;
        if (m > this.maxMomentary) this.maxMomentary = m;
      }
      if (j >= SHORT_TERM_FINES) {
        const st = this.cumulative - this.prefix[(j - SHORT_TERM_FINES) % size]!;
        if (st > this.maxShortTerm) this.maxShortTerm = st;
      }
    }
    if (++this.fineIndex === FINES_PER_HOP) {
      if (this.hopCount === this.hops.length) {
        const grown = new Float64Array(this.hops.length * 2);
        grown.set(this.hops);
        this.hops = grown;
      }
      this.hops[this.hopCount++] = this.hopEnergy;
      this.hopEnergy = 0;
      this.fineIndex = 0;
      this.posInHop = 0;
    }
  }

  /** The end of an `integratedOnly` meter: I, rounded as `integrated_lufs`. */
  finishIntegrated(): number | null {
    if (this.finished) throw new Error('loudness: finish called twice');
    this.finished = true;
    return finiteOrNull(integratedLoudness(this.hops, this.hopCount, this.hopFrames));
  }

  finish(): LoudnessResult {
    if (this.integratedOnly) throw new Error('loudness: an integrated-only meter ends with finishIntegrated');
    if (this.finished) throw new Error('loudness: finish called twice');
    this.finished = true;
    const hop = this.hopFrames;
    // I drops the incomplete block at the end (BS.1770); it is exact from the stored block energies, hence
    // `approximate: false`.
    const integrated = integratedLoudness(this.hops, this.hopCount, hop);
    // Clip loudness: the same weighted energy, ungated, over every frame including the incomplete block
    // that I drops, so a one-shot shorter than a gating block still reads.
    const clip = this.frames === 0 ? -Infinity : loudnessOfMeanSquare(this.clipEnergy / this.frames);
    // LRA per Tech 3342 for file-based meters: append 1.5 s of silence (through the filters, so their
    // tails count) and take short-term windows over the padded signal.
    const silence = new Float32Array(hop * this.channels);
    for (let i = 0; i < LRA_PADDING_HOPS; i++) this.filter(silence, hop, false);
    const range = loudnessRange(this.hops, this.hopCount, hop);

    const samplePeakDb = 20 * Math.log10(this.truePeak.samplePeak());
    const rmsDb = this.frames === 0 ? -Infinity : 10 * Math.log10(this.rawSumOfSquares / (this.frames * this.channels));
    const momentary = this.fineCount >= MOMENTARY_FINES ? loudnessOfMeanSquare(this.maxMomentary / (4 * hop)) : -Infinity;
    const shortTerm = this.fineCount >= SHORT_TERM_FINES ? loudnessOfMeanSquare(this.maxShortTerm / (30 * hop)) : -Infinity;
    return {
      integrated_lufs: finiteOrNull(integrated),
      clip_lufs: finiteOrNull(clip),
      approximate: false,
      loudness_range_lu: range === null ? null : roundTo(range, 2),
      max_momentary_lufs: finiteOrNull(momentary),
      max_short_term_lufs: finiteOrNull(shortTerm),
      sample_peak_dbfs: finiteOrNull(samplePeakDb),
      true_peak_dbtp: finiteOrNull(20 * Math.log10(this.truePeak.truePeak())),
      rms_dbfs: finiteOrNull(rmsDb),
      crest_factor_db: finiteOrNull(samplePeakDb - rmsDb),
      gain_to_target_db: {
        streaming: finiteOrNull(LOUDNESS_TARGETS.streaming - integrated),
        club: finiteOrNull(LOUDNESS_TARGETS.club - integrated),
      },
      targets: { streaming: LOUDNESS_TARGETS.streaming, club: LOUDNESS_TARGETS.club },
      channel_weights: [...this.weights],
    };
  }
}

/** EBU R 128 / BS.1770 loudness: I, ungated clip loudness, LRA, max M and S, sample and true peak, RMS and crest factor. */
export const loudnessEngine: EngineSpec<Record<string, never>, LoudnessResult> = {
  id: 'loudness',
  version: '2',
  needsTotalFrames: false,
  create(format) {
    return new LoudnessMeter(format);
  },
};

/**
 * Integrated loudness alone (LUFS, rounded as `integrated_lufs`; null for −∞): the meter's K-weighting
 * and 100 ms hop energies, the same arithmetic in the same order, so the same value as
 * `loudnessEngine`'s `integrated_lufs`, without true peak, momentary/short-term maxima or LRA.
 */
export function createIntegratedLoudness(format: StreamFormat): StreamEngine<number | null> {
  const meter = new LoudnessMeter(format, true);
  return { push: (chunk) => meter.push(chunk), finish: () => meter.finishIntegrated() };
}
