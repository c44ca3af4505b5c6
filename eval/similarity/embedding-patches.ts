/**
 * The training material of the timbre embedding (server/audio/dsp/timbre-embedding.ts): the mel patch
 * (server/audio/dsp/mel-patch.ts, the product's own code) of every labelled file of the training libraries
 * (fit.ts TRAINING_LIBRARIES) and of six more renders of the GM plan from the training font only (FluidR3, plan
 * variants 10–15: other registers, lengths, effects and loops; eval/real-audio/gm-render.ts). The held-out
 * libraries are never read. Writes `<cache>/embedding/patches.f32` (float32, 64 × 128 per file) and
 * `patches.json` (library, key, role, family per file, same order) for train-timbre-embedding.py.
 *
 *   CRATEHOUSE_REAL_AUDIO_CACHE=/path/to/cache npx tsx eval/similarity/embedding-patches.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readWavChunks, readWavInfo } from '../../server/audio/decode/wav-reader.js';
import { MEL_PATCH_BANDS, MEL_PATCH_FLOOR_DB, MEL_PATCH_FRAMES, MelPatchHead } from '../../server/audio/dsp/mel-patch.js';
import { renderGmFont } from '../real-audio/gm-render.js';
import { cacheDir, ensurePackage, requireCommand } from '../real-audio/packages.js';
import { loadLibrary } from '../real-audio/sets.js';
import { findFamily, type Family } from './families.js';
import { TRAINING_LIBRARIES } from './fit.js';

/** Plan variants rendered from FluidR3 for training only (the libraries use 0–6). */
const EXTRA_VARIANTS = [10, 11, 12, 13, 14, 15];

interface PatchRow {
  readonly library: string;
  readonly key: string;
  readonly role: string;
  readonly family: Family;
  readonly wav: string;
}

/** The mel patch of a WAV file's start, read as the analysis reads it (the channels' mean). */
async function readWavPatch(wav: string): Promise<Float32Array | null> {
  const info = await readWavInfo(wav);
  if (!info) throw new Error(`not a WAV: ${wav}`);
  const head = new MelPatchHead(info.sampleRate, info.channels);
  for await (const chunk of readWavChunks(wav, info)) {
    head.push(chunk);
    if (head.full) break;
  }
  return head.patch();
}

function trainingRows(): PatchRow[] {
  return TRAINING_LIBRARIES.flatMap((library) => loadLibrary(library).map((f) => ({ ...f, family: findFamily(library, f.key, f.rule) })));
}

function extraRows(): PatchRow[] {
  requireCommand('fluidsynth', 'fluidsynth');
  const font = path.join(ensurePackage('fluid-soundfont-gm').dir, 'usr/share/sounds/sf2/FluidR3_GM.sf2');
  return EXTRA_VARIANTS.flatMap((variant) => {
    const library = `gm-fluid-v${variant}`;
    return renderGmFont(font, path.join(cacheDir, 'embedding', library), variant).flatMap((r) =>
      r.wav && r.item.role
        ? [{ library, key: r.item.key, role: r.item.role, family: findFamily(library, r.item.key, r.rule), wav: r.wav }]
        : [],
    );
  });
}

async function main(): Promise<void> {
  const rows = [...trainingRows(), ...extraRows()];
  const size = MEL_PATCH_BANDS * MEL_PATCH_FRAMES;
  const all = new Float32Array(rows.length * size);
  for (let i = 0; i < rows.length; i++)
    all.set((await readWavPatch(rows[i]!.wav)) ?? new Float32Array(size).fill(MEL_PATCH_FLOOR_DB), i * size);
  const dir = path.join(cacheDir, 'embedding');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'patches.f32'), Buffer.from(all.buffer));
  writeFileSync(
    path.join(dir, 'patches.json'),
    JSON.stringify(rows.map(({ library, key, role, family }) => ({ library, key, role, family }))),
  );
  process.stdout.write(`${rows.length} patches in ${dir}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
