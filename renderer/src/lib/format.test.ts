import { describe, expect, it } from 'vitest';
import { formatAudioSeconds, initials } from './format';

describe('formatAudioSeconds', () => {
  it('reads like a duration', () => {
    expect(formatAudioSeconds(0)).toBe('0 s');
    expect(formatAudioSeconds(-1)).toBe('0 s');
    expect(formatAudioSeconds(12)).toBe('12 s');
    expect(formatAudioSeconds(185)).toBe('3 min 05 s');
    expect(formatAudioSeconds(7500)).toBe('2 h 05 min');
  });
});

describe('initials', () => {
  it('takes the first and last word, or the first two letters', () => {
    expect(initials('Ada Lovelace', 'ada')).toBe('AL');
    expect(initials('Administrator', 'root')).toBe('AD');
    expect(initials('', 'root')).toBe('RO');
  });
});
