import { describe, expect, it } from 'vitest';
import { dayOf, expiryProblem, shareState } from './share-expiry';

describe('share expiry', () => {
  it('reads a share as the server does: active through its expiry day, expired after it', () => {
    expect(shareState(null, '2026-11-26')).toBe('never');
    expect(shareState('2026-11-27', '2026-11-26')).toBe('active');
    expect(shareState('2026-11-26', '2026-11-26')).toBe('active');
    expect(shareState('2026-11-25', '2026-11-26')).toBe('expired');
    expect(shareState('2020-01-01', '2026-11-26')).toBe('expired');
  });

  it('refuses past days and non-dates; accepts empty, today and later', () => {
    expect(expiryProblem('', '2026-11-26')).toBeNull();
    expect(expiryProblem('2026-11-27', '2026-11-26')).toBeNull();
    expect(expiryProblem('2026-11-26', '2026-11-26')).toBeNull();
    expect(expiryProblem('2026-11-25', '2026-11-26')).toMatch(/today or a later day/);
    expect(expiryProblem('2001-01-01', '2026-11-26')).toMatch(/today or a later day/);
    expect(expiryProblem('soon', '2026-11-26')).toBe('Enter a date, or leave it empty.');
  });

  it('writes a local day as a date input does', () => {
    expect(dayOf(new Date(2026, 0, 5))).toBe('2026-01-05');
  });
});
