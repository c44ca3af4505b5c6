/**
 * The freepats library (Debian `freepats`: recorded GUS instrument patches) rendered with TiMidity++:
 * every patch that its own freepats.cfg maps is labelled by its instrument name (the patch file name)
 * with the role table of ../shared/reference/real-audio.md, then played with the item builders of
 * gm-plan.ts (notes, phrases, chords, hits, loops) and cut into one WAV per item (gm-render.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SampleRole } from '../../server/audio/engines/sample-role.js';
import { planAtmosItems, planBassItems, planDrumItems, planMelodicItems, type GmItem } from './gm-plan.js';
import { renderPlan, type RenderedItem } from './gm-render.js';

export interface FreepatsPatch {
  /** `drum` for the drum set (the number is the MIDI note), `tone` for bank 0 (the number is the GM program, 0-based). */
  readonly kind: 'drum' | 'tone';
  readonly number: number;
  /** Patch path relative to the freepats folder, e.g. `Tone_000/024_Nylon_Guitar.pat`. */
  readonly file: string;
  /** The instrument name: the file name without number and extension, e.g. `Nylon_Guitar`. */
  readonly name: string;
}

/** The patches a freepats.cfg maps (drumset 0 and bank 0). */
export function readFreepatsConfig(text: string): FreepatsPatch[] {
  const out: FreepatsPatch[] = [];
  let kind: 'drum' | 'tone' | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (/^drumset\s+0$/.test(line)) kind = 'drum';
    else if (/^bank\s+0$/.test(line)) kind = 'tone';
    else if (/^(drumset|bank)\b/.test(line)) kind = null;
    const m = /^(\d+)\s+(\S+\.pat)\b/.exec(line);
    if (!m || !kind) continue;
    const file = m[2]!;
    out.push({ kind, number: Number(m[1]), file, name: path.basename(file, '.pat').replace(/^\d+_/, '') });
  }
  return out;
}

// Drum-set names (role table: cymbals, hats, shakers, tambourines are tops; kicks, snares, claps, rims,
// toms, hand percussion, cowbells, woodblocks, claves are percs).
const DRUM_TOPS = /Hi-Hat|Cymbal|Tombourine|Tambourine|Cabasa|Maracas|Shaker/;
const DRUM_PERCS = /Kick|Snare|Clap|Snap|Sticks|Stick_Rim|Tom_|Bongo|Conga|Timbale|Cow_Bell|Agogo|Claves|Wood_Block/;
// Instrument names where two roles are reasonable (as in gm-plan.ts), or not in the role table.
const TONE_LEFT_OUT: Record<string, string> = {
  Timpani: 'pitched drum: percs or melodic',
  String_Ensemble_1_Marcato: 'string ensemble: melodic or atmos (string pad)',
  Voice_Oohs: 'voice oohs: melodic or atmos',
  Tuba: 'tuba plays in the bass register: bass or melodic',
  Guitar_Fret_Noise: 'fret noise: guitar (melodic) or FX (atmos)',
};

/** The role of a freepats patch from its instrument name (and, for synth pads and effects, its GM family). */
export function labelFreepatsPatch(p: FreepatsPatch): { role: SampleRole | null; rule: string } {
  const named = `freepats "${p.name}"`;
  if (p.kind === 'drum') {
    if (DRUM_TOPS.test(p.name)) return { role: 'tops', rule: `${named} (drum set note ${p.number}: hat/cymbal/shaker/tambourine) → tops` };
    if (DRUM_PERCS.test(p.name))
      return { role: 'percs', rule: `${named} (drum set note ${p.number}: kick/snare/clap/tom/hand percussion/cowbell/woodblock) → percs` };
    return {
      role: null,
      rule: `left out: ${named} (clicks, whistles, guiro, cuica, triangle, bell tree, vibraslap are not in the role table)`,
    };
  }
  const why = TONE_LEFT_OUT[p.name];
  if (why) return { role: null, rule: `left out: ${named}: ${why}` };
  if (/Wood_Block/.test(p.name)) return { role: 'percs', rule: `${named} (woodblock) → percs` };
  if (/Bass(?!oon)/.test(p.name)) return { role: 'bass', rule: `${named} (a bass instrument) → bass` };
  if (/Pad|New_Age|Seashore|Helicopter/.test(p.name))
    return { role: 'atmos', rule: `${named} (pad, noise bed or field recording) → atmos` };
  if (p.number >= 96 && p.number < 104)
    return { role: 'atmos', rule: `${named} (GM program ${p.number + 1}, synth effects family) → atmos` };
  return { role: 'melodic', rule: `${named} (GM program ${p.number + 1}: pitched instrument played as a part) → melodic` };
}

/** The render-plan variant freepats plays (the GM fonts play 0, 1 and 2). */
const VARIANT = 3;

const keyOf = (p: FreepatsPatch, suffix: string) => `${p.file.replace(/\.pat$/, '')}/${suffix}`;

/** The items rendered from freepats: the gm-plan builders for each labelled patch, labelled by its name. */
export function planFreepatsItems(patches: readonly FreepatsPatch[]): GmItem[] {
  const items: GmItem[] = [];
  const drumNotes = new Map<number, FreepatsPatch>();
  for (const p of patches) {
    const { role, rule } = labelFreepatsPatch(p);
    if (p.kind === 'drum') {
      drumNotes.set(p.number, p);
      for (const velocity of role ? [110, 72] : [])
        items.push({
          key: keyOf(p, `hit_v${velocity}`),
          role,
          rule,
          program: null,
          notes: [{ at: 0, note: p.number, velocity, length: 0.1 }],
          tail: role === 'tops' ? 3.5 : 1.4,
        });
      continue;
    }
    if (!role) {
      items.push({ key: keyOf(p, 'none'), role: null, rule, program: p.number, notes: [], tail: 0 });
      continue;
    }
    const plan =
      role === 'bass'
        ? planBassItems(p.number, VARIANT)
        : role === 'atmos'
          ? planAtmosItems(p.number, VARIANT)
          : role === 'melodic'
            ? planMelodicItems(p.number, VARIANT)
            : null;
    if (plan) for (const it of plan) items.push({ ...it, key: keyOf(p, it.key.replace(/^prog\d+_/, '')), role, rule });
    else
      for (const note of [60, 72])
        items.push({
          key: keyOf(p, `hit_${note}`),
          role,
          rule,
          program: p.number,
          notes: [{ at: 0, note, velocity: 105, length: 0.1 }],
          tail: 1,
        });
  }
  // The drum loops of the GM plan, where freepats has every drum they play; labelled as in gm-plan.ts.
  for (const loop of planDrumItems(VARIANT).filter((i) => i.key.startsWith('loop_'))) {
    if (loop.notes.every((n) => drumNotes.has(n.note)))
      items.push({ ...loop, key: `Drum_000/${loop.key}`, rule: `freepats drums: ${loop.rule}` });
  }
  return items;
}

/** A TiMidity++ configuration that maps only the unpacked freepats patches (the cfg's `dir` pointed at them). */
function writeTimidityConfig(pkgDir: string, file: string): void {
  const cfg = readFileSync(path.join(pkgDir, 'etc/timidity/freepats.cfg'), 'utf8');
  writeFileSync(file, cfg.replace(/^dir\s+\S+/m, `dir ${path.join(pkgDir, 'usr/share/midi/freepats')}`));
}

/** Render freepats (unpacked at `pkgDir`) into `outDir` with timidity (effect sends per item, as planned). */
export function renderFreepats(pkgDir: string, outDir: string): RenderedItem[] {
  const patches = readFreepatsConfig(readFileSync(path.join(pkgDir, 'etc/timidity/freepats.cfg'), 'utf8'));
  const cfg = path.join(outDir, '_freepats.cfg');
  return renderPlan(
    planFreepatsItems(patches),
    outDir,
    (mid, wav) => {
      writeTimidityConfig(pkgDir, cfg);
      // The system configuration is read first; ours maps every program and drum note we play, so each
      // item sounds from its freepats patch (programs we do not play may map elsewhere: never used).
      execFileSync('timidity', ['-c', cfg, '-Ow', '-o', wav, '-s', '44100', '--output-16bit', '--output-stereo', '-A', '100', mid], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    },
    { trimsLeadIn: true },
  );
}
