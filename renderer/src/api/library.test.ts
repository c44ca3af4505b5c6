import { describe, expect, it } from 'vitest';
import { buildLibraryQuery, defaultSort } from './library';
import { withQuery } from './http';

// The expected query strings are the shared contract's parameter names and formats.
describe('buildLibraryQuery', () => {
  it('leaves out every unset filter and the default sort', () => {
    expect(withQuery('/items', buildLibraryQuery({}, defaultSort, 1, 50))).toBe('/items?page=1&per_page=50');
  });

  it('sends a Camelot code as camelot and any other key text as key', () => {
    expect(buildLibraryQuery({ key: '8a' }, defaultSort, 1, 50)).toMatchObject({ camelot: '8A', key: undefined });
    expect(buildLibraryQuery({ key: '12B' }, defaultSort, 1, 50)).toMatchObject({ camelot: '12B' });
    expect(buildLibraryQuery({ key: ' A minor ' }, defaultSort, 1, 50)).toMatchObject({ key: 'A minor', camelot: undefined });
    // 13A is no Camelot code: it goes as text, and the server answers what it makes of it.
    expect(buildLibraryQuery({ key: '13A' }, defaultSort, 1, 50)).toMatchObject({ key: '13A', camelot: undefined });
  });

  it('asks for ½× and 2× matches only with a tempo range', () => {
    expect(buildLibraryQuery({ bpmMin: 120, bpmMax: 130, bpmRelated: true }, defaultSort, 1, 50)).toMatchObject({
      bpm_min: 120,
      bpm_max: 130,
      bpm_related: true,
    });
    expect(buildLibraryQuery({ bpmRelated: true }, defaultSort, 1, 50).bpm_related).toBeUndefined();
    expect(buildLibraryQuery({ bpmMin: Number.NaN }, defaultSort, 1, 50).bpm_min).toBeUndefined();
  });

  it('writes the sort with a leading minus for descending', () => {
    expect(buildLibraryQuery({}, { field: 'bpm', descending: false }, 1, 50).sort).toBe('bpm');
    expect(buildLibraryQuery({}, { field: 'name', descending: true }, 1, 50).sort).toBe('-name');
  });

  it('keeps the page size within 1..200 and the page at least 1', () => {
    expect(buildLibraryQuery({}, defaultSort, 0, 1000)).toMatchObject({ page: 1, per_page: 200 });
    expect(buildLibraryQuery({}, defaultSort, 3, 0)).toMatchObject({ page: 3, per_page: 1 });
  });

  it('maps every other filter to its contract name', () => {
    const query = buildLibraryQuery(
      {
        q: ' kick ',
        role: 'percs',
        lufsMin: -20,
        lufsMax: -8,
        tier: 'A',
        durationMin: 0.1,
        durationMax: 4,
        tag: 'dusty',
        favourite: true,
        collectionId: 7,
      },
      defaultSort,
      2,
      100,
    );
    expect(withQuery('/items', query)).toBe(
      '/items?q=kick&role=percs&lufs_min=-20&lufs_max=-8&tier=A&duration_min=0.1&duration_max=4&tag=dusty&favourite=true&collection_id=7&page=2&per_page=100',
    );
  });
});
