import { describe, expect, it } from 'vitest';
import { createFilterbank } from './bands.js';
import {
  computeMelPatch,
  MEL_PATCH_BANDS,
  MEL_PATCH_FLOOR_DB,
  MEL_PATCH_FRAMES,
  melPatchSourceFrames,
  resampleLinear,
} from './mel-patch.js';

const sine = (hz: number, seconds: number, rate: number, amp: number): Float32Array =>
  Float32Array.from({ length: Math.round(seconds * rate) }, (_, i) => amp * Math.sin((2 * Math.PI * hz * i) / rate));

/** The band whose triangle peaks nearest `hz` (Slaney mel, 64 bands, 30 Hz–16 kHz, as the patch). */
function bandNearest(hz: number): number {
  const { centers } = createFilterbank('mel', MEL_PATCH_BANDS, 2048, 44100, 30, 16000);
  let best = 0;
  for (let b = 1; b < centers.length; b++) if (Math.abs(centers[b]! - hz) < Math.abs(centers[best]! - hz)) best = b;
  return best;
}

/** Per band, the patch's mean over the frames of `from`..`to`. */
function bandMeans(patch: Float32Array, from: number, to: number): number[] {
  return Array.from({ length: MEL_PATCH_BANDS }, (_, b) => {
    let s = 0;
    for (let t = from; t < to; t++) s += patch[b * MEL_PATCH_FRAMES + t]!;
    return s / (to - from);
  });
}

describe('computeMelPatch', () => {
  it('puts a steady 1 kHz sine at 0 dB in the band centred nearest 1 kHz, other bands far below', () => {
    const patch = computeMelPatch(sine(1000, 2, 44100, 0.5), 44100)!;
    expect(patch.length).toBe(MEL_PATCH_BANDS * MEL_PATCH_FRAMES);
    const means = bandMeans(patch, 8, 120);
    const peak = means.indexOf(Math.max(...means));
    expect(peak).toBe(bandNearest(1000));
    expect(means[peak]).toBeGreaterThan(-1.5); // a steady tone: every middle frame near the loudest cell
    expect(means[peak - 8]!).toBeLessThan(-60); // a band an octave below hears only the window's leakage
    expect(Math.max(...patch)).toBe(0);
    expect(Math.min(...patch)).toBeGreaterThanOrEqual(MEL_PATCH_FLOOR_DB);
  });

  it('does not depend on the level: the same sine 30 dB quieter gives the same patch', () => {
    const loud = computeMelPatch(sine(440, 1, 44100, 0.8), 44100)!;
    const quiet = computeMelPatch(sine(440, 1, 44100, 0.8 * 10 ** (-30 / 20)), 44100)!;
    for (let i = 0; i < loud.length; i += 97) expect(quiet[i]).toBeCloseTo(loud[i]!, 3);
  });

  it('reads a 48 kHz clip at 44.1 kHz: the sine peaks in the same band', () => {
    const patch = computeMelPatch(sine(1000, 2, 48000, 0.5), 48000)!;
    const means = bandMeans(patch, 8, 120);
    expect(means.indexOf(Math.max(...means))).toBe(bandNearest(1000));
  });

  it('pads a short clip with the floor: frames a window past its end read −80 dB', () => {
    const patch = computeMelPatch(sine(500, 0.1, 44100, 0.5), 44100)!; // 0.1 s: frames up to ~10 hold sound
    for (let b = 0; b < MEL_PATCH_BANDS; b++)
      for (let t = 20; t < MEL_PATCH_FRAMES; t++) expect(patch[b * MEL_PATCH_FRAMES + t]).toBe(MEL_PATCH_FLOOR_DB);
  });

  it('answers null for silence', () => {
    expect(computeMelPatch(new Float32Array(44100), 44100)).toBeNull();
    expect(computeMelPatch(new Float32Array(0), 44100)).toBeNull();
  });

  it('asks for enough source frames at any rate for the last frame', () => {
    expect(melPatchSourceFrames(44100)).toBeGreaterThanOrEqual(1024 + 512 * 127);
    expect(melPatchSourceFrames(22050)).toBeGreaterThanOrEqual((1024 + 512 * 127) / 2);
  });
});

describe('resampleLinear', () => {
  it('keeps a ramp a ramp: 0, 1, 2 … at 22.05 kHz becomes 0, 0.5, 1 … at 44.1 kHz', () => {
    const out = resampleLinear(
      Float32Array.from({ length: 10 }, (_, i) => i),
      22050,
    );
    expect(Array.from(out.subarray(0, 18))).toEqual(Array.from({ length: 18 }, (_, k) => k / 2));
  });

  it('returns 44.1 kHz input as it is', () => {
    const x = new Float32Array([1, 2, 3]);
    expect(resampleLinear(x, 44100)).toBe(x);
  });
});
