import { describe, expect, it } from 'vitest';
import { Pcm16ToFloat } from './pcm16-to-float.js';

/** Little-endian bytes of the samples. */
function bytesOf(samples: readonly number[]): Uint8Array {
  const out = new Uint8Array(2 * samples.length);
  const view = new DataView(out.buffer);
  samples.forEach((s, i) => view.setInt16(2 * i, s, true));
  return out;
}

describe('Pcm16ToFloat (the WebAssembly kernel)', () => {
  it('gives x / 2^15 for every 16-bit value, in any order and at every length (SIMD steps and the tail)', () => {
    // Every int16, in an order that mixes signs within each 8-sample SIMD step.
    const all = Array.from({ length: 65_536 }, (_, i) => ((i * 40_503) % 65_536) - 32_768);
    expect(new Set(all).size).toBe(65_536);
    const converter = new Pcm16ToFloat(all.length + 3);
    for (const samples of [all, [...all, -32_768, 32_767, 1], all.slice(0, 1), all.slice(5, 12), all.slice(3, 11), all.slice(0, 9)]) {
      const floats = converter.convert(bytesOf(samples));
      expect(floats.length).toBe(samples.length);
      // Known independently: an int16 over 32768 is exact in float32.
      const expected = Float32Array.from(samples, (x) => x / 32_768);
      expect(Array.from(floats)).toEqual(Array.from(expected));
    }
    expect(converter.convert(bytesOf([-32_768, 32_767, 0, -1])).slice()).toEqual(Float32Array.of(-1, 32_767 / 32_768, 0, -1 / 32_768));
  });

  it('refuses an odd byte count or more samples than it holds', () => {
    const converter = new Pcm16ToFloat(4);
    expect(() => converter.convert(new Uint8Array(3))).toThrow('even number of bytes');
    expect(() => converter.convert(new Uint8Array(10))).toThrow('at most 8');
    expect(() => new Pcm16ToFloat(0)).toThrow(RangeError);
  });
});
