import { describe, expect, it } from 'vitest';
import { drumSound } from '../../test-support/drums.js';
import { seededNoise, sine } from '../../test-support/signals.js';
import type { AnalyzeResponse } from '../api-types.js';
import { analyzeEngine } from '../engines/analyze.js';
import { timbreEmbeddingWeights } from '../dsp/timbre-embedding-weights.js';
import { featureNorms } from './feature-vector-norms.js';
import {
  computeFeatureVector,
  featureComponents,
  featureVectorLength,
  readRawFeatures,
  vectorComponents,
  zScore,
} from './feature-vector.js';

const sampleRate = 44_100;

/** The /analyze answer of a mono signal, from the real engine in-process (what the route answers, without the upload). */
function analyse(signal: Float32Array): AnalyzeResponse {
  const run = analyzeEngine.create({ sampleRate, channels: 1, channelLayout: 'mono', totalFrames: signal.length }, {});
  for (let i = 0; i < signal.length; i += 8192) run.push(signal.subarray(i, Math.min(signal.length, i + 8192)));
  const result = run.finish();
  // The engine result is the wire answer without `source` (readonly arrays where the wire type has mutable ones).
  return {
    source: { duration_s: signal.length / sampleRate, sample_rate: sampleRate, channels: 1, format: 'wav' },
    ...result,
  } as unknown as AnalyzeResponse;
}

/** A plucked tone: a sine under an exponential decay (time constant 0.4 s), 2 s. */
const pluck = (freq: number, amp = 0.5) => sine(sampleRate, 2, freq, amp).map((x, i) => x * Math.exp(-i / sampleRate / 0.4));
const distance = (a: Float32Array, b: Float32Array) => Math.sqrt(a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0));
/** A component's position in the vector. */
const component = (name: string) => {
  const i = vectorComponents.indexOf(name);
  if (i < 0) throw new Error(`${name} is not in the vector`);
  return i;
};

describe('feature vector', () => {
  it('z-scores a known value: 12 against mean 10 and deviation 2 is 1; far values clip at ±4; not measured is the mean', () => {
    expect(zScore(12, 10, 2)).toBe(1);
    expect(zScore(7, 10, 2)).toBe(-1.5);
    expect(zScore(1e9, 10, 2)).toBe(4);
    expect(zScore(-1e9, 10, 2)).toBe(-4);
    expect(zScore(Number.NaN, 10, 2)).toBe(0);
  });

  it('has one committed mean, deviation and weight per component, in order, and keeps exactly the components weighted above 0', () => {
    expect(featureNorms.components.map((c) => c.name)).toEqual(featureComponents.map((c) => c.name));
    for (const c of featureNorms.components) expect(c.std, c.name).toBeGreaterThan(0);
    const weighted = featureComponents
      .filter((c, i) => featureNorms.weights[c.group] * featureNorms.components[i]!.weight > 0)
      .map((c) => c.name);
    expect([...vectorComponents].sort()).toEqual([...weighted].sort());
    expect(featureVectorLength).toBe(weighted.length);
  });

  const low = analyse(pluck(55));
  it('puts a 55 Hz pluck nearest to a 62 Hz pluck, not to a 1760 Hz one, a kick drum or noise', () => {
    const v = computeFeatureVector({ analyze: low });
    expect(v).toBeInstanceOf(Float32Array);
    expect(v).toHaveLength(featureVectorLength);
    const near = distance(v, computeFeatureVector({ analyze: analyse(pluck(62)) }));
    const noise = seededNoise(7);
    const others = [
      analyse(pluck(1760)),
      analyse(Float32Array.from(drumSound('kick', sampleRate, noise))),
      analyse(Float32Array.from({ length: sampleRate }, (_, i) => 0.3 * (noise() * 2 - 1) * Math.exp(-i / sampleRate / 0.2))),
    ];
    for (const o of others) expect(near).toBeLessThan(distance(v, computeFeatureVector({ analyze: o })));
  });

  it('ignores the level: the same pluck 18 dB quieter is far nearer than a pluck two octaves up', () => {
    const v = computeFeatureVector({ analyze: low });
    const quiet = distance(v, computeFeatureVector({ analyze: analyse(pluck(55, 0.5 / 7.94)) }));
    expect(quiet).toBeLessThan(0.1 * distance(v, computeFeatureVector({ analyze: analyse(pluck(220)) })));
  });

  it('scores one component exactly: a bandwidth one deviation above the mean gives group weight × component weight / √13 (13 spectrum components)', () => {
    const i = component('log2_bandwidth');
    const norm = featureNorms.components.find((c) => c.name === 'log2_bandwidth')!;
    const answer = {
      ...low,
      features: { ...low.features, spectral: { ...low.features.spectral, bandwidth_hz: 2 ** (norm.mean + norm.std) } },
    };
    expect(featureComponents.filter((c) => c.group === 'spectrum')).toHaveLength(13);
    expect(computeFeatureVector({ analyze: answer })[i]).toBeCloseTo((featureNorms.weights.spectrum * norm.weight) / Math.sqrt(13), 5);
  });

  it('scores what was not measured as the mean, and never answers a non-finite number for hostile answers', () => {
    const silentTail = { ...low, features: { ...low.features, envelope: { ...low.features.envelope, sustain_level: null } } };
    expect(computeFeatureVector({ analyze: silentTail })[component('sustain_level')]).toBe(0);
    const hostile = {
      ...low,
      features: {
        ...low.features,
        spectral: { ...low.features.spectral, bandwidth_hz: Number.NaN, contrast_db: [] },
        mfcc: { mean: [], std: [Infinity] },
      },
      sample: { ...low.sample, envelope: undefined },
    } as unknown as AnalyzeResponse;
    const v = computeFeatureVector({ analyze: hostile });
    expect(v.every(Number.isFinite)).toBe(true);
    expect(v[component('log2_bandwidth')]).toBe(0);
    expect(v[component('log2_attack')]).toBe(0);
  });

  it('reads the harmonic timbre block as documented, and an answer without it (unvoiced, or older) as not measured', () => {
    const at = (name: string) => featureComponents.findIndex((c) => c.name === name);
    const timbre = {
      tristimulus: [0.5, 0.3, 0.2],
      even_harmonic_share: 0.25,
      harmonic_centroid: 4,
      irregularity: 0.999,
      inharmonicity: 1e-3,
      noisiness: 0.1,
    };
    const raw = readRawFeatures({ ...low, sample: { ...low.sample, timbre } } as AnalyzeResponse);
    expect(raw[at('tristimulus_2')]).toBe(0.3);
    expect(raw[at('even_harmonic_share')]).toBe(0.25);
    expect(raw[at('log2_harmonic_centroid')]).toBe(2);
    expect(raw[at('log2_irregularity')]).toBeCloseTo(0, 12); // log2(0.999 + 0.001)
    expect(raw[at('log10_inharmonicity')]).toBeCloseTo(-3, 12);
    // A negative B (the fit's noise on a harmonic sound) reads as the floor, 10⁻⁶.
    const harmonic = readRawFeatures({ ...low, sample: { ...low.sample, timbre: { ...timbre, inharmonicity: -2e-5 } } } as AnalyzeResponse);
    expect(harmonic[at('log10_inharmonicity')]).toBeCloseTo(-6, 12);
    for (const without of [null, undefined]) {
      const r = readRawFeatures({ ...low, sample: { ...low.sample, timbre: without } } as unknown as AnalyzeResponse);
      for (const c of featureComponents.filter((c) => c.group === 'harmonics')) expect(r[at(c.name)], c.name).toBeNaN();
    }
  });

  it('reads the timbre embedding component by component, and an answer without one (silent, or older) as not measured', () => {
    const at = (name: string) => featureComponents.findIndex((c) => c.name === name);
    const embedding = Array.from({ length: 64 }, (_, i) => (i === 5 ? 0.6 : i === 63 ? -0.8 : 0));
    const raw = readRawFeatures({ ...low, sample: { ...low.sample, embedding } } as AnalyzeResponse);
    expect(raw[at('embedding_5')]).toBe(0.6);
    expect(raw[at('embedding_63')]).toBe(-0.8);
    expect(raw[at('embedding_0')]).toBe(0);
    expect(featureComponents.filter((c) => c.group === 'embedding')).toHaveLength(64);
    expect(timbreEmbeddingWeights.embedding.out).toBe(64); // the network's output is what the components read
    // One component's share: group weight × (value − mean) / deviation / √64, like every other group.
    const norm = featureNorms.components.find((c) => c.name === 'embedding_5')!;
    const z = Math.max(-4, Math.min(4, (0.6 - norm.mean) / norm.std));
    const v = computeFeatureVector({ analyze: { ...low, sample: { ...low.sample, embedding } } as AnalyzeResponse });
    expect(v[component('embedding_5')]).toBeCloseTo((featureNorms.weights.embedding * norm.weight * z) / 8, 5);
    for (const without of [null, undefined]) {
      const r = readRawFeatures({ ...low, sample: { ...low.sample, embedding: without } } as unknown as AnalyzeResponse);
      for (const c of featureComponents.filter((c) => c.group === 'embedding')) expect(r[at(c.name)], c.name).toBeNaN();
    }
  });
});
