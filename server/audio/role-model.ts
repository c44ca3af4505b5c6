/**
 * The role model: a multinomial logistic regression over the standardised features of
 * role-model-features.ts, with a softmax temperature calibrated on held-out libraries. Its numbers live
 * in role-model-weights.ts, written by `npm run fit:roles` (eval/roles/fit-roles.ts) from Debian's
 * sample packages. The answer names the measurements that decided the role (`reasons`), and a full mix
 * (long, many onsets, both percussive and harmonic, broadband) gets a capped confidence and `shares`.
 */
import { describeFeature, extractRoleFeatures, ROLE_FEATURES, type RoleMeasurements } from './role-model-features.js';
import { ROLE_MODEL_WEIGHTS } from './role-model-weights.js';

export const MODEL_ROLES = ['percs', 'bass', 'melodic', 'tops', 'atmos'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** The fitted numbers (role-model-weights.ts). */
export interface RoleModelWeights {
  readonly features: readonly string[];
  readonly mean: readonly number[];
  readonly scale: readonly number[];
  readonly roles: readonly ModelRole[];
  /** One row per role, one weight per feature (on standardised features). */
  readonly weights: readonly (readonly number[])[];
  readonly bias: readonly number[];
  readonly temperature: number;
  readonly fitted: Readonly<Record<string, unknown>>;
}

export interface RoleModelOutput {
  /** Calibrated probability of each role (sums to 1). */
  readonly probabilities: Record<ModelRole, number>;
  /** Logits before the temperature. */
  readonly logits: Record<ModelRole, number>;
  /** The feature values (unstandardised), by name. */
  readonly features: Record<string, number>;
  readonly temperature: number;
}

/** Highest confidence a full mix may get (no single role describes it). */
export const MIX_CONFIDENCE_CAP = 0.4;

/** Logits and calibrated probabilities of the five roles for one sample's measurements. */
export function scoreRoleModel(m: RoleMeasurements, w: RoleModelWeights = ROLE_MODEL_WEIGHTS): RoleModelOutput {
  const x = extractRoleFeatures(m);
  const logits = {} as Record<ModelRole, number>;
  w.roles.forEach((role, r) => {
    let s = w.bias[r]!;
    for (let j = 0; j < x.length; j++) s += w.weights[r]![j]! * ((x[j]! - w.mean[j]!) / w.scale[j]!);
    logits[role] = s;
  });
  return { probabilities: softmax(logits, w.temperature), logits, features: Object.fromEntries(ROLE_FEATURES.map((f, j) => [f.name, x[j]!])), temperature: w.temperature };
}

/** Softmax of logits at a temperature. */
export function softmax(logits: Record<ModelRole, number>, temperature: number): Record<ModelRole, number> {
  const max = Math.max(...MODEL_ROLES.map((r) => logits[r]));
  const e = MODEL_ROLES.map((r) => Math.exp((logits[r] - max) / temperature));
  const sum = e.reduce((a, b) => a + b, 0);
  return Object.fromEntries(MODEL_ROLES.map((r, i) => [r, e[i]! / sum])) as Record<ModelRole, number>;
}

/**
 * The 2–3 measurements that pushed `role` furthest above the other roles: per feature, its standardised
 * value times the role's weight minus the mean weight of the other roles; the largest positive ones, in
 * words (features that read the same, e.g. sub and low, count once).
 */
export function explainRole(role: ModelRole, m: RoleMeasurements, w: RoleModelWeights = ROLE_MODEL_WEIGHTS): string[] {
  const x = extractRoleFeatures(m);
  const r = w.roles.indexOf(role);
  const parts = ROLE_FEATURES.map((f, j) => {
    const z = (x[j]! - w.mean[j]!) / w.scale[j]!;
    let others = 0;
    for (let k = 0; k < w.roles.length; k++) if (k !== r) others += w.weights[k]![j]! / (w.roles.length - 1);
    return { name: f.name, z, c: (w.weights[r]![j]! - others) * z };
  }).sort((a, b) => b.c - a.c || (a.name < b.name ? -1 : 1));
  const out: string[] = [];
  for (const p of parts) {
    if (!(p.c > 0) || out.length >= 3) break;
    if (out.length >= 2 && p.c < 0.35 * parts[0]!.c) break;
    const words = describeFeature(p.name, p.z > 0, m);
    if (words && !out.includes(words)) out.push(words);
  }
  return out;
}

/**
 * A full mix rather than a sample: at least 8 s, at least 1.5 onsets/s, percussive and harmonic energy
 * both present (HPSS percussive share 0.2–0.8), a pitched part (salience ≥ 0.3), and energy spread
 * from the lows (≥ 10 % below 250 Hz) to the highs (≥ 5 % above 4 kHz).
 */
export function isMixture(m: RoleMeasurements): boolean {
  const h = m.percussion.hpss_percussive;
  return (
    m.duration_s >= 8 &&
    m.percussion.onset_density >= 1.5 &&
    h >= 0.2 &&
    h <= 0.8 &&
    m.pitch.salience >= 0.3 &&
    m.bands.sub + m.bands.low >= 0.1 &&
    m.spectrum.above_4k >= 0.05
  );
}

/**
 * Approximate share of each role in a mix, from the power split: the HPSS percussive part is divided
 * between percs and tops by the share above 4 kHz (hats and cymbals live there); the harmonic part
 * gives bass its energy below 250 Hz and divides the rest between melodic and atmos by how much of it
 * is held (sustain). Sums to 1.
 */
export function estimateMixShares(m: RoleMeasurements): Record<ModelRole, number> {
  const perc = m.percussion.hpss_percussive;
  const harm = 1 - perc;
  const highs = Math.min(1, m.spectrum.above_4k * 1.5);
  const bass = Math.min(harm, m.bands.sub + m.bands.low) * harm;
  const rest = harm - bass;
  const held = Math.min(1, Math.max(0, m.envelope.sustain));
  const raw = { percs: perc * (1 - highs), tops: perc * highs, bass, melodic: rest * (1 - 0.5 * held), atmos: rest * 0.5 * held };
  const sum = MODEL_ROLES.reduce((s, r) => s + raw[r], 0) || 1;
  return Object.fromEntries(MODEL_ROLES.map((r) => [r, raw[r] / sum])) as Record<ModelRole, number>;
}
