import { describe, expect, it } from 'vitest';
import { base64Of, breadcrumbOf, defaultCommitMessage, fileKindOf, looksLikeText, planFiles, sortEntries } from './file-kinds';

const entry = (name: string, type: 'tree' | 'blob') => ({ id: name, name, type, path: name, mode: type === 'tree' ? '040000' : '100644' });

describe('file kinds', () => {
  it('knows the contract’s audio extensions, in any case, and images', () => {
    expect(['a.wav', 'b.AIF', 'c.aiff', 'd.flac', 'e.mp3', 'f.ogg', 'g.m4a'].map(fileKindOf)).toEqual(Array(7).fill('audio'));
    expect(fileKindOf('cover.PNG')).toBe('image');
    expect(fileKindOf('notes.txt')).toBe('other');
    expect(fileKindOf('wav')).toBe('other');
  });

  it('sorts folders first, then names numerically and without case', () => {
    const sorted = sortEntries([entry('b10.wav', 'blob'), entry('zeta', 'tree'), entry('B2.wav', 'blob'), entry('Alpha', 'tree')]);
    expect(sorted.map((e) => e.name)).toEqual(['Alpha', 'zeta', 'B2.wav', 'b10.wav']);
  });

  it('splits a path into its breadcrumb', () => {
    expect(breadcrumbOf('')).toEqual([]);
    expect(breadcrumbOf('stems/drums')).toEqual([
      { name: 'stems', path: 'stems' },
      { name: 'drums', path: 'stems/drums' },
    ]);
  });
});

describe('planFiles and defaultCommitMessage', () => {
  it('creates new files and updates existing ones, in the folder dropped on', () => {
    const planned = planFiles(['kick.wav', 'bass.wav'], 'stems', new Set(['stems/bass.wav']));
    expect(planned).toEqual([
      { source: 0, path: 'stems/kick.wav', action: 'create' },
      { source: 1, path: 'stems/bass.wav', action: 'update' },
    ]);
    expect(defaultCommitMessage(planned)).toBe('Add 1 stem, update 1');
  });

  it('keeps a name inside the folder and drops duplicates and empty names', () => {
    expect(planFiles(['../../etc/passwd', 'a\\b.wav', '..', 'x.wav', 'x.wav'], '', new Set())).toEqual([
      { source: 0, path: 'passwd', action: 'create' },
      { source: 1, path: 'b.wav', action: 'create' },
      { source: 3, path: 'x.wav', action: 'create' },
    ]);
  });

  it('suggests a message a producer would write', () => {
    expect(defaultCommitMessage(planFiles(['kick.wav', 'bass.wav'], '', new Set()))).toBe('Add 2 stems');
    expect(defaultCommitMessage(planFiles(['kick.wav'], 'stems', new Set()))).toBe('Add kick.wav');
    expect(defaultCommitMessage(planFiles(['kick.wav'], '', new Set(['kick.wav'])))).toBe('Update kick.wav');
    expect(defaultCommitMessage(planFiles(['a.wav', 'notes.txt'], '', new Set(['a.wav', 'notes.txt'])))).toBe('Update 2 files');
    expect(defaultCommitMessage([])).toBe('');
  });
});

describe('looksLikeText and base64Of', () => {
  it('tells text from binary', () => {
    expect(looksLikeText(new TextEncoder().encode('# Beat tape\nü and 🎹\n'))).toBe(true);
    expect(looksLikeText(Uint8Array.from([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0]))).toBe(false);
    expect(looksLikeText(Uint8Array.from([0xff, 0xfe, 0x41]))).toBe(false);
  });

  it('encodes bytes as standard base64, across chunk edges', () => {
    expect(base64Of(new TextEncoder().encode('Man'))).toBe('TWFu');
    const big = new Uint8Array(0x8000 * 2 + 7).map((_, i) => i % 251);
    expect(Buffer.from(base64Of(big), 'base64').equals(Buffer.from(big))).toBe(true);
  });
});
