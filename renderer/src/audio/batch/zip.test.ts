import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { buildZip } from './zip';

describe('buildZip', () => {
  it('round-trips names and bytes', () => {
    const a = new Uint8Array([82, 73, 70, 70, 1, 2, 3]);
    const b = new Uint8Array(70_000).map((_, i) => (i * 31) & 0xff);
    const zip = buildZip([
      { name: '01_percs_punchy.wav', data: a },
      { name: '02_bass_dark-sub.flac', data: b },
    ]);
    // A local file header starts the archive.
    expect(Array.from(zip.slice(0, 4))).toEqual([0x50, 0x4b, 0x03, 0x04]);
    const files = unzipSync(zip);
    expect(Object.keys(files).sort()).toEqual(['01_percs_punchy.wav', '02_bass_dark-sub.flac']);
    expect(files['01_percs_punchy.wav']).toEqual(a);
    expect(files['02_bass_dark-sub.flac']).toEqual(b);
  });

  it('stores the audio without compressing it', () => {
    const data = new Uint8Array(10_000); // zeros would compress to almost nothing
    expect(buildZip([{ name: 'x.wav', data }]).length).toBeGreaterThan(10_000);
  });

  it('refuses two entries with the same name', () => {
    const data = new Uint8Array(1);
    expect(() =>
      buildZip([
        { name: 'x.wav', data },
        { name: 'x.wav', data },
      ]),
    ).toThrow(/x\.wav/);
  });

  it('builds an empty archive', () => {
    expect(Object.keys(unzipSync(buildZip([])))).toEqual([]);
  });
});
