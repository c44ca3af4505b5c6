import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { drumLoop } from './test-support/drums.js';
import { encodeWav } from './test-support/signals.js';

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runCli(args, {}, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

describe('cratehouse analyze', () => {
  it('analyses a folder on both cores, reports bad files in their row, and copies renamed files', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-batch-'));
    const sr = 44_100;
    const loop = drumLoop({ bpm: 124, bars: 4, sampleRate: sr, pattern: 'straight8' });
    await writeFile(path.join(dir, 'a-loop.wav'), encodeWav([...loop.channels], sr));
    const sub = Float32Array.from({ length: sr * 2 }, (_, i) => 0.6 * Math.sin((2 * Math.PI * 45 * i) / sr));
    await writeFile(path.join(dir, 'b-sub.wav'), encodeWav([sub], sr));
    await writeFile(path.join(dir, 'c-broken.wav'), Buffer.from('RIFF this is not really audio at all'));
    await writeFile(path.join(dir, 'notes.txt'), 'ignored: not an audio extension');
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'cratehouse-renamed-')), 'renamed');

    const json = await cli(['analyze', dir, '--json', '--rename-to', out]);
    expect(json.code).toBe(1); // one file failed
    const rows = JSON.parse(json.out) as {
      file: string;
      role: string | null;
      tier: string | null;
      lufs: number | null;
      clip_lufs: number | null;
      tempo_bpm: number | null;
      name: string | null;
      error: string | null;
    }[];
    expect(rows.map((r) => path.basename(r.file))).toEqual(['a-loop.wav', 'b-sub.wav', 'c-broken.wav']);
    expect(rows[0]).toMatchObject({ role: 'percs', error: null });
    expect(Math.abs(rows[0]!.tempo_bpm! - 124)).toBeLessThan(124 * 0.02);
    expect(rows[0]!.name).toMatch(/^01_percs_/);
    expect(rows[1]).toMatchObject({ role: 'bass', error: null });
    expect(rows[1]!.name).toMatch(/^02_bass_/);
    // A steady 2 s sine: the ungated clip loudness equals the integrated loudness (both exist).
    expect(Math.abs(rows[1]!.clip_lufs! - rows[1]!.lufs!)).toBeLessThanOrEqual(0.1);
    expect(rows[2]!.error).toMatch(/could not be decoded/);
    expect(rows.map((r) => (r as { copied_to?: string }).copied_to)).toEqual([
      path.join(out, `${rows[0]!.name}.wav`),
      path.join(out, `${rows[1]!.name}.wav`),
      undefined,
    ]);
    // Good files copied under their suggested names, originals untouched.
    expect((await readdir(out)).sort()).toEqual([`${rows[0]!.name}.wav`, `${rows[1]!.name}.wav`].sort());
    expect(await readFile(path.join(out, `${rows[1]!.name}.wav`))).toEqual(await readFile(path.join(dir, 'b-sub.wav')));

    const csv = await cli(['analyze', path.join(dir, 'b-sub.wav'), '--csv']);
    expect(csv.code).toBe(0);
    const [header, line] = csv.out.split('\n');
    expect(header).toBe('file,role,tier,lufs,clip_lufs,true_peak_dbtp,tempo_bpm,key,name,error');
    expect(line!.split(',')[1]).toBe('bass');

    // Renaming the same batch again never overwrites: the same names get a suffix.
    await cli(['analyze', dir, '--json', '--rename-to', out]);
    expect((await readdir(out)).sort()).toEqual(
      [`${rows[0]!.name}.wav`, `${rows[0]!.name}-2.wav`, `${rows[1]!.name}.wav`, `${rows[1]!.name}-2.wav`].sort(),
    );
  }, 60_000);
});
