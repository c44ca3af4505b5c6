/**
 * What is rendered from each General MIDI sound font, and the label each render gets. Labels come from
 * the GM program family (0-based programs here: 32–39 bass; 0–31, 40–87 melodic; 88–103 atmos) and the
 * GM drum map on channel 10, as ../shared/reference/real-audio.md prescribes — never from our analysis.
 */
import type { SampleRole } from '../../server/audio/sample-analysis.js';
import { noteOff, noteOn, type MidiEvent } from './midi.js';

export interface GmItem {
  /** Label-file key, e.g. `prog024_note_64_v100`. */
  readonly key: string;
  readonly role: SampleRole | null;
  /** The rule that gave the label (or why the item is left out). */
  readonly rule: string;
  /** GM program (0-based), or null for the drum channel. */
  readonly program: number | null;
  /** Note events relative to the item's start, on channel 0 (moved to the item's channel when rendered). */
  readonly notes: readonly { at: number; note: number; velocity: number; length: number }[];
  /** Seconds kept after the last note ends (release). */
  readonly tail: number;
}

/** GM program names (0-based), for the label rules. */
const FAMILY = ['piano', 'chromatic percussion', 'organ', 'guitar', 'bass', 'strings', 'ensemble', 'brass', 'reed', 'pipe', 'synth lead', 'synth pad', 'synth effects'];

/** Programs left out, with the reason (both roles reasonable, or outside the prescribed families). */
const EXCLUDED: Record<number, string> = {
  43: 'contrabass plays in the bass register: bass or melodic',
  47: 'timpani: pitched drum, percs or melodic',
  48: 'string ensemble: melodic or atmos (string pad)',
  49: 'string ensemble: melodic or atmos (string pad)',
  50: 'synth strings: melodic or atmos (string pad)',
  51: 'synth strings: melodic or atmos (string pad)',
  52: 'choir aahs: melodic or atmos',
  53: 'voice oohs: melodic or atmos',
  54: 'synth voice: melodic or atmos',
  58: 'tuba plays in the bass register: bass or melodic',
};

const single = (note: number, velocity: number, length: number) => [{ at: 0, note, velocity, length }];
const phrase = (notes: readonly number[], step: number, velocity: number) => notes.map((note, i) => ({ at: i * step, note, velocity: velocity - (i % 2) * 12, length: step * 0.9 }));
const chord = (notes: readonly number[], velocity: number, length: number) => notes.map((note) => ({ at: 0, note, velocity, length }));

function melodicItems(p: number): GmItem[] {
  const rule = `GM program ${p + 1} (${FAMILY[p >> 3]}): melodic family`;
  const base = 60 + ((p * 5) % 12);
  const items: GmItem[] = [];
  const add = (suffix: string, notes: GmItem['notes'], tail = 0.6) => items.push({ key: `prog${String(p).padStart(3, '0')}_${suffix}`, role: 'melodic', rule, program: p, notes, tail });
  const kind = p % 3;
  if (kind === 0) add(`note_${base}_v100`, single(base, 100, 1.2));
  if (kind === 1) add(`phrase_${base}`, phrase([base, base + 4, base + 7, base + 12, base + 7, base + 4], 0.25, 100));
  if (kind === 2) add(`chord_${base}`, chord([base, base + 4, base + 7], 96, 1.5));
  if (p % 2 === 0) add(`note_${base + 12}_v70`, single(base + 12, 70, 0.8));
  else add(`phrase_minor_${base - 5}`, phrase([base - 5, base - 2, base, base + 3, base + 7], 0.2, 90));
  // Long parts too, so that length alone does not separate melodic from atmos.
  if (p % 2 === 0) add(`long_phrase_${base}`, phrase([base, base + 2, base + 4, base + 7, base + 9, base + 7, base + 4, base + 2, base], 0.4, 96), 1.0);
  else add(`long_chord_${base - 5}`, chord([base - 5, base - 1, base + 2], 92, 3.5), 1.0);
  return items;
}

function bassItems(p: number): GmItem[] {
  const rule = `GM program ${p + 1} (bass family)`;
  const key = (s: string) => `prog${String(p).padStart(3, '0')}_${s}`;
  const items: GmItem[] = [28, 33, 40, 45].map((note, i) => ({
    key: key(`note_${note}_v${i % 2 ? 70 : 110}`),
    role: 'bass',
    rule,
    program: p,
    notes: single(note, i % 2 ? 70 : 110, 1.0),
    tail: 0.5,
  }));
  const root = 31 + (p % 5);
  items.push({ key: key(`line_${root}`), role: 'bass', rule, program: p, notes: phrase([root, root, root + 7, root + 10, root + 12, root + 10, root + 7, root + 5], 0.25, 105), tail: 0.4 });
  items.push({ key: key(`long_note_${root + 5}`), role: 'bass', rule, program: p, notes: single(root + 5, 100, 3.5), tail: 0.8 });
  items.push({ key: key(`long_line_${root}`), role: 'bass', rule, program: p, notes: phrase([root, root + 3, root + 5, root + 7, root + 5, root + 3, root, root - 2, root, root + 3, root + 5, root + 10], 0.375, 100), tail: 0.5 });
  return items;
}

function atmosItems(p: number): GmItem[] {
  const rule = p < 96 ? `GM program ${p + 1} (synth pad family)` : `GM program ${p + 1} (synth effects family)`;
  const key = (s: string) => `prog${String(p).padStart(3, '0')}_${s}`;
  const base = 48 + ((p * 7) % 12);
  return [
    { key: key(`long_chord_${base}`), role: 'atmos', rule, program: p, notes: chord([base, base + 7, base + 16], 90, 4), tail: 1.5 },
    { key: key(`long_note_${base + 12}`), role: 'atmos', rule, program: p, notes: single(base + 12, 100, 3), tail: 1.5 },
    { key: key(`short_note_${base + 5}`), role: 'atmos', rule, program: p, notes: single(base + 5, 90, 1.5), tail: 0.8 },
  ];
}

/** GM drum-map notes (channel 10) and their role. */
const DRUMS: readonly (readonly [number, string, SampleRole])[] = [
  [35, 'acoustic bass drum', 'percs'], [36, 'bass drum 1', 'percs'], [37, 'side stick', 'percs'], [38, 'acoustic snare', 'percs'],
  [39, 'hand clap', 'percs'], [40, 'electric snare', 'percs'], [41, 'low floor tom', 'percs'], [43, 'high floor tom', 'percs'],
  [45, 'low tom', 'percs'], [47, 'low-mid tom', 'percs'], [48, 'hi-mid tom', 'percs'], [50, 'high tom', 'percs'],
  [56, 'cowbell', 'percs'], [60, 'hi bongo', 'percs'], [61, 'low bongo', 'percs'], [62, 'mute hi conga', 'percs'],
  [63, 'open hi conga', 'percs'], [64, 'low conga', 'percs'], [65, 'high timbale', 'percs'], [66, 'low timbale', 'percs'],
  [75, 'claves', 'percs'], [76, 'hi wood block', 'percs'], [77, 'low wood block', 'percs'],
  [42, 'closed hi-hat', 'tops'], [44, 'pedal hi-hat', 'tops'], [46, 'open hi-hat', 'tops'], [49, 'crash cymbal 1', 'tops'],
  [51, 'ride cymbal 1', 'tops'], [52, 'chinese cymbal', 'tops'], [53, 'ride bell', 'tops'], [54, 'tambourine', 'tops'],
  [55, 'splash cymbal', 'tops'], [57, 'crash cymbal 2', 'tops'], [59, 'ride cymbal 2', 'tops'], [69, 'cabasa', 'tops'], [70, 'maracas', 'tops'],
];

function drumItems(): GmItem[] {
  const items: GmItem[] = [];
  for (const [note, name, role] of DRUMS) {
    for (const velocity of note === 36 || note === 38 || note === 42 ? [110, 70] : [105]) {
      // Cymbals and open hats ring for seconds: give them room.
      const tail = /cymbal|ride|open hi-hat/.test(name) ? 3.5 : 1.4;
      items.push({ key: `drum_${note}_v${velocity}`, role, rule: `GM drum map note ${note} (${name}) → ${role}`, program: null, notes: single(note, velocity, 0.1), tail });
    }
  }
  // Two-bar loops: kick + snare + hats are percs (a drum loop); hats or shakers alone are tops.
  for (const bpm of [90, 124, 150, 172]) {
    const beat = 60 / bpm;
    const notes: { at: number; note: number; velocity: number; length: number }[] = [];
    const steps = bpm === 150 ? 8 : 16;
    for (let i = 0; i < steps; i++) {
      const at = (i * beat) / 2;
      notes.push({ at, note: 42, velocity: i % 2 ? 70 : 95, length: 0.05 });
      if (i % 8 === 0 || i % 8 === 5) notes.push({ at, note: 36, velocity: 115, length: 0.1 });
      if (i % 4 === 2) notes.push({ at, note: 38, velocity: 110, length: 0.1 });
    }
    items.push({ key: `loop_drums_${bpm}`, role: 'percs', rule: 'GM drum loop with kick and snare → percs', program: null, notes, tail: 0.3 });
  }
  // Hand-percussion loops (congas, bongos, woodblock: no hats) are percs.
  for (const [bpm, a, b] of [[105, 62, 64], [118, 60, 61], [132, 76, 63]] as const) {
    const beat = 60 / bpm;
    const notes = Array.from({ length: 16 }, (_, i) => ({ at: (i * beat) / 2, note: i % 3 === 0 ? b : a, velocity: i % 4 === 0 ? 110 : 80, length: 0.08 }));
    items.push({ key: `loop_hand_${bpm}`, role: 'percs', rule: 'GM hand-percussion loop (congas, bongos, woodblocks) → percs', program: null, notes, tail: 0.4 });
  }
  for (const [bpm, note] of [[100, 42], [128, 70], [140, 46], [120, 54], [96, 69]] as const) {
    const beat = 60 / bpm;
    const notes = Array.from({ length: 16 }, (_, i) => ({ at: (i * beat) / 2, note: note === 46 && i % 2 ? 42 : note, velocity: i % 2 ? 72 : 100, length: 0.05 }));
    items.push({ key: `loop_tops_${bpm}_${note}`, role: 'tops', rule: 'GM top loop (hats/shakers only, no kick or snare) → tops', program: null, notes, tail: 0.3 });
  }
  return items;
}

/** Every item rendered from one GM sound font (the same plan for each font). */
export function planGmItems(): GmItem[] {
  const items: GmItem[] = [];
  // Reverse cymbal (a riser) and the noise-bed sound effects are atmos by the role table.
  for (const [p, what] of [[119, 'reverse cymbal (riser)'], [122, 'seashore (noise bed)'], [125, 'helicopter (field recording)'], [126, 'applause (noise bed)']] as const) {
    const rule = `GM program ${p + 1}: ${what} → atmos (role table: risers, noise beds, field recordings)`;
    items.push({ key: `prog${p}_long_note_60`, role: 'atmos', rule, program: p, notes: single(60, 100, 3), tail: 0.8 });
    items.push({ key: `prog${p}_note_48_v80`, role: 'atmos', rule, program: p, notes: single(48, 80, 1.8), tail: 0.5 });
  }
  for (let p = 0; p < 104; p++) {
    if (EXCLUDED[p] !== undefined) {
      items.push({ key: `prog${String(p).padStart(3, '0')}`, role: null, rule: EXCLUDED[p]!, program: p, notes: [], tail: 0 });
      continue;
    }
    if (p >= 32 && p < 40) items.push(...bassItems(p));
    else if (p >= 88) items.push(...atmosItems(p));
    else items.push(...melodicItems(p));
  }
  items.push(...drumItems());
  return items;
}

/** The events of an item placed at `start` seconds on `channel`. */
export function itemEvents(item: GmItem, start: number, channel: number): MidiEvent[] {
  return item.notes.flatMap((n) => [noteOn(start + n.at, channel, n.note, n.velocity), noteOff(start + n.at + n.length, channel, n.note)]);
}

/** Seconds from the item's start to the end of its tail. */
export const itemLength = (item: GmItem): number => Math.max(0, ...item.notes.map((n) => n.at + n.length)) + item.tail;
