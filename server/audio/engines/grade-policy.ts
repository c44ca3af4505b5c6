/**
 * The grading policy of the `grade` engine (pure, no audio): the tiers and thresholds, the roles' weight
 * rows, the composite score, the flag codes, the result's shape and `scopeGrade` (a head cut from a longer
 * file). grade-checks.ts applies it to what the meter (grade.ts) measured.
 *
 * Just over 400 lines: the constants and their documentation are most of it.
 */
import { ampToDb } from '../dsp/grade-math.js';
import type { TempoSource } from '../dsp/loop-tempo.js';
import { roundTo } from '../dsp/round.js';

// ---------------------------------------------------------------------------------------------------------
// Scoring constants (documented in grade-schema.ts too)

/** Tier thresholds on the composite score, best first; below the last one the tier is D. */
export const TIER_THRESHOLDS: readonly (readonly [GradeTier, number])[] = [
  ['S', 0.9],
  ['A', 0.8],
  ['B', 0.65],
  ['C', 0.5],
];

/** Sub-scores under this count as this in the geometric mean (a 0 would make every composite 0). */
export const SCORE_FLOOR = 0.05;

/** Seconds kept of each end of the clip. */
export const EDGE_SECONDS = 0.02;
/** Seconds of sample-to-sample differences beside the seam. */
export const SEAM_WINDOW_SECONDS = 0.0015;
/** Seconds beside each end searched for the local peak and the nearest zero crossing. */
export const ZERO_CROSSING_WINDOW_SECONDS = 0.01;
/** Hop of the bar envelope, seconds. */
export const HOP_SECONDS = 0.005;
/** Hops kept before the envelope is merged in pairs. */
export const ENVELOPE_CAPACITY = 1 << 16;
/** Top of the bass band, Hz. */
export const BASS_CUTOFF_HZ = 120;
/** |x| at or above this is a clipped sample… */
export const CLIP_LEVEL = 0.999;
/** …and this many in a row (one channel) a clip run (a single sample at full scale is a normalised peak). */
export const CLIP_MIN_RUN = 3;
/**
 * DC: no penalty at or below this |mean| (−60 dBFS), score 0 at `DC_BAD` (−26 dBFS), linear in dB between;
 * flagged above `DC_FLAG` (−50 dBFS: a loop's mean is its DC when looped, but short low-frequency content
 * such as a kick's asymmetric first cycle reads up to about −55 dBFS on a 4-bar loop).
 */
export const DC_GOOD = 0.001;
export const DC_FLAG = 0.003;
export const DC_BAD = 0.05;
/** Too quiet: integrated loudness under this (LUFS) or sample peak under `QUIET_PEAK_DBFS`. */
export const QUIET_LUFS = -30;
export const QUIET_PEAK_DBFS = -20;
/** Length error (ms) that scores 1 and 0, and that is flagged. */
export const LENGTH_GOOD_MS = 5;
export const LENGTH_BAD_MS = 45;
export const LENGTH_FLAG_MS = 20;
/**
 * Two-sided 95 % quantile of Student's t with `dof` degrees of freedom: the half-width, in standard
 * errors, of the 95 % confidence interval of a least-squares slope fitted to dof + 2 points. Table for 1–10,
 * then 1.96 + 2.5/dof (within 0.01 of the exact value above 10).
 */
export function studentT975(dof: number): number {
  const table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
  if (!(dof >= 1)) return Infinity;
  return dof <= 10 ? table[Math.floor(dof) - 1]! : 1.96 + 2.5 / dof;
}
/** A sub-score under this raises its flag (seam and zero crossings). */
export const FLAG_BELOW = 0.5;

export type GradeTier = 'S' | 'A' | 'B' | 'C' | 'D';

export const SUB_SCORES = ['seam_click', 'zero_crossing', 'dc_offset', 'bar_consistency', 'level', 'bass_mono'] as const;
export type SubScoreName = (typeof SUB_SCORES)[number];

/** Canonical roles (those of /analyze/samples) plus `default` for an empty or unknown hint. */
export type GradeRole = 'percs' | 'tops' | 'bass' | 'melodic' | 'atmos' | 'default';

/**
 * Weights per role (each row sums to 1):
 *
 * | role    | seam | zero_x | dc   | bars | level | bass_mono |
 * |---------|------|--------|------|------|-------|-----------|
 * | default | 0.22 | 0.10   | 0.10 | 0.20 | 0.18  | 0.20      |
 * | percs   | 0.28 | 0.08   | 0.08 | 0.28 | 0.16  | 0.12      |
 * | tops    | 0.28 | 0.08   | 0.08 | 0.28 | 0.20  | 0.08      |
 * | bass    | 0.20 | 0.12   | 0.10 | 0.16 | 0.12  | 0.30      |
 * | melodic | 0.24 | 0.10   | 0.10 | 0.20 | 0.18  | 0.18      |
 * | atmos   | 0.30 | 0.10   | 0.12 | 0.06 | 0.22  | 0.20      |
 *
 * Drums and tops must loop on the grid and without a click; a bass must survive mono; pads and
 * atmospheres need not be bar-periodic, but a sustained sound makes the seam matter more.
 */
export const ROLE_WEIGHTS: Readonly<Record<GradeRole, Readonly<Record<SubScoreName, number>>>> = {
  default: { seam_click: 0.22, zero_crossing: 0.1, dc_offset: 0.1, bar_consistency: 0.2, level: 0.18, bass_mono: 0.2 },
  percs: { seam_click: 0.28, zero_crossing: 0.08, dc_offset: 0.08, bar_consistency: 0.28, level: 0.16, bass_mono: 0.12 },
  tops: { seam_click: 0.28, zero_crossing: 0.08, dc_offset: 0.08, bar_consistency: 0.28, level: 0.2, bass_mono: 0.08 },
  bass: { seam_click: 0.2, zero_crossing: 0.12, dc_offset: 0.1, bar_consistency: 0.16, level: 0.12, bass_mono: 0.3 },
  melodic: { seam_click: 0.24, zero_crossing: 0.1, dc_offset: 0.1, bar_consistency: 0.2, level: 0.18, bass_mono: 0.18 },
  atmos: { seam_click: 0.3, zero_crossing: 0.1, dc_offset: 0.12, bar_consistency: 0.06, level: 0.22, bass_mono: 0.2 },
};

const SYNONYM_LIST: Readonly<Record<Exclude<GradeRole, 'default'>, readonly string[]>> = {
  percs: [
    'percs',
    'perc',
    'percussion',
    'percussions',
    'drums',
    'drum',
    'drumloop',
    'drumloops',
    'beat',
    'beats',
    'break',
    'breaks',
    'breakbeat',
    'breakbeats',
    'kick',
    'kicks',
    'snare',
    'snares',
    'groove',
    'grooves',
  ],
  tops: ['tops', 'top', 'toploop', 'toploops', 'hats', 'hat', 'hihat', 'hihats', 'cymbal', 'cymbals', 'shaker', 'shakers', 'ride', 'rides'],
  bass: ['bass', 'basses', 'bassline', 'basslines', 'sub', 'subs', 'subbass', '808', '808s', 'reese'],
  melodic: [
    'melodic',
    'melody',
    'melodies',
    'keys',
    'key',
    'chord',
    'chords',
    'synth',
    'synths',
    'lead',
    'leads',
    'piano',
    'guitar',
    'guitars',
    'pluck',
    'plucks',
    'arp',
    'arps',
    'vocal',
    'vocals',
    'vox',
    'music',
  ],
  atmos: [
    'atmos',
    'atmo',
    'atmosphere',
    'atmospheres',
    'pad',
    'pads',
    'ambient',
    'ambience',
    'texture',
    'textures',
    'drone',
    'drones',
    'fx',
    'sfx',
    'soundscape',
    'soundscapes',
  ],
};

/** Lower-cased synonym (spaces, hyphens and underscores removed) → canonical role. */
export const ROLE_SYNONYMS: ReadonlyMap<string, Exclude<GradeRole, 'default'>> = new Map(
  (Object.entries(SYNONYM_LIST) as [Exclude<GradeRole, 'default'>, readonly string[]][]).flatMap(([role, names]) =>
    names.map((n) => [n, role] as const),
  ),
);

/** The canonical role of a hint: case, spaces, hyphens and underscores are ignored; unknown or empty → default. */
export function resolveRole(hint: string): GradeRole {
  const key = hint.toLowerCase().replace(/[\s_-]+/g, '');
  return ROLE_SYNONYMS.get(key) ?? 'default';
}

/** The tier of a composite score. */
export function tierOf(score: number): GradeTier {
  for (const [tier, min] of TIER_THRESHOLDS) if (score >= min) return tier;
  return 'D';
}

/**
 * The composite: Π max(s_i, SCORE_FLOOR)^(w_i / Σw) over the sub-scores that are not null, w from the role's
 * row. Also returns the weights used (renormalised; 0 for an unscored sub-score).
 */
export function compositeScore(
  scores: Readonly<Record<SubScoreName, number | null>>,
  role: GradeRole,
): { score: number; weights: Record<SubScoreName, number> } {
  const row = ROLE_WEIGHTS[role];
  let total = 0;
  for (const k of SUB_SCORES) if (scores[k] !== null) total += row[k];
  const weights = {} as Record<SubScoreName, number>;
  let log = 0;
  for (const k of SUB_SCORES) {
    const s = scores[k];
    const w = s === null || total === 0 ? 0 : row[k] / total;
    weights[k] = w;
    if (s !== null && w > 0) log += w * Math.log(Math.max(SCORE_FLOOR, s));
  }
  return { score: Math.exp(log), weights };
}

// ---------------------------------------------------------------------------------------------------------
// Result

/**
 * Flag codes, in the order they are reported:
 * - seam_click: seam_click score < 0.5;
 * - start_not_at_zero_crossing / end_not_at_zero_crossing: that end's zero-crossing score < 0.5;
 * - dc_offset: |mean| of a channel > 0.003 (−50 dBFS);
 * - too_quiet: integrated loudness < −30 LUFS or sample peak < −20 dBFS (or silence);
 * - clipping: at least one run of ≥ 3 samples at |x| ≥ 0.999 in a channel;
 * - true_peak_over: true peak > 0 dBTP;
 * - bass_out_of_phase: correlation of left and right below 120 Hz < 0;
 * - not_whole_bars: the length is more than 20 ms from a whole number of bars (refined tempo only).
 */
export const FLAG_CODES = [
  'seam_click',
  'start_not_at_zero_crossing',
  'end_not_at_zero_crossing',
  'dc_offset',
  'too_quiet',
  'clipping',
  'true_peak_over',
  'bass_out_of_phase',
  'not_whole_bars',
] as const;
export type GradeFlagCode = (typeof FLAG_CODES)[number];

export interface GradeFlag {
  readonly code: GradeFlagCode;
  readonly message: string;
}

export interface EdgeReport {
  /** Null when not applicable (the end of a head cut from a longer file). */
  readonly score: number | null;
  /** False for the end when only the head of a longer file was graded: that end is the cut's, not the file's. */
  readonly applicable: boolean;
  readonly reason: string | null;
  /** The worst channel (0-based). */
  readonly channel: number;
  /** Its edge sample, linear. */
  readonly sample: number;
  readonly sample_dbfs: number | null;
  /** |sample| / peak of the 10 ms beside it, 0..1. */
  readonly relative_level: number;
  /** Distance to the nearest sign change within 10 ms, ms; null if none. */
  readonly crossing_distance_ms: number | null;
}

export interface GradeResult {
  /** Composite 0..1 (weighted geometric mean of the scored sub-scores). */
  readonly score: number;
  readonly tier: GradeTier;
  /** The hint as given. */
  readonly role: string;
  /** The weight row used. */
  readonly role_used: GradeRole;
  /** Effective weights (renormalised over the scored sub-scores; 0 where a sub-score is null). */
  readonly weights: Record<SubScoreName, number>;
  /** Seconds graded (frames fed / sample rate): the head of a longer file. */
  readonly graded_s: number;
  /** Seconds of the whole file (equal to graded_s until `scopeGrade` learns the file is longer). */
  readonly duration_s: number;
  readonly sub_scores: {
    readonly seam_click: {
      readonly score: number | null;
      /** False when only the head of a longer file was graded: the seam of a cut is not the loop's. */
      readonly applicable: boolean;
      readonly reason: string | null;
      readonly channel: number;
      readonly jump: number;
      readonly jump_dbfs: number | null;
      readonly step_start: number;
      readonly step_end: number;
      readonly ratio: number;
    };
    readonly zero_crossing: { readonly score: number; readonly start: EdgeReport; readonly end: EdgeReport };
    readonly dc_offset: { readonly score: number; readonly mean: number[]; readonly max_abs: number; readonly max_abs_dbfs: number | null };
    readonly bar_consistency: {
      readonly score: number | null;
      /** False when only the head of a longer file was graded: its length is not the loop's. */
      readonly applicable: boolean;
      readonly reason: string | null;
      /** The onsets engine's tempo (its `tempo_bpm`). */
      readonly detected_tempo_bpm: number | null;
      /** How the onsets engine found it: 'loop_length' or 'onsets' (its `tempo_source`). */
      readonly detected_tempo_source: TempoSource | null;
      readonly tempo_bpm: number | null;
      /**
       * 'onset_grid': the detected tempo refined on the onsets' grid; otherwise the detected tempo as it
       * came ('loop_length' or 'onsets'). Only 'onset_grid' judges the length: a tempo taken from the loop
       * length makes it whole bars by construction.
       */
      readonly tempo_source: 'onset_grid' | TempoSource | null;
      readonly grid: '16th' | '8th_triplet' | '8th' | 'beat' | null;
      readonly bar_s: number | null;
      readonly bars: number | null;
      readonly whole_bars: number | null;
      readonly length_error_ms: number | null;
      readonly length_error_pct_of_bar: number | null;
      readonly length_score: number | null;
      readonly bar_similarity: number | null;
      readonly similarity_score: number | null;
    };
    readonly level: {
      readonly score: number;
      readonly integrated_lufs: number | null;
      readonly sample_peak_dbfs: number | null;
      readonly true_peak_dbtp: number | null;
      readonly clip_runs: number;
      readonly clipped_samples: number;
      readonly quiet_score: number;
      readonly clipping_score: number;
      readonly true_peak_score: number;
    };
    readonly bass_mono: {
      readonly score: number;
      readonly cutoff_hz: number;
      readonly correlation: number | null;
      readonly mono_sum_db: number | null;
      readonly low_band_rms_dbfs: number | null;
    };
  };
  readonly flags: GradeFlag[];
}

/** A level in dB rounded to 2 decimals; null when not finite (silence). */
export const dbOrNull = (x: number): number | null => (Number.isFinite(x) ? roundTo(x, 2) : null);
/** Rounded to 3 decimals (scores and most figures). */
export const r3 = (x: number): number => roundTo(x, 3);
/** r3, keeping null. */
export const r3OrNull = (x: number | null): number | null => (x === null ? null : r3(x));

/** An edge's score; an end that is not applicable (null) is never scored, so it neither flags nor counts. */
export const edgeScoreOf = (e: EdgeReport): number => e.score ?? 1;

/** The file may be this much longer than the graded head and still count as wholly graded (container rounding). */
export const WHOLE_FILE_TOLERANCE_S = 0.05;

/** Sub-scores that judge the clip as a loop: they need its real end (the wrap) and its real length. */
export const LOOP_ONLY_SUB_SCORES = ['seam_click', 'bar_consistency'] as const satisfies readonly SubScoreName[];
/** Flags dropped with them; the end's zero crossing too: the last sample graded is where the head was cut. */
const LOOP_ONLY_FLAGS: ReadonlySet<GradeFlagCode> = new Set(['seam_click', 'not_whole_bars', 'end_not_at_zero_crossing']);

/**
 * The grade of a file of `fileSeconds` from the grade of its head: when the file is longer than what was
 * graded, the seam and the bar length describe where the head was cut, not the loop, so they are marked not
 * applicable (with the reason), their flags dropped and the composite recomputed without them. So is the end
 * of the zero-crossing check: the clean-edges score is then the start's alone.
 */
export function scopeGrade(result: GradeResult, fileSeconds: number): GradeResult {
  const whole = !(fileSeconds > result.graded_s + WHOLE_FILE_TOLERANCE_S);
  if (whole) return { ...result, duration_s: result.graded_s };
  const reason = `only the first ${fmtSeconds(result.graded_s)} of ${fmtSeconds(fileSeconds)} were graded`;
  const sub = result.sub_scores;
  const scores = {} as Record<SubScoreName, number | null>;
  for (const k of SUB_SCORES) scores[k] = (LOOP_ONLY_SUB_SCORES as readonly SubScoreName[]).includes(k) ? null : sub[k].score;
  // The cut's last sample says nothing about how the file ends: only the start is judged.
  const edgesScore = edgeScoreOf(sub.zero_crossing.start);
  scores.zero_crossing = edgesScore;
  const composite = compositeScore(scores, result.role_used);
  // Digital silence stays 0 (as in finish).
  const score = sub.level.sample_peak_dbfs === null ? 0 : r3(composite.score);
  const weights = {} as Record<SubScoreName, number>;
  for (const k of SUB_SCORES) weights[k] = roundTo(composite.weights[k], 4);
  return {
    ...result,
    score,
    tier: tierOf(score),
    weights,
    duration_s: r3(fileSeconds),
    sub_scores: {
      ...sub,
      seam_click: { ...sub.seam_click, score: null, applicable: false, reason },
      zero_crossing: { ...sub.zero_crossing, score: edgesScore, end: { ...sub.zero_crossing.end, score: null, applicable: false, reason } },
      bar_consistency: { ...sub.bar_consistency, score: null, applicable: false, reason },
    },
    flags: result.flags.filter((f) => !LOOP_ONLY_FLAGS.has(f.code)),
  };
}

/** "30 s", "2:59.5" style: seconds under a minute, else m:ss. */
const fmtSeconds = (s: number): string => {
  if (s < 60) return `${Number(s.toFixed(1))} s`;
  const m = Math.floor(s / 60);
  const rest = s - 60 * m;
  return `${m}:${rest < 10 ? '0' : ''}${Number(rest.toFixed(1))}`;
};
/** x with `digits` decimals, for messages. */
export const fmt = (x: number, digits: number): string => x.toFixed(digits);
/** An amplitude in dB with one decimal (or -inf), for messages. */
export const fmtDb = (amp: number): string => (amp > 0 ? ampToDb(amp).toFixed(1) : '-inf');
