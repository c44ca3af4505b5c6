/**
 * The sample's role judged from its measurements (pure; the `samples` engine measures, this decides).
 *
 * The role model (role-model.ts, a gradient-boosted model fitted on real recordings by `npm run fit:roles`)
 * gives the five roles' calibrated probabilities, the runner-up and the reasons; a full mix gets a capped
 * confidence and each role's share. The file name takes no part in that: it can only turn percussive
 * material (`percussive`) into `percs` when it names a drum loop or break (`DRUM_LOOP_WORDS`), and the
 * answer then says `name_used`.
 */
import { roundTo } from '../dsp/round.js';
import { ramp } from '../dsp/role-features.js';
import { estimateMixShares, explainRole, isMixture, MIX_CONFIDENCE_CAP, scoreRoleModel } from './role-model.js';
import type { RoleMeasurements } from './role-model-features.js';

export const SAMPLE_ROLES = ['percs', 'bass', 'melodic', 'tops', 'atmos'] as const;
export type SampleRole = (typeof SAMPLE_ROLES)[number];

/** Words in a file name that mark drum loops and breaks (matched case-insensitively anywhere in the name). */
export const DRUM_LOOP_WORDS = ['break', 'loop', 'drum', 'beat'] as const;

export interface RoleScore {
  readonly role: SampleRole;
  readonly confidence: number;
}

/** The measured cues behind percussiveness and harmonicity (unrounded). */
export interface PercussionCues {
  /** Mean drop under the recent maximum, dB. */
  readonly drop: number;
  /** Attack of the first event, s. */
  readonly attack: number;
  /** HPSS percussive share of the power, 0..1. */
  readonly hpss: number;
  /** Onsets per second of active audio. */
  readonly onsetDensity: number;
  /** Mean pitch salience, 0..1. */
  readonly salience: number;
  /** Tonal-peak share, 0..1. */
  readonly tonal: number;
}

/** The role and everything the answer says about how it was decided. */
export interface RoleJudgement {
  readonly role: SampleRole;
  readonly confidence: number;
  readonly runner_up: RoleScore;
  readonly scores: Record<SampleRole, number>;
  readonly measured_role: SampleRole;
  readonly name_used: boolean;
  readonly reasons: readonly string[];
  readonly mixture: boolean;
  readonly shares: Record<SampleRole, number> | null;
  /** percussiveness ≥ 0.5 and the model hears percs or tops. */
  readonly percussive: boolean;
  readonly role_model: {
    readonly features: Record<string, number>;
    readonly logits: Record<SampleRole, number>;
    readonly temperature: number;
  };
}

/**
 * Percussiveness 0..1: the mean of four cues, each a ramp over a documented range —
 * mean drop under the recent maximum (3 → 8 dB), fast attack (50 ms → 10 ms), HPSS percussive share
 * (0.15 → 0.5) and onsets per second (0.5 → 2.5).
 */
export function percussivenessOf(f: PercussionCues): number {
  return (ramp(f.drop, 3, 8) + ramp(f.attack, 0.05, 0.01) + ramp(f.hpss, 0.15, 0.5) + ramp(f.onsetDensity, 0.5, 2.5)) / 4;
}

/**
 * Harmonicity 0..1: the mean of pitch salience (0.3 → 0.8), tonal-peak share (0.3 → 0.7) and HPSS
 * harmonic share (1 − percussive share, 0.5 → 0.85).
 */
export function harmonicityOf(f: PercussionCues): number {
  return (ramp(f.salience, 0.3, 0.8) + ramp(f.tonal, 0.3, 0.7) + ramp(1 - f.hpss, 0.5, 0.85)) / 3;
}

/** True when the name contains one of `DRUM_LOOP_WORDS`. */
export function nameSuggestsDrumLoop(name: string): boolean {
  const lower = name.toLowerCase();
  return DRUM_LOOP_WORDS.some((w) => lower.includes(w));
}

/** Equal probabilities (silence: nothing to decide on). */
const uniformRoles = (): Record<SampleRole, number> =>
  Object.fromEntries(SAMPLE_ROLES.map((r) => [r, 1 / SAMPLE_ROLES.length])) as Record<SampleRole, number>;

/**
 * Scale the probabilities so that none exceeds `cap`: the excess of the top roles is spread over the
 * others in proportion to their room below the cap (the order is kept; sums to 1).
 */
export function capConfidence(p: Record<SampleRole, number>, cap: number): Record<SampleRole, number> {
  const out = { ...p };
  let excess = 0;
  for (const r of SAMPLE_ROLES)
    if (out[r] > cap) {
      excess += out[r] - cap;
      out[r] = cap;
    }
  const room = SAMPLE_ROLES.reduce((s, r) => s + (cap - out[r]), 0);
  if (excess > 0 && room > 0) for (const r of SAMPLE_ROLES) out[r] += (excess * (cap - out[r])) / room;
  return out;
}

/** What the role is judged from: the reported (rounded) measurements, so the answer alone reproduces the model's input. */
export interface RoleEvidence {
  readonly measurements: RoleMeasurements;
  /** No signal at all: every role equally likely. */
  readonly silent: boolean;
  readonly percussiveness: number;
  /** The file name (may be empty). */
  readonly name: string;
}

/** The role of a sample from its measurements: model scores, mixture cap, name hint, runner-up and reasons. */
export function judgeRole({ measurements, silent, percussiveness, name }: RoleEvidence): RoleJudgement {
  const model = scoreRoleModel(measurements);
  const mixture = !silent && isMixture(measurements);
  const probs = silent ? uniformRoles() : mixture ? capConfidence(model.probabilities, MIX_CONFIDENCE_CAP) : model.probabilities;
  const scores = Object.fromEntries(SAMPLE_ROLES.map((r) => [r, roundTo(probs[r], 3)])) as Record<SampleRole, number>;
  const ranked = [...SAMPLE_ROLES].sort((a, b) => probs[b] - probs[a] || SAMPLE_ROLES.indexOf(a) - SAMPLE_ROLES.indexOf(b));
  const measured = ranked[0]!;
  const percussive = percussiveness >= 0.5 && (measured === 'percs' || measured === 'tops');
  const nameUsed = percussive && nameSuggestsDrumLoop(name);
  const role: SampleRole = nameUsed ? 'percs' : measured;
  const runnerUp = ranked.find((r) => r !== role)!;
  const reasons = silent ? ['silence: nothing to measure'] : explainRole(measured, measurements);
  if (nameUsed) reasons.unshift('the file name marks percussive material as a drum loop or break');
  const shares = mixture
    ? (Object.fromEntries(Object.entries(estimateMixShares(measurements)).map(([r, v]) => [r, roundTo(v, 3)])) as Record<
        SampleRole,
        number
      >)
    : null;
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
    percussive,
    role_model: {
      features: Object.fromEntries(Object.entries(model.features).map(([k, v]) => [k, roundTo(v, 4)])),
      logits: Object.fromEntries(SAMPLE_ROLES.map((r) => [r, roundTo(model.logits[r], 4)])) as Record<SampleRole, number>,
      temperature: model.temperature,
    },
  };
}
