import { describe, expect, it } from 'vitest';
import { formatFixed, formatGain, formatMeasure, formatPercent, humanize, meterFraction, planePoint } from './readouts';

describe('meterFraction', () => {
  it('places a value on the meter and clamps it', () => {
    expect(meterFraction(-22.5, -36, 0)).toBeCloseTo(0.375, 10);
    expect(meterFraction(-50, -36, 0)).toBe(0);
    expect(meterFraction(3, -36, 0)).toBe(1);
    expect(meterFraction(null, -36, 0)).toBe(0);
  });
});

describe('planePoint', () => {
  it('puts positive valence right and high arousal up', () => {
    expect(planePoint(0, 0, 200)).toEqual({ x: 100, y: 100 });
    expect(planePoint(1, 1, 200)).toEqual({ x: 200, y: 0 });
    expect(planePoint(-1, -1, 200)).toEqual({ x: 0, y: 200 });
    expect(planePoint(0.458, 0.17, 200).x).toBeCloseTo(145.8, 6);
  });
});

describe('formatting', () => {
  it('uses a real minus sign and a dash for missing values', () => {
    expect(formatFixed(-22.51, 1)).toBe('\u221222.5');
    expect(formatFixed(-0.01, 1)).toBe('0.0');
    expect(formatFixed(null, 1)).toBe('—');
    expect(formatGain(8.51)).toBe('+8.5 dB');
    expect(formatGain(-3)).toBe('\u22123.0 dB');
  });

  it('gives measures decimals by size', () => {
    expect(formatMeasure(2602.1)).toBe('2602');
    expect(formatMeasure(-437.73)).toBe('\u2212437.7');
    expect(formatMeasure(37.412)).toBe('37.41');
    expect(formatMeasure(0.12031)).toBe('0.120');
  });

  it('writes shares as percentages and keys as words', () => {
    expect(formatPercent(0.99)).toBe('99 %');
    expect(formatPercent(0.002)).toBe('< 1 %');
    expect(formatPercent(0)).toBe('0 %');
    expect(humanize('low_mid')).toBe('Low mid');
  });
});
