/**
 * The six checks of the `grade` engine over what its meter (grade.ts) measured, and the grade they make:
 * each check turns measured figures into its sub-score, its report and its flags, following the policy of
 * grade-policy.ts (pure: no stream state).
 */
import {
  ampToDb,
  barEnvelopes,
  barSimilarity,
  correlationOf,
  edgeScore,
  measureEdge,
  measureSeam,
  rampDown,
  rampUp,
  refineBeatPeriod,
  seamScore,
  STEPS_PER_BAR,
  type EdgeMeasure,
  type HopEnvelope,
  type SeamMeasure,
} from '../dsp/grade-math.js';
import { roundTo } from '../dsp/round.js';
import type { LoudnessResult } from './loudness.js';
import type { OnsetsResult } from './onsets.js';
import {
  BASS_CUTOFF_HZ,
  CLIP_MIN_RUN,
  compositeScore,
  DC_BAD,
  DC_FLAG,
  DC_GOOD,
  dbOrNull,
  edgeScoreOf,
  FLAG_BELOW,
  fmt,
  fmtDb,
  LENGTH_BAD_MS,
  LENGTH_FLAG_MS,
  LENGTH_GOOD_MS,
  QUIET_LUFS,
  QUIET_PEAK_DBFS,
  r3,
  r3OrNull,
  resolveRole,
  SEAM_WINDOW_SECONDS,
  studentT975,
  SUB_SCORES,
  tierOf,
  ZERO_CROSSING_WINDOW_SECONDS,
  type EdgeReport,
  type GradeFlag,
  type GradeResult,
  type SubScoreName,
} from './grade-policy.js';

/** What the meter measured over the stream (grade.ts), and the loudness and onsets engines' results. */
export interface GradeFigures {
  readonly channels: number;
  readonly sampleRate: number;
  readonly frames: number;
  /** The first and the last EDGE_SECONDS, interleaved. */
  readonly head: Float32Array;
  readonly tail: Float32Array;
  /** Per-channel sums (DC). */
  readonly dcSums: Float64Array;
  readonly clipRuns: number;
  readonly clippedSamples: number;
  /** ΣL², ΣR², ΣLR below BASS_CUTOFF_HZ (channels 0 and 1; only ll for mono). */
  readonly low: { readonly ll: number; readonly rr: number; readonly lr: number };
  /** Per-hop energies (all channels, low band, first difference) for the bar envelopes. */
  readonly envelope: HopEnvelope;
  readonly loudness: LoudnessResult;
  readonly onsets: OnsetsResult;
}

type BarReport = Omit<GradeResult['sub_scores']['bar_consistency'], 'applicable' | 'reason'>;

const GRID_NAMES = { 4: '16th', 3: '8th_triplet', 2: '8th', 1: 'beat' } as const;

/** Seam: the wrap from the last sample to the first, the worst channel. */
function checkSeam(f: GradeFigures): { seam: { c: number; m: SeamMeasure; score: number; ratio: number }; flag: GradeFlag | null } {
  const ch = f.channels;
  const seamWindow = Math.max(8, Math.round(SEAM_WINDOW_SECONDS * f.sampleRate));
  let seam: { c: number; m: SeamMeasure; score: number; ratio: number } | null = null;
  for (let c = 0; c < ch; c++) {
    const m = measureSeam(f.head, f.tail, ch, c, seamWindow);
    const s = seamScore(m);
    if (!seam || s.score < seam.score) seam = { c, m, score: s.score, ratio: s.ratio };
  }
  const seamRes = seam!;
  const flag: GradeFlag | null =
    seamRes.score < FLAG_BELOW
      ? {
          code: 'seam_click',
          message: `The end does not meet the start: expect a click when the loop wraps (a jump of ${fmtDb(seamRes.m.jump)} dBFS, ${
            seamRes.ratio >= 1e6 ? 'between silent edges' : `${fmt(seamRes.ratio, 1)}× the signal's own sample-to-sample step`
          }).`,
        }
      : null;
  return { seam: seamRes, flag };
}

/** Zero crossings at both ends: the worst channel of each. */
function checkZeroCrossings(f: GradeFigures): { start: EdgeReport; end: EdgeReport; flags: GradeFlag[] } {
  const ch = f.channels;
  const fs = f.sampleRate;
  const zcWindow = Math.max(2, Math.round(ZERO_CROSSING_WINDOW_SECONDS * fs));
  const edge = (frames: Float32Array, atStart: boolean): EdgeReport => {
    let worst: { c: number; m: EdgeMeasure; score: number } | null = null;
    for (let c = 0; c < ch; c++) {
      const m = measureEdge(frames, ch, c, atStart, zcWindow);
      const s = edgeScore(m);
      if (!worst || s < worst.score) worst = { c, m, score: s };
    }
    const w = worst!;
    return {
      score: r3(w.score),
      applicable: true,
      reason: null,
      channel: w.c,
      sample: roundTo(w.m.value, 6),
      sample_dbfs: dbOrNull(ampToDb(w.m.value)),
      relative_level: r3(w.m.relative),
      crossing_distance_ms: w.m.crossingDistance === null ? null : roundTo((w.m.crossingDistance / fs) * 1000, 3),
    };
  };
  const start = edge(f.head, true);
  const end = edge(f.tail, false);
  const flags: GradeFlag[] = [];
  if (edgeScoreOf(start) < FLAG_BELOW) {
    flags.push({
      code: 'start_not_at_zero_crossing',
      message: `The first sample is far from zero (${start.sample_dbfs} dBFS, ${Math.round(start.relative_level * 100)} % of the local peak): the sound starts on a hard edge; start it at a zero crossing or fade it in.`,
    });
  }
  if (edgeScoreOf(end) < FLAG_BELOW) {
    flags.push({
      code: 'end_not_at_zero_crossing',
      message: `The last sample is far from zero (${end.sample_dbfs} dBFS, ${Math.round(end.relative_level * 100)} % of the local peak): cut the end at a zero crossing or fade it out.`,
    });
  }
  return { start, end, flags };
}

/** DC offset: the mean of each channel, scored on the largest. */
function checkDcOffset(f: GradeFigures): { score: number; means: number[]; maxDc: number; flag: GradeFlag | null } {
  const frames = f.frames;
  const means = Array.from(f.dcSums, (s) => (frames > 0 ? s / frames : 0));
  const maxDc = means.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const score = maxDc <= DC_GOOD ? 1 : rampDown(ampToDb(maxDc), ampToDb(DC_GOOD), ampToDb(DC_BAD));
  const flag: GradeFlag | null =
    maxDc > DC_FLAG
      ? {
          code: 'dc_offset',
          message: `The waveform is offset from zero (DC of ${fmtDb(maxDc)} dBFS): remove the DC offset or high-pass the sound.`,
        }
      : null;
  return { score, means, maxDc, flag };
}

/** Level: too quiet, clip runs and true peak. */
function checkLevel(f: GradeFigures): { quietScore: number; clippingScore: number; truePeakScore: number; flags: GradeFlag[] } {
  const lufs = f.loudness.integrated_lufs;
  const peak = f.loudness.sample_peak_dbfs;
  const tp = f.loudness.true_peak_dbtp;
  const clipRuns = f.clipRuns;
  const quietScore =
    peak === null
      ? 0
      : Math.min(rampUp(peak, QUIET_PEAK_DBFS - 12, QUIET_PEAK_DBFS), lufs === null ? 1 : rampUp(lufs, QUIET_LUFS - 12, QUIET_LUFS));
  const clippingScore = clipRuns === 0 ? 1 : Math.max(0.1, 0.7 - 0.1 * Math.log2(clipRuns));
  const truePeakScore = tp === null || tp <= -1 ? 1 : tp <= 0 ? 0.95 : 0.8;
  const flags: GradeFlag[] = [];
  if (peak === null || peak < QUIET_PEAK_DBFS || (lufs !== null && lufs < QUIET_LUFS)) {
    flags.push({
      code: 'too_quiet',
      message:
        peak === null
          ? 'The audio is silent.'
          : `The level is very low (${lufs === null ? 'loudness not measurable' : `${lufs} LUFS integrated`}, peak ${peak} dBFS): normalise or gain it up.`,
    });
  }
  if (clipRuns > 0) {
    flags.push({
      code: 'clipping',
      message: `The audio is clipped: ${clipRuns} run${clipRuns === 1 ? '' : 's'} of ${CLIP_MIN_RUN} or more samples at full scale (${f.clippedSamples} samples).`,
    });
  }
  if (tp !== null && tp > 0) {
    flags.push({
      code: 'true_peak_over',
      message: `The true peak is ${tp} dBTP, above 0 dBTP: inter-sample peaks will clip after conversion or encoding.`,
    });
  }
  return { quietScore, clippingScore, truePeakScore, flags };
}

/** Bass mono compatibility: the correlation of left and right below BASS_CUTOFF_HZ. */
function checkBassMono(f: GradeFigures): {
  score: number;
  correlation: number | null;
  monoSumDb: number | null;
  lowRmsDb: number | null;
  flag: GradeFlag | null;
} {
  const { ll, rr, lr } = f.low;
  const ch = f.channels;
  const frames = f.frames;
  let correlation: number | null = null;
  let monoSumDb: number | null = null;
  let lowRmsDb: number | null = null;
  if (frames > 0) {
    const lowPower = ch >= 2 ? (ll + rr) / (2 * frames) : ll / frames;
    lowRmsDb = dbOrNull(10 * Math.log10(lowPower));
    if (ch >= 2 && lowPower > 1e-6) {
      correlation = correlationOf(ll, rr, lr);
      const mono = ll + rr + 2 * lr;
      monoSumDb = roundTo(Math.max(-100, 10 * Math.log10(Math.max(0, mono) / (2 * (ll + rr)))), 2);
    }
  }
  const score = correlation === null ? 1 : rampUp(correlation, -0.3, 0.7);
  const flag: GradeFlag | null =
    correlation !== null && correlation < 0
      ? {
          code: 'bass_out_of_phase',
          message: `The low end (below ${BASS_CUTOFF_HZ} Hz) is out of phase between left and right (correlation ${fmt(correlation, 2)}): it cancels when summed to mono (${monoSumDb} dB).`,
        }
      : null;
  return { score, correlation, monoSumDb, lowRmsDb, flag };
}
/**
 * Bar consistency: the length against whole 4/4 bars at the onsets engine's tempo (refined on the onsets'
 * grid), and the bar-to-bar similarity of the hop envelope. Not scored without a tempo.
 */
function checkBars(f: GradeFigures, duration: number): { report: BarReport; flag: GradeFlag | null } {
  const ons = f.onsets;
  const detected = ons.tempo_bpm;
  const none = {
    score: null,
    detected_tempo_bpm: detected,
    detected_tempo_source: ons.tempo_source,
    tempo_bpm: null,
    tempo_source: null,
    grid: null,
    bar_s: null,
    bars: null,
    whole_bars: null,
    length_error_ms: null,
    length_error_pct_of_bar: null,
    length_score: null,
    bar_similarity: null,
    similarity_score: null,
  } as const;
  if (detected === null || !(detected > 0)) return { report: none, flag: null };
  const coarseBeat = 60 / detected;
  const fitted = refineBeatPeriod(ons.onsets, coarseBeat);
  // A loop-length tempo (exact by construction) inside the 95 % confidence interval of the beat fitted to
  // the onsets (Student's t, onsets used − 2 degrees of freedom) is taken: the onsets cannot tell it from
  // their own fit, so the length agrees with whole bars within what they can measure, and /grade answers
  // the same tempo as /onsets. A loop cut 2 % long is still told apart by its clean onsets and judged on
  // their grid.
  const fromLength =
    ons.tempo_source === 'loop_length' &&
    (!fitted || Math.abs(fitted.beat - coarseBeat) <= studentT975(fitted.onsetsUsed - 2) * fitted.beatStdError);
  const refined = fromLength ? null : fitted;
  const beat = refined ? refined.beat : coarseBeat;
  const barSeconds = 4 * beat;
  const barsFloat = duration / barSeconds;
  const whole = Math.round(barsFloat);
  let lengthErrorMs: number | null = null;
  let lengthScore: number | null = null;
  let flag: GradeFlag | null = null;
  if (whole >= 1) {
    lengthErrorMs = (duration - whole * barSeconds) * 1000;
    // Only a refined tempo is precise enough to judge the length (the detected one is within ±2 %), or
    // a loop-length tempo the onsets' grid agrees with (its error is 0).
    if (refined || (fromLength && fitted)) {
      lengthScore = rampDown(Math.abs(lengthErrorMs), LENGTH_GOOD_MS, LENGTH_BAD_MS);
      if (Math.abs(lengthErrorMs) > LENGTH_FLAG_MS) {
        flag = {
          code: 'not_whole_bars',
          message: `The length is not a whole number of bars at ${fmt(60 / beat, 2)} BPM: ${fmt(barsFloat, 3)} bars, ${lengthErrorMs > 0 ? 'over' : 'under'} ${whole} bar${whole === 1 ? '' : 's'} by ${fmt(Math.abs(lengthErrorMs), 1)} ms.`,
        };
      }
    }
  }
  // Whole bars present (1 % short still counts), compared bar to bar.
  const completeBars = Math.floor(barsFloat + 0.01);
  let similarity: number | null = null;
  if (completeBars >= 2 && (barSeconds * f.sampleRate) / STEPS_PER_BAR >= f.envelope.hopFrames) {
    similarity = barSimilarity(barEnvelopes(f.envelope, barSeconds * f.sampleRate, completeBars));
  }
  const similarityScore = similarity === null ? null : rampUp(similarity, 0.5, 0.9);
  // A wrong length breaks a loop whatever its bars sound like: the similarity only scales the length score.
  const score =
    lengthScore !== null && similarityScore !== null ? lengthScore * (0.75 + 0.25 * similarityScore) : (lengthScore ?? similarityScore);
  return {
    report: {
      score,
      detected_tempo_bpm: detected,
      detected_tempo_source: ons.tempo_source,
      tempo_bpm: roundTo(60 / beat, 3),
      tempo_source: refined ? 'onset_grid' : ons.tempo_source,
      grid: refined ? GRID_NAMES[refined.subdivision as 4 | 3 | 2 | 1] : null,
      bar_s: roundTo(barSeconds, 5),
      bars: roundTo(barsFloat, 4),
      whole_bars: whole,
      length_error_ms: lengthErrorMs === null ? null : roundTo(lengthErrorMs, 2),
      length_error_pct_of_bar: lengthErrorMs === null ? null : roundTo((lengthErrorMs / 1000 / barSeconds) * 100, 3),
      length_score: r3OrNull(lengthScore),
      bar_similarity: r3OrNull(similarity),
      similarity_score: r3OrNull(similarityScore),
    },
    flag,
  };
}
/** The grade from the meter's figures: the six checks, their sub-scores rounded, the role's composite and tier. */
export function gradeFigures(f: GradeFigures, role: string): GradeResult {
  const duration = f.frames / f.sampleRate;
  const { seam, flag: seamFlag } = checkSeam(f);
  const edges = checkZeroCrossings(f);
  const dc = checkDcOffset(f);
  const level = checkLevel(f);
  const bass = checkBassMono(f);
  const bars = checkBars(f, duration);
  const flags = [seamFlag, ...edges.flags, dc.flag, ...level.flags, bass.flag, bars.flag].filter((x): x is GradeFlag => x !== null);
  const subScores: Record<SubScoreName, number | null> = {
    seam_click: seam.score,
    zero_crossing: (edgeScoreOf(edges.start) + edgeScoreOf(edges.end)) / 2,
    dc_offset: dc.score,
    bar_consistency: bars.report.score,
    level: level.quietScore * level.clippingScore * level.truePeakScore,
    bass_mono: bass.score,
  };
  // Round first, so that the composite is reproducible from the reported sub-scores.
  for (const k of SUB_SCORES) subScores[k] = r3OrNull(subScores[k]);
  const roleUsed = resolveRole(role);
  const composite = compositeScore(subScores, roleUsed);
  const loud = f.loudness;
  // Digital silence (or no audio) has nothing to grade: 0.
  const score = loud.sample_peak_dbfs === null ? 0 : r3(composite.score);
  const weights = {} as Record<SubScoreName, number>;
  for (const k of SUB_SCORES) weights[k] = roundTo(composite.weights[k], 4);
  return {
    score,
    tier: tierOf(score),
    role,
    role_used: roleUsed,
    weights,
    graded_s: r3(duration),
    duration_s: r3(duration),
    sub_scores: {
      seam_click: {
        score: subScores.seam_click!,
        applicable: true,
        reason: null,
        channel: seam.c,
        jump: roundTo(seam.m.jump, 6),
        jump_dbfs: dbOrNull(ampToDb(seam.m.jump)),
        step_start: roundTo(seam.m.startStep, 6),
        step_end: roundTo(seam.m.endStep, 6),
        ratio: roundTo(seam.ratio, 2),
      },
      zero_crossing: { score: subScores.zero_crossing!, start: edges.start, end: edges.end },
      dc_offset: {
        score: subScores.dc_offset!,
        mean: dc.means.map((m) => roundTo(m, 6)),
        max_abs: roundTo(dc.maxDc, 6),
        max_abs_dbfs: dbOrNull(ampToDb(dc.maxDc)),
      },
      bar_consistency: { ...bars.report, score: subScores.bar_consistency, applicable: true, reason: null },
      level: {
        score: subScores.level!,
        integrated_lufs: loud.integrated_lufs,
        sample_peak_dbfs: loud.sample_peak_dbfs,
        true_peak_dbtp: loud.true_peak_dbtp,
        clip_runs: f.clipRuns,
        clipped_samples: f.clippedSamples,
        quiet_score: r3(level.quietScore),
        clipping_score: r3(level.clippingScore),
        true_peak_score: r3(level.truePeakScore),
      },
      bass_mono: {
        score: subScores.bass_mono!,
        cutoff_hz: BASS_CUTOFF_HZ,
        correlation: r3OrNull(bass.correlation),
        mono_sum_db: bass.monoSumDb,
        low_band_rms_dbfs: bass.lowRmsDb,
      },
    },
    flags,
  };
}
