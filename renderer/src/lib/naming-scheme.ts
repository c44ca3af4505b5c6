// The naming scheme (Settings): a suggested name as the server gives it ("01_bass_dark-sub"), or with
// the tempo and key appended ("01_bass_dark-sub_120bpm_a-min"), in the same [a-z0-9_-] alphabet.

/** What is known of the audio a name is for. */
export interface NameReadings {
  /** Tempo, BPM, or null when there is none (a one-shot). */
  readonly tempoBpm: number | null;
  /** Key as the server writes it ("A minor", "F# major"), or null. */
  readonly key: string | null;
}

/** "A minor" → "a-min", "F# major" → "fs-maj", "Bb minor" → "bb-min"; null for anything else. */
export function keyToken(key: string | null): string | null {
  if (key === null) return null;
  const match = /^\s*([A-Ga-g])([#♯b♭]?)\s*(major|minor|maj|min)\s*$/i.exec(key);
  if (!match) return null;
  const [, letter = '', accidental = '', mode = ''] = match;
  const sharpFlat = accidental === '#' || accidental === '♯' ? 's' : accidental === '' ? '' : 'b';
  return `${letter.toLowerCase()}${sharpFlat}-${mode.toLowerCase().startsWith('maj') ? 'maj' : 'min'}`;
}

/** The name under the scheme: unchanged, or with `_<bpm>bpm` and `_<key>` for what is known. */
export function applyNamingScheme(name: string, includeTempoKey: boolean, readings: NameReadings): string {
  if (!includeTempoKey) return name;
  const parts = [name];
  if (readings.tempoBpm !== null && Number.isFinite(readings.tempoBpm) && readings.tempoBpm > 0)
    parts.push(`${Math.round(readings.tempoBpm)}bpm`);
  const key = keyToken(readings.key);
  if (key) parts.push(key);
  return parts.join('_');
}
