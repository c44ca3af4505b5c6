import { describe, expect, it } from 'vitest';
import { chosenTarget, defaultPreferences, gainToTarget, parsePreferences } from './preferences';

describe('parsePreferences', () => {
  it('gives the defaults for nothing stored, broken JSON and non-objects', () => {
    for (const text of [null, '', '{', '[]', '42', 'null']) expect(parsePreferences(text)).toEqual(defaultPreferences);
  });

  it('keeps valid fields and replaces each invalid one by its default', () => {
    const stored = JSON.stringify({
      loudnessTarget: 'broadcast',
      customLufs: 7,
      namesIncludeTempoKey: 'yes',
      theme: 'light',
      showOnsets: false,
    });
    expect(parsePreferences(stored)).toEqual({
      loudnessTarget: 'broadcast',
      customLufs: -12,
      namesIncludeTempoKey: false,
      theme: 'light',
      showOnsets: false,
    });
    expect(parsePreferences(JSON.stringify({ loudnessTarget: 'toString', theme: 'neon' }))).toEqual(defaultPreferences);
  });

  it('accepts a custom target from −40 to 0 LUFS, rounded to 0.1', () => {
    expect(parsePreferences(JSON.stringify({ customLufs: -10.26 })).customLufs).toBe(-10.3);
    expect(parsePreferences(JSON.stringify({ customLufs: -40 })).customLufs).toBe(-40);
    expect(parsePreferences(JSON.stringify({ customLufs: -40.1 })).customLufs).toBe(-12);
    expect(parsePreferences('{"customLufs": 1e999}').customLufs).toBe(-12);
  });
});

describe('targets', () => {
  it('are the published figures', () => {
    const target = (id: 'streaming' | 'apple' | 'club' | 'broadcast') => chosenTarget({ ...defaultPreferences, loudnessTarget: id }).lufs;
    // Spotify/YouTube −14, Apple Music (Sound Check) −16, a loud club master −9, EBU R 128 −23.
    expect([target('streaming'), target('apple'), target('club'), target('broadcast')]).toEqual([-14, -16, -9, -23]);
    expect(chosenTarget({ ...defaultPreferences, loudnessTarget: 'custom', customLufs: -11 })).toEqual({
      label: 'Custom',
      short: 'custom',
      lufs: -11,
    });
  });

  it('gain is the target minus the integrated loudness', () => {
    expect(gainToTarget(-20, -14)).toBe(6);
    expect(gainToTarget(-7.5, -16)).toBe(-8.5);
    expect(gainToTarget(null, -14)).toBeNull();
  });
});
