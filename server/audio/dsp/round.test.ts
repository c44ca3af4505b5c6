import { describe, expect, it } from 'vitest';
import { roundTo } from './round.js';

describe('roundTo', () => {
  it('rounds half up at the given decimals', () => {
    expect(roundTo(1.2345, 3)).toBe(1.235);
    expect(roundTo(2.5, 0)).toBe(3);
    expect(roundTo(-2.5, 0)).toBe(-2);
    expect(roundTo(-1.23456, 2)).toBe(-1.23);
    expect(roundTo(123.456, 1)).toBe(123.5);
  });

  it('never returns −0', () => {
    expect(Object.is(roundTo(-0, 3), 0)).toBe(true);
    expect(Object.is(roundTo(-0.0001, 3), 0)).toBe(true);
    expect(Object.is(roundTo(-0.4, 0), 0)).toBe(true);
  });

  it('keeps non-finite values', () => {
    expect(roundTo(Number.NaN, 2)).toBeNaN();
    expect(roundTo(Number.POSITIVE_INFINITY, 2)).toBe(Number.POSITIVE_INFINITY);
    expect(roundTo(Number.NEGATIVE_INFINITY, 2)).toBe(Number.NEGATIVE_INFINITY);
  });
});
