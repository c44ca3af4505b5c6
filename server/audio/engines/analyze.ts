import { mapWithFrames } from './compose.js';
import { headSeconds, type EngineSpec, type StreamEngine, type StreamFormat } from './engine.js';
import { emotionEngine, predictEmotion, type EmotionResult } from './emotion.js';
import { transparentEmotionModel } from './emotion-model.js';
import { createFeaturesStream, featuresEngine, type FeaturesResult } from './features.js';
import { createIntegratedLoudness, loudnessEngine } from './loudness.js';
import { onsetsEngine, onsetsOfEnvelope, type OnsetsResult } from './onsets.js';
import { completeFrames, createOnsetStrength, createOnsetStrengthFrom, onsetFrameGeometry } from '../dsp/onset-detection.js';
import { sampleAnalysisEngine, type SampleAnalysisResult } from './sample-analysis.js';

/** Head lengths of the composite's parts, the same as their dedicated routes. */
const analyzeHeads = { emotion: headSeconds.emotion, features: headSeconds.clip, sample: headSeconds.clip } as const;

/** /analyze's answer. */
export interface AnalyzeResult {
  readonly emotion: EmotionResult;
  readonly features: FeaturesResult;
  readonly sample: SampleAnalysisResult;
}

/** Onset-strength frames of a stretch of the emotion head, with their accent channels (dsp/onset-detection.ts). */
export interface OnsetFrames {
  readonly env: Float32Array;
  readonly linear: Float32Array;
  readonly bass: Float32Array;
}

/**
 * What the first part measures, over the first 30 s: features with rhythm, and the onsets the rhythm
 * group reads, with the onset-strength frames the second part does not compute.
 */
export interface AnalyzeFeaturesPart {
  readonly features: FeaturesResult;
  /** Onsets of the features' head: for a file no longer than that head, also the emotion's onsets. */
  readonly headOnsets: OnsetsResult;
  /** Onset-strength frames [0, the second part's first frame), computed before the head's end padding. */
  readonly headFrames: OnsetFrames;
}

/**
 * What the second part measures: the sample role (first 30 s), integrated loudness (first 60 s), and the
 * onset strength from where the first part's frames end to the end of the 60 s.
 */
export interface AnalyzeSamplePart {
  readonly sample: SampleAnalysisResult;
  readonly integrated_lufs: number | null;
  /** Onset-strength frames from the first part's last on; null for a file no longer than the features' head. */
  readonly tailFrames: OnsetFrames | null;
  readonly onsetFrameRate: number;
  /** Seconds the onsets cover (the emotion head or the whole file). */
  readonly onsetSeconds: number;
}

/** The engines behind the answer; a new version of any of them is a new version of /analyze. */
const partsVersion = `1(${[featuresEngine, sampleAnalysisEngine, loudnessEngine, onsetsEngine].map((e) => `${e.id}@${e.version}`).join(',')})`;
const version = `2+${emotionEngine.version}+${partsVersion}`;

/**
 * Push the first `limit` frames of each chunk to `push` in pieces that end at every frame in `cuts`,
 * calling `at(cut)` once a cut is reached. Returns the running frame count.
 */
function feedUpTo(
  format: StreamFormat,
  chunk: Float32Array,
  frames: number,
  limit: number,
  cuts: readonly number[],
  push: (part: Float32Array, from: number) => void,
  at: (cut: number) => void,
): number {
  const ch = format.channels;
  const n = chunk.length / ch;
  let offset = 0;
  while (offset < n && frames < limit) {
    let cut = limit;
    for (const c of cuts) if (c > frames && c < cut) cut = c;
    const take = Math.min(n - offset, cut - frames);
    push(take === n ? chunk : chunk.subarray(offset * ch, (offset + take) * ch), frames);
    frames += take;
    offset += take;
    if (cuts.includes(frames)) at(frames);
  }
  return frames;
}

/**
 * The first onset-strength frame of the second part: the frames a stream fed the features' head has
 * complete before its end padding are the first part's.
 */
function onsetsSplitFrame(format: StreamFormat): number {
  const { frameSize, hopSize } = onsetFrameGeometry(format.sampleRate);
  return completeFrames(Math.round(analyzeHeads.features * format.sampleRate), frameSize, hopSize);
}

/**
 * /analyze, first part: features with rhythm over the first 30 s, and the onset strength of those 30 s.
 * Finished, that onset strength is exactly the onsets analysis of the first 30 s that the features'
 * rhythm group reads (what /features computes itself); its frames before the end padding are the first
 * part of the emotion's 60 s of onsets (`combine` joins them with the second part's).
 */
export const analyzeFeaturesPart: EngineSpec<Record<string, never>, AnalyzeFeaturesPart> = {
  id: 'analyze-features',
  version,
  needsTotalFrames: false,
  maxSeconds: analyzeHeads.features,
  create(format): StreamEngine<AnalyzeFeaturesPart> {
    const head = Math.round(analyzeHeads.features * format.sampleRate);
    const odf = createOnsetStrength(format.sampleRate);
    let headOnsets: OnsetsResult | null = null;
    const features = createFeaturesStream(format, { rhythm: true }, { rhythmOnsets: () => headOnsets! });
    let frames = 0;
    return {
      push(chunk) {
        frames = feedUpTo(
          format,
          chunk,
          frames,
          head,
          [],
          (part) => {
            features.push(part);
            odf.push(part, format.channels);
          },
          () => undefined,
        );
      },
      finish() {
        const env = odf.finish();
        const accents = odf.accents();
        headOnsets = onsetsOfEnvelope(env, accents, odf.frameRate, frames / format.sampleRate);
        const split = onsetsSplitFrame(format);
        return {
          features: features.finish(),
          headOnsets,
          headFrames: { env: env.slice(0, split), linear: accents.linear.slice(0, split), bass: accents.bass.slice(0, split) },
        };
      },
    };
  },
};

/**
 * /analyze, second part: the sample analysis over the first 30 s, integrated loudness over the first
 * 60 s, and the onset strength of the 60 s from the first part's last frame on (a stream started there,
 * whose frames equal those of one run from the start).
 */
export const analyzeSamplePart: EngineSpec<Record<string, never>, AnalyzeSamplePart> = {
  id: 'analyze-sample',
  version,
  needsTotalFrames: false,
  create(format): StreamEngine<AnalyzeSamplePart> {
    const sampleHead = Math.round(analyzeHeads.sample * format.sampleRate);
    const featuresHead = Math.round(analyzeHeads.features * format.sampleRate);
    const loudnessHead = Math.round(analyzeHeads.emotion * format.sampleRate);
    const sample = sampleAnalysisEngine.create(format, { name: '' });
    const loudness = createIntegratedLoudness(format);
    const tail = createOnsetStrengthFrom(format.sampleRate, onsetsSplitFrame(format));
    let frames = 0;
    return {
      push(chunk) {
        frames = feedUpTo(
          format,
          chunk,
          frames,
          loudnessHead,
          [sampleHead, tail.startSample],
          (part, from) => {
            if (from < sampleHead) sample.push(part);
            loudness.push(part);
            if (from >= tail.startSample) tail.push(part, format.channels);
          },
          () => undefined,
        );
      },
      finish() {
        const env = tail.finish();
        const accents = tail.accents();
        return {
          sample: sample.finish(),
          integrated_lufs: loudness.finish(),
          tailFrames: frames > featuresHead ? { env, linear: accents.linear, bass: accents.bass } : null,
          onsetFrameRate: tail.frameRate,
          onsetSeconds: frames / format.sampleRate,
        };
      },
    };
  },
};

/** a followed by b. */
function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The emotion's onsets (first 60 s): the first part's for a short file, else both parts' frames joined. */
function emotionOnsets(a: AnalyzeFeaturesPart, b: AnalyzeSamplePart): OnsetsResult {
  const tail = b.tailFrames;
  if (!tail) return a.headOnsets;
  const head = a.headFrames;
  return onsetsOfEnvelope(
    concat(head.env, tail.env),
    { linear: concat(head.linear, tail.linear), bass: concat(head.bass, tail.bass) },
    b.onsetFrameRate,
    b.onsetSeconds,
  );
}

/** The answer from the two parts and the seconds analysed (at most the emotion head). */
function combine(a: AnalyzeFeaturesPart, b: AnalyzeSamplePart, seconds: number): AnalyzeResult {
  return {
    emotion: predictEmotion(transparentEmotionModel, a.features, { integrated_lufs: b.integrated_lufs }, emotionOnsets(a, b), seconds),
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
    return mapWithFrames(
      format,
      both,
      ([ra, rb], frames) => combine(ra, rb, frames / format.sampleRate),
      Math.round(analyzeHeads.emotion * format.sampleRate),
    );
  },
};
