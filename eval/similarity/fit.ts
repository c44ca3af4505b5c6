/**
 * The fitting behind the similarity vector's constants, shared by fit-normalisation.ts (which commits
 * them) and eval-similarity.ts (which refits them without each library in turn): the means and
 * deviations of the raw components over some libraries, and the group weights chosen on those same
 * libraries by a coordinate search of the quality measure.
 */
import {
  featureComponents,
  normaliseFeatures,
  readRawFeatures,
  type FeatureGroup,
  type FeatureNorms,
} from '../../server/audio/library/feature-vector.js';
import type { AnalysedFile } from './analysed-sets.js';
import { findFamily, type Family } from './families.js';
import { measureQuality, type PoolItem } from './quality.js';

/** The libraries the committed constants are fitted on; the other development libraries are held out for the reported figures. */
export const TRAINING_LIBRARIES: readonly string[] = ['gm-fluid', 'hydrogen', 'sonic-pi'];

/** An analysed file with its raw components and family. */
export interface RawItem {
  readonly library: string;
  readonly key: string;
  readonly role: string;
  readonly family: Family;
  readonly raw: Float64Array;
}

/** Raw components and families of the analysed files. */
export function readRawItems(files: readonly AnalysedFile[]): RawItem[] {
  return files.map((f) => ({
    library: f.library,
    key: f.key,
    role: f.role,
    family: findFamily(f.library, f.key, f.rule),
    raw: readRawFeatures(f.analyze),
  }));
}

/** Every group at weight 1. */
export const UNIT_WEIGHTS: Readonly<Record<FeatureGroup, number>> = Object.fromEntries(
  [...new Set(featureComponents.map((c) => c.group))].map((g) => [g, 1]),
) as Record<FeatureGroup, number>;

/** Mean and population deviation of each component over the items (values not measured are skipped). */
export function fitMoments(items: readonly RawItem[]): FeatureNorms['components'] {
  return featureComponents.map((c, i) => {
    const xs = items.map((it) => it.raw[i]!).filter(Number.isFinite);
    const mean = xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0;
    const std = xs.length ? Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length) : 1;
    return { name: c.name, mean: round(mean), std: round(std > 1e-9 ? std : 1), weight: 1 };
  });
}

const round = (x: number): number => Number(x.toPrecision(6));

/** The items as a searchable pool under the given constants. */
export function poolOf(items: readonly RawItem[], norms: FeatureNorms): PoolItem[] {
  return items.map((it) => ({
    library: it.library,
    key: it.key,
    role: it.role,
    family: it.family,
    vector: normaliseFeatures(it.raw, norms),
  }));
}

const GROUP_STEPS = [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3] as const;
const COMPONENT_STEPS = [0, 0.5, 1.5, 2.5] as const;

/**
 * The weights that maximise the mean quality over the items (queries and pool both from them), by
 * coordinate ascent: first each group weight from all-ones over up to `groupPasses` passes (3), every step
 * value tried; then each component's weight from 1, multiplied by every step, over `componentPasses` passes.
 * With `queryEvery` only every n-th item is a query during the search (faster; the pool stays whole).
 */
export function fitWeights(
  items: readonly RawItem[],
  moments: FeatureNorms['components'],
  options: {
    readonly groupPasses?: number;
    readonly componentPasses?: number;
    readonly queryEvery?: number;
    readonly log?: (s: string) => void;
  } = {},
): Pick<FeatureNorms, 'weights' | 'components'> {
  const weights: Record<FeatureGroup, number> = { ...UNIT_WEIGHTS };
  let components = moments.map((c) => ({ ...c, weight: 1 }));
  const score = (w: Record<FeatureGroup, number>, comps: FeatureNorms['components']) =>
    measureQuality(poolOf(items, { version: 0, weights: w, components: comps }), { queryEvery: options.queryEvery }).overall.mean;
  let best = score(weights, components);
  for (let pass = 0; pass < (options.groupPasses ?? 3); pass++) {
    let moved = false;
    for (const group of Object.keys(weights) as FeatureGroup[]) {
      for (const step of GROUP_STEPS) {
        if (step === weights[group]) continue;
        const s = score({ ...weights, [group]: step }, components);
        if (s > best + 1e-9) {
          best = s;
          weights[group] = step;
          moved = true;
        }
      }
    }
    options.log?.(`  groups, pass ${pass + 1}: ${best.toFixed(3)} ${JSON.stringify(weights)}`);
    if (!moved) break;
  }
  for (let pass = 0; pass < (options.componentPasses ?? 2); pass++) {
    for (let i = 0; i < components.length; i++) {
      for (const step of COMPONENT_STEPS) {
        const trial = components.map((c, j) => (j === i ? { ...c, weight: round(c.weight * step) } : c));
        const s = score(weights, trial);
        if (s > best + 1e-9) {
          best = s;
          components = trial;
        }
      }
    }
    options.log?.(`  components, pass ${pass + 1}: ${best.toFixed(3)}`);
  }
  return { weights, components };
}

/**
 * One group's weight chosen on the items, every other constant kept: for a group whose numbers were themselves
 * learned on these items (the timbre embedding), where a joint search of all the weights would lean on it for
 * remembering them rather than for generalising.
 */
export function fitGroupWeight(
  items: readonly RawItem[],
  norms: FeatureNorms,
  group: FeatureGroup,
  options: { readonly queryEvery?: number; readonly log?: (s: string) => void } = {},
): number {
  let best = -1;
  let chosen = 0;
  // Wider than the joint search's steps: such a group can carry more than any one descriptor group.
  for (const step of [...GROUP_STEPS, 4, 6, 8]) {
    const trial: FeatureNorms = { ...norms, weights: { ...norms.weights, [group]: step } };
    const s = measureQuality(poolOf(items, trial), { queryEvery: options.queryEvery }).overall.mean;
    options.log?.(`  ${group} at ${step}: ${s.toFixed(3)}`);
    if (s > best + 1e-9) {
      best = s;
      chosen = step;
    }
  }
  return chosen;
}
