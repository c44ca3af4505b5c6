import { describe, expect, it } from 'vitest';
import { camelotOf, findCamelot, pitchClassNames } from './camelot.js';

/**
 * The published Camelot wheel (Mixed In Key), typed from the wheel itself, not computed: the code of
 * every major (B) and minor (A) key.
 */
const wheel: readonly (readonly [string, string, string])[] = [
  ['1', 'G# minor', 'B major'],
  ['2', 'D# minor', 'F# major'],
  ['3', 'A# minor', 'C# major'],
  ['4', 'F minor', 'G# major'],
  ['5', 'C minor', 'D# major'],
  ['6', 'G minor', 'A# major'],
  ['7', 'D minor', 'F major'],
  ['8', 'A minor', 'C major'],
  ['9', 'E minor', 'G major'],
  ['10', 'B minor', 'D major'],
  ['11', 'F# minor', 'A major'],
  ['12', 'C# minor', 'E major'],
];

describe('Camelot codes', () => {
  it('match the published wheel for all 24 keys', () => {
    for (const [n, minor, major] of wheel) {
      for (const [name, letter] of [
        [minor, 'A'],
        [major, 'B'],
      ] as const) {
        const [tonic, mode] = name.split(' ') as [string, 'major' | 'minor'];
        expect(camelotOf(pitchClassNames.indexOf(tonic as (typeof pitchClassNames)[number]), mode), name).toBe(`${n}${letter}`);
      }
    }
  });

  it('read every common spelling of a key', () => {
    const spellings: Record<string, string> = {
      '8A': '8A',
      '8a': '8A',
      '12b': '12B',
      Am: '8A',
      'A minor': '8A',
      'a min': '8A',
      C: '8B',
      'C major': '8B',
      Cmaj: '8B',
      'C#m': '12A',
      'Db minor': '12A',
      'D♭ major': '3B',
      'F♯ minor': '11A',
      Bb: '6B',
      Abm: '1A',
      Cb: '1B', // enharmonic B major
    };
    for (const [text, code] of Object.entries(spellings)) expect(findCamelot(text), text).toBe(code);
  });

  it('refuses what is not a key', () => {
    for (const text of ['13A', '0B', 'H minor', 'A dorian', '', '8', 'Amm', '8AB']) expect(findCamelot(text), text).toBeUndefined();
  });
});
