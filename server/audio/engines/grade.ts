/**
 * The `grade` engine: a mechanical quality grade of a loop or one-shot (spec rule 11, `POST /grade`).
 *
 * Streamed over interleaved float32 chunks of any size (the route feeds the head, ~30 s). Memory is bounded
 * and independent of the clip's length except for the per-hop envelope, which is itself capped:
 * - the first and the last `EDGE_SECONDS` of every channel (a copy of the head, a ring buffer for the end);
 * - per-channel sums (DC), clip-run counters, Linkwitz–Riley filter states and low-band sums of squares;
 * - a 5 ms hop envelope of three energies (all channels, low band, first difference) for the bar
 *   envelopes: about 200 kB for 30 s, at most `ENVELOPE_CAPACITY` hops (then merged in pairs: 1.5 MB whatever
 *   the length);
 * - the `loudness` and `onsets` engines, run on the same chunks (their own bounded state).
 *
 * Six sub-scores, each 0..1 with the measurement behind it:
 * - seam_click: the wrap from the last sample to the first, per channel: |x[0] − x[N−1]| over the RMS
 *   sample-to-sample step of the first and last 1.5 ms (the rougher side: a wrap into a transient is masked).
 * - zero_crossing: each end's sample relative to the peak of the 10 ms beside it (0 = on a zero crossing,
 *   1 = on a crest), and the distance to the nearest sign change (the start's alone when `scopeGrade` cut).
 * - dc_offset: the mean of each channel.
 * - bar_consistency: the length against a whole number of 4/4 bars at the tempo of the onsets engine, refined
 *   on the onsets' metrical grid (dsp/grade-math `refineBeatPeriod`), and the bar-to-bar similarity of
 *   16-step energy envelopes in three bands. Null (not scored) when no tempo is found.
 * - level: integrated loudness and sample peak (too quiet), clip runs, true peak (from the loudness engine).
 * - bass_mono: the correlation of left and right below 120 Hz (4th-order Linkwitz–Riley low pass).
 *
 * The composite is the weighted geometric mean of the scored sub-scores (each floored at `SCORE_FLOOR`, the
 * weights of the role renormalised over the scored ones), so that one severe defect pulls the grade down
 * instead of being averaged away; digital silence scores 0. Tiers: S ≥ 0.9, A ≥ 0.8, B ≥ 0.65, C ≥ 0.5, else D.
 *
 * Assumptions: the clip starts on a bar line, in 4/4; the clip fed is the whole loop. When the route cuts a
 * longer file at its head, `scopeGrade` marks the loop-only checks (seam, bar length) not applicable and
 * rescores without them: the seam and the length of a cut describe the cut, not the loop.
 */
import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';
import { loudnessEngine, type LoudnessResult } from './loudness.js';
import { onsetsEngine, type OnsetsResult } from './onsets.js';
import { roundTo } from '../dsp/round.js';
import type { TempoSource } from '../dsp/loop-tempo.js';
import type { Biquad } from '../dsp/k-weighting.js';
import {
  ampToDb,
  barEnvelopes,
  barSimilarity,
  correlationOf,
  edgeScore,
  HopEnvelope,
  lowPassBiquad,
  measureEdge,
  measureSeam,
  rampDown,
  rampUp,
  refineBeatPeriod,
  seamScore,
  STEPS_PER_BAR,
  type EdgeMeasure,
  type SeamMeasure,
} from '../dsp/grade-math.js';

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
  percs: ['percs', 'perc', 'percussion', 'percussions', 'drums', 'drum', 'drumloop', 'drumloops', 'beat', 'beats', 'break', 'breaks', 'breakbeat', 'breakbeats', 'kick', 'kicks', 'snare', 'snares', 'groove', 'grooves'],
  tops: ['tops', 'top', 'toploop', 'toploops', 'hats', 'hat', 'hihat', 'hihats', 'cymbal', 'cymbals', 'shaker', 'shakers', 'ride', 'rides'],
  bass: ['bass', 'basses', 'bassline', 'basslines', 'sub', 'subs', 'subbass', '808', '808s', 'reese'],
  melodic: ['melodic', 'melody', 'melodies', 'keys', 'key', 'chord', 'chords', 'synth', 'synths', 'lead', 'leads', 'piano', 'guitar', 'guitars', 'pluck', 'plucks', 'arp', 'arps', 'vocal', 'vocals', 'vox', 'music'],
  atmos: ['atmos', 'atmo', 'atmosphere', 'atmospheres', 'pad', 'pads', 'ambient', 'ambience', 'texture', 'textures', 'drone', 'drones', 'fx', 'sfx', 'soundscape', 'soundscapes'],
};

/** Lower-cased synonym (spaces, hyphens and underscores removed) → canonical role. */
export const ROLE_SYNONYMS: ReadonlyMap<string, Exclude<GradeRole, 'default'>> = new Map(
  (Object.entries(SYNONYM_LIST) as [Exclude<GradeRole, 'default'>, readonly string[]][]).flatMap(([role, names]) => names.map((n) => [n, role] as const)),
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
export function compositeScore(scores: Readonly<Record<SubScoreName, number | null>>, role: GradeRole): { score: number; weights: Record<SubScoreName, number> } {
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

const round = roundTo;
const dbOrNull = (x: number): number | null => (Number.isFinite(x) ? round(x, 2) : null);
const r3 = (x: number): number => round(x, 3);
const r3OrNull = (x: number | null): number | null => (x === null ? null : r3(x));

const GRID_NAMES = { 4: '16th', 3: '8th_triplet', 2: '8th', 1: 'beat' } as const;

// ---------------------------------------------------------------------------------------------------------
// Engine

/** Biquad state slots per channel for the two low-pass sections: x1 x2 y1 y2 of each. */
const LP_STATE = 8;

class GradeMeter implements StreamEngine<GradeResult> {
  private readonly channels: number;
  private readonly sampleRate: number;
  private readonly role: string;
  private readonly loudness: StreamEngine<LoudnessResult>;
  private readonly onsets: StreamEngine<OnsetsResult>;
  private readonly lp: Biquad;

  private readonly edgeFrames: number;
  private readonly head: Float32Array;
  private headFrames = 0;
  /** Ring of the last edgeFrames frames: frame f lives in slot f mod edgeFrames. */
  private readonly ring: Float32Array;

  private readonly dcSum: Float64Array;
  private readonly prev: Float64Array;
  private readonly run: Int32Array;
  private clipRuns = 0;
  private clippedSamples = 0;
  /** Low-pass state of channels 0 and 1 (LP_STATE each). */
  private readonly lpState = new Float64Array(2 * LP_STATE);
  private sLL = 0;
  private sRR = 0;
  private sLR = 0;

  private readonly envelope: HopEnvelope;
  private posInHop = 0;
  private eFull = 0;
  private eLow = 0;
  private eHigh = 0;

  private frames = 0;
  private finished = false;

  constructor(format: StreamFormat, role: string) {
    const { sampleRate, channels } = format;
    if (!Number.isInteger(channels) || channels < 1) throw new RangeError(`channel count must be a positive integer, got ${channels}`);
    this.channels = channels;
    this.sampleRate = sampleRate;
    this.role = role;
    this.loudness = loudnessEngine.create(format, {});
    this.onsets = onsetsEngine.create(format, {});
    this.lp = lowPassBiquad(BASS_CUTOFF_HZ, sampleRate);
    this.edgeFrames = Math.max(16, Math.ceil(EDGE_SECONDS * sampleRate));
    this.head = new Float32Array(this.edgeFrames * channels);
    this.ring = new Float32Array(this.edgeFrames * channels);
    this.dcSum = new Float64Array(channels);
    this.prev = new Float64Array(channels);
    this.run = new Int32Array(channels);
    this.envelope = new HopEnvelope(3, ENVELOPE_CAPACITY, Math.max(1, Math.round(HOP_SECONDS * sampleRate)));
  }

  push(chunk: Float32Array): void {
    if (this.finished) throw new Error('grade: push after finish');
    const c = this.channels;
    if (chunk.length % c !== 0) throw new RangeError(`chunk length ${chunk.length} is not a multiple of ${c} channels`);
    const frames = chunk.length / c;
    if (frames === 0) return;
    this.loudness.push(chunk);
    this.onsets.push(chunk);
    this.keepEdges(chunk, frames);
    if (c === 1) this.scanMono(chunk, frames);
    else this.scanMulti(chunk, frames);
    this.frames += frames;
  }

  /** Copy the head until full, and the chunk's last frames into the end ring. */
  private keepEdges(chunk: Float32Array, frames: number): void {
    const c = this.channels;
    const e = this.edgeFrames;
    if (this.headFrames < e) {
      const take = Math.min(frames, e - this.headFrames);
      this.head.set(chunk.subarray(0, take * c), this.headFrames * c);
      this.headFrames += take;
    }
    const take = Math.min(frames, e);
    for (let k = frames - take; k < frames; ) {
      const slot = (this.frames + k) % e;
      const n = Math.min(frames - k, e - slot);
      this.ring.set(chunk.subarray(k * c, (k + n) * c), slot * c);
      k += n;
    }
  }

  /** Close the current hop (energies summed over its frames). */
  private completeHop(): void {
    this.envelope.push([this.eFull, this.eLow, this.eHigh]);
    this.eFull = 0;
    this.eLow = 0;
    this.eHigh = 0;
    this.posInHop = 0;
  }

  /** Clip-run bookkeeping for one channel's sample (called only at and just after a clipped sample). */
  private endRun(ch: number): void {
    const r = this.run[ch]!;
    if (r >= CLIP_MIN_RUN) {
      this.clipRuns++;
      this.clippedSamples += r;
    }
    this.run[ch] = 0;
  }

  private scanMono(chunk: Float32Array, frames: number): void {
    const { b0, b1, b2, a1, a2 } = this.lp;
    const st = this.lpState;
    let x1 = st[0]!, x2 = st[1]!, y1 = st[2]!, y2 = st[3]!, u1 = st[4]!, u2 = st[5]!, z1 = st[6]!, z2 = st[7]!;
    let sum = this.dcSum[0]!;
    let prev = this.prev[0]!;
    let sLL = this.sLL;
    let eFull = this.eFull, eLow = this.eLow, eHigh = this.eHigh;
    let pos = this.posInHop;
    let hop = this.envelope.hopFrames;
    for (let i = 0; i < frames; i++) {
      const v = chunk[i]!;
      sum += v;
      const d = v - prev;
      prev = v;
      eHigh += d * d;
      eFull += v * v;
      if (v >= CLIP_LEVEL || v <= -CLIP_LEVEL) this.run[0]!++;
      else if (this.run[0]! > 0) this.endRun(0);
      // Two cascaded sections (4th-order Linkwitz–Riley), direct form I.
      const y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      x2 = x1;
      x1 = v;
      y2 = y1;
      y1 = y;
      const z = b0 * y + b1 * u1 + b2 * u2 - a1 * z1 - a2 * z2;
      u2 = u1;
      u1 = y;
      z2 = z1;
      z1 = z;
      sLL += z * z;
      eLow += z * z;
      if (++pos === hop) {
        this.eFull = eFull;
        this.eLow = eLow;
        this.eHigh = eHigh;
        this.completeHop();
        eFull = eLow = eHigh = 0;
        pos = 0;
        hop = this.envelope.hopFrames;
      }
    }
    st[0] = x1;
    st[1] = x2;
    st[2] = y1;
    st[3] = y2;
    st[4] = u1;
    st[5] = u2;
    st[6] = z1;
    st[7] = z2;
    this.dcSum[0] = sum;
    this.prev[0] = prev;
    this.sLL = sLL;
    this.eFull = eFull;
    this.eLow = eLow;
    this.eHigh = eHigh;
    this.posInHop = pos;
  }

  /** Two or more channels: channels 0 and 1 in registers (and low-passed), further ones in a loop. */
  private scanMulti(chunk: Float32Array, frames: number): void {
    const ch = this.channels;
    const { b0, b1, b2, a1, a2 } = this.lp;
    const st = this.lpState;
    let lx1 = st[0]!, lx2 = st[1]!, ly1 = st[2]!, ly2 = st[3]!, lu1 = st[4]!, lu2 = st[5]!, lz1 = st[6]!, lz2 = st[7]!;
    let rx1 = st[8]!, rx2 = st[9]!, ry1 = st[10]!, ry2 = st[11]!, ru1 = st[12]!, ru2 = st[13]!, rz1 = st[14]!, rz2 = st[15]!;
    let sumL = this.dcSum[0]!, sumR = this.dcSum[1]!;
    let prevL = this.prev[0]!, prevR = this.prev[1]!;
    let sLL = this.sLL, sRR = this.sRR, sLR = this.sLR;
    let eFull = this.eFull, eLow = this.eLow, eHigh = this.eHigh;
    let pos = this.posInHop;
    let hop = this.envelope.hopFrames;
    const run = this.run;
    const dc = this.dcSum;
    const prevs = this.prev;
    for (let i = 0, k = 0; i < frames; i++, k += ch) {
      const l = chunk[k]!;
      const r = chunk[k + 1]!;
      sumL += l;
      sumR += r;
      const dl = l - prevL;
      const dr = r - prevR;
      prevL = l;
      prevR = r;
      eHigh += dl * dl + dr * dr;
      eFull += l * l + r * r;
      if (l >= CLIP_LEVEL || l <= -CLIP_LEVEL) run[0]!++;
      else if (run[0]! > 0) this.endRun(0);
      if (r >= CLIP_LEVEL || r <= -CLIP_LEVEL) run[1]!++;
      else if (run[1]! > 0) this.endRun(1);
      for (let c = 2; c < ch; c++) {
        const v = chunk[k + c]!;
        dc[c] = dc[c]! + v;
        const d = v - prevs[c]!;
        prevs[c] = v;
        eHigh += d * d;
        eFull += v * v;
        if (v >= CLIP_LEVEL || v <= -CLIP_LEVEL) run[c]!++;
        else if (run[c]! > 0) this.endRun(c);
      }
      const ly = b0 * l + b1 * lx1 + b2 * lx2 - a1 * ly1 - a2 * ly2;
      const ry = b0 * r + b1 * rx1 + b2 * rx2 - a1 * ry1 - a2 * ry2;
      lx2 = lx1;
      lx1 = l;
      ly2 = ly1;
      ly1 = ly;
      rx2 = rx1;
      rx1 = r;
      ry2 = ry1;
      ry1 = ry;
      const lz = b0 * ly + b1 * lu1 + b2 * lu2 - a1 * lz1 - a2 * lz2;
      const rz = b0 * ry + b1 * ru1 + b2 * ru2 - a1 * rz1 - a2 * rz2;
      lu2 = lu1;
      lu1 = ly;
      lz2 = lz1;
      lz1 = lz;
      ru2 = ru1;
      ru1 = ry;
      rz2 = rz1;
      rz1 = rz;
      sLL += lz * lz;
      sRR += rz * rz;
      sLR += lz * rz;
      eLow += lz * lz + rz * rz;
      if (++pos === hop) {
        this.eFull = eFull;
        this.eLow = eLow;
        this.eHigh = eHigh;
        this.completeHop();
        eFull = eLow = eHigh = 0;
        pos = 0;
        hop = this.envelope.hopFrames;
      }
    }
    st.set([lx1, lx2, ly1, ly2, lu1, lu2, lz1, lz2, rx1, rx2, ry1, ry2, ru1, ru2, rz1, rz2]);
    this.dcSum[0] = sumL;
    this.dcSum[1] = sumR;
    this.prev[0] = prevL;
    this.prev[1] = prevR;
    this.sLL = sLL;
    this.sRR = sRR;
    this.sLR = sLR;
    this.eFull = eFull;
    this.eLow = eLow;
    this.eHigh = eHigh;
    this.posInHop = pos;
  }

  /** The last min(frames, edgeFrames) frames, in time order. */
  private tail(): Float32Array {
    const c = this.channels;
    const e = this.edgeFrames;
    const n = Math.min(this.frames, e);
    const out = new Float32Array(n * c);
    for (let k = 0; k < n; k++) {
      const slot = (this.frames - n + k) % e;
      out.set(this.ring.subarray(slot * c, (slot + 1) * c), k * c);
    }
    return out;
  }

  finish(): GradeResult {
    if (this.finished) throw new Error('grade: finish called twice');
    this.finished = true;
    const loud = this.loudness.finish();
    const ons = this.onsets.finish();
    const ch = this.channels;
    const fs = this.sampleRate;
    const frames = this.frames;
    const duration = frames / fs;
    // The partial last hop, its energies scaled to a whole hop so that it reads as the same power.
    if (this.posInHop > 0) {
      const s = this.envelope.hopFrames / this.posInHop;
      this.envelope.push([this.eFull * s, this.eLow * s, this.eHigh * s]);
    }
    for (let c = 0; c < ch; c++) if (this.run[c]! > 0) this.endRun(c);

    const head = this.head.subarray(0, this.headFrames * ch);
    const tail = this.tail();
    const flags: GradeFlag[] = [];

    // Seam: the worst channel.
    const seamWindow = Math.max(8, Math.round(SEAM_WINDOW_SECONDS * fs));
    let seam: { c: number; m: SeamMeasure; score: number; ratio: number } | null = null;
    for (let c = 0; c < ch; c++) {
      const m = measureSeam(head, tail, ch, c, seamWindow);
      const s = seamScore(m);
      if (!seam || s.score < seam.score) seam = { c, m, score: s.score, ratio: s.ratio };
    }
    const seamRes = seam!;
    if (seamRes.score < FLAG_BELOW) {
      flags.push({
        code: 'seam_click',
        message: `The end does not meet the start: expect a click when the loop wraps (a jump of ${fmtDb(seamRes.m.jump)} dBFS, ${
          seamRes.ratio >= 1e6 ? 'between silent edges' : `${fmt(seamRes.ratio, 1)}× the signal's own sample-to-sample step`
        }).`,
      });
    }

    // Zero crossings at both ends: the worst channel of each.
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
        sample: round(w.m.value, 6),
        sample_dbfs: dbOrNull(ampToDb(w.m.value)),
        relative_level: r3(w.m.relative),
        crossing_distance_ms: w.m.crossingDistance === null ? null : round((w.m.crossingDistance / fs) * 1000, 3),
      };
    };
    const start = edge(head, true);
    const end = edge(tail, false);
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

    // DC offset.
    const means = Array.from(this.dcSum, (s) => (frames > 0 ? s / frames : 0));
    const maxDc = means.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const dcScore = maxDc <= DC_GOOD ? 1 : rampDown(ampToDb(maxDc), ampToDb(DC_GOOD), ampToDb(DC_BAD));
    if (maxDc > DC_FLAG) {
      flags.push({ code: 'dc_offset', message: `The waveform is offset from zero (DC of ${fmtDb(maxDc)} dBFS): remove the DC offset or high-pass the sound.` });
    }

    // Level.
    const lufs = loud.integrated_lufs;
    const peak = loud.sample_peak_dbfs;
    const tp = loud.true_peak_dbtp;
    const quietScore = peak === null ? 0 : Math.min(rampUp(peak, QUIET_PEAK_DBFS - 12, QUIET_PEAK_DBFS), lufs === null ? 1 : rampUp(lufs, QUIET_LUFS - 12, QUIET_LUFS));
    const clippingScore = this.clipRuns === 0 ? 1 : Math.max(0.1, 0.7 - 0.1 * Math.log2(this.clipRuns));
    const truePeakScore = tp === null || tp <= -1 ? 1 : tp <= 0 ? 0.95 : 0.8;
    if (peak === null || peak < QUIET_PEAK_DBFS || (lufs !== null && lufs < QUIET_LUFS)) {
      flags.push({
        code: 'too_quiet',
        message:
          peak === null
            ? 'The audio is silent.'
            : `The level is very low (${lufs === null ? 'loudness not measurable' : `${lufs} LUFS integrated`}, peak ${peak} dBFS): normalise or gain it up.`,
      });
    }
    if (this.clipRuns > 0) {
      flags.push({
        code: 'clipping',
        message: `The audio is clipped: ${this.clipRuns} run${this.clipRuns === 1 ? '' : 's'} of ${CLIP_MIN_RUN} or more samples at full scale (${this.clippedSamples} samples).`,
      });
    }
    if (tp !== null && tp > 0) {
      flags.push({ code: 'true_peak_over', message: `The true peak is ${tp} dBTP, above 0 dBTP: inter-sample peaks will clip after conversion or encoding.` });
    }

    // Bass mono compatibility.
    let correlation: number | null = null;
    let monoSumDb: number | null = null;
    let lowRmsDb: number | null = null;
    if (frames > 0) {
      const lowPower = ch >= 2 ? (this.sLL + this.sRR) / (2 * frames) : this.sLL / frames;
      lowRmsDb = dbOrNull(10 * Math.log10(lowPower));
      if (ch >= 2 && lowPower > 1e-6) {
        correlation = correlationOf(this.sLL, this.sRR, this.sLR);
        const mono = this.sLL + this.sRR + 2 * this.sLR;
        monoSumDb = round(Math.max(-100, 10 * Math.log10(Math.max(0, mono) / (2 * (this.sLL + this.sRR)))), 2);
      }
    }
    const bassScore = correlation === null ? 1 : rampUp(correlation, -0.3, 0.7);
    if (correlation !== null && correlation < 0) {
      flags.push({
        code: 'bass_out_of_phase',
        message: `The low end (below ${BASS_CUTOFF_HZ} Hz) is out of phase between left and right (correlation ${fmt(correlation, 2)}): it cancels when summed to mono (${monoSumDb} dB).`,
      });
    }

    // Bar consistency.
    const bars = this.barConsistency(ons, duration);
    if (bars.flag) flags.push(bars.flag);

    const subScores: Record<SubScoreName, number | null> = {
      seam_click: seamRes.score,
      zero_crossing: (edgeScoreOf(start) + edgeScoreOf(end)) / 2,
      dc_offset: dcScore,
      bar_consistency: bars.report.score,
      level: quietScore * clippingScore * truePeakScore,
      bass_mono: bassScore,
    };
    // Round first, so that the composite is reproducible from the reported sub-scores.
    for (const k of SUB_SCORES) subScores[k] = r3OrNull(subScores[k]);
    const roleUsed = resolveRole(this.role);
    const composite = compositeScore(subScores, roleUsed);
    // Digital silence (or no audio) has nothing to grade: 0.
    const score = peak === null ? 0 : r3(composite.score);
    const weights = {} as Record<SubScoreName, number>;
    for (const k of SUB_SCORES) weights[k] = round(composite.weights[k], 4);

    return {
      score,
      tier: tierOf(score),
      role: this.role,
      role_used: roleUsed,
      weights,
      graded_s: r3(duration),
      duration_s: r3(duration),
      sub_scores: {
        seam_click: {
          score: subScores.seam_click!,
          applicable: true,
          reason: null,
          channel: seamRes.c,
          jump: round(seamRes.m.jump, 6),
          jump_dbfs: dbOrNull(ampToDb(seamRes.m.jump)),
          step_start: round(seamRes.m.startStep, 6),
          step_end: round(seamRes.m.endStep, 6),
          ratio: round(seamRes.ratio, 2),
        },
        zero_crossing: { score: subScores.zero_crossing!, start, end },
        dc_offset: { score: subScores.dc_offset!, mean: means.map((m) => round(m, 6)), max_abs: round(maxDc, 6), max_abs_dbfs: dbOrNull(ampToDb(maxDc)) },
        bar_consistency: { ...bars.report, score: subScores.bar_consistency, applicable: true, reason: null },
        level: {
          score: subScores.level!,
          integrated_lufs: lufs,
          sample_peak_dbfs: peak,
          true_peak_dbtp: tp,
          clip_runs: this.clipRuns,
          clipped_samples: this.clippedSamples,
          quiet_score: r3(quietScore),
          clipping_score: r3(clippingScore),
          true_peak_score: r3(truePeakScore),
        },
        bass_mono: { score: subScores.bass_mono!, cutoff_hz: BASS_CUTOFF_HZ, correlation: r3OrNull(correlation), mono_sum_db: monoSumDb, low_band_rms_dbfs: lowRmsDb },
      },
      flags,
    };
  }

  private barConsistency(ons: OnsetsResult, duration: number): { report: Omit<GradeResult['sub_scores']['bar_consistency'], 'applicable' | 'reason'>; flag: GradeFlag | null } {
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
      ons.tempo_source === 'loop_length' && (!fitted || Math.abs(fitted.beat - coarseBeat) <= studentT975(fitted.onsetsUsed - 2) * fitted.beatStdError);
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
    if (completeBars >= 2 && (barSeconds * this.sampleRate) / STEPS_PER_BAR >= this.envelope.hopFrames) {
      similarity = barSimilarity(barEnvelopes(this.envelope, barSeconds * this.sampleRate, completeBars));
    }
    const similarityScore = similarity === null ? null : rampUp(similarity, 0.5, 0.9);
    // A wrong length breaks a loop whatever its bars sound like: the similarity only scales the length score.
    const score =
      lengthScore !== null && similarityScore !== null ? lengthScore * (0.75 + 0.25 * similarityScore) : lengthScore ?? similarityScore;
    return {
      report: {
        score,
        detected_tempo_bpm: detected,
        detected_tempo_source: ons.tempo_source,
        tempo_bpm: round(60 / beat, 3),
        tempo_source: refined ? 'onset_grid' : ons.tempo_source,
        grid: refined ? GRID_NAMES[refined.subdivision as 4 | 3 | 2 | 1] : null,
        bar_s: round(barSeconds, 5),
        bars: round(barsFloat, 4),
        whole_bars: whole,
        length_error_ms: lengthErrorMs === null ? null : round(lengthErrorMs, 2),
        length_error_pct_of_bar: lengthErrorMs === null ? null : round((lengthErrorMs / 1000 / barSeconds) * 100, 3),
        length_score: r3OrNull(lengthScore),
        bar_similarity: r3OrNull(similarity),
        similarity_score: r3OrNull(similarityScore),
      },
      flag,
    };
  }
}

/** An edge's score; an end that is not applicable (null) is never scored, so it neither flags nor counts. */
const edgeScoreOf = (e: EdgeReport): number => e.score ?? 1;

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
  for (const k of SUB_SCORES) weights[k] = round(composite.weights[k], 4);
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
const fmt = (x: number, digits: number): string => x.toFixed(digits);
const fmtDb = (amp: number): string => (amp > 0 ? ampToDb(amp).toFixed(1) : '-inf');

/** Loop/one-shot quality grade (spec rule 11). `role` is a hint that picks the weight row (see ROLE_WEIGHTS). */
export const gradeEngine: EngineSpec<{ role: string }, GradeResult> = {
  id: 'grade',
  version: '4',
  needsTotalFrames: false,
  create(format, params) {
    return new GradeMeter(format, params.role ?? '');
  },
};
