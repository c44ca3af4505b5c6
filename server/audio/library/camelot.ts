/**
 * Keys in Camelot notation (Mark Davis's Camelot wheel, as DJ software prints it): the circle of
 * fifths numbered 1–12, B for major keys and A for their relative minors, so C major is 8B and
 * A minor 8A, and a step round the wheel is a fifth. The number of a major key with pitch class pc
 * (C = 0) is ((7·pc + 7) mod 12) + 1; a minor key has its relative major's number (pc + 3).
 *
 *   1A A♭m  1B B   | 4A Fm  4B A♭ | 7A Dm  7B F  | 10A Bm  10B D
 *   2A E♭m  2B F♯  | 5A Cm  5B E♭ | 8A Am  8B C  | 11A F♯m 11B A
 *   3A B♭m  3B D♭  | 6A Gm  6B B♭ | 9A Em  9B G  | 12A D♭m 12B E
 */
export const pitchClassNames = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'] as const;

const letterPitch: Readonly<Record<string, number>> = { C: 0, D: 2, E: 4, F: 5, G: 7, A: 9, B: 11 };

/** The Camelot code ("8A") of a tonic pitch class and mode. */
export function camelotOf(pitchClass: number, mode: 'major' | 'minor'): string {
  const major = mode === 'major' ? pitchClass : (pitchClass + 3) % 12;
  return `${((7 * major + 7) % 12) + 1}${mode === 'major' ? 'B' : 'A'}`;
}

/** "A minor" from a pitch class and mode (sharps, as the features engine names them). */
export function keyNameOf(pitchClass: number, mode: 'major' | 'minor'): string {
  return `${pitchClassNames[pitchClass]} ${mode}`;
}

/**
 * Any spelling of a key as a Camelot code, or undefined: "8A", "A minor", "Am", "a min", "C#m",
 * "Db major", "Bb", "F♯ minor". A bare note is major.
 */
export function findCamelot(text: string): string | undefined {
  const t = text.trim().replace(/♯/g, '#').replace(/♭/g, 'b');
  const code = /^(1[0-2]|[1-9])\s*([abAB])$/.exec(t);
  if (code) return `${code[1]}${code[2]!.toUpperCase()}`;
  const m = /^([A-Ga-g])([#b]?)\s*(major|maj|minor|min|m|M)?$/.exec(t);
  if (!m) return undefined;
  const pc = (letterPitch[m[1]!.toUpperCase()]! + (m[2] === '#' ? 1 : m[2] === 'b' ? -1 : 0) + 12) % 12;
  const q = m[3];
  const minor = q === 'm' || q === 'min' || q === 'minor';
  return camelotOf(pc, minor ? 'minor' : 'major');
}
