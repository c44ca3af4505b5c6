/**
 * What is rendered from each General MIDI sound font, and the label each render gets. Labels come from
 * the GM program family (0-based programs here: 32–39 bass; 0–31, 40–87 melodic; 88–103 atmos) and the
 * GM drum map on channel 10, as ../shared/reference/real-audio.md prescribes — never from our analysis.
 */
import type { SampleRole } from '../../server/audio/engines/sample-role.js';
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
  /** Effect sends and level (absent: dry, level unchanged). */
  readonly render?: ItemRender;
}

/** GM program names (0-based), for the label rules. */
const FAMILY = [
  'piano',
  'chromatic percussion',
  'organ',
  'guitar',
  'bass',
  'strings',
  'ensemble',
  'brass',
  'reed',
  'pipe',
  'synth lead',
  'synth pad',
  'synth effects',
];

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
const phrase = (notes: readonly number[], step: number, velocity: number) =>
  notes.map((note, i) => ({ at: r3(i * step), note, velocity: velocity - (i % 2) * 12, length: r3(step * 0.9) }));
const chord = (notes: readonly number[], velocity: number, length: number) => notes.map((note) => ({ at: 0, note, velocity, length }));
/** A phrase played `times` times in a row: a loop (its halves alike), as sample packs cut them. */
const loop = (notes: readonly number[], step: number, velocity: number, times: number) =>
  Array.from({ length: times }, (_, k) =>
    phrase(notes, step, velocity).map((n) => ({ ...n, at: r3(n.at + k * notes.length * step) })),
  ).flat();
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A deterministic pseudo-random stream (mulberry32) per variant and program: each sound font gets its own
 * registers, velocities, note lengths, effects and levels, so the fonts' renders are not one plan four times.
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How an item is rendered beyond its notes: effect sends (MIDI CC 91, 93) and a level change after rendering. */
export interface ItemRender {
  readonly reverb: number;
  readonly chorus: number;
  readonly gainDb: number;
}

/** Variant 0 is the original plan's render (dry, level unchanged); other variants draw sends and level per item. */
function drawRender(r: () => number, variant: number): ItemRender {
  if (variant === 0) return { reverb: 0, chorus: 0, gainDb: 0 };
  const wet = r() < 0.3;
  return {
    reverb: wet ? 30 + Math.floor(r() * 90) : 0,
    chorus: wet && r() < 0.5 ? 40 + Math.floor(r() * 60) : 0,
    gainDb: -Math.round(r() * 180) / 10,
  };
}

/** Melodic-family items of GM program p (variant 0: the original plan; others: drawn registers, velocities, lengths, loops). */
export function planMelodicItems(p: number, variant = 0): GmItem[] {
  const rule = `GM program ${p + 1} (${FAMILY[p >> 3] ?? 'outside the GM families'}): melodic family`;
  const r = seeded(variant * 1009 + p);
  const v0 = variant === 0;
  // Registers from C3 to B5 in the variants (the original plan: C4 to B4).
  const base = v0 ? 60 + ((p * 5) % 12) : 48 + Math.floor(r() * 30);
  const vel = (d: number) => (v0 ? d : 50 + Math.floor(r() * 75));
  const len = (d: number, lo: number, hi: number) => (v0 ? d : r3(lo + r() * (hi - lo)));
  const items: GmItem[] = [];
  const add = (suffix: string, notes: GmItem['notes'], tail = 0.6) =>
    items.push({
      key: `prog${String(p).padStart(3, '0')}_${suffix}`,
      role: 'melodic',
      rule,
      program: p,
      notes,
      tail,
      render: drawRender(r, variant),
    });
  const kind = (p + variant) % 3;
  if (kind === 0) add(`note_${base}_v100`, single(base, vel(100), len(1.2, 0.15, 2.5)));
  if (kind === 1) add(`phrase_${base}`, phrase([base, base + 4, base + 7, base + 12, base + 7, base + 4], len(0.25, 0.1, 0.4), vel(100)));
  if (kind === 2) add(`chord_${base}`, chord([base, base + 4, base + 7], vel(96), len(1.5, 0.2, 2.5)));
  if ((p + variant) % 2 === 0) add(`note_${base + 12}_v70`, single(base + 12, vel(70), len(0.8, 0.1, 1.5)));
  else add(`phrase_minor_${base - 5}`, phrase([base - 5, base - 2, base, base + 3, base + 7], len(0.2, 0.1, 0.35), vel(90)));
  // Long parts too, so that length alone does not separate melodic from atmos.
  if ((p + variant) % 2 === 0)
    add(
      `long_phrase_${base}`,
      phrase([base, base + 2, base + 4, base + 7, base + 9, base + 7, base + 4, base + 2, base], len(0.4, 0.25, 0.6), vel(96)),
      1.0,
    );
  else add(`long_chord_${base - 5}`, chord([base - 5, base - 1, base + 2], vel(92), len(3.5, 2, 5)), 1.0);
  // Loops (a riff played twice, cut at its end) in the variants: pack loops are not all one-shots.
  if (!v0 && r() < 0.6)
    add(
      `loop_${base}`,
      loop(
        [base, base + 7, base + 3, base + 10].slice(0, 2 + Math.floor(r() * 3)),
        len(0.25, 0.12, 0.3),
        vel(100),
        2 + Math.floor(r() * 3),
      ),
      0.05,
    );
  return items;
}

/** Bass-family items of GM program p (variant 0: the original plan). */
export function planBassItems(p: number, variant = 0): GmItem[] {
  const rule = `GM program ${p + 1} (bass family)`;
  const r = seeded(variant * 2003 + p);
  const v0 = variant === 0;
  const key = (s: string) => `prog${String(p).padStart(3, '0')}_${s}`;
  const notes = v0 ? [28, 33, 40, 45] : [0, 1, 2, 3].map((i) => 26 + i * 5 + Math.floor(r() * 5));
  const items: GmItem[] = notes.map((note, i) => {
    const velocity = v0 ? (i % 2 ? 70 : 110) : 55 + Math.floor(r() * 70);
    return {
      key: key(`note_${note}_v${velocity}`),
      role: 'bass',
      rule,
      program: p,
      notes: single(note, velocity, v0 ? 1.0 : r3(0.15 + r() * 1.8)),
      tail: 0.5,
      render: drawRender(r, variant),
    };
  });
  const root = v0 ? 31 + (p % 5) : 28 + Math.floor(r() * 9);
  const step = v0 ? 0.25 : r3(0.12 + r() * 0.3);
  items.push({
    key: key(`line_${root}`),
    role: 'bass',
    rule,
    program: p,
    notes: phrase([root, root, root + 7, root + 10, root + 12, root + 10, root + 7, root + 5], step, 105),
    tail: 0.4,
    render: drawRender(r, variant),
  });
  items.push({
    key: key(`long_note_${root + 5}`),
    role: 'bass',
    rule,
    program: p,
    notes: single(root + 5, 100, v0 ? 3.5 : r3(2 + r() * 3)),
    tail: 0.8,
    render: drawRender(r, variant),
  });
  items.push({
    key: key(`long_line_${root}`),
    role: 'bass',
    rule,
    program: p,
    notes: phrase(
      [root, root + 3, root + 5, root + 7, root + 5, root + 3, root, root - 2, root, root + 3, root + 5, root + 10],
      v0 ? 0.375 : r3(0.2 + r() * 0.3),
      100,
    ),
    tail: 0.5,
    render: drawRender(r, variant),
  });
  if (!v0)
    items.push({
      key: key(`loop_${root}`),
      role: 'bass',
      rule,
      program: p,
      notes: loop([root, root, root + 12, root + 7], r3(0.15 + r() * 0.15), 110, 4),
      tail: 0.05,
      render: drawRender(r, variant),
    });
  return items;
}

/** Pad and synth-effect items of GM program p (variant 0: the original plan). */
export function planAtmosItems(p: number, variant = 0): GmItem[] {
  const rule = p < 96 ? `GM program ${p + 1} (synth pad family)` : `GM program ${p + 1} (synth effects family)`;
  const r = seeded(variant * 3001 + p);
  const v0 = variant === 0;
  const key = (s: string) => `prog${String(p).padStart(3, '0')}_${s}`;
  const base = v0 ? 48 + ((p * 7) % 12) : 40 + Math.floor(r() * 30);
  const vel = (d: number) => (v0 ? d : 60 + Math.floor(r() * 60));
  const len = (d: number, lo: number, hi: number) => (v0 ? d : r3(lo + r() * (hi - lo)));
  return [
    {
      key: key(`long_chord_${base}`),
      role: 'atmos',
      rule,
      program: p,
      notes: chord([base, base + 7, base + 16], vel(90), len(4, 2.5, 7)),
      tail: 1.5,
      render: drawRender(r, variant),
    },
    {
      key: key(`long_note_${base + 12}`),
      role: 'atmos',
      rule,
      program: p,
      notes: single(base + 12, vel(100), len(3, 2, 6)),
      tail: 1.5,
      render: drawRender(r, variant),
    },
    {
      key: key(`short_note_${base + 5}`),
      role: 'atmos',
      rule,
      program: p,
      notes: single(base + 5, vel(90), len(1.5, 0.8, 2)),
      tail: 0.8,
      render: drawRender(r, variant),
    },
  ];
}

/** GM drum-map notes (channel 10) and their role. */
const DRUMS: readonly (readonly [number, string, SampleRole])[] = [
  [35, 'acoustic bass drum', 'percs'],
  [36, 'bass drum 1', 'percs'],
  [37, 'side stick', 'percs'],
  [38, 'acoustic snare', 'percs'],
  [39, 'hand clap', 'percs'],
  [40, 'electric snare', 'percs'],
  [41, 'low floor tom', 'percs'],
  [43, 'high floor tom', 'percs'],
  [45, 'low tom', 'percs'],
  [47, 'low-mid tom', 'percs'],
  [48, 'hi-mid tom', 'percs'],
  [50, 'high tom', 'percs'],
  [56, 'cowbell', 'percs'],
  [60, 'hi bongo', 'percs'],
  [61, 'low bongo', 'percs'],
  [62, 'mute hi conga', 'percs'],
  [63, 'open hi conga', 'percs'],
  [64, 'low conga', 'percs'],
  [65, 'high timbale', 'percs'],
  [66, 'low timbale', 'percs'],
  [75, 'claves', 'percs'],
  [76, 'hi wood block', 'percs'],
  [77, 'low wood block', 'percs'],
  [42, 'closed hi-hat', 'tops'],
  [44, 'pedal hi-hat', 'tops'],
  [46, 'open hi-hat', 'tops'],
  [49, 'crash cymbal 1', 'tops'],
  [51, 'ride cymbal 1', 'tops'],
  [52, 'chinese cymbal', 'tops'],
  [53, 'ride bell', 'tops'],
  [54, 'tambourine', 'tops'],
  [55, 'splash cymbal', 'tops'],
  [57, 'crash cymbal 2', 'tops'],
  [59, 'ride cymbal 2', 'tops'],
  [69, 'cabasa', 'tops'],
  [70, 'maracas', 'tops'],
];

/** Drum-map hits and loops on channel 10 (variant 0: the original plan; others: drawn velocities, tempi, patterns, sends). */
export function planDrumItems(variant = 0): GmItem[] {
  const r = seeded(variant * 4001 + 9);
  const v0 = variant === 0;
  const items: GmItem[] = [];
  for (const [note, name, role] of DRUMS) {
    const velocities = v0
      ? note === 36 || note === 38 || note === 42
        ? [110, 70]
        : [105]
      : [95 + Math.floor(r() * 33), 40 + Math.floor(r() * 45)];
    for (const velocity of velocities) {
      // Cymbals and open hats ring for seconds: give them room.
      const tail = /cymbal|ride|open hi-hat/.test(name) ? 3.5 : 1.4;
      items.push({
        key: `drum_${note}_v${velocity}`,
        role,
        rule: `GM drum map note ${note} (${name}) → ${role}`,
        program: null,
        notes: single(note, velocity, 0.1),
        tail,
        render: drawRender(r, variant),
      });
    }
  }
  const shift = v0 ? 0 : variant * 7;
  // Two-bar loops: kick + snare + hats are percs (a drum loop); hats or shakers alone are tops.
  for (const bpm0 of [90, 124, 150, 172]) {
    const bpm = bpm0 + shift;
    const beat = 60 / bpm;
    const notes: { at: number; note: number; velocity: number; length: number }[] = [];
    const steps = bpm0 === 150 ? 8 : 16;
    const hat = !v0 && r() < 0.4 ? 51 : 42; // ride instead of hats in some variants' loops
    for (let i = 0; i < steps; i++) {
      const at = r3((i * beat) / 2);
      notes.push({ at, note: hat, velocity: i % 2 ? 70 : 95, length: 0.05 });
      if (i % 8 === 0 || i % 8 === 5) notes.push({ at, note: 36, velocity: 115, length: 0.1 });
      if (i % 4 === 2) notes.push({ at, note: !v0 && i % 8 === 6 && r() < 0.5 ? 39 : 38, velocity: 110, length: 0.1 });
      if (!v0 && i % 4 === 3 && r() < 0.3) notes.push({ at, note: 38, velocity: 45, length: 0.05 }); // ghost notes
    }
    items.push({
      key: `loop_drums_${bpm}${hat === 51 ? '_ride' : ''}`,
      role: 'percs',
      rule: 'GM drum loop with kick and snare → percs',
      program: null,
      notes,
      tail: 0.3,
      render: drawRender(r, variant),
    });
  }
  // Hand-percussion loops (congas, bongos, woodblock: no hats) are percs.
  for (const [bpm0, a, b] of [
    [105, 62, 64],
    [118, 60, 61],
    [132, 76, 63],
  ] as const) {
    const bpm = bpm0 + shift;
    const beat = 60 / bpm;
    const notes = Array.from({ length: 16 }, (_, i) => ({
      at: r3((i * beat) / 2),
      note: i % 3 === 0 ? b : a,
      velocity: i % 4 === 0 ? 110 : 80,
      length: 0.08,
    }));
    items.push({
      key: `loop_hand_${bpm}`,
      role: 'percs',
      rule: 'GM hand-percussion loop (congas, bongos, woodblocks) → percs',
      program: null,
      notes,
      tail: 0.4,
      render: drawRender(r, variant),
    });
  }
  for (const [bpm0, note] of [
    [100, 42],
    [128, 70],
    [140, 46],
    [120, 54],
    [96, 69],
  ] as const) {
    const bpm = bpm0 + shift;
    const beat = 60 / bpm;
    const notes = Array.from({ length: 16 }, (_, i) => ({
      at: r3((i * beat) / 2),
      note: note === 46 && i % 2 ? 42 : note,
      velocity: i % 2 ? 72 : 100,
      length: 0.05,
    }));
    items.push({
      key: `loop_tops_${bpm}_${note}`,
      role: 'tops',
      rule: 'GM top loop (hats/shakers only, no kick or snare) → tops',
      program: null,
      notes,
      tail: 0.3,
      render: drawRender(r, variant),
    });
  }
  return items;
}

/**
 * GM drum-map notes a recorded four-piece kit has no instrument for: avldrums maps other articulations
 * there (e.g. note 61, GM low bongo, sounds like a hi-hat: 76 % of its energy above 4 kHz), and which
 * instrument is not documented, so these are left out rather than labelled from the GM name.
 */
const KIT_UNSURE_NOTES: Record<number, string> = {
  39: 'GM hand clap: a drum kit has none',
  52: 'GM chinese cymbal: not in a four-piece kit (sounds 0.7 s long, dark)',
  54: 'GM tambourine: a drum kit has none',
  56: 'GM cowbell: a drum kit has none',
  60: 'GM hi bongo: a drum kit has none',
  61: 'GM low bongo: a drum kit has none (sounds like a hi-hat)',
};

/** The drum plan's `variant` for a recorded kit named `kit`: keys prefixed `kit/`, notes the kit lacks left out. */
export function planKitItems(variant: number, kit: string): GmItem[] {
  return planDrumItems(variant).map((i): GmItem => {
    const key = `${kit}/${i.key}`;
    const odd = i.notes.find((n) => KIT_UNSURE_NOTES[n.note] !== undefined);
    // A drum loop keeps its label whatever its odd note (kick and snare make it percs); hits and hand or top loops do not.
    if (odd && !i.key.startsWith('loop_drums'))
      return { ...i, key, role: null, rule: `left out: note ${odd.note}, ${KIT_UNSURE_NOTES[odd.note]!}` };
    return { ...i, key, rule: `${i.rule} (${kit} kit)` };
  });
}

/** Every item rendered from one GM sound font; each font its own `variant` of the plan (0: the original one). */
export function planGmItems(variant = 0): GmItem[] {
  const items: GmItem[] = [];
  const r = seeded(variant * 5003 + 1);
  // Reverse cymbal (a riser) and the noise-bed sound effects are atmos by the role table.
  for (const [p, what] of [
    [119, 'reverse cymbal (riser)'],
    [122, 'seashore (noise bed)'],
    [125, 'helicopter (field recording)'],
    [126, 'applause (noise bed)'],
  ] as const) {
    const rule = `GM program ${p + 1}: ${what} → atmos (role table: risers, noise beds, field recordings)`;
    items.push({
      key: `prog${p}_long_note_60`,
      role: 'atmos',
      rule,
      program: p,
      notes: single(60, 100, 3),
      tail: 0.8,
      render: drawRender(r, variant),
    });
    items.push({
      key: `prog${p}_note_48_v80`,
      role: 'atmos',
      rule,
      program: p,
      notes: single(48, 80, 1.8),
      tail: 0.5,
      render: drawRender(r, variant),
    });
  }
  for (let p = 0; p < 104; p++) {
    if (EXCLUDED[p] !== undefined) {
      items.push({ key: `prog${String(p).padStart(3, '0')}`, role: null, rule: EXCLUDED[p]!, program: p, notes: [], tail: 0 });
      continue;
    }
    if (p >= 32 && p < 40) items.push(...planBassItems(p, variant));
    else if (p >= 88) items.push(...planAtmosItems(p, variant));
    else items.push(...planMelodicItems(p, variant));
  }
  items.push(...planDrumItems(variant));
  return items;
}

/** The events of an item placed at `start` seconds on `channel`. */
export function itemEvents(item: GmItem, start: number, channel: number): MidiEvent[] {
  return item.notes.flatMap((n) => [noteOn(start + n.at, channel, n.note, n.velocity), noteOff(start + n.at + n.length, channel, n.note)]);
}

/** Seconds from the item's start to the end of its tail. */
export const itemLength = (item: GmItem): number => Math.max(0, ...item.notes.map((n) => n.at + n.length)) + item.tail;
