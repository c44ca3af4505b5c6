import { describe, expect, it } from 'vitest';
import { buildLut, magmaLut } from './colour-map';
import {
  displayRangeFlat,
  flattenFrames,
  formatHz,
  frequencyTicks,
  packLut,
  spectrogramImage,
  spectrogramPixelsFlat,
  valueToDb,
} from './spectrogram-image';

const grey = buildLut(
  [
    [0, 0, 0],
    [1, 1, 1],
  ],
  256,
);

const packedGrey = packLut(grey);

describe('displayRangeFlat', () => {
  it('spans 80 dB below the loudest cell', () => {
    const range = displayRangeFlat(Float32Array.of(0.2, 0.9, 0.5, 0.1));
    // 0.9 as the Float32Array holds it; low is 0.8 (80 dB) below that, 0.1 give or take float32 rounding.
    expect(range.high).toBe(Math.fround(0.9));
    expect(range.low).toBeCloseTo(Math.fround(0.9) - 0.8, 10);
    expect(range.low).toBeCloseTo(0.1, 6);
  });

  it('never goes below the floor and keeps a span for silence', () => {
    expect(displayRangeFlat(Float32Array.of(0, 0))).toEqual({ low: 0, high: 0.1 });
  });
});

describe('spectrogramPixelsFlat', () => {
  it('puts frames on x and the highest band on the top row', () => {
    // 2 frames × 3 bands: frame 0 rises with frequency, frame 1 is flat at the bottom of the range.
    const pixels = spectrogramPixelsFlat(Float32Array.of(0, 0.5, 1, 0, 0, 0), 2, 3, packedGrey, { low: 0, high: 1 });
    const at = (x: number, y: number) => pixels[(y * 2 + x) * 4];
    expect(pixels.length).toBe(2 * 3 * 4);
    expect(at(0, 0)).toBe(255); // highest band of frame 0
    expect(at(0, 1)).toBe(128);
    expect(at(0, 2)).toBe(0); // lowest band
    expect(at(1, 0)).toBe(0);
    expect(pixels[3]).toBe(255);
  });

  it('clamps values outside the range to the ends of the map', () => {
    const pixels = spectrogramPixelsFlat(Float32Array.of(0.05, 0.95), 1, 2, packedGrey, { low: 0.1, high: 0.9 });
    expect(pixels[0]).toBe(255); // band 1 (0.95) on top
    expect(pixels[4]).toBe(0); // band 0 (0.05) below
  });

  it('reuses the output buffer when it fits', () => {
    const out = new Uint8ClampedArray(4);
    expect(spectrogramPixelsFlat(Float32Array.of(1), 1, 1, packedGrey, { low: 0, high: 1 }, out)).toBe(out);
  });
});

describe('frequency axis', () => {
  it('formats hertz compactly', () => {
    expect(formatHz(50)).toBe('50');
    expect(formatHz(1000)).toBe('1k');
    expect(formatHz(2500)).toBe('2.5k');
  });

  it('places a band centre at the middle of its row and interpolates in log frequency', () => {
    // Four log-spaced bands: 100, 200, 400, 800 Hz.
    const ticks = frequencyTicks([100, 200, 400, 800], [100, 283, 800, 1000]);
    expect(ticks.map((t) => t.label)).toEqual(['100', '283', '800']);
    expect(ticks[0]?.fromTop).toBeCloseTo(1 - 0.5 / 4, 6);
    expect(ticks[1]?.fromTop).toBeCloseTo(1 - (1 + Math.log(283 / 200) / Math.log(2) + 0.5) / 4, 6);
    expect(ticks[2]?.fromTop).toBeCloseTo(1 - 3.5 / 4, 6);
  });

  it('leaves out labels that would crowd the one below', () => {
    // 100 and 200 Hz sit a quarter apart, 283 Hz only 0.125 above 200 Hz.
    const ticks = frequencyTicks([100, 200, 400, 800], [100, 200, 283, 400], 0.2);
    expect(ticks.map((t) => t.label)).toEqual(['100', '200', '400']);
  });

  it('maps values back to dB', () => {
    expect(valueToDb(1)).toBe(0);
    expect(valueToDb(0.2)).toBe(-80);
  });
});

describe('flattened frames (the worker path)', () => {
  it('flattens the answer and gives its pixels and range', () => {
    const data = [
      [0.1, 0.5, 0.9],
      [0.3, 0.2, 0.7],
    ];
    const flat = flattenFrames(data, 3);
    expect(Array.from(flat)).toEqual(data.flat().map(Math.fround));
    const range = displayRangeFlat(flat);
    expect(range.high).toBeCloseTo(0.9, 6);
    expect(range.low).toBeCloseTo(0.1, 6);
    // Grey levels top row first (band 2, band 1, band 0), frame 0 then frame 1: (value − 0.1) / 0.8 × 255,
    // rounded: 0.9 → 255, 0.7 → 191.25, 0.5 → 127.5, 0.2 → 31.875, 0.1 → 0, 0.3 → 63.75.
    const levels = [255, 191, 128, 32, 0, 64];
    const expected = levels.flatMap((level) => [level, level, level, 255]);
    expect(Array.from(spectrogramPixelsFlat(flat, 2, 3, packedGrey, { low: 0.1, high: 0.9 }))).toEqual(expected);
  });

  it("spectrogramImage (the worker's job and the page's without one) maps over displayRangeFlat through magma", () => {
    const flat = flattenFrames(
      [
        [0.1, 0.5, 0.9],
        [0.3, 0.2, 0.7],
      ],
      3,
    );
    const range = displayRangeFlat(flat);
    const image = spectrogramImage(flat, 2, 3);
    expect(image.range).toEqual(range);
    expect(Array.from(image.pixels)).toEqual(Array.from(spectrogramPixelsFlat(flat, 2, 3, packLut(magmaLut), range)));
  });
});
