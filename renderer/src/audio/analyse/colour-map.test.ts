import { describe, expect, it } from 'vitest';
import { buildLut, lutGradient, magmaLut, relativeLuminance } from './colour-map';

const entry = (lut: Uint8ClampedArray, i: number) => [lut[i * 4], lut[i * 4 + 1], lut[i * 4 + 2], lut[i * 4 + 3]];

describe('magma LUT', () => {
  it('has 256 opaque RGBA entries from near black to pale yellow', () => {
    expect(magmaLut.length).toBe(256 * 4);
    expect(entry(magmaLut, 0)).toEqual([0, 0, 4, 255]);
    expect(entry(magmaLut, 255)).toEqual([252, 253, 191, 255]);
    for (let i = 0; i < 256; i++) expect(magmaLut[i * 4 + 3]).toBe(255);
  });

  it('passes through the published stops (entry 128 of magma is 183, 55, 121)', () => {
    expect(entry(magmaLut, 128)).toEqual([183, 55, 121, 255]);
    expect(entry(magmaLut, 64)).toEqual([81, 18, 124, 255]);
  });

  it('rises monotonically in luminance, so louder always reads brighter', () => {
    let previous = -1;
    for (let i = 0; i < 256; i++) {
      const [r = 0, g = 0, b = 0] = entry(magmaLut, i);
      const y = relativeLuminance(r, g, b);
      expect(y).toBeGreaterThanOrEqual(previous);
      previous = y;
    }
    expect(previous).toBeGreaterThan(0.9);
  });

  it('interpolates linearly between two stops', () => {
    const lut = buildLut(
      [
        [0, 0, 0],
        [1, 1, 1],
      ],
      3,
    );
    expect(entry(lut, 1)).toEqual([128, 128, 128, 255]);
  });

  it('describes itself as a CSS gradient for the legend', () => {
    expect(lutGradient(magmaLut, 3)).toBe('linear-gradient(to right, rgb(0 0 4), rgb(183 55 121), rgb(252 253 191))');
  });
});
