/**
 * Fitting the role model (server/audio/engines/role-model.ts): gradient boosting of shallow regression trees
 * for the softmax loss (one tree per role per round, Newton leaf values −G/(H + λ), as in XGBoost).
 * Deterministic: no sampling, splits searched in a fixed order over presorted features, ties to the
 * first, node values and thresholds rounded to 6 significant decimals as they are made (the written
 * file is the fitted model exactly). Each file weighs 1 / (files of its library and role), so every
 * library and role counts alike. The softmax temperature minimises the log loss of
 * leave-one-library-out logits (the same fit on the other libraries), searched on a fixed grid.
 */
import {
  MODEL_ROLES,
  roleLogits,
  softmax,
  walkTree,
  type ModelRole,
  type RoleModelWeights,
  type RoleTree,
} from '../../server/audio/engines/role-model.js';
import { extractRoleFeatures, ROLE_FEATURES } from '../../server/audio/engines/role-model-features.js';
import type { SampleRole } from '../../server/audio/engines/sample-role.js';
import { TRAINING_ONLY_LIBRARIES } from '../real-audio/sets.js';
import type { Measured } from './measure.js';
import type { Prediction } from './metrics.js';

export const FIT_OPTIONS = { rounds: 80, depth: 2, rate: 0.3, lambda: 1, minHessian: 1 } as const;

/** A training-only set's share against a real library's (per role): an aid for what no library holds, not a library. */
export const TRAINING_ONLY_WEIGHT = 0.5;

const r6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;

/** Trees and feature means on the given files (temperature 1). */
export function fitBoostedTrees(files: readonly Measured[], o = FIT_OPTIONS): RoleModelWeights {
  const X = files.map((f) => extractRoleFeatures(f.answer));
  const N = X.length;
  const D = ROLE_FEATURES.length;
  const K = MODEL_ROLES.length;
  const y = files.map((f) => MODEL_ROLES.indexOf(f.role as ModelRole));
  const groups = new Map<string, number>();
  for (const f of files) groups.set(`${f.library}/${f.role}`, (groups.get(`${f.library}/${f.role}`) ?? 0) + 1);
  const raw = files.map(
    (f) => (TRAINING_ONLY_LIBRARIES.includes(f.library) ? TRAINING_ONLY_WEIGHT : 1) / groups.get(`${f.library}/${f.role}`)!,
  );
  const total = raw.reduce((a, b) => a + b, 0);
  const sw = raw.map((v) => (v * N) / total);
  const mean = ROLE_FEATURES.map((_, j) => r6(X.reduce((s, x, i) => s + sw[i]! * x[j]!, 0) / N));
  const order = Array.from({ length: D }, (_, j) => Array.from({ length: N }, (_, i) => i).sort((a, b) => X[a]![j]! - X[b]![j]! || a - b));
  const F = Array.from({ length: N }, () => new Float64Array(K));
  const g = new Float64Array(N);
  const h = new Float64Array(N);
  const trees: RoleTree[][] = [];
  for (let round = 0; round < o.rounds; round++) {
    const P = F.map((f) => {
      const max = Math.max(...f);
      const e = Array.from(f, (v) => Math.exp(v - max));
      const s = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / s);
    });
    const roundTrees: RoleTree[] = [];
    for (let k = 0; k < K; k++) {
      for (let i = 0; i < N; i++) {
        const p = P[i]![k]!;
        g[i] = sw[i]! * (p - (y[i] === k ? 1 : 0));
        h[i] = sw[i]! * Math.max(1e-6, p * (1 - p));
      }
      const tree = growTree(X, order, g, h, o);
      roundTrees.push(tree);
      for (let i = 0; i < N; i++) F[i]![k]! += o.rate * walkTree(tree, X[i]!);
    }
    trees.push(roundTrees);
  }
  return { features: ROLE_FEATURES.map((f) => f.name), mean, roles: MODEL_ROLES, rate: o.rate, trees, temperature: 1, fitted: {} };
}

/** One regression tree of depth `o.depth` on gradients g and hessians h. */
function growTree(
  X: readonly Float64Array[],
  order: readonly number[][],
  g: Float64Array,
  h: Float64Array,
  o: typeof FIT_OPTIONS,
): RoleTree {
  const N = X.length;
  const t = { feature: [] as number[], threshold: [] as number[], left: [] as number[], right: [] as number[], value: [] as number[] };
  const grow = (inNode: Uint8Array, depth: number): number => {
    const id = t.feature.length;
    let G = 0;
    let H = 0;
    for (let i = 0; i < N; i++) {
      if (!inNode[i]) continue;
      G += g[i]!;
      H += h[i]!;
    }
    t.feature.push(-1);
    t.threshold.push(0);
    t.left.push(-1);
    t.right.push(-1);
    t.value.push(r6(-G / (H + o.lambda)));
    if (depth === 0) return id;
    const base = (G * G) / (H + o.lambda);
    let best = 1e-9;
    let bestF = -1;
    let bestT = 0;
    for (let j = 0; j < order.length; j++) {
      const idx = order[j]!.filter((i) => inNode[i]);
      let gl = 0;
      let hl = 0;
      for (let q = 0; q < idx.length - 1; q++) {
        const i = idx[q]!;
        gl += g[i]!;
        hl += h[i]!;
        const a = X[i]![j]!;
        const b = X[idx[q + 1]!]![j]!;
        if (a === b || hl < o.minHessian || H - hl < o.minHessian) continue;
        const gain = (gl * gl) / (hl + o.lambda) + ((G - gl) * (G - gl)) / (H - hl + o.lambda) - base;
        if (gain > best) {
          const threshold = r6((a + b) / 2);
          // Rounding must not move the threshold onto or past a neighbour.
          if (!(threshold > a && threshold <= b)) continue;
          best = gain;
          bestF = j;
          bestT = threshold;
        }
      }
    }
    if (bestF < 0) return id;
    const L = new Uint8Array(N);
    const R = new Uint8Array(N);
    for (let i = 0; i < N; i++) if (inNode[i]) (X[i]![bestF]! < bestT ? L : R)[i] = 1; // both halves of the node
    t.feature[id] = bestF;
    t.threshold[id] = bestT;
    t.left[id] = grow(L, depth - 1);
    t.right[id] = grow(R, depth - 1);
    return id;
  };
  grow(new Uint8Array(N).fill(1), o.depth);
  return t;
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

/** Trees on all files, temperature from leave-one-library-out logits over the same libraries (training-only sets never held out). */
export function fitRoleModel(files: readonly Measured[]): RoleModelWeights {
  // Training-only sets stay in every fit and are never held out (their files say nothing about real audio).
  const libraries = [...new Set(files.map((f) => f.library))].filter((l) => !TRAINING_ONLY_LIBRARIES.includes(l)).sort();
  const held: { logits: Record<ModelRole, number>; truth: SampleRole }[] = [];
  if (libraries.length > 1) {
    for (const lib of libraries) {
      const w = fitBoostedTrees(files.filter((f) => f.library !== lib));
      for (const f of files) if (f.library === lib) held.push({ logits: roleLogits(extractRoleFeatures(f.answer), w), truth: f.role });
    }
  }
  const w = fitBoostedTrees(files);
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
        const p = softmax(roleLogits(extractRoleFeatures(f.answer), w), w.temperature);
        const role = MODEL_ROLES.reduce((a, b) => (p[b] > p[a] ? b : a));
        return { truth: f.role, role, confidence: p[role] };
      });
    return { library, predictions };
  });
}
