import { describe, expect, it } from 'vitest';
import { defaultSort } from '../api/library';
import {
  camelotHue,
  camelotOfKey,
  camelotOptions,
  compatibleCamelot,
  filterFromParams,
  keyOfCamelot,
  moveSelection,
  pagesFor,
  paramsOfFilter,
  tempoChoices,
  thinPeaks,
  visibleRange,
} from './library-model';

// Camelot positions from Mark Davis's Camelot wheel (Mixed In Key's published chart).
describe('Camelot', () => {
  it('names keys on the wheel', () => {
    expect(camelotOfKey('A minor')).toBe('8A');
    expect(camelotOfKey('Am')).toBe('8A');
    expect(camelotOfKey('C major')).toBe('8B');
    expect(camelotOfKey('C')).toBe('8B');
    expect(camelotOfKey('F# minor')).toBe('11A');
    expect(camelotOfKey('Db major')).toBe('3B');
    expect(camelotOfKey('Bbm')).toBe('3A');
    expect(camelotOfKey('G# minor')).toBe('1A');
    expect(camelotOfKey('Ab minor')).toBe('1A');
    expect(camelotOfKey('E major')).toBe('12B');
    expect(camelotOfKey('H minor')).toBeUndefined();
    expect(camelotOfKey('')).toBeUndefined();
  });

  it('goes back from code to key, and offers all 24 keys once', () => {
    expect(keyOfCamelot('8A')).toBe('A minor');
    expect(keyOfCamelot('12b')).toBe('E major');
    expect(keyOfCamelot('13A')).toBeUndefined();
    expect(new Set(camelotOptions.map((o) => o.code)).size).toBe(24);
    for (const option of camelotOptions) expect(camelotOfKey(keyOfCamelot(option.code)!)).toBe(option.code);
  });

  it('lists the keys that mix: same, ±1 round the wheel, relative major/minor', () => {
    expect(compatibleCamelot('8A')).toEqual(['8A', '7A', '9A', '8B']);
    expect(compatibleCamelot('12B')).toEqual(['12B', '11B', '1B', '12A']);
    expect(compatibleCamelot('1A')).toEqual(['1A', '12A', '2A', '1B']);
    expect(camelotHue('1A')).toBe(0);
    expect(camelotHue('7B')).toBe(180);
  });
});

describe('keyboard navigation', () => {
  it('moves within the list and stops at its ends', () => {
    expect(moveSelection(null, 'ArrowDown', 10, 5)).toBe(0);
    expect(moveSelection(null, 'ArrowUp', 10, 5)).toBe(9);
    expect(moveSelection(3, 'ArrowDown', 10, 5)).toBe(4);
    expect(moveSelection(9, 'ArrowDown', 10, 5)).toBe(9);
    expect(moveSelection(0, 'ArrowUp', 10, 5)).toBe(0);
    expect(moveSelection(2, 'PageDown', 10, 5)).toBe(7);
    expect(moveSelection(7, 'PageDown', 10, 5)).toBe(9);
    expect(moveSelection(3, 'PageUp', 10, 5)).toBe(0);
    expect(moveSelection(4, 'Home', 10, 5)).toBe(0);
    expect(moveSelection(4, 'End', 100_000, 5)).toBe(99_999);
    expect(moveSelection(4, 'ArrowDown', 0, 5)).toBeNull();
    // A selection past a list that shrank comes back inside it.
    expect(moveSelection(50, 'ArrowUp', 10, 5)).toBe(8);
  });
});

describe('tempo correction', () => {
  it('offers half, measured and double', () => {
    expect(tempoChoices(174)).toEqual([
      { multiplier: 0.5, bpm: 87 },
      { multiplier: 1, bpm: 174 },
      { multiplier: 2, bpm: 348 },
    ]);
    expect(tempoChoices(null).map((c) => c.bpm)).toEqual([null, null, null]);
  });
});

describe('thinPeaks', () => {
  it('keeps the largest peak of each share, so a lone transient survives', () => {
    const peaks = new Array<number>(64).fill(0.1);
    peaks[37] = 0.9;
    const bars = thinPeaks(peaks, 16);
    expect(bars).toHaveLength(16);
    expect(bars[9]).toBe(0.9); // 37 / 4 = bar 9
    expect(bars.filter((b) => b === 0.1)).toHaveLength(15);
  });

  it('clamps to 0..1, treats bad values as silence, and leaves short input alone', () => {
    expect(thinPeaks([2, -1, Number.NaN, 0.5], 8)).toEqual([1, 0, 0, 0.5]);
    expect(thinPeaks([], 8)).toEqual([]);
  });
});

describe('the address', () => {
  it('round-trips a filter and sort', () => {
    const filter = {
      q: 'kick',
      role: 'percs' as const,
      key: '8A',
      bpmMin: 120,
      bpmMax: 130,
      bpmRelated: true,
      tag: 'dusty',
      favourite: true,
    };
    const sort = { field: 'bpm' as const, descending: true };
    const params = paramsOfFilter(filter, sort);
    expect(params.toString()).toBe('q=kick&role=percs&key=8A&bpm_min=120&bpm_max=130&bpm_related=true&tag=dusty&favourite=true&sort=-bpm');
    expect(filterFromParams(params)).toMatchObject({ filter, sort });
  });

  it('ignores values it does not know', () => {
    const { filter, sort } = filterFromParams(new URLSearchParams('role=drums&tier=Z&bpm_min=fast&sort=colour&collection_id=-3'));
    expect(filter.role).toBeUndefined();
    expect(filter.tier).toBeUndefined();
    expect(filter.bpmMin).toBeUndefined();
    expect(filter.collectionId).toBeUndefined();
    expect(sort).toEqual(defaultSort);
  });
});

describe('the virtual list', () => {
  it('renders only the rows on screen and a few either side, at 100 000 rows', () => {
    // 60 px rows, 600 px viewport, scrolled to row 50 000.
    expect(visibleRange(3_000_000, 600, 60, 100_000)).toEqual({ start: 49_992, end: 50_019 });
    expect(visibleRange(0, 600, 60, 5)).toEqual({ start: 0, end: 5 });
    expect(visibleRange(0, 600, 60, 0)).toEqual({ start: 0, end: 0 });
  });

  it('finds the pages that hold a range of rows', () => {
    expect(pagesFor(49_992, 50_019, 100)).toEqual([500, 501]);
    expect(pagesFor(0, 27, 100)).toEqual([1]);
    expect(pagesFor(5, 5, 100)).toEqual([]);
  });
});
