import { describe, expect, it } from 'vitest';
import { extensionOf, gitattributesTracking, lfsOidOf, lfsPointerText } from './lfs-plan';

describe('gitattributesTracking', () => {
  it('writes what `git lfs track "*.wav"` writes when there is no .gitattributes', () => {
    expect(gitattributesTracking(undefined, ['kick.wav', 'bass.wav'])).toBe('*.wav filter=lfs diff=lfs merge=lfs -text\n');
  });

  it('adds one line per missing extension and keeps the existing lines', () => {
    expect(gitattributesTracking('*.psd binary', ['a.wav', 'b.AIFF', 'c.wav'])).toBe(
      '*.psd binary\n*.wav filter=lfs diff=lfs merge=lfs -text\n*.AIFF filter=lfs diff=lfs merge=lfs -text\n',
    );
  });

  it('changes nothing when the extension is already tracked', () => {
    expect(gitattributesTracking('# stems\n*.wav filter=lfs diff=lfs merge=lfs -text\n', ['kick.wav'])).toBeUndefined();
  });

  it('tracks again an extension a later line untracked, and does not read other attributes as LFS', () => {
    expect(gitattributesTracking('*.wav filter=lfs\n*.wav -filter\n', ['x.wav'])).toBe(
      '*.wav filter=lfs\n*.wav -filter\n*.wav filter=lfs diff=lfs merge=lfs -text\n',
    );
    expect(gitattributesTracking('*.wav diff=lfs -text\n', ['x.wav'])).toBe(
      '*.wav diff=lfs -text\n*.wav filter=lfs diff=lfs merge=lfs -text\n',
    );
  });

  it('reads the extension as git matches it: case kept, none for dot files', () => {
    expect(extensionOf('Kick.WAV')).toBe('WAV');
    expect(extensionOf('.hidden')).toBeUndefined();
    expect(extensionOf('noext')).toBeUndefined();
  });
});

describe('LFS pointer and oid', () => {
  it('formats the pointer as the git-lfs spec example', () => {
    // The example of git-lfs docs/spec.md.
    expect(lfsPointerText({ oid: '4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393', size: 12345 })).toBe(
      'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n',
    );
  });

  it('hashes with sha256 (FIPS 180-2 test vector "abc")', async () => {
    expect(await lfsOidOf(new Blob(['abc']))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
