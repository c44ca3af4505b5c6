/**
 * The `samples` engine: a per-sample exploratory analysis, and the sample's role measured from it.
 *
 * sample-measurer.ts streams the audio into sums and per-frame reductions (the STFT, the 5 ms envelope,
 * the pitch track); this file turns those into the measurements of `SampleAnalysisResult`, in named
 * steps (spectrum, activity, onsets and envelope, pitch, stereo, loop), and sample-role.ts judges the role
 * from the reported measurements (the role model's probabilities, the reasons, the name hint). Only the
 * first `MAX_SECONDS` are analysed (the routes feed the first ~30 s).
 *
 * Every measurement is relative (to the clip's own peak or total power), so the level does not matter,
 * and the arithmetic is the same however the stream is chunked, so the answer is too.
 *
 * Over 400 lines because a third of it is the documented result type; the steps are short functions.
 */
import { hzToMidi, midiToHz, noteName } from '../dsp/pitch.js';
import { beatPeriod, envelopeShape, pickPeaks, powerDb, ramp } from '../dsp/role-features.js';
import { inferLoopTempo, type LoopTempo, type TempoSource } from '../dsp/loop-tempo.js';
import { roundTo } from '../dsp/round.js';
import { embedMelPatch } from '../dsp/timbre-embedding.js';
import { timbreEmbeddingWeights } from '../dsp/timbre-embedding-weights.js';
import type { RoleMeasurements } from './role-model-features.js';
import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';
import { SampleMeasurer, VOICED_APERIODICITY, type SampleMeasures } from './sample-measurer.js';
import { harmonicityOf, judgeRole, percussivenessOf, type RoleScore, type SampleRole } from './sample-role.js';

export interface SampleAnalysisParams {
  /** The file name (may be empty). Only used to call percussive material a drum loop or break (`percs`). */
  readonly name: string;
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
  readonly bands: {
    readonly sub: number;
    readonly low: number;
    readonly low_mid: number;
    readonly high_mid: number;
    readonly high: number;
  };
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
    /** Combined percussiveness 0..1 (see sample-role.ts `percussivenessOf`). */
    readonly percussiveness: number;
    /** Combined harmonicity 0..1 (see sample-role.ts `harmonicityOf`). */
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
  /** Harmonic timbre of the voiced pitch frames (dsp/harmonic-timbre.ts); null when no frame had partials. */
  readonly timbre: {
    /** Tristimulus T1, T2, T3 (Pollard & Jansson 1982): amplitude share of partial 1, 2–4 and 5+, each 0..1. */
    readonly tristimulus: readonly [number, number, number];
    /** Energy of the even partials over that of partials 2 and up, 0..1 (0 a square wave, 0.66 a sawtooth). */
    readonly even_harmonic_share: number;
    /** Amplitude-weighted mean partial rank (1 a sine; higher is brighter at any pitch). */
    readonly harmonic_centroid: number;
    /** Jensen's irregularity of the partial amplitudes Σ(a_h − a_{h+1})²/Σa_h², ≥ 0. */
    readonly irregularity: number;
    /** Stiff-string inharmonicity coefficient B (f_h = h·F·√(1 + B·h²)), median of the frames; null without four partials. */
    readonly inharmonicity: number | null;
    /** Share of the voiced frames' energy outside the partials, 0..1. */
    readonly noisiness: number;
  } | null;
  /**
   * The timbre embedding (dsp/timbre-embedding.ts): a unit vector from the log-mel patch of the first 1.5 s, close
   * for sounds of one instrument family; what "more like this" compares first. Null for silence.
   */
  readonly embedding: readonly number[] | null;
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

/** Rounded to 3 decimals unless told otherwise (the answer's default precision). */
const round = (x: number, digits = 3) => roundTo(x, digits);

/** Band powers and spectral summaries of the whole clip (shares of the total power). */
function summariseSpectrum(m: SampleMeasures) {
  const total = m.total;
  const share = (x: number) => (total > 0 ? x / total : 0);
  // The STFT's bins are 21.5 Hz wide at 44.1 kHz, too coarse for a 60 Hz edge: its power below 250 Hz
  // is split between sub and low in the proportion of the pitch frames' finer spectra (93 ms frames,
  // ≈5 Hz bins).
  const below250 = m.bandSum[0]! + m.bandSum[1]!;
  const fine = m.lowSub + m.lowLow;
  const subPart = fine > 0 ? (below250 * m.lowSub) / fine : m.bandSum[0]!;
  const bands = {
    sub: round(share(subPart)),
    low: round(share(below250 - subPart)),
    low_mid: round(share(m.bandSum[2]!)),
    high_mid: round(share(m.bandSum[3]!)),
    high: round(share(m.bandSum[4]!)),
  };
  const hpssTotal = m.hpssPercussive + m.hpssHarmonic;
  return {
    bands,
    above4k: share(m.above4k),
    centroidHz: share(m.centroidSum),
    flatness: share(m.flatSum),
    tonal: m.tonalPower > 0 ? m.tonalSum / m.tonalPower : 0,
    hpss: hpssTotal > 0 ? m.hpssPercussive / hpssTotal : 0,
  };
}

/** Whether STFT frame i is active: within 40 dB of the loudest frame. */
function activeFrames(m: SampleMeasures): (i: number) => boolean {
  const energy = m.frameEnergy;
  let maxEnergy = 0;
  for (let i = 0; i < energy.length; i++) maxEnergy = Math.max(maxEnergy, energy[i]!);
  return (i: number) => energy[i]! >= maxEnergy * 1e-4 && maxEnergy > 0;
}

/** Standard deviation of the active frames' centroids, octaves (timbre movement). */
function centroidMotionOf(m: SampleMeasures, active: (i: number) => boolean): number {
  const cents = m.frameCentroid;
  let cm = 0;
  let cm2 = 0;
  let cn = 0;
  for (let i = 0; i < m.frameEnergy.length; i++) {
    if (!active(i) || !(cents[i]! > 0)) continue;
    const o = Math.log2(cents[i]!);
    cm += o;
    cm2 += o * o;
    cn++;
  }
  return cn > 1 ? Math.sqrt(Math.max(0, cm2 / cn - (cm / cn) ** 2)) : 0;
}

/** The loudest log-band power and the dB floor 80 dB under it (the onset and loop comparisons clip there). */
function logBandFloor(m: SampleMeasures): { maxBand: number; floorDb: number } {
  const logBands = m.frameLogBands;
  let maxBand = 0;
  for (let i = 0; i < logBands.length; i++) maxBand = Math.max(maxBand, logBands[i]!);
  return { maxBand, floorDb: powerDb(maxBand) - 80 };
}

/** Onset frames: peaks of the mean rise in dB over the 24 log bands between consecutive active frames. */
function detectOnsetFrames(m: SampleMeasures, active: (i: number) => boolean, floorDb: number): number[] {
  const logBands = m.frameLogBands;
  const nFrames = m.frameEnergy.length;
  const flux = new Float64Array(nFrames);
  for (let t = 0; t < nFrames; t++) {
    let s = 0;
    for (let b = 0; b < 24; b++) {
      const cur = Math.max(floorDb, powerDb(logBands[t * 24 + b]!));
      const prev = t > 0 ? Math.max(floorDb, powerDb(logBands[(t - 1) * 24 + b]!)) : floorDb;
      if (cur > prev) s += cur - prev;
    }
    flux[t] = active(t) ? s / 24 : 0;
  }
  return pickPeaks(flux, 3, 2);
}

/** The envelope of the first event (it ends 10 ms before the second onset), the active seconds and the onset density. */
function measureEnvelope(m: SampleMeasures, onsetFrames: readonly number[]) {
  const sr = m.sampleRate;
  const blockSeconds = m.blockSeconds;
  const blocks = m.blocks;
  // Frame t is centred on t·hop.
  const secondOnset = onsetFrames.length >= 2 ? (onsetFrames[1]! * m.hop) / sr - 0.01 : Infinity;
  const env = envelopeShape(blocks, blockSeconds, Math.floor(secondOnset / blockSeconds));
  const activeSeconds = blocks.length > 0 ? (env.lastActive - env.firstActive + 1) * blockSeconds : 0;
  const onsetDensity = activeSeconds > 0 ? onsetFrames.length / Math.max(activeSeconds, 0.25) : 0;
  return { env, activeSeconds, onsetDensity };
}

/** Salience, voiced share and the median pitch (with its interquartile spread) of the active pitch frames. */
function summarisePitch(m: SampleMeasures) {
  const f0s = m.pitchF0;
  const apers = m.pitchAperiodicity;
  const pe = m.pitchEnergy;
  let maxPe = 0;
  for (let i = 0; i < pe.length; i++) maxPe = Math.max(maxPe, pe[i]!);
  let active = 0;
  let salienceSum = 0;
  const voicedMidi: number[] = [];
  for (let i = 0; i < pe.length; i++) {
    if (!(maxPe > 0) || pe[i]! < maxPe * 1e-3) continue;
    active++;
    salienceSum += Math.max(0, Math.min(1, 1 - 2 * apers[i]!));
    if (apers[i]! <= VOICED_APERIODICITY && f0s[i]! > 0) voicedMidi.push(hzToMidi(f0s[i]!));
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
  return { salience, voiced, midi, f0, spread };
}

/** The timbre block: the measurer's harmonic descriptors, rounded. */
function summariseTimbre(m: SampleMeasures): SampleAnalysisResult['timbre'] {
  const t = m.timbre;
  if (!t) return null;
  return {
    tristimulus: [round(t.tristimulus[0]), round(t.tristimulus[1]), round(t.tristimulus[2])],
    even_harmonic_share: round(t.evenHarmonicShare),
    harmonic_centroid: round(t.harmonicCentroid),
    irregularity: round(t.irregularity, 4),
    inharmonicity: t.inharmonicity === null ? null : Number(t.inharmonicity.toPrecision(3)),
    noisiness: round(t.noisiness),
  };
}

/** The timbre embedding of the measurer's mel patch, rounded to 4 decimals; null for silence. */
function summariseEmbedding(m: SampleMeasures): readonly number[] | null {
  const e = m.melPatch ? embedMelPatch(m.melPatch, timbreEmbeddingWeights) : null;
  return e ? Array.from(e, (v) => round(v, 4)) : null;
}

/** Side/mid width and the correlation of the first two channels. */
function summariseStereo(m: SampleMeasures): { width: number; correlation: number | null } {
  const { ll, rr, lr } = m.stereo;
  const stereoPower = ll + rr;
  const width = m.channels >= 2 && stereoPower > 0 ? Math.max(0, Math.min(1, 1 - (2 * lr) / stereoPower)) : 0;
  const correlation = m.channels < 2 ? (m.sumSquares > 0 ? 1 : null) : ll > 0 && rr > 0 ? lr / Math.sqrt(ll * rr) : null;
  return { width, correlation };
}

/** The loop's seam: how alike the two halves' spectra are, and the end's level against the median frame. */
function measureLoopSeam(m: SampleMeasures, duration: number, { maxBand, floorDb }: { maxBand: number; floorDb: number }) {
  const logBands = m.frameLogBands;
  const energy = m.frameEnergy;
  const nFrames = energy.length;
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
    const endFrames = Math.max(1, Math.min(nFrames - 1, Math.round((Math.min(0.5, Math.max(0.05, duration / 8)) * m.sampleRate) / m.hop)));
    // Against the median frame level: a loop's quiet moments are many, a one-shot's tail is its quietest.
    const frameDb = Float64Array.from({ length: nFrames }, (_, t) => powerDb(energy[t]!)).sort();
    const medianDb = frameDb[nFrames >> 1]!;
    let endPower = 0;
    for (let t = nFrames - endFrames; t < nFrames; t++) endPower += energy[t]! / endFrames;
    endLevelDb = Math.max(-100, powerDb(endPower) - medianDb);
  }
  return { halvesSimilarity, endLevelDb };
}

/**
 * Onset curve: the rise of RMS amplitude over 20 ms (4 blocks), on a 20 ms moving average. Single 5 ms
 * blocks follow the ripple of low tones (a 55 Hz kick swings its block energy every 9 ms), and rises in dB
 * rate a soft hat like a kick; either way the beat drowned (124 BPM loops read as 82.6).
 */
function amplitudeOnsetCurve(blocks: Float64Array): Float64Array {
  const rise = 4;
  const level = new Float64Array(blocks.length);
  let window = 0;
  for (let i = 0; i < blocks.length; i++) {
    window += blocks[i]! - (i >= rise ? blocks[i - rise]! : 0);
    level[i] = Math.sqrt(Math.max(0, window) / Math.min(i + 1, rise));
  }
  const onsetCurve = new Float64Array(blocks.length);
  for (let i = rise; i < blocks.length; i++) onsetCurve[i] = Math.max(0, level[i]! - level[i - rise]!);
  return onsetCurve;
}

/** The beat tempo from the onset curve's periodicity, and the tempo from the loop length when it fits. */
function measureLoopTempo(
  m: SampleMeasures,
  duration: number,
  onsetCount: number,
): { detectedTempo: number | null; loopTempo: LoopTempo | null } {
  const blockSeconds = m.blockSeconds;
  const onsetCurve = amplitudeOnsetCurve(m.blocks);
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
    sampleRate: m.sampleRate,
  });
  return { detectedTempo, loopTempo };
}

/** Loop figures: beats at the tempo, whether they are whole, and the loop score (seam 0.6, beat fit 0.4). */
function scoreLoop(duration: number, tempo: number | null, seam: { halvesSimilarity: number; endLevelDb: number | null }) {
  const beats = tempo !== null ? (duration * tempo) / 60 : null;
  const beatError = beats !== null ? Math.abs(beats - Math.round(beats)) : 1;
  const wholeBeats = beats !== null && Math.round(beats) >= 2 && beatError <= 0.1;
  const beatFit = beats !== null ? Math.max(0, 1 - beatError / 0.25) : 0;
  const score = 0.6 * seam.halvesSimilarity * (seam.endLevelDb === null ? 0 : ramp(seam.endLevelDb, -15, -6)) + 0.4 * beatFit;
  return { beats, wholeBeats, score };
}

/** The answer from what the measurer accumulated: the measurements (rounded as reported), then the role judged from them. */
export function analyseMeasures(m: SampleMeasures, name: string): SampleAnalysisResult {
  const sr = m.sampleRate;
  const duration = m.frames / sr;
  const spectrum = summariseSpectrum(m);
  const active = activeFrames(m);
  const centroidMotion = centroidMotionOf(m, active);
  const floor = logBandFloor(m);
  const onsetFrames = detectOnsetFrames(m, active, floor.floorDb);
  const onsetCount = onsetFrames.length;
  const { env, onsetDensity } = measureEnvelope(m, onsetFrames);
  const pitch = summarisePitch(m);
  const { width, correlation } = summariseStereo(m);
  const seam = measureLoopSeam(m, duration, floor);
  const { detectedTempo, loopTempo } = measureLoopTempo(m, duration, onsetCount);
  const tempo = loopTempo ? loopTempo.bpm : null;
  const loop = scoreLoop(duration, tempo, seam);
  const attack = env.attackBlocks * m.blockSeconds;
  const decay = env.decayBlocks * m.blockSeconds;
  const cues = { drop: env.meanDropDb, attack, hpss: spectrum.hpss, onsetDensity, salience: pitch.salience, tonal: spectrum.tonal };
  const percussiveness = percussivenessOf(cues);
  const harmonicity = harmonicityOf(cues);
  const peakDb = m.peak > 0 ? 20 * Math.log10(m.peak) : null;
  const samples = m.frames * m.channels;
  const rmsDb = m.sumSquares > 0 && samples > 0 ? 10 * Math.log10(m.sumSquares / samples) : null;
  // The role model reads the reported (rounded) values, so the answer alone reproduces its input.
  const measurements = {
    duration_s: round(duration),
    bands: spectrum.bands,
    spectrum: {
      centroid_hz: round(spectrum.centroidHz, 1),
      above_4k: round(spectrum.above4k),
      flatness: round(spectrum.flatness),
      tonal_peak_share: round(spectrum.tonal),
      centroid_motion_oct: round(centroidMotion),
    },
    pitch: {
      f0_hz: pitch.f0 === null ? null : round(pitch.f0, 2),
      note: pitch.f0 === null ? null : noteName(pitch.f0),
      midi: pitch.midi === null ? null : round(pitch.midi, 2),
      salience: round(pitch.salience),
      voiced_fraction: round(pitch.voiced),
      spread_semitones: pitch.spread === null ? null : round(pitch.spread, 2),
    },
    timbre: summariseTimbre(m),
    embedding: summariseEmbedding(m),
    envelope: {
      attack_s: round(attack),
      decay_s: round(decay),
      sustain: round(env.sustain),
      mean_drop_db: round(env.meanDropDb, 2),
    },
    stereo: { width: round(width), correlation: correlation === null ? null : round(correlation) },
    loop: {
      halves_similarity: round(seam.halvesSimilarity),
      end_level_db: seam.endLevelDb === null ? null : round(seam.endLevelDb, 2),
      detected_tempo_bpm: detectedTempo === null ? null : round(detectedTempo, 2),
      tempo_bpm: tempo === null ? null : round(tempo, 2),
      tempo_source: loopTempo ? loopTempo.source : null,
      bars: loopTempo ? loopTempo.bars : null,
      beats: loop.beats === null ? null : round(loop.beats, 2),
      whole_beats: loop.wholeBeats,
      score: round(loop.score),
      is_loop: loop.score >= 0.6,
    },
  };
  const percussion = { hpss_percussive: round(spectrum.hpss), onset_count: onsetCount, onset_density: round(onsetDensity) };
  // The role model was fitted with has_tempo on the periodicity tempo: it keeps reading that one.
  const modelInput: RoleMeasurements = {
    ...measurements,
    loop: { ...measurements.loop, tempo_bpm: measurements.loop.detected_tempo_bpm },
    percussion,
  };
  const judged = judgeRole({ measurements: modelInput, silent: !(m.sumSquares > 0), percussiveness, name });
  return {
    role: judged.role,
    confidence: judged.confidence,
    runner_up: judged.runner_up,
    scores: judged.scores,
    measured_role: judged.measured_role,
    name_used: judged.name_used,
    reasons: judged.reasons,
    mixture: judged.mixture,
    shares: judged.shares,
    level: { peak_dbfs: peakDb === null ? null : round(peakDb, 2), rms_dbfs: rmsDb === null ? null : round(rmsDb, 2) },
    ...measurements,
    percussion: { ...percussion, percussiveness: round(percussiveness), harmonicity: round(harmonicity), percussive: judged.percussive },
    role_model: judged.role_model,
  };
}

/** One stream's analysis: the measurer, then the answer built from what it measured. */
class SampleAnalyser implements StreamEngine<SampleAnalysisResult> {
  private readonly measurer: SampleMeasurer;

  constructor(
    format: StreamFormat,
    private readonly params: SampleAnalysisParams,
  ) {
    this.measurer = new SampleMeasurer(format);
  }

  push(chunk: Float32Array): void {
    this.measurer.push(chunk);
  }

  finish(): SampleAnalysisResult {
    return analyseMeasures(this.measurer.finish(), this.params.name);
  }
}

export const sampleAnalysisEngine: EngineSpec<SampleAnalysisParams, SampleAnalysisResult> = {
  id: 'samples',
  version: '6',
  needsTotalFrames: false,
  create(format, params): StreamEngine<SampleAnalysisResult> {
    return new SampleAnalyser(format, params);
  },
};
