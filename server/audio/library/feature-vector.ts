/**
 * The similarity vector of one analysed file ("more like this"): measured descriptors from /analyze, each
 * turned into a z-score with a fixed mean and deviation (feature-vector-norms.ts, fitted on the training
 * libraries by eval/similarity/fit-normalisation.ts), clipped, and scaled by its group's weight divided by
 * √(components in the group), so a group's share of the squared distance is set by its weight and not by
 * how many numbers it has (13 MFCCs do not drown the envelope), times the component's own weight
 * (0 drops a component that did not help on the training libraries). Plain Euclidean distance between two
 * vectors then compares sounds. Level is left out on purpose (so is the emotion answer, whose arousal follows loudness): a quiet kick is still a kick.
 * Every component, its source field and its transform is listed in docs/audio-api.md ("Similarity").
 * Pure: no I/O; only wire types from api-types.ts.
 */
import type { AnalyzeResponse, LoudnessResponse, OnsetsResponse } from '../api-types.js';
import { featureNorms } from './feature-vector-norms.js';

/** What the vector is computed from: the /analyze answer (loudness and onsets are accepted but not read: level and tempo do not make sounds alike). */
export interface FeatureVectorInput {
  readonly analyze: AnalyzeResponse;
  readonly loudness?: LoudnessResponse;
  readonly onsets?: OnsetsResponse;
}

/** The groups components belong to; each has one weight. */
export type FeatureGroup =
  | 'embedding'
  | 'timbre'
  | 'timbre_motion'
  | 'spectrum'
  | 'bands'
  | 'envelope'
  | 'texture'
  | 'pitch'
  | 'harmonics'
  | 'stereo'
  | 'role'
  | 'loop';

/** One component: its name (as in docs/audio-api.md), its group and how it is read from the answer (null: not measured, scored as the mean). */
export interface FeatureComponent {
  readonly name: string;
  readonly group: FeatureGroup;
  readonly read: (a: AnalyzeResponse) => number | null;
}

/** log2 of a positive quantity, null for zero, negative or absent values. */
const log2Of = (v: number | null | undefined, floor = 0): number | null => (v == null || !(v + floor > 0) ? null : Math.log2(v + floor));
const val = (v: number | null | undefined): number | null => (v == null || !Number.isFinite(v) ? null : v);
/** a / b for a positive b, else null. */
const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a == null || b == null || !(b > 0) ? null : val(a / b);

const logInharmonicity = (b: number | null | undefined): number | null =>
  b == null || !Number.isFinite(b) ? null : Math.log10(Math.max(b, 1e-6));

const mfccMean = (i: number): FeatureComponent => ({ name: `mfcc_mean_${i}`, group: 'timbre', read: (a) => val(a.features.mfcc.mean[i]) });
const mfccStd = (i: number): FeatureComponent => ({
  name: `mfcc_std_${i}`,
  group: 'timbre_motion',
  read: (a) => val(a.features.mfcc.std[i]),
});
const contrast = (i: number): FeatureComponent => ({
  name: `contrast_${i}`,
  group: 'spectrum',
  read: (a) => val(a.features.spectral.contrast_db[i]),
});
const ROLES = ['percs', 'bass', 'melodic', 'tops', 'atmos'] as const;
/** Numbers in the /analyze answer's timbre embedding (sample.embedding). */
const EMBEDDING_SIZE = 64;
const embedding = (i: number): FeatureComponent => ({
  name: `embedding_${i}`,
  group: 'embedding',
  read: (a) => val(a.sample.embedding?.[i]),
});

/** Every component, in vector order. c0 (overall level) is left out of the MFCC means: it follows the gain. */
export const featureComponents: readonly FeatureComponent[] = [
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(mfccMean),
  ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(mfccStd),
  { name: 'log2_centroid', group: 'spectrum', read: (a) => log2Of(a.features.spectral.centroid_hz) },
  { name: 'log2_bandwidth', group: 'spectrum', read: (a) => log2Of(a.features.spectral.bandwidth_hz) },
  { name: 'log2_rolloff', group: 'spectrum', read: (a) => log2Of(a.features.spectral.rolloff_hz) },
  { name: 'flatness', group: 'spectrum', read: (a) => val(a.sample.spectrum.flatness) },
  { name: 'tonal_peak_share', group: 'spectrum', read: (a) => val(a.sample.spectrum.tonal_peak_share) },
  { name: 'log2_zero_crossing_rate', group: 'spectrum', read: (a) => log2Of(a.features.spectral.zero_crossing_rate, 1e-4) },
  ...[0, 1, 2, 3, 4, 5, 6].map(contrast),
  { name: 'band_sub', group: 'bands', read: (a) => val(a.sample.bands.sub) },
  { name: 'band_low', group: 'bands', read: (a) => val(a.sample.bands.low) },
  { name: 'band_low_mid', group: 'bands', read: (a) => val(a.sample.bands.low_mid) },
  { name: 'band_high_mid', group: 'bands', read: (a) => val(a.sample.bands.high_mid) },
  { name: 'band_high', group: 'bands', read: (a) => val(a.sample.bands.high) },
  { name: 'log2_attack', group: 'envelope', read: (a) => log2Of(a.sample.envelope.attack_s, 0.001) },
  { name: 'log2_decay', group: 'envelope', read: (a) => log2Of(a.sample.envelope.decay_s, 0.01) },
  { name: 'sustain', group: 'envelope', read: (a) => val(a.sample.envelope.sustain) },
  { name: 'sustain_level', group: 'envelope', read: (a) => val(a.features.envelope.sustain_level) },
  { name: 'log2_duration', group: 'envelope', read: (a) => log2Of(a.sample.duration_s, 0.01) },
  { name: 'crest_db', group: 'envelope', read: (a) => val(a.features.envelope.crest_db) },
  { name: 'dynamic_range_db', group: 'envelope', read: (a) => val(a.features.envelope.dynamic_range_db) },
  { name: 'mean_drop_db', group: 'envelope', read: (a) => val(a.sample.envelope.mean_drop_db) },
  { name: 'end_level_db', group: 'envelope', read: (a) => val(a.sample.loop.end_level_db) },
  { name: 'hpss_percussive', group: 'texture', read: (a) => val(a.sample.percussion.hpss_percussive) },
  { name: 'percussiveness', group: 'texture', read: (a) => val(a.sample.percussion.percussiveness) },
  { name: 'harmonicity', group: 'texture', read: (a) => val(a.sample.percussion.harmonicity) },
  { name: 'flux', group: 'texture', read: (a) => val(a.features.spectral.flux) },
  { name: 'flux_std', group: 'texture', read: (a) => val(a.features.spectral.flux_std) },
  {
    name: 'centroid_variation',
    group: 'texture',
    read: (a) => ratio(a.features.spectral.centroid_std_hz, a.features.spectral.centroid_hz),
  },
  { name: 'rolloff_variation', group: 'texture', read: (a) => ratio(a.features.spectral.rolloff_std_hz, a.features.spectral.rolloff_hz) },
  { name: 'centroid_motion_oct', group: 'texture', read: (a) => val(a.sample.spectrum.centroid_motion_oct) },
  { name: 'tonal_stability', group: 'texture', read: (a) => val(a.features.chroma.tonal_stability) },
  { name: 'log2_f0', group: 'pitch', read: (a) => log2Of(a.sample.pitch.f0_hz) },
  { name: 'pitch_salience', group: 'pitch', read: (a) => val(a.sample.pitch.salience) },
  { name: 'voiced_fraction', group: 'pitch', read: (a) => val(a.sample.pitch.voiced_fraction) },
  { name: 'log2_pitch_spread', group: 'pitch', read: (a) => log2Of(a.sample.pitch.spread_semitones, 0.1) },
  ...[0, 1, 2].map((i): FeatureComponent => ({
    name: `tristimulus_${i + 1}`,
    group: 'harmonics',
    read: (a) => val(a.sample.timbre?.tristimulus[i]),
  })),
  { name: 'even_harmonic_share', group: 'harmonics', read: (a) => val(a.sample.timbre?.even_harmonic_share) },
  { name: 'log2_harmonic_centroid', group: 'harmonics', read: (a) => log2Of(a.sample.timbre?.harmonic_centroid) },
  { name: 'log2_irregularity', group: 'harmonics', read: (a) => log2Of(a.sample.timbre?.irregularity, 0.001) },
  // B below 1e-6 (or negative, the fit's noise on a harmonic sound) is "harmonic": one value for all of them.
  { name: 'log10_inharmonicity', group: 'harmonics', read: (a) => logInharmonicity(a.sample.timbre?.inharmonicity) },
  { name: 'noisiness', group: 'harmonics', read: (a) => val(a.sample.timbre?.noisiness) },
  { name: 'stereo_width', group: 'stereo', read: (a) => val(a.sample.stereo.width) },
  ...ROLES.map((r): FeatureComponent => ({ name: `role_${r}`, group: 'role', read: (a) => val(a.sample.scores[r]) })),
  { name: 'loop_score', group: 'loop', read: (a) => val(a.sample.loop.score) },
  { name: 'halves_similarity', group: 'loop', read: (a) => val(a.sample.loop.halves_similarity) },
  { name: 'log2_onset_density', group: 'loop', read: (a) => log2Of(a.sample.percussion.onset_density, 0.1) },
  ...Array.from({ length: EMBEDDING_SIZE }, (_, i) => embedding(i)),
];

/** Bumped whenever the components, their constants or the weights change: stored vectors of another version must be computed again. */
export const featureVectorVersion: number = featureNorms.version;

/** A z-score is clipped to ±this, so one freak measurement cannot outweigh a whole group. */
const Z_CLIP = 4;

/** The raw (untransformed by the norms) component values of one answer, NaN where not measured; the fitting script reads these. */
export function readRawFeatures(analyze: AnalyzeResponse): Float64Array {
  const out = new Float64Array(featureComponents.length);
  featureComponents.forEach((c, i) => {
    let v: number | null;
    try {
      v = c.read(analyze);
    } catch {
      v = null; // a missing block in an answer from an older version: not measured
    }
    out[i] = v ?? Number.NaN;
  });
  return out;
}

/** Normalisation constants: a mean, deviation and weight per component (in vector order) and a weight per group. */
export interface FeatureNorms {
  readonly version: number;
  readonly weights: Readonly<Record<FeatureGroup, number>>;
  readonly components: readonly { readonly name: string; readonly mean: number; readonly std: number; readonly weight: number }[];
}

/** z-score of a value against a mean and deviation, clipped to ±4; NaN (not measured) scores 0, the mean. */
export function zScore(value: number, mean: number, std: number): number {
  if (!Number.isFinite(value) || !(std > 0)) return 0;
  return Math.max(-Z_CLIP, Math.min(Z_CLIP, (value - mean) / std));
}

/** Per component: the multiplier after the z-score (group weight × component weight / √group size). */
function scalesOf(norms: FeatureNorms): Float64Array {
  const counts = new Map<FeatureGroup, number>();
  for (const c of featureComponents) counts.set(c.group, (counts.get(c.group) ?? 0) + 1);
  return Float64Array.from(
    featureComponents,
    (c, i) => (norms.weights[c.group] * (norms.components[i]?.weight ?? 0)) / Math.sqrt(counts.get(c.group)!),
  );
}

/** Raw component values (readRawFeatures) to a vector under the given constants (the fitting and evaluation try others). */
export function normaliseFeatures(raw: Float64Array, norms: FeatureNorms, scales: Float64Array = scalesOf(norms)): Float32Array {
  if (norms.components.length !== featureComponents.length) throw new Error('the normalisation constants do not match the components');
  const out = new Float32Array(featureComponents.length);
  for (let i = 0; i < raw.length; i++) {
    const norm = norms.components[i]!;
    out[i] = zScore(raw[i]!, norm.mean, norm.std) * scales[i]!;
  }
  return out;
}

const committedScales = scalesOf(featureNorms);
/**
 * The components the committed weights keep (a weight of 0 would only add zeros to every vector and
 * every scan), the most heavily scaled first, so the index's partial sums pass their bound sooner.
 */
const kept: readonly number[] = featureComponents
  .flatMap((_, i) => (committedScales[i] !== 0 ? [i] : []))
  .sort((a, b) => committedScales[b]! - committedScales[a]! || a - b);

/** The component at each position of a vector (the components weighted 0 are left out; the most heavily scaled first). */
export const vectorComponents: readonly string[] = kept.map((i) => featureComponents[i]!.name);

/** Numbers in a vector. */
export const featureVectorLength: number = kept.length;

/** What each position of a vector is multiplied by after its z-score (group weight × component weight / √group size). */
export function findVectorScales(): Float64Array {
  return Float64Array.from(kept, (i) => committedScales[i]!);
}

/** The normalised similarity vector of one analysed file. */
export function computeFeatureVector(input: FeatureVectorInput): Float32Array {
  const full = normaliseFeatures(readRawFeatures(input.analyze), featureNorms, committedScales);
  return Float32Array.from(kept, (i) => full[i]!);
}
