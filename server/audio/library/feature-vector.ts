import type { AnalyzeResponse, LoudnessResponse, OnsetsResponse } from '../api-types.js';

/** Bumped whenever the vector's definition changes (stored vectors of older versions are recomputed). */
export const featureVectorVersion = 1;
/** MFCC c1..c12 means: c0 (overall level) is left out so loudness does not decide similarity. */
export const featureVectorLength = 12;

/** What the vector is computed from: the /analyze answer, and optionally /loudness and /onsets. */
export interface FeatureVectorInput {
  readonly analyze: AnalyzeResponse;
  readonly loudness?: LoudnessResponse;
  readonly onsets?: OnsetsResponse;
}

/**
 * The normalised similarity vector of one analysed file: the means of MFCC c1..c12 (the spectral
 * envelope's shape), z-scored within the vector (minus their mean, over their standard deviation) so
 * the shape, not the scale, is compared. A flat envelope gives the zero vector.
 */
export function computeFeatureVector(input: FeatureVectorInput): Float32Array {
  const means = input.analyze.features.mfcc.mean.slice(1, 1 + featureVectorLength);
  const out = new Float32Array(featureVectorLength);
  const n = means.length;
  if (n === 0) return out;
  const mean = means.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(means.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  for (let i = 0; i < n; i++) out[i] = sd > 1e-9 ? (means[i]! - mean) / sd : 0;
  return out;
}
