/**
 * npm run eval:sets [-- library…]: build the labelled development sets from Debian packages into
 * .cache/real-audio/sets/<library>/ (WAV) and write eval/labels/<library>.tsv. Needs apt-get, dpkg,
 * ffmpeg, fluidsynth and timidity (apt-get install -y ffmpeg fluidsynth timidity).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { renderFreepats } from './freepats.js';
import { renderDrumKit, renderGmFont } from './gm-render.js';
import { labelHydrogenKits } from './hydrogen.js';
import { convertToWav, ensurePackage, requireCommand, safeName } from './packages.js';
import { LIBRARIES, wavDir, writeLabels, type LabelRow } from './sets.js';
import { labelSonicPiSample } from './sonic-pi.js';

/** Each font with its own variant of the render plan (gm-plan.ts), so that no two fonts play the same notes the same way. */
const FONTS: Record<string, [string, string, number]> = {
  'gm-fluid': ['fluid-soundfont-gm', 'usr/share/sounds/sf2/FluidR3_GM.sf2', 0],
  'gm-timgm6mb': ['timgm6mb-soundfont', 'usr/share/sounds/sf2/TimGM6mb.sf2', 1],
  'gm-musescore': ['musescore-general-soundfont-small', 'usr/share/sounds/sf3/MuseScore_General_Lite.sf3', 2],
};

/** avldrums' two recorded kits, each with its own variant of the drum plan (5, 6: after the fonts' 0–2 and freepats' 3). */
const KITS: readonly [string, string, number][] = [
  ['black-pearl', 'usr/share/sounds/sf2/Black_Pearl_4_LV2.sf2', 5],
  ['red-zeppelin', 'usr/share/sounds/sf2/Red_Zeppelin_4_LV2.sf2', 6],
];

/** Build one library; returns the label rows written. */
export function buildLibrary(id: string): LabelRow[] {
  const out = wavDir(id);
  const rows: LabelRow[] = [];
  if (id === 'sonic-pi') {
    const pkg = ensurePackage('sonic-pi-samples');
    const dir = path.join(pkg.dir, 'usr/share/sonic-pi/samples');
    for (const f of readdirSync(dir)
      .filter((f) => f.endsWith('.flac'))
      .sort()) {
      const label = labelSonicPiSample(f.replace(/\.flac$/, ''));
      if (label.role) convertToWav(path.join(dir, f), path.join(out, safeName(f)));
      rows.push({ file: f, role: label.role, rule: label.rule });
    }
  } else if (id === 'hydrogen') {
    const pkg = ensurePackage('hydrogen-drumkits');
    for (const h of labelHydrogenKits(path.join(pkg.dir, 'usr/share/hydrogen/data/drumkits'))) {
      if (h.role) convertToWav(h.file, path.join(out, safeName(h.key)));
      rows.push({ file: h.key, role: h.role, rule: h.rule });
    }
  } else if (FONTS[id]) {
    requireCommand('fluidsynth', 'fluidsynth');
    const [name, rel, variant] = FONTS[id]!;
    const pkg = ensurePackage(name);
    for (const r of renderGmFont(path.join(pkg.dir, rel), out, variant))
      rows.push({ file: r.item.key, role: r.wav ? r.item.role : null, rule: r.rule });
  } else if (id === 'avldrums') {
    requireCommand('fluidsynth', 'fluidsynth');
    const pkg = ensurePackage('avldrums.lv2-soundfont');
    for (const [kit, rel, variant] of KITS)
      for (const r of renderDrumKit(path.join(pkg.dir, rel), out, variant, kit))
        rows.push({ file: r.item.key, role: r.wav ? r.item.role : null, rule: r.rule });
  } else if (id === 'freepats') {
    requireCommand('timidity', 'timidity');
    const pkg = ensurePackage('freepats');
    for (const r of renderFreepats(pkg.dir, out)) rows.push({ file: r.item.key, role: r.wav ? r.item.role : null, rule: r.rule });
  } else throw new Error(`unknown library ${id}`);
  writeLabels(id, rows);
  return rows;
}

function main(): void {
  requireCommand('ffmpeg', 'ffmpeg');
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  for (const lib of LIBRARIES) {
    if (wanted.length && !wanted.includes(lib.id)) continue;
    const t = performance.now();
    const rows = buildLibrary(lib.id);
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.role ?? 'left out'] = (counts[r.role ?? 'left out'] ?? 0) + 1;
    process.stdout.write(`${lib.id}: ${JSON.stringify(counts)} (${((performance.now() - t) / 1000).toFixed(1)} s)\n`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) main();
