import { describe, expect, it } from 'vitest';
import { TenantLibraryIndex, type LibraryQuery } from './library-index.js';
import type { LibraryItemRecord, LibrarySummary } from './library-repo.js';

/** A record with only the facts a test sets. */
function item(id: number, name: string, s: Partial<LibrarySummary>, extra: Partial<LibraryItemRecord> = {}): LibraryItemRecord {
  return {
    id,
    tenant: 't',
    sha256: String(id).padStart(64, '0'),
    name,
    size: 1,
    addedAt: '2026-01-01T00:00:00.000Z',
    status: 'ready',
    origin: 'upload',
    summary: {
      duration_s: null,
      sample_rate: null,
      channels: null,
      format: null,
      role: null,
      role_confidence: null,
      tempo_bpm: null,
      key: null,
      camelot: null,
      loudness_lufs: null,
      true_peak_dbtp: null,
      grade_tier: null,
      suggested_name: null,
      thumbnail: [],
      ...s,
    },
    vector: null,
    tags: [],
    favourite: false,
    rating: 0,
    tempoMultiplier: 1,
    collectionIds: [],
    ...extra,
  };
}

// A set with known values: the expected answers below follow from this table alone.
const set = [
  item(1, 'Kick Deep.wav', { role: 'percs', tempo_bpm: 124, loudness_lufs: -8, duration_s: 0.5, grade_tier: 'A' }, { tags: ['house'] }),
  item(
    2,
    'pad warm.wav',
    { role: 'atmos', camelot: '8A', key: 'A minor', loudness_lufs: -20, duration_s: 12 },
    { favourite: true, rating: 5 },
  ),
  item(3, 'bass line.wav', { role: 'bass', camelot: '8A', key: 'A minor', tempo_bpm: 62, loudness_lufs: -12, duration_s: 7.7 }),
  item(
    4,
    'lead c.wav',
    { role: 'melodic', camelot: '8B', key: 'C major', tempo_bpm: 128, duration_s: 3.75, suggested_name: '01_melodic_bright' },
    { rating: 3 },
  ),
  item(
    5,
    'hat loop.wav',
    { role: 'tops', tempo_bpm: 240, loudness_lufs: -14, duration_s: 2, grade_tier: 'A' },
    { tags: ['House', 'loop'], tempoMultiplier: 0.5 },
  ),
];
const index = new TenantLibraryIndex(set);
const q = (over: Partial<LibraryQuery>): number[] =>
  index.search({ sort: 'added_at', descending: false, page: 1, perPage: 50, ...over }).items.map((i) => i.id);

describe('library index', () => {
  it('filters by each field on a set of known values', () => {
    expect(q({ q: 'KICK' })).toEqual([1]);
    expect(q({ q: 'bright' })).toEqual([4]); // suggested name
    expect(q({ q: 'loop' })).toEqual([5]); // name and tag
    expect(q({ role: 'bass' })).toEqual([3]);
    expect(q({ camelot: '8A' })).toEqual([2, 3]);
    expect(q({ bpmMin: 120, bpmMax: 130 })).toEqual([1, 4, 5]); // 5: 240 × ½ = 120
    expect(q({ bpmMin: 120, bpmMax: 130, bpmRelated: true })).toEqual([1, 3, 4, 5]); // 3: 62 × 2 = 124
    expect(q({ bpmMin: 60, bpmMax: 65, bpmRelated: true })).toEqual([1, 3, 4, 5]); // halves of 124, 128, 120
    expect(q({ lufsMin: -15, lufsMax: -10 })).toEqual([3, 5]); // 4 has no loudness: never in a range
    expect(q({ durationMax: 2 })).toEqual([1, 5]);
    expect(q({ tier: 'A' })).toEqual([1, 5]);
    expect(q({ tag: 'house' })).toEqual([1, 5]);
    expect(q({ favourite: true })).toEqual([2]);
    expect(q({ favourite: false })).toEqual([1, 3, 4, 5]);
    expect(q({ camelot: '8A', bpmMin: 100 })).toEqual([]);
  });

  it('sorts both ways with unmeasured values last, and pages', () => {
    expect(q({ sort: 'bpm' })).toEqual([3, 5, 1, 4, 2]);
    expect(q({ sort: 'bpm', descending: true })).toEqual([4, 1, 5, 3, 2]);
    expect(q({ sort: 'loudness_lufs', descending: true })).toEqual([1, 3, 5, 2, 4]);
    expect(q({ sort: 'key' })).toEqual([2, 3, 4, 1, 5]);
    expect(q({ sort: 'name' })).toEqual([3, 5, 1, 4, 2]);
    expect(q({ sort: 'rating', descending: true })).toEqual([2, 4, 5, 3, 1]);
    const page = index.search({ sort: 'added_at', descending: true, page: 2, perPage: 2 });
    expect([page.items.map((i) => i.id), page.total]).toEqual([[3, 2], 5]);
    expect(index.search({ sort: 'added_at', descending: false, page: 9, perPage: 2 })).toEqual({ items: [], total: 5 });
  });

  it('keeps every built order right through adds, changes and removals', () => {
    const live = new TenantLibraryIndex(set);
    const ids = (sort: LibraryQuery['sort'], descending = false) =>
      live.search({ sort, descending, page: 1, perPage: 50 }).items.map((i) => i.id);
    expect(ids('bpm')).toEqual([3, 5, 1, 4, 2]);
    expect(ids('name')).toEqual([3, 5, 1, 4, 2]);
    live.upsert(item(6, 'aaa.wav', { tempo_bpm: 100 }));
    live.upsert({ ...set[0]!, tempoMultiplier: 0.5 }); // 124 → 62
    live.upsert(item(2, 'pad warm.wav', { tempo_bpm: 200 })); // gains a tempo
    live.remove(3);
    expect(ids('bpm')).toEqual([1, 6, 5, 4, 2]);
    expect(ids('bpm', true)).toEqual([2, 4, 5, 6, 1]);
    expect(ids('name')).toEqual([6, 5, 1, 4, 2]);
    expect(
      live.search({ sort: 'added_at', descending: false, page: 1, perPage: 50, bpmMin: 60, bpmMax: 65 }).items.map((i) => i.id),
    ).toEqual([1]);
    // An order built after the changes agrees with the ones kept up to date.
    expect(ids('duration_s')).toEqual([1, 5, 4, 2, 6]); // 2 and 6 have no duration: last, by id
  });
});
