import { describe, expect, it } from 'vitest';
import { computeMelPatch, MEL_PATCH_BANDS, MEL_PATCH_FRAMES } from './mel-patch.js';
import { expectedEmbeddings, fixtureVersion } from './reference/timbre-embedding-fixture.js';
import { timbreTestClips } from './reference/timbre-test-signals.js';
import { embedMelPatch, embedMelPatchRaw, type TimbreEmbeddingWeights } from './timbre-embedding.js';
import { timbreEmbeddingWeights } from './timbre-embedding-weights.js';

describe('embedMelPatchRaw', () => {
  it('gives what PyTorch gives for the same network and patches (three synthesized clips)', () => {
    expect(fixtureVersion).toBe(timbreEmbeddingWeights.version);
    const clips = timbreTestClips();
    clips.forEach((clip, n) => {
      const got = embedMelPatchRaw(computeMelPatch(clip.mono, clip.sampleRate)!, timbreEmbeddingWeights);
      const want = expectedEmbeddings[n]!;
      expect(got.length).toBe(want.length);
      const scale = Math.max(...want.map(Math.abs));
      for (let d = 0; d < want.length; d++) expect(Math.abs(got[d]! - want[d]!)).toBeLessThan(1e-4 * scale);
    });
  });

  it('computes a one-layer network by hand: identity kernel, then per band the mean and the maximum over time', () => {
    // Band b holds −80 + b dB in every frame except frame 0, which holds 0 dB (the loudest cell).
    const patch = new Float32Array(MEL_PATCH_BANDS * MEL_PATCH_FRAMES);
    for (let b = 0; b < MEL_PATCH_BANDS; b++)
      for (let t = 0; t < MEL_PATCH_FRAMES; t++) patch[b * MEL_PATCH_FRAMES + t] = t === 0 ? 0 : -80 + b;
    const identity = new Float32Array(9);
    identity[4] = 1;
    const features = 2 * MEL_PATCH_BANDS;
    // Two outputs: the first reads band 10's mean, the second band 10's maximum, plus a bias of 0.5.
    const weight = new Float32Array(2 * features);
    weight[10] = 1;
    weight[features + MEL_PATCH_BANDS + 10] = 1;
    const net: TimbreEmbeddingWeights = {
      version: 0,
      convs: [{ out: 1, in: 1, weight: identity, bias: new Float32Array(1) }],
      embedding: { out: 2, in: features, weight, bias: new Float32Array([0.5, 0.5]) },
    };
    const out = embedMelPatchRaw(patch, net);
    // Frames are averaged in pairs: pair 0 is (0 + (−70)) / 2 = −35 dB, the other 63 pairs −70 dB; x = dB / 80 + 1.
    const pair0 = -35 / 80 + 1;
    const rest = -70 / 80 + 1;
    expect(out[0]).toBeCloseTo((pair0 + 63 * rest) / 64 + 0.5, 6);
    expect(out[1]).toBeCloseTo(pair0 + 0.5, 6);
  });

  it('refuses a patch of the wrong size', () => {
    expect(() => embedMelPatchRaw(new Float32Array(10), timbreEmbeddingWeights)).toThrow(RangeError);
  });
});

describe('embedMelPatch', () => {
  it('is a unit vector, the same direction as the raw output', () => {
    const clip = timbreTestClips()[0]!;
    const patch = computeMelPatch(clip.mono, clip.sampleRate)!;
    const raw = embedMelPatchRaw(patch, timbreEmbeddingWeights);
    const unit = embedMelPatch(patch, timbreEmbeddingWeights)!;
    const norm = Math.hypot(...raw);
    expect(Math.hypot(...unit)).toBeCloseTo(1, 6);
    unit.forEach((v, d) => expect(v).toBeCloseTo(raw[d]! / norm, 6));
  });

  it('tells a plucked tone from noise: the pluck is nearer the organ than the noise is', () => {
    const [pluck, noise, organ] = timbreTestClips().map((c) =>
      embedMelPatch(computeMelPatch(c.mono, c.sampleRate)!, timbreEmbeddingWeights)!,
    );
    const dist = (a: Float32Array, b: Float32Array) => Math.hypot(...a.map((v, i) => v - b[i]!));
    expect(dist(pluck!, organ!)).toBeLessThan(dist(noise!, organ!));
  });
});
