import { describe, expect, it } from 'vitest';
import { importRunning, pathFromArchiveName, pollDelay } from './import-status';

describe('importRunning', () => {
  it('waits on scheduled and started only', () => {
    expect(['none', 'scheduled', 'started', 'finished', 'failed', undefined].map((s) => importRunning(s as never))).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('pollDelay', () => {
  it('doubles from half a second up to five seconds', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map(pollDelay)).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });
});

describe('pathFromArchiveName', () => {
  it("takes the project from an export's file name", () => {
    expect(pathFromArchiveName('2025-06-10_12-00-123_root_album_export.tar.gz')).toBe('album');
    expect(pathFromArchiveName('My Session.tgz')).toBe('my-session');
    expect(pathFromArchiveName('beats.tar.gz')).toBe('beats');
  });
});
