/**
 * The tempo of a loop from its length: a clip that is a whole number of 4/4 bars, and whose onsets sit on
 * the grid those bars imply, has the tempo 240·B / duration for its bar count B. This is the convention of
 * every sample library (a loop is cut on bar lines, so its length carries the tempo exactly) and the only
 * way to read the tempo of a 1–2 s loop (one bar of a break): an autocorrelation needs several periods
 * (dsp/tempo.ts asks for 2 s), and a tempo read from the onsets is within ±2 %, not exact.
 *
 * Steps (`inferLoopTempo`):
 * 1. Candidates: B ∈ `LOOP_BAR_COUNTS` (1, 2, 4, 8) whose tempo 240·B/duration lies within
 *    `LOOP_TEMPO_RANGE` (60–200 BPM, the range of the onsets engine).
 * 2. Grid fit: an onset in the first 30 ms (the clip's own start) is left out; at least `MIN_LOOP_ONSETS`
 *    must remain, with no gap (around the wrap too) over `MAX_GAP` (3/8) of the clip, since a loop has
 *    events all through it. The onsets must sit on the 16th-note grid of the candidate (16 steps a bar) or
 *    on its 8th-triplet grid (12 a bar: shuffles and swing). The grid phase is free (the weighted circular
 *    mean of the onsets modulo one step): it absorbs a detection latency (later for soft bass attacks)
 *    and a loop cut a few ms early. An onset fits when it is within max(20 % of a step, 12 ms) of the
 *    grid; the candidate fits when the fitting onsets carry at least `MIN_GRID_FIT` (80 %) of the squared
 *    onset strength (squared, so the accents decide and the ripple a low note leaves in the onset
 *    envelope counts little). Onsets at random fit a 16th grid with probability ≈ 0.4 each.
 * 3. Agreement with the onsets' own periodicity: when the clip holds at least `MIN_VETO_BEATS` (8) beats
 *    of the tempo detected from the onsets (the caller's estimate; on fewer it is unreliable), a candidate
 *    must be within `OCTAVE_AGREEMENT` (5 %) of it times 2^k or 3·2^k (a 3-3-2 bass pattern pulses at 4/3
 *    of the beat). A clip whose length happens to fit a grid but whose pulse says otherwise is not a loop
 *    of that length (on the rendered takes of eval/real-audio/tempo-loops.ts, with silence around the
 *    loop, measured before the start and gap rules: none got a loop-length tempo with the veto, 8 of 81
 *    without it).
 * 4. Metrical level (half/double): the candidates left are an octave apart, all making the loop whole bars.
 *    The one inside the preferred range `PREFERRED_BPM` (70–180 BPM inclusive, where loops of nearly every
 *    genre are notated: hip-hop 70–100, house 120–128, drum and bass 160–180) is taken; estimators that
 *    read the pulse from the onsets fail by octaves, most often at half tempo on bass lines and backbeats
 *    (Gouyon et al., "An experimental comparison of audio tempo induction algorithms", IEEE TASLP 14(5),
 *    2006; McKinney & Moelants, "Ambiguity in tempo perception", JNMR 35(1), 2006, for the preference
 *    around 120 BPM), so a detected 62 BPM is not followed below the range. Tie rule (two candidates in the
 *    range, e.g. 90 and 180): the one within 5 % of the detected tempo, else the faster one (the onsets'
 *    octave errors are mostly at half tempo). None in the range: the nearest to it.
 *
 * 5. Exact length (when the sample rate is known, and no grid candidate was found): a clip within
 *    `EXACT_LENGTH_SAMPLES` (1) of round(sr·240·B/n) samples for a whole tempo n in the range was cut to B
 *    bars at n BPM by a sampler or a DAW export (both compute the length from the project's tempo, which is
 *    whole in practice, and round it to the sample). For a length drawn at random the chance of this is
 *    about 3·n/L for L samples (3 sample counts in every L/n; 0.3 % for 2.5 s at 97 BPM), so it stands for the grid when the
 *    onsets are too few or too irregular to show one: drones, rolls, rests longer than the gap rule allows.
 *    A length that is a whole number of `ROUND_LENGTH_S` (100 ms: 2, 4, 2.5 s…) is passed over: such
 *    lengths are whole bars at 60, 96, 120 BPM…, but more often someone chose a round duration (a
 *    rendered one-shot, a clip truncated to its first 30 s), so they carry no tempo. The clip must also
 *    not be a one-shot: at least `MIN_EXACT_ONSETS` onsets after the start
 *    guard, the last in the second half of the clip (a hit and its decay have their onsets at the start).
 *    It overrides the detected pulse (on an irregular clip the pulse is the weaker evidence); the metrical
 *    level is chosen as in step 4. `grid` is 'exact_length'.
 *
 * Otherwise the detected tempo stands (`source: 'onsets'`), or there is none.
 */

/** Bar counts a loop is cut to, shortest first. */
export const LOOP_BAR_COUNTS = [1, 2, 4, 8] as const;
/** Beats per bar (4/4). */
export const BEATS_PER_BAR = 4;
/** Tempi a loop-length candidate may have, BPM. */
export const LOOP_TEMPO_RANGE = { min: 60, max: 200 } as const;
/** The metrical level preferred among octave-related candidates, BPM (inclusive). */
export const PREFERRED_BPM = { min: 70, max: 180 } as const;
/** Fewer onsets than this give no loop-length tempo. */
export const MIN_LOOP_ONSETS = 4;
/** Onsets before this (seconds) are the clip's start, not evidence of a grid. */
export const START_GUARD_S = 0.03;
/** The largest gap between onsets (around the wrap too) as a share of the clip. */
export const MAX_GAP = 0.375;
/** Share of the onset strength that must sit on the grid. */
export const MIN_GRID_FIT = 0.8;
/** Grid tolerance: a share of one grid step, with a floor in seconds (onset times are good to ~1 frame). */
export const GRID_TOLERANCE_STEP = 0.2;
export const GRID_TOLERANCE_MIN_S = 0.012;
/** A detected tempo vetoes a candidate only when the clip holds at least this many of its beats. */
export const MIN_VETO_BEATS = 8;
/** Relative tolerance of a detected tempo against a candidate times a power of two. */
export const OCTAVE_AGREEMENT = 0.05;
/** A length within this many samples of whole bars at a whole tempo is an exact loop length (step 5). */
export const EXACT_LENGTH_SAMPLES = 1;
/** Lengths a whole number of this many seconds carry no tempo (step 5). */
export const ROUND_LENGTH_S = 0.1;
/** Onsets after the start guard an exact-length loop needs (step 5). */
export const MIN_EXACT_ONSETS = 2;

export type TempoSource = 'onsets' | 'loop_length';
export type LoopGrid = '16th' | '8th_triplet' | 'exact_length';

export interface LoopTempoInput {
  /** Onset times, seconds from the start of the clip. */
  readonly onsets: readonly number[];
  /** Onset strengths (any positive scale), parallel to `onsets`; all equal when absent. */
  readonly strengths?: readonly number[];
  /** The clip's length, seconds. */
  readonly duration: number;
  /** A tempo estimated from the onsets' periodicity (null when there is none). */
  readonly detectedBpm: number | null;
  /** The clip's sample rate, Hz: with it, a sample-exact loop length counts as evidence (step 5). */
  readonly sampleRate?: number;
}

export interface LoopTempo {
  readonly bpm: number;
  readonly source: TempoSource;
  /** Whole bars at `bpm` when the tempo came from the loop length, else null. */
  readonly bars: number | null;
  /** The grid the onsets fit (loop length only). */
  readonly grid: LoopGrid | null;
  /** Share of the onset strength on that grid, 0..1 (loop length from a grid only). */
  readonly fit: number | null;
}

interface Candidate {
  readonly bars: number;
  readonly bpm: number;
  readonly grid: LoopGrid;
  readonly fit: number | null;
}

/** The tempo of a clip: from its length when it is a loop of whole 4/4 bars (see above), else the detected one. */
export function inferLoopTempo(input: LoopTempoInput): LoopTempo | null {
  const loop = loopLengthTempo(input) ?? exactLengthTempo(input);
  if (loop) return { bpm: loop.bpm, source: 'loop_length', bars: loop.bars, grid: loop.grid, fit: loop.fit };
  const d = input.detectedBpm;
  return d !== null && d > 0 ? { bpm: d, source: 'onsets', bars: null, grid: null, fit: null } : null;
}

function loopLengthTempo({ onsets: all, strengths, duration, detectedBpm }: LoopTempoInput): Candidate | null {
  if (!(duration > 0)) return null;
  // An onset at the very start is the clip's own start (audio from silence always reads as one): it says
  // nothing about a grid, and its strength would outweigh the rest.
  const kept = all.map((t, i) => ({ t, s: strengths?.[i] ?? 1 })).filter((o) => o.t >= START_GUARD_S && o.t <= duration);
  if (kept.length < MIN_LOOP_ONSETS) return null;
  const onsets = kept.map((o) => o.t);
  // A loop has events all through it: no gap (around the wrap too) longer than MAX_GAP of its length.
  let gap = onsets[0]! + duration - onsets[onsets.length - 1]!;
  for (let i = 1; i < onsets.length; i++) gap = Math.max(gap, onsets[i]! - onsets[i - 1]!);
  if (gap > MAX_GAP * duration) return null;
  // Squared strengths: the accents decide; weak onsets (ghost notes, the ripple of a low note in the onset
  // envelope) count little.
  const weights = kept.map((o) => Math.max(0, o.s) ** 2);
  // A detected tempo vetoes only when the clip holds enough of its beats for it to be trusted.
  const veto = detectedBpm !== null && detectedBpm > 0 && (duration * detectedBpm) / 60 >= MIN_VETO_BEATS ? detectedBpm : null;
  const candidates: Candidate[] = [];
  for (const bars of LOOP_BAR_COUNTS) {
    const bpm = (60 * BEATS_PER_BAR * bars) / duration;
    if (bpm < LOOP_TEMPO_RANGE.min || bpm > LOOP_TEMPO_RANGE.max) continue;
    if (veto !== null && !agreesUpToOctaves(bpm, veto)) continue;
    let best: Candidate | null = null;
    for (const [grid, steps] of [
      ['16th', 16],
      ['8th_triplet', 12],
    ] as const) {
      const fit = gridFit(onsets, weights, duration / (bars * steps));
      if (fit >= MIN_GRID_FIT && (!best || fit > (best.fit ?? 0))) best = { bars, bpm, grid, fit };
    }
    if (best) candidates.push(best);
  }
  return chooseLevel(candidates, detectedBpm);
}

/** Step 4: among octave-related candidates, the one in the preferred range (see above). */
function chooseLevel(candidates: readonly Candidate[], detectedBpm: number | null): Candidate | null {
  if (candidates.length === 0) return null;
  const inRange = candidates.filter((c) => c.bpm >= PREFERRED_BPM.min && c.bpm <= PREFERRED_BPM.max);
  if (inRange.length === 0) {
    const distance = (c: Candidate) =>
      Math.abs(Math.log2(c.bpm < PREFERRED_BPM.min ? PREFERRED_BPM.min / c.bpm : c.bpm / PREFERRED_BPM.max));
    return candidates.reduce((a, b) => (distance(b) < distance(a) ? b : a));
  }
  if (detectedBpm !== null) {
    const agreeing = inRange.find((c) => Math.abs(c.bpm / detectedBpm - 1) <= OCTAVE_AGREEMENT);
    if (agreeing) return agreeing;
  }
  return inRange[inRange.length - 1]!; // the faster (candidates are in ascending tempo)
}

/** Step 5: B bars at a whole tempo when the length is sample-exact for them and the clip is not a one-shot. */
function exactLengthTempo({ onsets, duration, detectedBpm, sampleRate }: LoopTempoInput): Candidate | null {
  if (!(duration > 0) || sampleRate === undefined || !(sampleRate > 0)) return null;
  const events = onsets.filter((t) => t >= START_GUARD_S && t <= duration);
  if (events.length < MIN_EXACT_ONSETS || events[events.length - 1]! < duration / 2) return null;
  const samples = Math.round(duration * sampleRate);
  const round = ROUND_LENGTH_S * sampleRate;
  if (Math.abs(samples - Math.round(samples / round) * round) <= EXACT_LENGTH_SAMPLES) return null;
  const candidates: Candidate[] = [];
  for (const bars of LOOP_BAR_COUNTS) {
    const whole = Math.round((60 * BEATS_PER_BAR * bars) / duration);
    if (whole < LOOP_TEMPO_RANGE.min || whole > LOOP_TEMPO_RANGE.max) continue;
    const exact = (60 * BEATS_PER_BAR * bars * sampleRate) / whole;
    if (Math.abs(samples - Math.round(exact)) > EXACT_LENGTH_SAMPLES) continue;
    // The tempo the clip's own length gives (within a sample of `whole`): it makes the clip whole bars exactly.
    candidates.push({ bars, bpm: (60 * BEATS_PER_BAR * bars) / duration, grid: 'exact_length', fit: null });
  }
  return chooseLevel(candidates, detectedBpm);
}

/** Whether `bpm` is within `OCTAVE_AGREEMENT` of `detected`·2^k for some integer k. */
function agreesUpToOctaves(bpm: number, detected: number): boolean {
  return [1, 3].some((m) => {
    const k = Math.round(Math.log2(bpm / (m * detected)));
    return Math.abs(bpm / (m * detected * 2 ** k) - 1) <= OCTAVE_AGREEMENT;
  });
}

/**
 * Share of the weight of the onsets within tolerance of a grid of `step` seconds whose phase is the
 * weighted circular mean of the onsets modulo the step.
 */
export function gridFit(onsets: readonly number[], weights: readonly number[], step: number): number {
  const w = (2 * Math.PI) / step;
  let re = 0;
  let im = 0;
  let total = 0;
  for (let i = 0; i < onsets.length; i++) {
    re += weights[i]! * Math.cos(w * onsets[i]!);
    im += weights[i]! * Math.sin(w * onsets[i]!);
    total += weights[i]!;
  }
  if (!(total > 0)) return 0;
  const phase = (Math.atan2(im, re) / (2 * Math.PI)) * step;
  const tolerance = Math.max(GRID_TOLERANCE_STEP * step, GRID_TOLERANCE_MIN_S);
  let on = 0;
  for (let i = 0; i < onsets.length; i++) {
    const x = (onsets[i]! - phase) / step;
    if (Math.abs(x - Math.round(x)) * step <= tolerance) on += weights[i]!;
  }
  return on / total;
}
