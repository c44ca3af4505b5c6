import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { applyNamesOnDesktop, desktopRenamer, plannedNames, renamedZip, type DesktopRenamer } from './apply-names';
import type { BatchItem, BatchResult } from './batch-model';

const result = (suggestedName: string): BatchResult => ({
  durationS: 1,
  role: 'percs',
  roleConfidence: 1,
  tier: 'A',
  score: 0.8,
  flags: [],
  integratedLufs: -10,
  truePeakDbtp: -1,
  tempoBpm: 120,
  key: null,
  mode: null,
  keyConfidence: 0,
  suggestedName,
});

function item(name: string, bytes: string, suggested: string | null, path: string | null = null): BatchItem {
  return {
    id: name,
    file: new File([bytes], name),
    name,
    path,
    index: 1,
    status: suggested ? 'done' : 'failed',
    stage: null,
    progress: 1,
    error: suggested ? null : 'Broken.',
    result: suggested ? result(suggested) : null,
  };
}

const items = [
  item('Kick.WAV', 'kick', '01_percs_punchy'),
  item('broken.wav', 'x', null),
  item('kick copy.wav', 'kick2', '01_percs_punchy'),
  item('loop.flac', 'loop', '03_percs_punchy-wide'),
];

describe('plannedNames', () => {
  it('names the analysed files only, with their own extension, unique', () => {
    expect(plannedNames(items).map((p) => [p.item.name, p.newName])).toEqual([
      ['Kick.WAV', '01_percs_punchy.WAV'],
      ['kick copy.wav', '01_percs_punchy-2.wav'],
      ['loop.flac', '03_percs_punchy-wide.flac'],
    ]);
  });
});

describe('renamedZip', () => {
  it('holds a renamed copy of each analysed file', async () => {
    const { blob, count } = await renamedZip(items);
    expect(count).toBe(3);
    expect(blob.type).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await blob.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['01_percs_punchy-2.wav', '01_percs_punchy.WAV', '03_percs_punchy-wide.flac']);
    expect(new TextDecoder().decode(files['03_percs_punchy-wide.flac'])).toBe('loop');
  });
});

describe('applyNamesOnDesktop', () => {
  const withPaths = [item('a.wav', 'a', '01_bass_dark', '/pack/a.wav'), item('b.wav', 'b', '02_bass_dark')];

  it('writes the files that have a path into the chosen folder and reports the rest', async () => {
    const writes: unknown[] = [];
    const renamer: DesktopRenamer = {
      pickFolder: async () => '/out',
      writeRenamedCopies: async (folder, copies, mode) => {
        writes.push({ folder, copies, mode });
        return copies.map((copy) => `${folder}/${copy.newName}`);
      },
    };
    const outcome = await applyNamesOnDesktop(renamer, withPaths, 'move');
    expect(writes).toEqual([{ folder: '/out', copies: [{ sourcePath: '/pack/a.wav', newName: '01_bass_dark.wav' }], mode: 'move' }]);
    expect(outcome).toEqual({ folder: '/out', written: ['/out/01_bass_dark.wav'], skipped: ['b.wav'] });
  });

  it('does nothing when no folder was chosen', async () => {
    let wrote = false;
    const renamer: DesktopRenamer = {
      pickFolder: async () => null,
      writeRenamedCopies: async () => {
        wrote = true;
        return [];
      },
    };
    expect(await applyNamesOnDesktop(renamer, withPaths, 'copy')).toBeNull();
    expect(wrote).toBe(false);
  });

  it('needs both bridge functions', () => {
    expect(desktopRenamer(null)).toBeNull();
    expect(desktopRenamer({ isDesktop: true, platform: 'linux', pickFolder: async () => null })).toBeNull();
  });
});
