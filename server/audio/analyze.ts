import { mapWithFrames } from './compose.js';
import { headSeconds, type EngineSpec, type StreamEngine, type StreamFormat } from './engine.js';
import { emotionEngine, predictEmotion, type EmotionResult } from './emotion.js';
import { transparentEmotionModel } from './emotion-model.js';
import { createFeaturesStream, featuresEngine, type FeaturesResult } from './features.js';
import { createIntegratedLoudness, loudnessEngine } from './loudness.js';
import { createOnsetsStream, onsetsEngine, type OnsetsResult, type OnsetsStream } from './onsets.js';
import { sampleAnalysisEngine, type SampleAnalysisResult } from './sample-analysis.js';

/** Head lengths of the composite's parts, the same as their dedicated routes. */
const analyzeHeads = { emotion: headSeconds.emotion, features: headSeconds.clip, sample: headSeconds.clip } as const;

/** /analyze's answer. */
export interface AnalyzeResult {
  readonly emotion: EmotionResult;
  readonly features: FeaturesResult;
  readonly sample: SampleAnalysisResult;
}

/** What the first part measures: features with rhythm (first 30 s) and onsets (first 60 s). */
export interface AnalyzeFeaturesPart {
  readonly features: FeaturesResult;
  readonly onsets: OnsetsResult;
}

/** What the second part measures: the sample role (first 30 s) and integrated loudness (first 60 s). */
export interface AnalyzeSamplePart {
  readonly sample: SampleAnalysisResult;
  readonly integrated_lufs: number | null;
}

/** The engines behind the answer; a new version of any of them is a new version of /analyze. */
const partsVersion = `1(${[featuresEngine, sampleAnalysisEngine, loudnessEngine, onsetsEngine].map((e) => `${e.id}@${e.version}`).join(',')})`;
const version = `2+${emotionEngine.version}+${partsVersion}`;

/**
 * Push the first `limit` frames of each chunk to `push` in pieces that end at every frame in `cuts`
 * (ascending), calling `at(cut)` once a cut is reached. Returns the running frame count.
 */
function feedUpTo(format: StreamFormat, chunk: Float32Array, frames: number, limit: number, cuts: readonly number[], push: (part: Float32Array, from: number) => void, at: (cut: number) => void): number {
  const ch = format.channels;
  const n = chunk.length / ch;
  let offset = 0;
  while (offset < n && frames < limit) {
    const cut = cuts.find((c) => c > frames) ?? limit;
    const take = Math.min(n - offset, Math.min(cut, limit) - frames);
    push(take === n ? chunk : chunk.subarray(offset * ch, (offset + take) * ch), frames);
    frames += take;
    offset += take;
    if (cuts.includes(frames)) at(frames);
  }
  return frames;
}

/**
 * /analyze, first part: features with rhythm over the first 30 s and onsets over the first 60 s. One
 * onsets analysis serves both: at 30 s it is forked, and the fork, finished, is exactly the onsets
 * analysis of the first 30 s that the features' rhythm group reads (what /features computes itself).
 */
export const analyzeFeaturesPart: EngineSpec<Record<string, never>, AnalyzeFeaturesPart> = {
  id: 'analyze-features',
  version,
  needsTotalFrames: false,
  create(format): StreamEngine<AnalyzeFeaturesPart> {
    const featuresHead = Math.round(analyzeHeads.features * format.sampleRate);
    const onsetsHead = Math.round(analyzeHeads.emotion * format.sampleRate);
    const onsets = createOnsetsStream(format);
    let atFeaturesHead: OnsetsStream | null = null;
    // A file shorter than the features' head: the onsets of all of it, forked at the end.
    const features = createFeaturesStream(format, { rhythm: true }, { rhythmOnsets: () => (atFeaturesHead ?? onsets.fork()).finish() });
    let frames = 0;
    return {
      push(chunk) {
        frames = feedUpTo(
          format,
          chunk,
          frames,
          onsetsHead,
          [featuresHead],
          (part, from) => {
            if (from < featuresHead) features.push(part);
            onsets.push(part);
          },
          () => (atFeaturesHead = onsets.fork()),
        );
      },
      finish: () => ({ features: features.finish(), onsets: onsets.finish() }),
    };
  },
};

/** /analyze, second part: the sample analysis over the first 30 s and integrated loudness over the first 60 s. */
export const analyzeSamplePart: EngineSpec<Record<string, never>, AnalyzeSamplePart> = {
  id: 'analyze-sample',
  version,
  needsTotalFrames: false,
  create(format): StreamEngine<AnalyzeSamplePart> {
    const sampleHead = Math.round(analyzeHeads.sample * format.sampleRate);
    const loudnessHead = Math.round(analyzeHeads.emotion * format.sampleRate);
    const sample = sampleAnalysisEngine.create(format, { name: '' });
    const loudness = createIntegratedLoudness(format);
    let frames = 0;
    return {
      push(chunk) {
        frames = feedUpTo(
          format,
          chunk,
          frames,
          loudnessHead,
          [sampleHead],
          (part, from) => {
            if (from < sampleHead) sample.push(part);
            loudness.push(part);
          },
          () => undefined,
        );
      },
      finish: () => ({ sample: sample.finish(), integrated_lufs: loudness.finish() }),
    };
  },
};

/** The answer from the two parts and the seconds analysed (at most the emotion head). */
function combine(a: AnalyzeFeaturesPart, b: AnalyzeSamplePart, seconds: number): AnalyzeResult {
  return {
    emotion: predictEmotion(transparentEmotionModel, a.features, { integrated_lufs: b.integrated_lufs }, a.onsets, seconds),
    features: a.features,
    sample: b.sample,
  };
}

/**
 * /analyze: emotion (first 60 s), features with rhythm and the sample role (first 30 s). Each part
 * equals its dedicated route's answer for the same file: the same engines see the same frames, and
 * emotion is predicted from these features (computed once) with the same function as /analyze/emotion.
 * The work is split in two parts of about equal cost (`split`), which the service runs on two worker
 * threads at once, each reading the same head of the file; `create` runs both on one thread.
 */
export const analyzeEngine: EngineSpec<Record<string, never>, AnalyzeResult> = {
  id: 'analyze',
  version,
  needsTotalFrames: false,
  split: {
    parts: [analyzeFeaturesPart.id, analyzeSamplePart.id],
    combine: (results, seconds) => combine(results[0] as AnalyzeFeaturesPart, results[1] as AnalyzeSamplePart, seconds),
  },
  create(format) {
    const a = analyzeFeaturesPart.create(format, {});
    const b = analyzeSamplePart.create(format, {});
    const both: StreamEngine<[AnalyzeFeaturesPart, AnalyzeSamplePart]> = {
      push(chunk) {
        a.push(chunk);
        b.push(chunk);
      },
      finish: () => [a.finish(), b.finish()],
    };
    return mapWithFrames(format, both, ([ra, rb], frames) => combine(ra, rb, frames / format.sampleRate), Math.round(analyzeHeads.emotion * format.sampleRate));
  },
};
