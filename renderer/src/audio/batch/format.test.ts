import { describe, expect, it } from 'vitest';
import type { BatchResult } from './batch-model';
import { formatOneDecimal, formatScore, missingReason } from './format';

describe('batch table figures', () => {
  it("writes LUFS, dBTP and BPM with one decimal and the locale minus (as the exports' toFixed does in en-US)", () => {
    expect(formatOneDecimal(-14.23)).toBe('-14.2');
    expect(formatOneDecimal(-0.96)).toBe('-1.0');
    expect(formatOneDecimal(124)).toBe('124.0');
    expect(formatOneDecimal(null)).toBeNull();
  });

  it('writes scores with two decimals', () => {
    expect(formatScore(0.5)).toBe('0.50');
  });

  it("says why a key is missing from the answer's key_reason", () => {
    const result = (keyReason: BatchResult['keyReason']) => ({ key: null, mode: null, keyReason }) as unknown as BatchResult;
    expect(missingReason('key', result('no_pitched_content'))).toBe('No stable pitch (drums, noise or silence)');
    expect(missingReason('key', result('low_confidence'))).toBe('No key fits clearly');
  });
});
