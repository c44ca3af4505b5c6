import { describe, expect, it } from 'vitest';
import { applyNamingScheme, keyToken } from './naming-scheme';

describe('applyNamingScheme', () => {
  it('leaves the name as the server suggested it when the scheme has no tempo and key', () => {
    expect(applyNamingScheme('01_bass_dark-sub', false, { tempoBpm: 120, key: 'A minor' })).toBe('01_bass_dark-sub');
  });

  it('appends the rounded tempo and the key', () => {
    expect(applyNamingScheme('01_bass_dark-sub', true, { tempoBpm: 119.6, key: 'A minor' })).toBe('01_bass_dark-sub_120bpm_a-min');
    expect(applyNamingScheme('07_melodic_bright-wide', true, { tempoBpm: null, key: 'F# major' })).toBe('07_melodic_bright-wide_fs-maj');
    expect(applyNamingScheme('02_percs_punchy', true, { tempoBpm: 174, key: null })).toBe('02_percs_punchy_174bpm');
  });

  it('keeps names in the server alphabet [a-z0-9_-]', () => {
    expect(applyNamingScheme('03_tops_airy', true, { tempoBpm: 128, key: 'Bb minor' })).toMatch(/^[a-z0-9_-]+$/);
  });
});

describe('keyToken', () => {
  it('reads the server key and mode', () => {
    expect(keyToken('C major')).toBe('c-maj');
    expect(keyToken('Bb minor')).toBe('bb-min');
    expect(keyToken('<script>')).toBeNull();
    expect(keyToken(null)).toBeNull();
  });
});
