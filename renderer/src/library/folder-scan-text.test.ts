import { describe, expect, it } from 'vitest';
import { describeScanProgress, describeScanSkips, type FolderScan } from './folder-scan-text';

const scan = (over: Partial<FolderScan> = {}): FolderScan => ({
  state: 'scanning',
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: null,
  resumed: false,
  seen: 0,
  added: 0,
  updated: 0,
  unchanged: 0,
  failed: 0,
  skipped: { not_audio: 0, outside_roots: 0, name_too_long: 0, over_limit: 0 },
  ...over,
});

describe('folder scan sentences', () => {
  it('say what a running, resumed and finished scan did', () => {
    expect(describeScanProgress(scan({ seen: 42, added: 40, unchanged: 2 }))).toBe(
      'Scanning… 42 audio files found, 40 added, 2 already indexed',
    );
    expect(describeScanProgress(scan({ resumed: true, seen: 1, added: 1 }))).toBe(
      'Scanning (resumed after a restart)… 1 audio file found, 1 added',
    );
    expect(describeScanProgress(scan({ state: 'done', seen: 1200, added: 1199, updated: 1 }))).toBe(
      'Scanned: 1,200 audio files, 1,199 added, 1 updated',
    );
    expect(describeScanProgress(scan({ state: 'failed', seen: 3, added: 3 }))).toBe(
      'The scan stopped with an error after 3 audio files: 3 added',
    );
  });

  it('count what was skipped, by reason, and nothing when nothing was', () => {
    expect(describeScanSkips(scan())).toBe('');
    expect(describeScanSkips(scan({ failed: 1, skipped: { not_audio: 2, outside_roots: 1, name_too_long: 1, over_limit: 0 } }))).toBe(
      '5 skipped: 2 not audio, 1 link outside the allowed folders, 1 name too long, 1 file could not be read',
    );
    expect(describeScanSkips(scan({ skipped: { not_audio: 0, outside_roots: 0, name_too_long: 0, over_limit: 1 } }))).toBe(
      'Stopped at 100,000 files, the most one folder may hold',
    );
  });
});
