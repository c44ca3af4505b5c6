import { describe, expect, it } from 'vitest';
import { formatOneDecimal, formatScore } from './format';

describe('batch table figures', () => {
  it('writes LUFS, dBTP and BPM with one decimal and the locale minus (as the exports\' toFixed does in en-US)', () => {
    expect(formatOneDecimal(-14.23)).toBe('-14.2');
    expect(formatOneDecimal(-0.96)).toBe('-1.0');
    expect(formatOneDecimal(124)).toBe('124.0');
    expect(formatOneDecimal(null)).toBeNull();
  });

  it('writes scores with two decimals', () => {
    expect(formatScore(0.5)).toBe('0.50');
  });
});
