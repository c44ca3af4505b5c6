import { analyzeEngine, analyzeFeaturesPart, analyzeSamplePart } from './analyze.js';
import type { EngineSpec } from './engine.js';
import { emotionEngine } from './emotion.js';
import { featuresEngine } from './features.js';
import { gradeEngine } from './grade.js';
import { loudnessEngine } from './loudness.js';
import { namingEngine } from './naming.js';
import { onsetsEngine } from './onsets.js';
import { sampleAnalysisEngine } from './sample-analysis.js';
import { summaryEngine } from './summary.js';
import { spectrumEngine } from './spectrum.js';
import { waveformEngine } from './waveform.js';

/** Each engine under its `id` (registry.test.ts checks that key and id agree). */
const registered = {
  loudness: loudnessEngine,
  grade: gradeEngine,
  samples: sampleAnalysisEngine,
  naming: namingEngine,
  features: featuresEngine,
  emotion: emotionEngine,
  analyze: analyzeEngine,
  'analyze-features': analyzeFeaturesPart,
  'analyze-sample': analyzeSamplePart,
  onsets: onsetsEngine,
  summary: summaryEngine,
  waveform: waveformEngine,
  spectrum: spectrumEngine,
} as const;

/** The id of a registered engine: route specs, the analysis service and worker tasks name engines by it, so a misspelt id does not compile. */
export type EngineId = keyof typeof registered;

/** Every analysis engine by id; the worker looks engines up here. */
export const engines: Readonly<Record<EngineId, EngineSpec<never, unknown>>> = registered;

/** `id` as a registered engine's id (split parts name theirs as plain strings); throws for an id no engine has. */
export function getEngineId(id: string): EngineId {
  if (!Object.hasOwn(engines, id)) throw new Error(`unknown engine ${id}`);
  return id as EngineId;
}
