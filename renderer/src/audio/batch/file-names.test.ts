import { describe, expect, it } from 'vitest';
import { extensionOf, renamedFileName, uniqueNames } from './file-names';

describe('extensionOf', () => {
  it('finds the last extension with its dot', () => {
    expect(extensionOf('kick.wav')).toBe('.wav');
    expect(extensionOf('loop.final.AIFF')).toBe('.AIFF');
    expect(extensionOf('pack/sub/kick.flac')).toBe('.flac');
  });

  it('answers "" without an extension, for a leading dot and for a trailing dot', () => {
    expect(extensionOf('kick')).toBe('');
    expect(extensionOf('.hidden')).toBe('');
    expect(extensionOf('odd.')).toBe('');
    expect(extensionOf('pack.v2/kick')).toBe('');
  });
});

describe('renamedFileName', () => {
  it('keeps the original extension as written', () => {
    expect(renamedFileName('01_bass_dark-sub', 'My Sub.WAV')).toBe('01_bass_dark-sub.WAV');
    expect(renamedFileName('02_percs_punchy', 'loop.mp3')).toBe('02_percs_punchy.mp3');
    expect(renamedFileName('03_atmos_wide', 'pad')).toBe('03_atmos_wide');
  });
});

describe('uniqueNames', () => {
  it('leaves unique names alone', () => {
    expect(uniqueNames(['a.wav', 'b.wav', 'a.flac'])).toEqual(['a.wav', 'b.wav', 'a.flac']);
  });

  it('numbers repeats before the extension, ignoring case', () => {
    expect(uniqueNames(['a.wav', 'A.WAV', 'a.wav'])).toEqual(['a.wav', 'A-2.WAV', 'a-3.wav']);
  });

  it('does not take a name that comes later in the list', () => {
    expect(uniqueNames(['a.wav', 'a.wav', 'a-2.wav'])).toEqual(['a.wav', 'a-3.wav', 'a-2.wav']);
  });

  it('handles names without an extension', () => {
    expect(uniqueNames(['x', 'x'])).toEqual(['x', 'x-2']);
  });
});
