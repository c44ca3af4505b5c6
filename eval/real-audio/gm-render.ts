/**
 * Render the GM plan (gm-plan.ts) from one sound font with fluidsynth: every item in its own slot of one
 * long MIDI file (one fluidsynth run per font, effect sends set per item, all sound off between slots), then
 * cut into one WAV per item, trimmed to within 60 dB of its peak. Items that come out silent (a font without that drum) are left out.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { itemEvents, itemLength, planGmItems, planKitItems, type GmItem } from './gm-plan.js';
import { allSoundOff, controlChange, encodeMidi, programChange, TICKS_PER_SECOND, type MidiEvent } from './midi.js';
import { readWav16, safeName, writeWav16 } from './packages.js';

export interface RenderedItem {
  readonly item: GmItem;
  /** The WAV, or null when left out. */
  readonly wav: string | null;
  readonly rule: string;
}

const GAP = 0.5;
const WET_GAP = 3;
const LEAD = 0.02;

/** Render the plan's `variant` from `font` into `outDir` (once; reuses the long render when present). */
export function renderGmFont(font: string, outDir: string, variant: number): RenderedItem[] {
  return renderPlan(planGmItems(variant), outDir, (mid, wav) => runFluidsynth(font, mid, wav));
}

/**
 * Render the drum part of the plan's `variant` from a recorded-kit font whose kit is preset 0 of bank 0
 * (avldrums' kits: GM drum-map notes, not a bank-128 drum set), keys prefixed with `kit`.
 */
export function renderDrumKit(font: string, outDir: string, variant: number, kit: string): RenderedItem[] {
  // Drums on channel 1 (an ordinary channel: bank 0, preset 0, the kit), not channel 10 (bank 128).
  return renderPlan(planKitItems(variant, kit), outDir, (mid, wav) => runFluidsynth(font, mid, wav), {
    longName: `_${kit}`,
    drumChannel: 0,
  });
}

function runFluidsynth(font: string, mid: string, wav: string): void {
  // Reverb and chorus units on; each item sets its own sends (CC 91, 93), 0 for a dry item.
  execFileSync(
    'fluidsynth',
    ['-ni', '-q', '-R', '1', '-C', '1', '-g', '0.5', '-r', '44100', '-T', 'wav', '-O', 's16', '-F', wav, font, mid],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

/** How renderPlan lays out its one long render. */
export interface PlanLayout {
  /** The synth starts its output at the first note (TiMidity++ does), not at time 0. */
  readonly trimsLeadIn?: boolean;
  /** Name of the long MIDI and WAV files in the output folder (several renders can share one folder). */
  readonly longName?: string;
  /** MIDI channel (0-based) of the drum items: 9 (GM channel 10) unless the drums are an ordinary preset. */
  readonly drumChannel?: number;
}

/** Render planned items with `synth` (MIDI file in, 16-bit WAV out) into `outDir`, one WAV per item. */
export function renderPlan(
  items: readonly GmItem[],
  outDir: string,
  synth: (mid: string, wav: string) => void,
  layout: PlanLayout = {},
): RenderedItem[] {
  const { trimsLeadIn = false, longName = '_all', drumChannel = 9 } = layout;
  const events: MidiEvent[] = [];
  const slots: { item: GmItem; start: number; length: number }[] = [];
  let t = 0.5;
  let melodicChannel = 0;
  for (const item of items) {
    if (item.role === null) continue;
    const channel = item.program === null ? drumChannel : melodicChannel;
    if (item.program !== null) {
      melodicChannel = (melodicChannel + 1) % 9;
      events.push(programChange(t, channel, item.program));
    }
    events.push(controlChange(t, channel, 91, item.render?.reverb ?? 0), controlChange(t, channel, 93, item.render?.chorus ?? 0));
    const length = itemLength(item);
    events.push(...itemEvents(item, t + LEAD, channel));
    events.push(...allSoundOff(t + LEAD + length, channel));
    slots.push({ item, start: t, length: LEAD + length });
    // A wet item's reverb outlives all-sound-off: a longer gap keeps it out of the next slot.
    t += LEAD + length + (item.render?.reverb ? WET_GAP : GAP);
  }
  mkdirSync(outDir, { recursive: true });
  const long = path.join(outDir, `${longName}.wav`);
  if (!existsSync(long)) {
    const mid = path.join(outDir, `${longName}.mid`);
    writeFileSync(mid, encodeMidi(events, t + 1));
    synth(mid, long);
  }
  const all = readWav16(long);
  const ch = all.channels;
  const firstNote = Math.min(...events.filter((e) => (e.bytes[0]! & 0xf0) === 0x90).map((e) => e.at));
  const shift = trimsLeadIn ? Math.round(firstNote * TICKS_PER_SECOND) / TICKS_PER_SECOND : 0;
  const out: RenderedItem[] = items.filter((i) => i.role === null).map((item) => ({ item, wav: null, rule: item.rule }));
  for (const { item, start, length } of slots) {
    const a = Math.max(0, Math.round((start - shift) * all.sampleRate)) * ch;
    const b = Math.min(all.samples.length, Math.round((start - shift + length) * all.sampleRate) * ch);
    const slot = all.samples.subarray(a, b);
    let peak = 0;
    for (let i = 0; i < slot.length; i++) peak = Math.max(peak, Math.abs(slot[i]!));
    if (peak < 33) {
      out.push({ item, wav: null, rule: 'left out: silent in this sound font' });
      continue;
    }
    // Trimmed as a sample library trims its files: from the first to the last sample within 60 dB of
    // the peak (whole frames), so the renders carry no silent lead-in or tail the others lack.
    const floor = peak / 1000;
    let first = 0;
    while (first < slot.length && Math.abs(slot[first]!) < floor) first++;
    let last = slot.length - 1;
    while (last > first && Math.abs(slot[last]!) < floor) last--;
    const samples = applyGain(slot.slice(first - (first % ch), last - (last % ch) + ch), item.render?.gainDb ?? 0);
    const wav = path.join(outDir, safeName(item.key));
    if (!existsSync(wav)) writeWav16(wav, { sampleRate: all.sampleRate, channels: ch, samples });
    out.push({ item, wav, rule: item.rule });
    // Drums also as a darker copy: recorded kits are duller than the fonts' bright cymbals and hats.
    if (item.program === null) {
      const key = `${item.key}_dark`;
      const dark = path.join(outDir, safeName(key));
      if (!existsSync(dark))
        writeWav16(dark, { sampleRate: all.sampleRate, channels: ch, samples: lowPass(samples, ch, all.sampleRate, 5000) });
      out.push({ item: { ...item, key }, wav: dark, rule: `${item.rule}; darker copy (two one-pole low-passes at 5 kHz)` });
    }
  }
  return out;
}

/** Scale 16-bit samples by `db` decibels (a library's files are not all at one level). */
export function applyGain(x: Int16Array, db: number): Int16Array {
  if (db === 0) return x;
  const g = 10 ** (db / 20);
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * g))));
}

/** Two cascaded one-pole low-passes at `hz` per channel (16-bit in and out). */
export function lowPass(x: Int16Array, channels: number, sampleRate: number, hz: number): Int16Array {
  const a = Math.exp((-2 * Math.PI * hz) / sampleRate);
  const out = new Int16Array(x.length);
  for (let c = 0; c < channels; c++) {
    let y1 = 0;
    let y2 = 0;
    for (let i = c; i < x.length; i += channels) {
      y1 = (1 - a) * x[i]! + a * y1;
      y2 = (1 - a) * y1 + a * y2;
      out[i] = Math.max(-32768, Math.min(32767, Math.round(y2)));
    }
  }
  return out;
}
