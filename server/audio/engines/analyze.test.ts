import { describe, expect, it } from 'vitest';
import { musicLoop } from '../../test-support/drums.js';
import { interleave } from '../../test-support/signals.js';
import { analyzeEngine, analyzeFeaturesPart, analyzeSamplePart, type AnalyzeResult } from './analyze.js';
import type { EngineSpec, StreamEngine, StreamFormat } from './engine.js';
import { predictEmotion } from './emotion.js';
import { transparentEmotionModel } from './emotion-model.js';
import { featuresEngine, type FeaturesResult } from './features.js';
import { createIntegratedLoudness, loudnessEngine, type LoudnessResult } from './loudness.js';
import { createOnsetsStream, onsetsEngine, type OnsetsResult } from './onsets.js';
import { createOnsetStrength, createOnsetStrengthFrom } from '../dsp/onset-detection.js';
import { sampleAnalysisEngine } from './sample-analysis.js';

const sampleRate = 22_050;

/** Push the first `seconds` of `all` (interleaved) in chunks of `chunk` frames. */
function feed<R>(engine: StreamEngine<R>, all: Float32Array, channels: number, seconds: number, chunk = 7000): R {
  const frames = Math.min(all.length / channels, Math.round(seconds * sampleRate));
  for (let f = 0; f < frames; f += chunk) engine.push(all.subarray(f * channels, Math.min(frames, f + chunk) * channels));
  return engine.finish();
}

function run<P, R>(spec: EngineSpec<P, R>, params: P, all: Float32Array, format: StreamFormat, seconds: number, chunk?: number): R {
  return feed(spec.create(format, params), all, format.channels, seconds, chunk);
}

describe('the /analyze composite', () => {
  // 70 s (longer than both heads), 33 s (between them) and 12 s (shorter than both).
  it.each([[36], [16], [5]])('equals its dedicated engines on their heads, split in two parts or on one thread (%i bars)', (bars) => {
    const loop = musicLoop({ bpm: 124, bars, sampleRate });
    const all = interleave([Float32Array.from(loop.channels[0]), Float32Array.from(loop.channels[1])]);
    const format: StreamFormat = { sampleRate, channels: 2, channelLayout: null, totalFrames: null };
    const frames = all.length / 2;
    const seconds = Math.min(frames, 60 * sampleRate) / sampleRate;

    // The dedicated engines, each on its own head (as the routes run them).
    const features = run(featuresEngine, { rhythm: true }, all, format, 30) as FeaturesResult;
    const sample = run(sampleAnalysisEngine, { name: '' }, all, format, 30);
    const loudness = run(loudnessEngine, {}, all, format, 60) as LoudnessResult;
    const onsets = run(onsetsEngine, {}, all, format, 60) as OnsetsResult;
    const expected: AnalyzeResult = {
      emotion: predictEmotion(transparentEmotionModel, features, loudness, onsets, seconds),
      features,
      sample,
    };

    // Two parts (as the service runs them, each on its thread) and the split's combine.
    const a = run(analyzeFeaturesPart, {}, all, format, 60, 4410);
    const b = run(analyzeSamplePart, {}, all, format, 60, 9999);
    expect(analyzeEngine.split!.combine([a, b], seconds)).toEqual(expected);
    // One thread.
    expect(run(analyzeEngine, {}, all, format, 60, 12_345)).toEqual(expected);
  });

  it('forks onsets exactly: the fork finished at t equals an analysis of the first t seconds', () => {
    const loop = musicLoop({ bpm: 124, bars: 12, sampleRate });
    const all = interleave([Float32Array.from(loop.channels[0]), Float32Array.from(loop.channels[1])]);
    const format: StreamFormat = { sampleRate, channels: 2, channelLayout: null, totalFrames: null };
    const stream = createOnsetsStream(format);
    const cut = 10 * sampleRate + 123;
    stream.push(all.subarray(0, cut * 2));
    const fork = stream.fork();
    stream.push(all.subarray(cut * 2));
    fork.push(new Float32Array(0));
    expect(fork.finish()).toEqual(run(onsetsEngine, {}, all, format, cut / sampleRate, 5000));
    expect(stream.finish()).toEqual(run(onsetsEngine, {}, all, format, Infinity, 5000));
  });

  it('joins onset strength computed in two pieces into exactly that of one stream', () => {
    const loop = musicLoop({ bpm: 124, bars: 8, sampleRate });
    const all = interleave([Float32Array.from(loop.channels[0]), Float32Array.from(loop.channels[1])]);
    const whole = createOnsetStrength(sampleRate);
    for (let f = 0; f < all.length; f += 2 * 3001) whole.push(all.subarray(f, Math.min(all.length, f + 2 * 3001)), 2);
    const env = whole.finish();
    const accents = whole.accents();
    for (const first of [2, 3, 377, 1000]) {
      const tail = createOnsetStrengthFrom(sampleRate, first);
      expect(tail.firstFrame).toBe(first);
      const rest = all.subarray(2 * tail.startSample);
      for (let f = 0; f < rest.length; f += 2 * 4999) tail.push(rest.subarray(f, Math.min(rest.length, f + 2 * 4999)), 2);
      expect(tail.finish()).toEqual(env.slice(first));
      expect(tail.accents()).toEqual({ linear: accents.linear.slice(first), bass: accents.bass.slice(first) });
    }
    // Frame 1 would need samples before the first.
    expect(() => createOnsetStrengthFrom(sampleRate, 1)).toThrow(RangeError);
    expect(() => createOnsetStrengthFrom(sampleRate, 2.5)).toThrow(RangeError);
  });

  it('measures integrated loudness alone exactly as the full meter does', () => {
    const loop = musicLoop({ bpm: 124, bars: 8, sampleRate });
    const all = interleave([Float32Array.from(loop.channels[0]), Float32Array.from(loop.channels[1])]);
    const format: StreamFormat = { sampleRate, channels: 2, channelLayout: null, totalFrames: null };
    const full = run(loudnessEngine, {}, all, format, Infinity) as LoudnessResult;
    expect(full.integrated_lufs).not.toBeNull();
    expect(feed(createIntegratedLoudness(format), all, 2, Infinity, 3333)).toBe(full.integrated_lufs);
    expect(feed(createIntegratedLoudness(format), new Float32Array(2000), 2, Infinity)).toBeNull();
  });
});
