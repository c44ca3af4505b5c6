/**
 * A training-only set of synthesized sub and 808 basses (role `bass`) and of the kicks they are confused
 * with (role `percs`). Producers' sub and 808 basses are mostly synthesized sines, and none of the six
 * development libraries holds one, so without these the trees read "instant attack, all energy below
 * 60 Hz" as a kick. The kicks are here so the model learns the contrast (a fast downward sweep and a short
 * decay against a held or slowly decaying tone), not "low = bass". Deterministic (a seeded spread of
 * parameters, never the tests' exact signals); it takes part in fitting only: it is never a held-out fold
 * of the leave-one-library-out evaluation and never counted in a reported accuracy.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { seeded } from './gm-plan.js';
import { cacheDir, writeWav16 } from './packages.js';
import type { LabelledFile } from './sets.js';

/** The library id of this set in answers and fits. */
export const SYNTH_SUB_LIBRARY = 'synth-sub';

const SR = 44_100;

interface SynthItem {
  readonly key: string;
  readonly role: 'bass' | 'percs';
  readonly samples: Float32Array;
}

/** A value between lo and hi from the stream. */
const between = (r: () => number, lo: number, hi: number) => lo + (hi - lo) * r();
/** Log-uniform between lo and hi (frequencies, times). */
const logBetween = (r: () => number, lo: number, hi: number) => lo * Math.pow(hi / lo, r());

/** Soft clipping (tanh) normalised so that the peak stays the peak: the "slightly driven" sine of a saturated sub. */
const drive = (x: number, amount: number) => (amount > 0 ? Math.tanh(amount * x) / Math.tanh(amount) : x);

/**
 * One tone: phase integrated from an instantaneous frequency (so glides are smooth), times an envelope.
 * `freq(t)` in Hz and `env(t)` in 0..1, both of time in seconds.
 */
function renderTone(
  duration: number,
  freq: (t: number) => number,
  env: (t: number) => number,
  level: number,
  driveAmount: number,
  phase0 = 0,
): Float32Array {
  const n = Math.round(duration * SR);
  const out = new Float32Array(n);
  let phase = phase0;
  for (let i = 0; i < n; i++) {
    const t = i / SR;
    out[i] = level * env(t) * drive(Math.sin(phase), driveAmount);
    phase += (2 * Math.PI * freq(t)) / SR;
  }
  return out;
}

/** Linear attack over `attack` s, linear fade over the last `fade` s (0: the tone stops dead). */
const attackFade = (duration: number, attack: number, fade: number) => (t: number) =>
  Math.min(attack > 0 ? t / attack : 1, fade > 0 ? (duration - t) / fade : 1, 1);

/** Held subs: a steady (optionally driven) sine at 30–90 Hz, 0.5–4 s, attack 0–20 ms, with or without a fade. */
function heldSub(r: () => number): Float32Array {
  const f = logBetween(r, 30, 90);
  const duration = between(r, 0.5, 4);
  const attack = r() < 0.4 ? 0 : between(r, 0.001, 0.02);
  const fade = r() < 0.3 ? 0 : between(r, 0.01, 0.3);
  const driveAmount = r() < 0.5 ? 0 : between(r, 1, 3);
  return renderTone(
    duration,
    () => f,
    attackFade(duration, attack, fade),
    Math.pow(10, between(r, -18, -1) / 20),
    driveAmount,
    r() < 0.5 ? 0 : between(r, 0, Math.PI),
  );
}

/** 808 basses: a short downward glide (1.05–1.5× to the note in 20–120 ms) then a long exponential decay (0.5–2.5 s to −60 dB). */
function bass808(r: () => number): Float32Array {
  const f = logBetween(r, 30, 90);
  const ratio = between(r, 1.05, 1.5);
  const glide = between(r, 0.02, 0.12);
  const decay60 = between(r, 0.5, 2.5);
  const duration = Math.min(4, decay60 * between(r, 0.8, 1.3));
  const attack = r() < 0.5 ? 0 : between(r, 0.001, 0.01);
  const fade = between(r, 0.005, 0.1);
  const env = attackFade(duration, attack, fade);
  const driveAmount = r() < 0.5 ? 0 : between(r, 1, 4);
  return renderTone(
    duration,
    (t) => f * (1 + (ratio - 1) * Math.exp(-t / (glide / 3))),
    (t) => env(t) * Math.pow(10, (-3 * t) / decay60),
    Math.pow(10, between(r, -12, -1) / 20),
    driveAmount,
  );
}

/** Sub-bass lines: 4–8 held notes at 30–90 Hz at 80–150 BPM, short gaps, 2–4 s. */
function subLine(r: () => number): Float32Array {
  const beat = 60 / between(r, 80, 150);
  const notes = 4 + Math.floor(r() * 5);
  const duration = Math.min(4, Math.max(2, notes * beat));
  const out = new Float32Array(Math.round(duration * SR));
  const level = Math.pow(10, between(r, -15, -2) / 20);
  const driveAmount = r() < 0.5 ? 0 : between(r, 1, 3);
  const step = duration / notes;
  for (let k = 0; k < notes; k++) {
    const f = logBetween(r, 30, 90);
    const len = step * between(r, 0.7, 0.98);
    const tone = renderTone(len, () => f, attackFade(len, between(r, 0.002, 0.02), between(r, 0.01, 0.05)), level, driveAmount);
    out.set(tone.subarray(0, Math.min(tone.length, out.length - Math.round(k * step * SR))), Math.round(k * step * SR));
  }
  return out;
}

/** One kick: a sine sweeping down from 90–250 Hz to 40–65 Hz in 10–60 ms, decaying to −60 dB in 50–400 ms, with or without a click. */
function kickHit(r: () => number): Float32Array {
  const start = logBetween(r, 90, 250);
  const end = between(r, 40, 65);
  const sweep = between(r, 0.01, 0.06);
  const decay60 = logBetween(r, 0.05, 0.4);
  const duration = decay60 * between(r, 1, 1.5);
  const driveAmount = r() < 0.4 ? 0 : between(r, 1, 4);
  const tone = renderTone(
    duration,
    (t) => end + (start - end) * Math.exp(-t / (sweep / 3)),
    (t) => Math.pow(10, (-3 * t) / decay60) * Math.min(1, t / 0.0005),
    1,
    driveAmount,
  );
  if (r() < 0.5) {
    // The beater's click: 1–4 ms of decaying noise.
    const clickLen = Math.round(between(r, 0.001, 0.004) * SR);
    const clickLevel = between(r, 0.2, 0.7);
    for (let i = 0; i < clickLen && i < tone.length; i++) tone[i]! += clickLevel * (2 * r() - 1) * (1 - i / clickLen);
  }
  return tone;
}

/** A kick one-shot, sometimes followed by silence (as sample packs trim them). */
function kickShot(r: () => number): Float32Array {
  const hit = kickHit(r);
  const level = Math.pow(10, between(r, -12, -1) / 20);
  const out = new Float32Array(hit.length + (r() < 0.5 ? 0 : Math.round(between(r, 0.05, 0.5) * SR)));
  for (let i = 0; i < hit.length; i++) out[i] = level * hit[i]!;
  return out;
}

/** A kick loop: 4–8 hits of one kick at 90–150 BPM. */
function kickLoop(r: () => number): Float32Array {
  const beat = 60 / between(r, 90, 150);
  const hits = 4 + Math.floor(r() * 5);
  const hit = kickHit(r);
  const level = Math.pow(10, between(r, -12, -1) / 20);
  const out = new Float32Array(Math.round(hits * beat * SR));
  for (let k = 0; k < hits; k++) {
    const at = Math.round(k * beat * SR);
    for (let i = 0; i < hit.length && at + i < out.length; i++) out[at + i]! += level * hit[i]!;
  }
  return out;
}

/** The set's items, in a fixed order from a fixed seed. */
export function planSynthSub(): SynthItem[] {
  const kinds: [string, 'bass' | 'percs', number, (r: () => number) => Float32Array][] = [
    ['sub-held', 'bass', 24, heldSub],
    ['sub-808', 'bass', 20, bass808],
    ['sub-line', 'bass', 8, subLine],
    ['kick-shot', 'percs', 40, kickShot],
    ['kick-loop', 'percs', 12, kickLoop],
  ];
  const items: SynthItem[] = [];
  kinds.forEach(([name, role, count, make], kind) => {
    for (let i = 0; i < count; i++)
      items.push({ key: `${name}-${String(i).padStart(2, '0')}.wav`, role, samples: make(seeded(7919 * (kind + 1) + i)) });
  });
  return items;
}

/** Write the set as 16-bit WAV into <cache>/sets/synth-sub/ and return its labelled files. */
export function buildSynthSub(): LabelledFile[] {
  const dir = path.join(cacheDir, 'sets', SYNTH_SUB_LIBRARY);
  mkdirSync(dir, { recursive: true });
  return planSynthSub().map((item) => {
    const wav = path.join(dir, item.key);
    const samples = Int16Array.from(item.samples, (v) => Math.round(32767 * Math.max(-1, Math.min(1, v))));
    writeWav16(wav, { sampleRate: SR, channels: 1, samples });
    return { library: SYNTH_SUB_LIBRARY, key: item.key, role: item.role, rule: 'synthesized', wav };
  });
}
