/**
 * Fitting the role model (server/audio/role-model.ts): a multinomial logistic regression on
 * standardised features with an L2 penalty, by full-batch gradient descent with momentum from zero
 * weights for a fixed number of iterations (deterministic: no randomness, fixed order). Each file is
 * weighted by 1 / (files of its library and role), so every library and role counts alike. The
 * softmax temperature minimises the log loss of leave-one-library-out predictions (the same fit on the
 * other libraries), searched on a fixed grid.
 */
import { MODEL_ROLES, softmax, type ModelRole, type RoleModelWeights } from '../../server/audio/role-model.js';
import { extractRoleFeatures, ROLE_FEATURES } from '../../server/audio/role-model-features.js';
import type { SampleRole } from '../../server/audio/sample-analysis.js';
import type { Measured } from './measure.js';
import type { Prediction } from './metrics.js';

export const FIT_OPTIONS = { l2: 0.003, iterations: 1500, rate: 0.3, momentum: 0.9 } as const;

/** Standardisation, weights and bias on the given files (temperature 1). */
export function fitLogistic(files: readonly Measured[], options = FIT_OPTIONS): RoleModelWeights {
  const D = ROLE_FEATURES.length;
  const K = MODEL_ROLES.length;
  const X = files.map((f) => extractRoleFeatures(f.answer));
  const y = files.map((f) => MODEL_ROLES.indexOf(f.role as ModelRole));
  const groups = new Map<string, number>();
  for (const f of files) groups.set(`${f.library}/${f.role}`, (groups.get(`${f.library}/${f.role}`) ?? 0) + 1);
  const sw = files.map((f) => 1 / groups.get(`${f.library}/${f.role}`)!);
  const swSum = sw.reduce((a, b) => a + b, 0);
  for (let i = 0; i < sw.length; i++) sw[i] = sw[i]! / swSum;
  const mean = new Array<number>(D).fill(0);
  const scale = new Array<number>(D).fill(0);
  for (let j = 0; j < D; j++) {
    for (let i = 0; i < X.length; i++) mean[j]! += sw[i]! * X[i]![j]!;
    for (let i = 0; i < X.length; i++) scale[j]! += sw[i]! * (X[i]![j]! - mean[j]!) ** 2;
    scale[j] = Math.max(1e-6, Math.sqrt(scale[j]!));
  }
  const Z = X.map((x) => Float64Array.from(x, (v, j) => (v - mean[j]!) / scale[j]!));
  const W = Array.from({ length: K }, () => new Float64Array(D + 1)); // last column: bias
  const V = Array.from({ length: K }, () => new Float64Array(D + 1));
  const G = Array.from({ length: K }, () => new Float64Array(D + 1));
  const p = new Float64Array(K);
  for (let it = 0; it < options.iterations; it++) {
    for (const g of G) g.fill(0);
    for (let i = 0; i < Z.length; i++) {
      const z = Z[i]!;
      let max = -Infinity;
      for (let k = 0; k < K; k++) {
        let s = W[k]![D]!;
        for (let j = 0; j < D; j++) s += W[k]![j]! * z[j]!;
        p[k] = s;
        if (s > max) max = s;
      }
      let sum = 0;
      for (let k = 0; k < K; k++) sum += p[k] = Math.exp(p[k]! - max);
      for (let k = 0; k < K; k++) {
        const e = sw[i]! * (p[k]! / sum - (y[i] === k ? 1 : 0));
        const g = G[k]!;
        for (let j = 0; j < D; j++) g[j]! += e * z[j]!;
        g[D]! += e;
      }
    }
    for (let k = 0; k < K; k++) {
      for (let j = 0; j <= D; j++) {
        const grad = G[k]![j]! + (j < D ? options.l2 * W[k]![j]! : 0);
        V[k]![j] = options.momentum * V[k]![j]! - options.rate * grad;
        W[k]![j]! += V[k]![j]!;
      }
    }
  }
  const r6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
  return {
    features: ROLE_FEATURES.map((f) => f.name),
    mean: mean.map(r6),
    scale: scale.map(r6),
    roles: MODEL_ROLES,
    weights: W.map((w) => Array.from(w.subarray(0, D), r6)),
    bias: W.map((w) => r6(w[D]!)),
    temperature: 1,
    fitted: {},
  };
}

/** Logits of one file under a model (temperature not applied). */
function logitsOf(w: RoleModelWeights, f: Measured): Record<ModelRole, number> {
  const x = extractRoleFeatures(f.answer);
  return Object.fromEntries(
    w.roles.map((role, k) => {
      let s = w.bias[k]!;
      for (let j = 0; j < x.length; j++) s += w.weights[k]![j]! * ((x[j]! - w.mean[j]!) / w.scale[j]!);
      return [role, s];
    }),
  ) as Record<ModelRole, number>;
}

/** The temperature on the grid 0.20, 0.21 … 5.00 with the lowest mean log loss. */
export function calibrateTemperature(held: readonly { logits: Record<ModelRole, number>; truth: SampleRole }[]): number {
  let best = 1;
  let bestLoss = Infinity;
  for (let t100 = 20; t100 <= 500; t100++) {
    const t = t100 / 100;
    let loss = 0;
    for (const h of held) loss -= Math.log(Math.max(1e-12, softmax(h.logits, t)[h.truth as ModelRole]));
    if (loss < bestLoss - 1e-12) {
      bestLoss = loss;
      best = t;
    }
  }
  return best;
}

/** Weights on all files, temperature from leave-one-library-out logits over the same libraries. */
export function fitRoleModel(files: readonly Measured[]): RoleModelWeights {
  const libraries = [...new Set(files.map((f) => f.library))].sort();
  const held: { logits: Record<ModelRole, number>; truth: SampleRole }[] = [];
  if (libraries.length > 1) {
    for (const lib of libraries) {
      const w = fitLogistic(files.filter((f) => f.library !== lib));
      for (const f of files) if (f.library === lib) held.push({ logits: logitsOf(w, f), truth: f.role });
    }
  }
  const w = fitLogistic(files);
  return { ...w, temperature: held.length ? calibrateTemperature(held) : 1 };
}

export interface Fold {
  readonly library: string;
  readonly predictions: Prediction[];
}

/** For each library: fit (fitRoleModel, so with its own nested calibration) on the others, predict it. */
export function leaveOneLibraryOut(files: readonly Measured[], libraries: readonly string[]): Fold[] {
  return libraries.map((library) => {
    const w = fitRoleModel(files.filter((f) => f.library !== library));
    const predictions = files
      .filter((f) => f.library === library)
      .map((f) => {
        const p = softmax(logitsOf(w, f), w.temperature);
        const role = MODEL_ROLES.reduce((a, b) => (p[b] > p[a] ? b : a));
        return { truth: f.role, role, confidence: p[role] };
      });
    return { library, predictions };
  });
}
