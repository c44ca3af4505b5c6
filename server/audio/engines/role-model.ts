/**
 * The role model: gradient-boosted shallow regression trees (one per role per round, softmax over the
 * summed outputs) over the named features of role-model-features.ts, with a softmax temperature
 * calibrated on held-out libraries. Its numbers live
 * in role-model-weights.ts, written by `npm run fit:roles` (eval/roles/fit-roles.ts) from Debian's
 * sample packages. The answer names the measurements that decided the role (`reasons`), and a full mix
 * (long, many onsets, both percussive and harmonic, broadband) gets a capped confidence and `shares`.
 */
import { describeFeature, extractRoleFeatures, ROLE_FEATURES, type RoleMeasurements } from './role-model-features.js';
import { ROLE_MODEL_WEIGHTS } from './role-model-weights.js';

export const MODEL_ROLES = ['percs', 'bass', 'melodic', 'tops', 'atmos'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** One regression tree as node arrays: node 0 is the root; `feature` −1 marks a leaf. */
export interface RoleTree {
  readonly feature: readonly number[];
  readonly threshold: readonly number[];
  readonly left: readonly number[];
  readonly right: readonly number[];
  /** Each node's value (a leaf's output; an inner node's is what the tree would say stopping there). */
  readonly value: readonly number[];
}

/** The fitted numbers (role-model-weights.ts). */
export interface RoleModelWeights {
  readonly features: readonly string[];
  /** Mean of each feature over the fitting files (the reasons say "high" or "low" against it). */
  readonly mean: readonly number[];
  readonly roles: readonly ModelRole[];
  /** Shrinkage: each tree's output is multiplied by it. */
  readonly rate: number;
  /** trees[round][role]: one tree per role per boosting round. */
  readonly trees: readonly (readonly RoleTree[])[];
  readonly temperature: number;
  readonly fitted: Readonly<Record<string, unknown>>;
}

export interface RoleModelOutput {
  /** Calibrated probability of each role (sums to 1). */
  readonly probabilities: Record<ModelRole, number>;
  /** Logits before the temperature. */
  readonly logits: Record<ModelRole, number>;
  /** The feature values, by name. */
  readonly features: Record<string, number>;
  readonly temperature: number;
}

/** Highest confidence a full mix may get (no single role describes it). */
export const MIX_CONFIDENCE_CAP = 0.4;

/**
 * Walk one tree: its output, and (with `contrib`) each split's change of the node value added to the
 * split feature's contribution (Saabas), scaled by `scale`.
 */
export function walkTree(t: RoleTree, x: ArrayLike<number>, contrib?: Float64Array, scale = 1): number {
  let n = 0;
  while (t.feature[n]! >= 0) {
    const f = t.feature[n]!;
    const next = x[f]! < t.threshold[n]! ? t.left[n]! : t.right[n]!;
    if (contrib) contrib[f]! += scale * (t.value[next]! - t.value[n]!);
    n = next;
  }
  return t.value[n]!;
}

/** Logits (sum of the trees, times the rate) of a feature vector, per role. */
export function roleLogits(x: ArrayLike<number>, w: RoleModelWeights = ROLE_MODEL_WEIGHTS): Record<ModelRole, number> {
  const out = Object.fromEntries(w.roles.map((r) => [r, 0])) as Record<ModelRole, number>;
  for (const round of w.trees) round.forEach((t, k) => (out[w.roles[k]!] += w.rate * walkTree(t, x)));
  return out;
}

/** Logits and calibrated probabilities of the five roles for one sample's measurements. */
export function scoreRoleModel(m: RoleMeasurements, w: RoleModelWeights = ROLE_MODEL_WEIGHTS): RoleModelOutput {
  const x = extractRoleFeatures(m);
  const logits = roleLogits(x, w);
  return {
    probabilities: softmax(logits, w.temperature),
    logits,
    features: Object.fromEntries(ROLE_FEATURES.map((f, j) => [f.name, x[j]!])),
    temperature: w.temperature,
  };
}

/** Softmax of logits at a temperature. */
export function softmax(logits: Record<ModelRole, number>, temperature: number): Record<ModelRole, number> {
  const max = Math.max(...MODEL_ROLES.map((r) => logits[r]));
  const e = MODEL_ROLES.map((r) => Math.exp((logits[r] - max) / temperature));
  const sum = e.reduce((a, b) => a + b, 0);
  return Object.fromEntries(MODEL_ROLES.map((r, i) => [r, e[i]! / sum])) as Record<ModelRole, number>;
}

/**
 * The 2–3 measurements that pushed `role` furthest above the other roles: each feature's contribution
 * to the role's logit along the trees' paths, minus its mean contribution to the other roles; the
 * largest positive ones, in words (features that read the same, e.g. sub and low, count once).
 */
export function explainRole(role: ModelRole, m: RoleMeasurements, w: RoleModelWeights = ROLE_MODEL_WEIGHTS): string[] {
  const x = extractRoleFeatures(m);
  const K = w.roles.length;
  const contrib = w.roles.map(() => new Float64Array(x.length));
  for (const round of w.trees) round.forEach((t, k) => walkTree(t, x, contrib[k], w.rate));
  const r = w.roles.indexOf(role);
  const parts = ROLE_FEATURES.map((f, j) => {
    let others = 0;
    for (let k = 0; k < K; k++) if (k !== r) others += contrib[k]![j]! / (K - 1);
    return { name: f.name, high: x[j]! > w.mean[j]!, c: contrib[r]![j]! - others };
  }).sort((a, b) => b.c - a.c || (a.name < b.name ? -1 : 1));
  const out: string[] = [];
  for (const p of parts) {
    if (!(p.c > 0) || out.length >= 3) break;
    if (out.length >= 2 && p.c < 0.35 * parts[0]!.c) break;
    const words = describeFeature(p.name, p.high, m);
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
