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

/** Every analysis engine by id; the worker looks engines up here. */
export const engines: Readonly<Record<string, EngineSpec<never, unknown>>> = {
  [loudnessEngine.id]: loudnessEngine as EngineSpec<never, unknown>,
  [gradeEngine.id]: gradeEngine as EngineSpec<never, unknown>,
  [sampleAnalysisEngine.id]: sampleAnalysisEngine as EngineSpec<never, unknown>,
  [namingEngine.id]: namingEngine as EngineSpec<never, unknown>,
  [featuresEngine.id]: featuresEngine as EngineSpec<never, unknown>,
  [emotionEngine.id]: emotionEngine as EngineSpec<never, unknown>,
  [analyzeEngine.id]: analyzeEngine as EngineSpec<never, unknown>,
  [analyzeFeaturesPart.id]: analyzeFeaturesPart as EngineSpec<never, unknown>,
  [analyzeSamplePart.id]: analyzeSamplePart as EngineSpec<never, unknown>,
  [onsetsEngine.id]: onsetsEngine as EngineSpec<never, unknown>,
  [summaryEngine.id]: summaryEngine as EngineSpec<never, unknown>,
  [waveformEngine.id]: waveformEngine as EngineSpec<never, unknown>,
  [spectrumEngine.id]: spectrumEngine as EngineSpec<never, unknown>,
};
