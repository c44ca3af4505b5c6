/**
 * Synthesized drum loops with exact hit times, and mir_eval's onset F-measure.
 *
 * Every sound starts at an exact sample, so the reference onset list is known exactly. All noise comes
 * from `seededNoise`, so the audio is identical from run to run.
 */
import { seededNoise } from './signals.js';

export type DrumKind = 'kick' | 'snare' | 'hat' | 'clap';

/** One drum hit: when (seconds, from the start of the audio), what, and how loud (linear, 1 = full). */
export interface DrumHit {
  readonly time: number;
  readonly kind: DrumKind;
  readonly velocity: number;
}

/**
 * Patterns, 16 steps per 4/4 bar:
 * - `straight8` / `straight16`: kick on 1 and 3, snare on 2 and 4, closed hats on 8ths / 16ths.
 * - `clap`: straight 8ths with a clap layered on the snare.
 * - `velocity`: straight 16ths with varied velocities on every voice.
 * - `syncopated`: kicks on 1, the "a" of 2 and the "and" of 3 (steps 0, 7, 10), snare on 2 and 4, 8th hats.
 * - `swing`: 16th hats with every off-16th delayed to 62 % of its 8th (a swing ratio of 0.62).
 * - `ghost`: straight 8ths plus ghost snares (−18 dB) on the "a" of 2, the "e" of 3 and the "a" of 4.
 */
export type DrumPattern = 'straight8' | 'straight16' | 'clap' | 'velocity' | 'syncopated' | 'swing' | 'ghost';

/** The patterns whose beat level is unambiguous (kick/snare on every beat, no syncopation, no swing). */
export const STRAIGHT_PATTERNS: readonly DrumPattern[] = ['straight8', 'straight16', 'clap', 'velocity'];

export interface DrumLoopOptions {
  readonly bpm: number;
  readonly bars: number;
  readonly sampleRate: number;
  readonly pattern: DrumPattern;
  /** Silence before the first downbeat, seconds (default 0.5). */
  readonly leadIn?: number;
  /** Silence after the last bar, seconds (default 1). */
  readonly tail?: number;
  /** Overall gain in dB applied after the mix (default −3: kick + hat on a downbeat then peak near 0 dBFS). */
  readonly gainDb?: number;
  /** Seed for noise and velocities (default 1). */
  readonly seed?: number;
}

export interface DrumLoop {
  readonly sampleRate: number;
  /** Left and right channels. */
  readonly channels: readonly [Float32Array, Float32Array];
  readonly hits: readonly DrumHit[];
  /** Reference onsets, seconds: every hit, hits closer than 30 ms to an earlier one merged into it. */
  readonly onsets: readonly number[];
  readonly bpm: number;
  readonly duration: number;
}

/** Hits closer than this to the previous reference onset count as the same onset. */
export const MERGE_WINDOW = 0.03;

/** Merge sorted hit times: a time within `window` of the last kept onset is dropped (the earlier one stays). */
export function mergeOnsets(times: readonly number[], window = MERGE_WINDOW): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  const out: number[] = [];
  for (const t of sorted) {
    if (out.length === 0 || t - out[out.length - 1]! >= window) out.push(t);
  }
  return out;
}

/** The hits of a pattern at `bpm`, starting at `leadIn`. Times are exact multiples of the 16th (before swing). */
export function patternHits(pattern: DrumPattern, bpm: number, bars: number, leadIn: number, seed = 1): DrumHit[] {
  const step = 60 / bpm / 4; // a 16th note
  const rand = seededNoise(seed * 7919 + 17);
  const vel = (lo: number, hi: number) => lo + ((rand() + 1) / 2) * (hi - lo);
  const hits: DrumHit[] = [];
  for (let bar = 0; bar < bars; bar++) {
    for (let s = 0; s < 16; s++) {
      let t = leadIn + (bar * 16 + s) * step;
      if (pattern === 'swing' && s % 2 === 1) t += (0.62 - 0.5) * 2 * step; // off-16th moved to 62 % of the 8th
      const add = (kind: DrumKind, velocity: number) => hits.push({ time: t, kind, velocity });
      const varied = pattern === 'velocity';
      const kicks = pattern === 'syncopated' ? [0, 7, 10] : [0, 8];
      if (kicks.includes(s)) add('kick', varied ? vel(0.8, 1) : 1);
      if (s === 4 || s === 12) {
        add('snare', varied ? vel(0.8, 1) : 0.9);
        if (pattern === 'clap') add('clap', 0.8);
      }
      if (pattern === 'ghost' && (s === 7 || s === 9 || s === 15)) add('snare', 10 ** (-18 / 20));
      const sixteenths = pattern === 'straight16' || pattern === 'velocity' || pattern === 'swing';
      if (sixteenths || s % 2 === 0) add('hat', varied ? vel(0.35, 0.8) : s % 4 === 0 ? 0.7 : 0.5);
    }
  }
  return hits.sort((a, b) => a.time - b.time);
}

/** Render hits into a stereo pair (each voice has its own pan), then apply `gainDb`. */
export function renderHits(
  hits: readonly DrumHit[],
  sampleRate: number,
  duration: number,
  options: { readonly gainDb?: number; readonly seed?: number } = {},
): [Float32Array, Float32Array] {
  const n = Math.round(duration * sampleRate);
  const left = new Float64Array(n);
  const right = new Float64Array(n);
  const noise = seededNoise(options.seed ?? 1);
  const pans: Record<DrumKind, number> = { kick: 0, snare: -0.1, hat: 0.35, clap: 0.15 };
  for (const hit of hits) {
    const start = Math.round(hit.time * sampleRate);
    const sound = drumSound(hit.kind, sampleRate, noise);
    const pan = pans[hit.kind];
    const gl = hit.velocity * Math.cos(((pan + 1) * Math.PI) / 4) * Math.SQRT2;
    const gr = hit.velocity * Math.sin(((pan + 1) * Math.PI) / 4) * Math.SQRT2;
    for (let i = 0; i < sound.length && start + i < n; i++) {
      left[start + i] = left[start + i]! + gl * sound[i]!;
      right[start + i] = right[start + i]! + gr * sound[i]!;
    }
  }
  const g = 10 ** ((options.gainDb ?? -3) / 20);
  const l = new Float32Array(n);
  const r = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    l[i] = g * left[i]!;
    r[i] = g * right[i]!;
  }
  return [l, r];
}

/** A drum loop: the pattern's hits rendered to stereo, with the reference onsets. */
export function drumLoop(options: DrumLoopOptions): DrumLoop {
  const leadIn = options.leadIn ?? 0.5;
  const tail = options.tail ?? 1;
  const seed = options.seed ?? 1;
  const hits = patternHits(options.pattern, options.bpm, options.bars, leadIn, seed).map((h) => ({
    ...h,
    // Snap to the sample the sound really starts at, so the reference is exact.
    time: Math.round(h.time * options.sampleRate) / options.sampleRate,
  }));
  const duration = leadIn + (options.bars * 4 * 60) / options.bpm + tail;
  const channels = renderHits(hits, options.sampleRate, duration, {
    seed,
    ...(options.gainDb !== undefined ? { gainDb: options.gainDb } : {}),
  });
  return { sampleRate: options.sampleRate, channels, hits, onsets: mergeOnsets(hits.map((h) => h.time)), bpm: options.bpm, duration };
}

/** Second-order section (RBJ Audio EQ Cookbook), applied in place. */
function biquad(x: Float64Array, type: 'highpass' | 'lowpass' | 'bandpass', f0: number, q: number, sampleRate: number): void {
  const w0 = (2 * Math.PI * f0) / sampleRate;
  const alpha = Math.sin(w0) / (2 * q);
  const cos = Math.cos(w0);
  const [b0, b1, b2] =
    type === 'highpass'
      ? [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2]
      : type === 'lowpass'
        ? [(1 - cos) / 2, 1 - cos, (1 - cos) / 2]
        : [alpha, 0, -alpha];
  const a0 = 1 + alpha;
  const a1 = -2 * cos;
  const a2 = 1 - alpha;
  let x1 = 0,
    x2 = 0,
    y1 = 0,
    y2 = 0;
  for (let i = 0; i < x.length; i++) {
    const x0 = x[i]!;
    const y0 = (b0 * x0 + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0;
    x2 = x1;
    x1 = x0;
    y2 = y1;
    y1 = y0;
    x[i] = y0;
  }
}

/**
 * One drum sound, starting at its first sample (index 0 is the onset):
 * - kick: a sine swept from 155 Hz down to 45 Hz (sweep time constant 35 ms), amplitude decay 180 ms, plus
 *   a 1.5 ms beater click of noise;
 * - snare: a 185 Hz tone (decay 50 ms) plus noise band-passed to 1–8 kHz (decay 80 ms);
 * - hat: noise high-passed at 7 kHz (two RBJ sections), decay 15 ms, 80 ms long;
 * - clap: three 1–2 kHz band-passed noise bursts 9 ms apart, then a 60 ms tail from 27 ms on (all within
 *   30 ms, so one onset).
 * Each sound fades out over its second half (half a cosine), so its end adds no onset of its own.
 */
export function drumSound(kind: DrumKind, sampleRate: number, noise: () => number): Float64Array {
  const seconds = kind === 'kick' ? 0.6 : kind === 'snare' ? 0.35 : kind === 'hat' ? 0.08 : 0.3;
  const n = Math.round(seconds * sampleRate);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / sampleRate;
    if (kind === 'kick') {
      const phase = 2 * Math.PI * (45 * t + 110 * 0.035 * (1 - Math.exp(-t / 0.035)));
      out[i] = 0.9 * Math.exp(-t / 0.18) * Math.sin(phase) + 0.25 * Math.exp(-t / 0.0015) * noise();
    } else {
      out[i] = noise();
    }
  }
  if (kind === 'snare') {
    // Snare wires: noise band-limited to about 1–8 kHz, plus the shell's tone.
    biquad(out, 'highpass', 1000, 0.707, sampleRate);
    biquad(out, 'lowpass', 8000, 0.707, sampleRate);
    for (let i = 0; i < n; i++) {
      const t = i / sampleRate;
      out[i] = 0.35 * Math.exp(-t / 0.05) * Math.sin(2 * Math.PI * 185 * t) + 0.7 * Math.exp(-t / 0.08) * out[i]!;
    }
  } else if (kind === 'hat') {
    biquad(out, 'highpass', 7000, 0.707, sampleRate);
    biquad(out, 'highpass', 7000, 0.707, sampleRate);
    for (let i = 0; i < n; i++) out[i] = 0.6 * out[i]! * Math.exp(-i / sampleRate / 0.015);
  } else if (kind === 'clap') {
    biquad(out, 'bandpass', 1400, 1.2, sampleRate);
    for (let i = 0; i < n; i++) {
      const t = i / sampleRate;
      let env = 0;
      for (const b of [0, 0.009, 0.018]) if (t >= b) env += Math.exp(-(t - b) / 0.002);
      if (t >= 0.027) env += 0.8 * Math.exp(-(t - 0.027) / 0.06);
      out[i] = 1.4 * env * out[i]!;
    }
  }
  // Half-cosine fade over the last half, so no sound ends with a click of its own.
  const fade = Math.floor(n / 2);
  for (let i = 0; i < fade; i++) out[n - fade + i] = out[n - fade + i]! * 0.5 * (1 + Math.cos((Math.PI * (i + 1)) / fade));
  return out;
}

/** A single click: one sample at `amp` at `time`, in a mono signal of `duration` seconds. */
export function click(sampleRate: number, duration: number, time: number, amp = 0.9): Float32Array {
  const out = new Float32Array(Math.round(duration * sampleRate));
  out[Math.round(time * sampleRate)] = amp;
  return out;
}

export interface OnsetScore {
  readonly precision: number;
  readonly recall: number;
  readonly f: number;
  readonly matches: number;
}

/**
 * mir_eval `onset.f_measure(ref, est, window)`: the size of a maximum one-to-one matching of reference and
 * estimated onsets with |ref − est| ≤ window (mir_eval `util.match_events`, Hopcroft–Karp), then
 * P = matches/|est|, R = matches/|ref|, F = 2PR/(P + R). Either list empty scores 0 (as mir_eval).
 *
 * The matching here is Kuhn's augmenting-path algorithm (Kuhn 1955), which also finds a maximum matching;
 * it is O(V·E), and E is small because each onset only reaches the few onsets within the window.
 */
export function fMeasure(ref: readonly number[], est: readonly number[], window = 0.05): OnsetScore {
  if (ref.length === 0 || est.length === 0) return { precision: 0, recall: 0, f: 0, matches: 0 };
  const r = [...ref].sort((a, b) => a - b);
  const e = [...est].sort((a, b) => a - b);
  // Neighbours of each reference onset: a contiguous range of the sorted estimates.
  const adjacency: number[][] = r.map((t) => {
    const out: number[] = [];
    for (let j = lowerBound(e, t - window); j < e.length && e[j]! - t <= window; j++) {
      if (Math.abs(e[j]! - t) <= window) out.push(j);
    }
    return out;
  });
  const matchOfEst = new Int32Array(e.length).fill(-1);
  const seen = new Int32Array(e.length).fill(-1); // seen[j] === i: estimate j already tried for reference i
  const augment = (i: number, root: number): boolean => {
    for (const j of adjacency[i]!) {
      if (seen[j] === root) continue;
      seen[j] = root;
      if (matchOfEst[j] === -1 || augment(matchOfEst[j]!, root)) {
        matchOfEst[j] = i;
        return true;
      }
    }
    return false;
  };
  let matches = 0;
  for (let i = 0; i < r.length; i++) if (augment(i, i)) matches++;
  const precision = matches / e.length;
  const recall = matches / r.length;
  const f = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f, matches };
}

function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface MusicLoopOptions {
  readonly bpm: number;
  readonly bars: number;
  readonly sampleRate: number;
  /** Silence before the first downbeat, seconds (default 0.5). */
  readonly leadIn?: number;
  /** Silence after the last bar, seconds (default 1). */
  readonly tail?: number;
  /** Amplitude pulses of the bass per beat (default 1, as bench/synth-track.ts; 2 pulses on the 8ths). */
  readonly bassPulses?: number;
  /** Overall gain in dB (default 0). */
  readonly gainDb?: number;
  /** Seed for the noise (default 1). */
  readonly seed?: number;
}

/**
 * A straight 4/4 groove with the voices of bench/synth-track.ts (the benchmark track), at any tempo and
 * sample rate: kick on beats 1 and 3 (a sine swept from 150 to 50 Hz, 0.35 s), snare on 2 and 4 (noise and
 * a 190 Hz tone, 0.2 s), an open-spectrum closed hat (white noise, 12 ms decay) on every off-beat 8th, a bass
 * line on the A minor roots (55, 55, 43.65, 49 Hz, one per bar) whose amplitude pulses `bassPulses` times
 * per beat, and a sustained A minor pad chord restarted every bar. The reference onsets are the drum hits.
 * Unlike `drumLoop`'s kit, the hats are white noise, as loud in the onset envelope as the snare, and the
 * bass masks most of the kick: the envelope has an almost even 8th-note pulse.
 */
export function musicLoop(options: MusicLoopOptions): DrumLoop {
  const { bpm, bars, sampleRate } = options;
  const leadIn = options.leadIn ?? 0.5;
  const tail = options.tail ?? 1;
  const pulses = options.bassPulses ?? 1;
  const beat = 60 / bpm;
  const duration = leadIn + bars * 4 * beat + tail;
  const n = Math.round(duration * sampleRate);
  const left = new Float64Array(n);
  const right = new Float64Array(n);
  const noise = seededNoise(options.seed ?? 1);
  const hits: DrumHit[] = [];
  const add = (t0: number, seconds: number, fn: (t: number) => number, pan = 0) => {
    const start = Math.round(t0 * sampleRate);
    const len = Math.round(seconds * sampleRate);
    for (let i = 0; i < len && start + i < n; i++) {
      const v = fn(i / sampleRate);
      left[start + i] = left[start + i]! + v * (1 - pan) * 0.5;
      right[start + i] = right[start + i]! + v * (1 + pan) * 0.5;
    }
  };
  const hit = (t: number, kind: DrumKind, velocity: number) => {
    const time = Math.round(t * sampleRate) / sampleRate;
    hits.push({ time, kind, velocity });
    return time;
  };
  for (let b = 0; b < bars * 4; b++) {
    const t = leadIn + b * beat;
    if (b % 2 === 0) {
      add(hit(t, 'kick', 0.9), 0.35, (x) => 0.9 * Math.sin(2 * Math.PI * (50 + 100 * Math.exp(-x * 30)) * x) * Math.exp(-x * 8));
    } else {
      add(hit(t, 'snare', 0.5), 0.2, (x) => (0.5 * noise() + 0.3 * Math.sin(2 * Math.PI * 190 * x)) * Math.exp(-x * 18), 0.1);
    }
    add(hit(t + beat / 2, 'hat', 0.25), 0.05, (x) => 0.25 * noise() * Math.exp(-x * 80), -0.3);
  }
  const roots = [55, 55, 43.65, 49];
  for (let b = 0; b < bars; b++) {
    const f = roots[b % 4]!;
    const t = leadIn + b * 4 * beat;
    add(t, 4 * beat, (x) => 0.18 * Math.sin(2 * Math.PI * f * x) * (0.6 + 0.4 * Math.cos((2 * Math.PI * pulses * x) / beat)));
    add(
      t,
      4 * beat,
      (x) => 0.05 * (Math.sin(2 * Math.PI * 220 * x) + Math.sin(2 * Math.PI * 261.63 * x) + Math.sin(2 * Math.PI * 329.63 * x)),
      0.4,
    );
  }
  const g = 10 ** ((options.gainDb ?? 0) / 20);
  const l = new Float32Array(n);
  const r = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    l[i] = g * left[i]!;
    r[i] = g * right[i]!;
  }
  hits.sort((a, b) => a.time - b.time);
  return { sampleRate, channels: [l, r], hits, onsets: mergeOnsets(hits.map((h) => h.time)), bpm, duration };
}
