import { composeEngines } from './compose.js';
import type { EngineSpec } from './engine.js';
import { emotionEngine } from './emotion.js';
import { featuresEngine } from './features.js';
import { sampleAnalysisEngine } from './sample-analysis.js';

/** Head lengths of the composite's parts, the same as their dedicated routes. */
export const analyzeHeads = { emotion: 60, features: 30, sample: 30 } as const;

/**
 * /analyze: emotion (first 60 s), features with rhythm and the sample role (first 30 s) from one
 * decode; each part equals its dedicated route's answer for the same file (same engine, same frames).
 */
export const analyzeEngine = composeEngines('analyze', '1', [
  { key: 'emotion', engine: emotionEngine as EngineSpec<never, unknown>, params: {}, headSeconds: analyzeHeads.emotion },
  { key: 'features', engine: featuresEngine as EngineSpec<never, unknown>, params: { rhythm: true }, headSeconds: analyzeHeads.features },
  { key: 'sample', engine: sampleAnalysisEngine as EngineSpec<never, unknown>, params: { name: '' }, headSeconds: analyzeHeads.sample },
]);
