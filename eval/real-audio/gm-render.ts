/**
 * Render the GM plan (gm-plan.ts) from one sound font with fluidsynth: every item in its own slot of one
 * long MIDI file (one fluidsynth run per font, reverb and chorus off, all sound off between slots), then
 * cut into one WAV per item, trimmed to within 60 dB of its peak. Items that come out silent (a font without that drum) are left out.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { itemEvents, itemLength, planGmItems, type GmItem } from './gm-plan.js';
import { allSoundOff, encodeMidi, programChange, type MidiEvent } from './midi.js';
import { readWav16, safeName, writeWav16 } from './packages.js';

export interface RenderedItem {
  readonly item: GmItem;
  /** The WAV, or null when left out. */
  readonly wav: string | null;
  readonly rule: string;
}

const GAP = 0.5;
const LEAD = 0.02;

/** Render every planned item of `font` into `outDir` (once; reuses the long render when present). */
export function renderGmFont(font: string, outDir: string): RenderedItem[] {
  const items = planGmItems();
  const events: MidiEvent[] = [];
  const slots: { item: GmItem; start: number; length: number }[] = [];
  let t = 0.5;
  let melodicChannel = 0;
  for (const item of items) {
    if (item.role === null) continue;
    const channel = item.program === null ? 9 : melodicChannel;
    if (item.program !== null) {
      melodicChannel = (melodicChannel + 1) % 9;
      events.push(programChange(t, channel, item.program));
    }
    const length = itemLength(item);
    events.push(...itemEvents(item, t + LEAD, channel));
    events.push(...allSoundOff(t + LEAD + length, channel));
    slots.push({ item, start: t, length: LEAD + length });
    t += LEAD + length + GAP;
  }
  mkdirSync(outDir, { recursive: true });
  const long = path.join(outDir, '_all.wav');
  if (!existsSync(long)) {
    const mid = path.join(outDir, '_all.mid');
    writeFileSync(mid, encodeMidi(events, t + 1));
    execFileSync('fluidsynth', ['-ni', '-q', '-R', '0', '-C', '0', '-g', '0.5', '-r', '44100', '-T', 'wav', '-O', 's16', '-F', long, font, mid], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const all = readWav16(long);
  const ch = all.channels;
  const out: RenderedItem[] = items.filter((i) => i.role === null).map((item) => ({ item, wav: null, rule: item.rule }));
  for (const { item, start, length } of slots) {
    const a = Math.round(start * all.sampleRate) * ch;
    const b = Math.min(all.samples.length, Math.round((start + length) * all.sampleRate) * ch);
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
    const samples = slot.slice(first - (first % ch), last - (last % ch) + ch);
    const wav = path.join(outDir, safeName(item.key));
    if (!existsSync(wav)) writeWav16(wav, { sampleRate: all.sampleRate, channels: ch, samples });
    out.push({ item, wav, rule: item.rule });
    // Drums also as a darker copy: recorded kits are duller than the fonts' bright cymbals and hats.
    if (item.program === null) {
      const key = `${item.key}_dark`;
      const dark = path.join(outDir, safeName(key));
      if (!existsSync(dark)) writeWav16(dark, { sampleRate: all.sampleRate, channels: ch, samples: lowPass(samples, ch, all.sampleRate, 5000) });
      out.push({ item: { ...item, key }, wav: dark, rule: `${item.rule}; darker copy (two one-pole low-passes at 5 kHz)` });
    }
  }
  return out;
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
