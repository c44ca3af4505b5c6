import { describe, expect, it } from 'vitest';
import { plannedNames } from './apply-names';
import { batchCsv, batchJson, csvHeader, filterItems, sortItems, withNamingScheme, type BatchItem, type BatchResult } from './batch-model';

function result(overrides: Partial<BatchResult>): BatchResult {
  return {
    durationS: 4,
    role: 'percs',
    roleConfidence: 0.8,
    tier: 'A',
    score: 0.85,
    flags: [],
    integratedLufs: -12,
    clipLufs: -10.5,
    gradedS: 4,
    truePeakDbtp: -1,
    tempoBpm: 120,
    key: 'C',
    mode: 'major',
    keyConfidence: 0.5,
    suggestedName: '01_percs_punchy',
    ...overrides,
  };
}

let nextId = 0;
function item(name: string, overrides: Partial<BatchResult> | null, status: BatchItem['status'] = 'done'): BatchItem {
  nextId += 1;
  return {
    id: `i${nextId}`,
    file: new File([], name),
    name,
    path: null,
    index: nextId,
    status,
    stage: null,
    progress: status === 'done' ? 1 : 0,
    error: null,
    result: overrides ? result(overrides) : null,
  };
}

const names = (items: readonly BatchItem[]) => items.map((i) => i.name);

describe('sortItems', () => {
  const items = [
    item('kick 10.wav', { tempoBpm: 128, integratedLufs: -9, score: 0.7, key: 'A', mode: 'minor' }),
    item('kick 2.wav', { tempoBpm: 90, integratedLufs: null, score: 0.95, key: 'C', mode: 'major' }),
    item('queued.wav', null, 'queued'),
    item('pad.wav', { tempoBpm: null, integratedLufs: -30, score: 0.5, key: 'A', mode: 'major' }),
  ];

  it('sorts names naturally (2 before 10)', () => {
    expect(names(sortItems(items, { key: 'name', direction: 'ascending' }))).toEqual([
      'kick 2.wav',
      'kick 10.wav',
      'pad.wav',
      'queued.wav',
    ]);
    expect(names(sortItems(items, { key: 'name', direction: 'descending' }))).toEqual([
      'queued.wav',
      'pad.wav',
      'kick 10.wav',
      'kick 2.wav',
    ]);
  });

  it('sorts numbers by value and puts missing values last in both directions', () => {
    expect(names(sortItems(items, { key: 'tempo', direction: 'ascending' }))).toEqual([
      'kick 2.wav',
      'kick 10.wav',
      'queued.wav',
      'pad.wav',
    ]);
    expect(names(sortItems(items, { key: 'tempo', direction: 'descending' }))).toEqual([
      'kick 10.wav',
      'kick 2.wav',
      'queued.wav',
      'pad.wav',
    ]);
    expect(names(sortItems(items, { key: 'lufs', direction: 'descending' }))).toEqual([
      'kick 10.wav',
      'pad.wav',
      'kick 2.wav',
      'queued.wav',
    ]);
    // A one-shot under 0.4 s has no integrated loudness but does have a clip loudness, so it sorts among the rest.
    const clip = [
      item('short kick.wav', { integratedLufs: null, clipLufs: -8 }),
      item('long pad.wav', { clipLufs: -25 }),
      item('older.wav', { clipLufs: undefined }),
    ];
    expect(names(sortItems(clip, { key: 'clipLufs', direction: 'descending' }))).toEqual(['short kick.wav', 'long pad.wav', 'older.wav']);
    expect(names(sortItems(clip, { key: 'clipLufs', direction: 'ascending' }))).toEqual(['long pad.wav', 'short kick.wav', 'older.wav']);
  });

  it('sorts tiers by score and keys by pitch class, major before minor', () => {
    expect(names(sortItems(items, { key: 'tier', direction: 'descending' }))).toEqual([
      'kick 2.wav',
      'kick 10.wav',
      'pad.wav',
      'queued.wav',
    ]);
    expect(names(sortItems(items, { key: 'key', direction: 'ascending' }))).toEqual(['kick 2.wav', 'pad.wav', 'kick 10.wav', 'queued.wav']);
  });

  it('does not change the list it is given', () => {
    const before = names(items);
    sortItems(items, { key: 'tempo', direction: 'descending' });
    expect(names(items)).toEqual(before);
  });
});

describe('filterItems', () => {
  const items = [
    item('Sub Bass.wav', { role: 'bass', tier: 'B', suggestedName: '01_bass_dark-sub', key: 'F', mode: 'minor' }),
    item('Loop 120.wav', { role: 'percs', tier: 'A', suggestedName: '02_percs_punchy' }),
    item('broken.wav', null, 'failed'),
  ];

  it('lets everything through without a filter', () => {
    expect(filterItems(items, { text: '  ', role: 'all', tier: 'all' })).toHaveLength(3);
  });

  it('matches every word against the name, suggested name, role and key, ignoring case', () => {
    expect(names(filterItems(items, { text: 'SUB', role: 'all', tier: 'all' }))).toEqual(['Sub Bass.wav']);
    expect(names(filterItems(items, { text: 'punchy loop', role: 'all', tier: 'all' }))).toEqual(['Loop 120.wav']);
    expect(names(filterItems(items, { text: 'f minor', role: 'all', tier: 'all' }))).toEqual(['Sub Bass.wav']);
    expect(names(filterItems(items, { text: 'broken', role: 'all', tier: 'all' }))).toEqual(['broken.wav']);
    expect(filterItems(items, { text: 'sub punchy', role: 'all', tier: 'all' })).toEqual([]);
  });

  it('filters by role and tier, leaving out files without results', () => {
    expect(names(filterItems(items, { text: '', role: 'percs', tier: 'all' }))).toEqual(['Loop 120.wav']);
    expect(names(filterItems(items, { text: '', role: 'all', tier: 'B' }))).toEqual(['Sub Bass.wav']);
    expect(filterItems(items, { text: '', role: 'bass', tier: 'A' })).toEqual([]);
  });
});

describe('exports', () => {
  const items = [
    item('a, "quoted".wav', { suggestedName: '01_percs_punchy', flags: [{ code: 'seam_click', message: 'A click.' }] }),
    item('waiting.wav', null, 'queued'),
    item('b.wav', { suggestedName: '02_bass_dark', key: null, mode: null, tempoBpm: null }),
    // The head of a 3-minute file, and a one-shot too short for integrated loudness.
    item('c.wav', { suggestedName: '03_melodic_warm', durationS: 180, gradedS: 30, integratedLufs: null, clipLufs: -7.25 }),
    // Stored before clip loudness and the graded length were reported.
    item('d.wav', { suggestedName: '04_atmos_wide', clipLufs: undefined, gradedS: undefined }),
  ];

  it('writes a CSV row per analysed file, in order, with empty fields for missing values', () => {
    const lines = batchCsv(items).split('\r\n');
    expect(lines[0]).toBe(csvHeader.join(','));
    expect(lines[0]).toBe(
      'file,role,role_confidence,tier,score,integrated_lufs,clip_lufs,true_peak_dbtp,tempo_bpm,key,mode,key_confidence,duration_s,graded_s,suggested_name,flags',
    );
    expect(lines).toHaveLength(6); // header, four rows, and the empty string after the last CRLF
    expect(lines[1]).toBe('"a, ""quoted"".wav",percs,0.8,A,0.85,-12,-10.5,-1,120,C,major,0.5,4,4,01_percs_punchy,seam_click');
    expect(lines[2]).toBe('b.wav,percs,0.8,A,0.85,-12,-10.5,-1,,,,0.5,4,4,02_bass_dark,');
    expect(lines[3]).toBe('c.wav,percs,0.8,A,0.85,,-7.25,-1,120,C,major,0.5,180,30,03_melodic_warm,');
    expect(lines[4]).toBe('d.wav,percs,0.8,A,0.85,-12,,-1,120,C,major,0.5,4,,04_atmos_wide,');
  });

  it('writes the same fields as JSON with the flags spelled out', () => {
    const parsed = JSON.parse(batchJson(items)) as { files: Record<string, unknown>[] };
    expect(parsed.files).toHaveLength(4);
    expect(Object.keys(parsed.files[0] ?? {})).toEqual([...csvHeader]);
    expect(parsed.files[0]).toMatchObject({
      file: 'a, "quoted".wav',
      suggested_name: '01_percs_punchy',
      flags: [{ code: 'seam_click', message: 'A click.' }],
    });
    expect(parsed.files[1]).toMatchObject({ file: 'b.wav', key: null, tempo_bpm: null });
    expect(parsed.files[2]).toMatchObject({ file: 'c.wav', integrated_lufs: null, clip_lufs: -7.25, duration_s: 180, graded_s: 30 });
    expect(parsed.files[3]).toMatchObject({ file: 'd.wav', clip_lufs: null, graded_s: null });
  });
});

describe('withNamingScheme (the naming scheme of Settings)', () => {
  const items = [
    item('Sub.WAV', { suggestedName: '01_bass_dark-sub', tempoBpm: 119.6, key: 'A', mode: 'minor' }),
    item('hit.wav', { suggestedName: '02_percs_punchy', tempoBpm: null, key: 'F#', mode: 'major' }),
    item('air.wav', { suggestedName: '03_atmos_airy', tempoBpm: 174, key: null, mode: null }),
    item('queued.wav', null, 'queued'),
  ];

  it('leaves the names as the server suggested them when the scheme has no tempo and key', () => {
    expect(withNamingScheme(items, false)).toBe(items);
  });

  it('appends the rounded tempo and the key for what is known; unanalysed files are untouched', () => {
    const named = withNamingScheme(items, true);
    expect(named.map((i) => i.result?.suggestedName ?? null)).toEqual([
      '01_bass_dark-sub_120bpm_a-min',
      '02_percs_punchy_fs-maj',
      '03_atmos_airy_174bpm',
      null,
    ]);
    expect(named[3]).toBe(items[3]);
    // The stored results keep the server's name.
    expect(items[0]!.result!.suggestedName).toBe('01_bass_dark-sub');
  });

  it("the CSV and JSON exports and the applied file names carry the scheme's names", () => {
    const named = withNamingScheme(items, true);
    expect(batchCsv(named).split('\r\n')[1]).toContain(',01_bass_dark-sub_120bpm_a-min,');
    expect((JSON.parse(batchJson(named)) as { files: { suggested_name: string }[] }).files.map((f) => f.suggested_name)).toEqual([
      '01_bass_dark-sub_120bpm_a-min',
      '02_percs_punchy_fs-maj',
      '03_atmos_airy_174bpm',
    ]);
    expect(plannedNames(named).map((p) => p.newName)).toEqual([
      '01_bass_dark-sub_120bpm_a-min.WAV',
      '02_percs_punchy_fs-maj.wav',
      '03_atmos_airy_174bpm.wav',
    ]);
    expect(plannedNames(withNamingScheme(items, false)).map((p) => p.newName)[0]).toBe('01_bass_dark-sub.WAV');
  });

  it('the filter finds files by their shown name', () => {
    expect(names(filterItems(withNamingScheme(items, true), { text: '120bpm', role: 'all', tier: 'all' }))).toEqual(['Sub.WAV']);
  });
});
