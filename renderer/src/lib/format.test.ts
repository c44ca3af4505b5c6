import { describe, expect, it } from 'vitest';
import { formatAgo, formatAudioSeconds, formatBytes, formatChannels, initials, plural } from './format';

describe('formatAudioSeconds', () => {
  it('reads like a duration', () => {
    expect(formatAudioSeconds(0)).toBe('0 s');
    expect(formatAudioSeconds(-1)).toBe('0 s');
    expect(formatAudioSeconds(12)).toBe('12 s');
    expect(formatAudioSeconds(185)).toBe('3 min 05 s');
    expect(formatAudioSeconds(7500)).toBe('2 h 05 min');
  });
});

describe('formatBytes', () => {
  it('writes sizes in SI units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1 kB');
    expect(formatBytes(352_844)).toBe('352.8 kB');
    expect(formatBytes(5_300_000)).toBe('5.3 MB');
    expect(formatBytes(1_200_000_000)).toBe('1.2 GB');
  });
});

describe('formatChannels', () => {
  it('names channel counts', () => {
    expect(formatChannels(1)).toBe('Mono');
    expect(formatChannels(2)).toBe('Stereo');
    expect(formatChannels(6)).toBe('6 channels');
  });
});

describe('initials', () => {
  it('takes the first and last word, or the first two letters', () => {
    expect(initials('Ada Lovelace', 'ada')).toBe('AL');
    expect(initials('Administrator', 'root')).toBe('AD');
    expect(initials('', 'root')).toBe('RO');
  });
});

describe('plural', () => {
  it('picks the noun for the count', () => {
    expect(plural(1, 'file', 'files')).toBe('1 file');
    expect(plural(0, 'file', 'files')).toBe('0 files');
    expect(plural(3, 'renamed copy', 'renamed copies')).toBe('3 renamed copies');
  });
});

describe('formatAgo', () => {
  it('reads like a person says it', () => {
    const now = Date.UTC(2026, 10, 26, 12);
    expect(formatAgo(now - 10_000, now)).toBe('just now');
    expect(formatAgo(now - 5 * 60_000, now)).toBe('5 minutes ago');
    expect(formatAgo(now - 3 * 3_600_000, now)).toBe('3 hours ago');
    expect(formatAgo(now - 24 * 3_600_000, now)).toBe('yesterday');
    expect(formatAgo(now - 4 * 24 * 3_600_000, now)).toBe('4 days ago');
  });
});
