import { describe, expect, it } from 'vitest';
import { absolutePath, BadIpcArguments, renamedCopiesArgs } from './validate.js';

describe('IPC argument checks', () => {
  it('accepts absolute paths only', () => {
    expect(absolutePath('/home/me/loops', 'folder')).toBe('/home/me/loops');
    for (const bad of ['loops', '', 5, null, '/tmp/a\0b']) expect(() => absolutePath(bad, 'folder')).toThrow(BadIpcArguments);
  });

  it('checks every renamed copy before anything is written', () => {
    expect(renamedCopiesArgs('/out', [{ sourcePath: '/in/a.wav', newName: '01_bass.wav' }], 'copy')).toEqual({
      folder: '/out',
      copies: [{ sourcePath: '/in/a.wav', newName: '01_bass.wav' }],
      mode: 'copy',
    });
    expect(() => renamedCopiesArgs('/out', [], 'copy')).toThrow('non-empty');
    expect(() => renamedCopiesArgs('/out', [{ sourcePath: 'relative.wav', newName: 'x.wav' }], 'copy')).toThrow("copy 1's source");
    expect(() => renamedCopiesArgs('/out', [{ sourcePath: '/in/a.wav' }], 'copy')).toThrow('no new name');
    expect(() => renamedCopiesArgs('/out', [{ sourcePath: '/in/a.wav', newName: 'x.wav' }], 'delete')).toThrow('mode');
  });
});
