import { composeEngines, mapWithFrames } from './compose.js';
import type { EngineSpec } from './engine.js';
import { transparentEmotionModel, type EmotionModel, type EmotionPrediction } from './emotion-model.js';
import { featuresEngine, type FeaturesResult } from './features.js';
import { loudnessEngine, type LoudnessResult } from './loudness.js';
import { onsetsEngine, type OnsetsResult } from './onsets.js';
import { roundTo } from '../dsp/round.js';

/** /analyze/emotion's answer: the prediction, which model made it, and the measurements it read. */
export interface EmotionResult extends EmotionPrediction {
  /** −1..1 for valence and arousal. */
  readonly range: readonly [-1, 1];
  readonly model: { readonly id: string; readonly version: string; readonly trained: boolean };
  readonly measures: {
    readonly tempo_bpm: number | null;
    readonly loudness_lufs: number | null;
    readonly onset_rate_per_s: number;
    readonly centroid_hz: number;
    readonly mode: 'major' | 'minor' | null;
    readonly key: string | null;
    readonly key_confidence: number;
    readonly harmonicity: number;
  };
  readonly duration_analysed_s: number;
}

/**
 * Emotion of the first ~60 s (the route's head): loudness and onsets over all of it, tonal and
 * spectral features over its first 30 s (the features engine's own cap), then the model. The model
 * is the transparent one (emotion-model.ts) unless a trained one is passed.
 */
export function createEmotionEngine(model: EmotionModel = transparentEmotionModel): EngineSpec<Record<string, never>, EmotionResult> {
  const parts = composeEngines('emotion-parts', '1', [
    { key: 'features', engine: featuresEngine as EngineSpec<never, unknown>, params: { rhythm: false } },
    { key: 'loudness', engine: loudnessEngine as EngineSpec<never, unknown>, params: {} },
    { key: 'onsets', engine: onsetsEngine as EngineSpec<never, unknown>, params: {} },
  ]);
  return {
    id: 'emotion',
    version: `1+${model.id}@${model.version}+${parts.version}`,
    needsTotalFrames: false,
    create(format) {
      return mapWithFrames(format, parts.create(format, {}), (r, frames) => {
        const { features, loudness, onsets } = r as { features: FeaturesResult; loudness: LoudnessResult; onsets: OnsetsResult };
        return predictEmotion(model, features, loudness, onsets, frames / format.sampleRate);
      });
    },
  };
}

/**
 * The emotion answer from the three analyses it reads. /analyze calls this with its own features
 * (with rhythm; the spectral and chroma groups do not depend on that flag), so it computes them once.
 */
export function predictEmotion(
  model: EmotionModel,
  features: FeaturesResult,
  loudness: Pick<LoudnessResult, 'integrated_lufs'>,
  onsets: Pick<OnsetsResult, 'tempo_bpm' | 'onset_rate'>,
  seconds: number,
): EmotionResult {
  const measures = {
    tempo_bpm: onsets.tempo_bpm,
    loudness_lufs: loudness.integrated_lufs,
    onset_rate_per_s: onsets.onset_rate,
    centroid_hz: features.spectral.centroid_hz ?? 0,
    mode: features.chroma.mode ?? null,
    key: features.chroma.key ?? null,
    key_confidence: features.chroma.key_confidence ?? 0,
    // Tonal versus noisy: one minus spectral flatness.
    harmonicity: roundTo(1 - (features.spectral.flatness ?? 1), 3),
  };
  const prediction = model.predict({
    tempoBpm: measures.tempo_bpm,
    loudnessLufs: measures.loudness_lufs,
    onsetRate: measures.onset_rate_per_s,
    centroidHz: measures.centroid_hz,
    mode: measures.mode,
    keyClarity: measures.key_confidence,
    harmonicity: measures.harmonicity,
  });
  return {
    ...prediction,
    range: [-1, 1],
    model: { id: model.id, version: model.version, trained: false },
    measures,
    duration_analysed_s: roundTo(seconds, 3),
  };
}

/** The emotion engine with the transparent model. */
export const emotionEngine = createEmotionEngine();
