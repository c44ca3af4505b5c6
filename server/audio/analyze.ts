import { composeEngines, mapWithFrames } from './compose.js';
import { headSeconds, type EngineSpec } from './engine.js';
import { emotionEngine, predictEmotion } from './emotion.js';
import { transparentEmotionModel } from './emotion-model.js';
import { featuresEngine, type FeaturesResult } from './features.js';
import { loudnessEngine, type LoudnessResult } from './loudness.js';
import { onsetsEngine, type OnsetsResult } from './onsets.js';
import { sampleAnalysisEngine } from './sample-analysis.js';

/** Head lengths of the composite's parts, the same as their dedicated routes. */
const analyzeHeads = { emotion: headSeconds.emotion, features: headSeconds.clip, sample: headSeconds.clip } as const;

const parts = composeEngines('analyze-parts', '1', [
  { key: 'features', engine: featuresEngine as EngineSpec<never, unknown>, params: { rhythm: true }, headSeconds: analyzeHeads.features },
  { key: 'sample', engine: sampleAnalysisEngine as EngineSpec<never, unknown>, params: { name: '' }, headSeconds: analyzeHeads.sample },
  { key: 'loudness', engine: loudnessEngine as EngineSpec<never, unknown>, params: {}, headSeconds: analyzeHeads.emotion },
  { key: 'onsets', engine: onsetsEngine as EngineSpec<never, unknown>, params: {}, headSeconds: analyzeHeads.emotion },
]);

/**
 * /analyze: emotion (first 60 s), features with rhythm and the sample role (first 30 s) from one
 * decode. Each part equals its dedicated route's answer for the same file: the same engines see the
 * same frames, and emotion is predicted from these features (computed once) with the same function
 * as /analyze/emotion.
 */
export const analyzeEngine: EngineSpec<Record<string, never>, Record<string, unknown>> = {
  id: 'analyze',
  version: `2+${emotionEngine.version}+${parts.version}`,
  needsTotalFrames: false,
  create(format) {
    return mapWithFrames(
      format,
      parts.create(format, {}),
      (result, frames) => {
        const r = result as { features: FeaturesResult; sample: unknown; loudness: LoudnessResult; onsets: OnsetsResult };
        return {
          emotion: predictEmotion(transparentEmotionModel, r.features, r.loudness, r.onsets, frames / format.sampleRate),
          features: r.features,
          sample: r.sample,
        };
      },
      Math.round(analyzeHeads.emotion * format.sampleRate),
    );
  },
};
