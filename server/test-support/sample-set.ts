/**
 * A labelled synthetic sample set for the sample-role classifier: 16 kinds of sample, 10 variants each
 * (160 samples), every one rendered from a seeded generator, so the set is identical from run to run.
 *
 * Each variant draws its pitch, timbre, envelope, length (0.2–8 s), peak level (−30..0 dBFS) and stereo
 * width (R = (1 − w)·A + w·B, A and B two renders of the same sound with independent noise and phases) from
 * its own seed. Drum loops are rendered by drums.ts. Names are realistic file names; most do not contain
 * the role word, and one per kind is deliberately misleading (a pad called `kick_bass.wav`) — the
 * classifier must ignore names except to call percussive material a drum loop.
 *
 * Roles by kind (the definitions the classifier encodes):
 * - percs: kick, snare, clap, drum_loop;
 * - tops: closed_hat, open_hat, shaker, ride;
 * - bass: sub_bass, mid_bass;
 * - melodic: pluck, lead, chord;
 * - atmos: pad, drone, noise_sweep.
 *
 * One file (over 400 lines) on purpose: the 16 generators share the seeded helpers and the label
 * table; it is test data, not product code.
 */
import { drumLoop, type DrumPattern } from './drums.js';
import { seededNoise } from './signals.js';

export type SampleRoleLabel = 'percs' | 'bass' | 'melodic' | 'tops' | 'atmos';

export type SampleKind =
  | 'kick'
  | 'snare'
  | 'clap'
  | 'drum_loop'
  | 'closed_hat'
  | 'open_hat'
  | 'shaker'
  | 'ride'
  | 'sub_bass'
  | 'mid_bass'
  | 'pluck'
  | 'lead'
  | 'chord'
  | 'pad'
  | 'drone'
  | 'noise_sweep';

export interface LabelledSample {
  /** A realistic file name (sometimes misleading). */
  readonly name: string;
  readonly role: SampleRoleLabel;
  readonly kind: SampleKind;
  readonly channels: Float32Array[];
  readonly sampleRate: number;
  /** True when the name deliberately suggests another kind of sound. */
  readonly misleading: boolean;
}

export const KIND_ROLES: Readonly<Record<SampleKind, SampleRoleLabel>> = {
  kick: 'percs',
  snare: 'percs',
  clap: 'percs',
  drum_loop: 'percs',
  closed_hat: 'tops',
  open_hat: 'tops',
  shaker: 'tops',
  ride: 'tops',
  sub_bass: 'bass',
  mid_bass: 'bass',
  pluck: 'melodic',
  lead: 'melodic',
  chord: 'melodic',
  pad: 'atmos',
  drone: 'atmos',
  noise_sweep: 'atmos',
};

/** File names per kind; the entry marked by MISLEADING_INDEX is a misleading one. */
const NAMES: Readonly<Record<SampleKind, readonly string[]>> = {
  kick: [
    'Kick_Punchy_01.wav',
    'BD 909 Long.wav',
    'kck_thump_C.wav',
    'Kick - Tight 03.wav',
    'bd_acoustic_room.wav',
    'KICK_DIST_07.wav',
    'kick_soft_layer.wav',
    'BD_Tape_2.wav',
    'kik_clicky.wav',
    'lead_stab_Am.wav',
  ],
  snare: [
    'Snare_Crack_02.wav',
    'SD 808.wav',
    'snr_rim_tight.wav',
    'Snare - Fat.wav',
    'sd_brushy.wav',
    'SNR_Vinyl_04.wav',
    'snare_trap_hi.wav',
    'Snare_Room_06.wav',
    'sd_layered.wav',
    'pad_warm_C.wav',
  ],
  clap: [
    'Clap_Wide_01.wav',
    'CP 909.wav',
    'clap_stack_3.wav',
    'Handclap - Dry.wav',
    'cp_room.wav',
    'CLAP_HOUSE_05.wav',
    'clap_snap_layer.wav',
    'Clap_Reverb_Short.wav',
    'cp_tight_08.wav',
    'sub_808_long.wav',
  ],
  drum_loop: [
    'Break_Amen_Style_170.wav',
    'Drum Loop 120bpm.wav',
    'beat_boombap_90.wav',
    'Groove_Funky_100.wav',
    'drumloop_house_124.wav',
    'Break_Chopped_174.wav',
    'beat_trap_140.wav',
    'Full_Kit_96bpm.wav',
    'Loop_Ghost_Notes_92.wav',
    'Ambient_Pad_04.wav',
  ],
  closed_hat: [
    'HH_Closed_01.wav',
    'Hat - Tight.wav',
    'chh_808.wav',
    'hihat_closed_dusty.wav',
    'CH_Sizzle_05.wav',
    'hat_tick.wav',
    'Closed Hat 909.wav',
    'hh_crisp_08.wav',
    'ch_metal.wav',
    'kick_bass.wav',
  ],
  open_hat: [
    'OH_Long_01.wav',
    'Open Hat 909.wav',
    'ohh_wash.wav',
    'hihat_open_03.wav',
    'OpenHat_Trashy.wav',
    'oh_short_06.wav',
    'Open_Hat_Sizzle.wav',
    'ohat_08.wav',
    'OH_Tape.wav',
    'Bass_Reese_F.wav',
  ],
  shaker: [
    'Shaker_16ths_120.wav',
    'shk_01.wav',
    'Shaker - Soft.wav',
    'maraca_roll.wav',
    'shaker_fast_04.wav',
    'Egg_Shaker_05.wav',
    'shk_groove_06.wav',
    'Cabasa_07.wav',
    'shaker_dry_08.wav',
    'Lead_Saw_C4.wav',
  ],
  ride: [
    'Ride_Bell_01.wav',
    'Ride - Jazz.wav',
    'ride_edge_03.wav',
    'Cymbal_Ride_04.wav',
    'RD_Dark_05.wav',
    'ride_ping_06.wav',
    'Crash_Ride_07.wav',
    'Ride 808.wav',
    'cym_ride_09.wav',
    'Pluck_Bright_E.wav',
  ],
  sub_bass: [
    'Sub_C1.wav',
    'Sub 808 Long G.wav',
    '808_Boom_F1.wav',
    'sub_sine_A0.wav',
    'Sub_Deep_03.wav',
    'low_end_E.wav',
    'Sine Sub - C.wav',
    'Subby_D2.wav',
    'sub_tail_08.wav',
    'hihat_open.wav',
  ],
  mid_bass: [
    'Reese_F1.wav',
    'Growl_G.wav',
    'MidBass_Saw_A1.wav',
    'Synth Bass - Square.wav',
    'Acid_Line_05.wav',
    'Wobble_C2.wav',
    'FM_Low_E1.wav',
    'Donk_08.wav',
    'Bassline_Funky_09.wav',
    'Snare_Tight.wav',
  ],
  pluck: [
    'Pluck_Bright_C5.wav',
    'Pizz_Am.wav',
    'pluck_arp_03.wav',
    'Harp_Like_G4.wav',
    'Marimba_E4.wav',
    'pluck_short_06.wav',
    'Bell_Pluck_D5.wav',
    'Kalimba_F4.wav',
    'Pluck Soft A4.wav',
    'Kick_Hard_10.wav',
  ],
  lead: [
    'Lead_Saw_C4.wav',
    'Supersaw_Lead_A.wav',
    'lead_square_03.wav',
    'Synth Lead - Mono.wav',
    'Whistle_Lead_E5.wav',
    'lead_vibrato_06.wav',
    'Hook_07_Dm.wav',
    'Lead_Acid_G4.wav',
    'Flute_Like_B4.wav',
    'Sub_Bass_Deep.wav',
  ],
  chord: [
    'Chord_Stab_Cm.wav',
    'Piano_Chord_F.wav',
    'chord_keys_03.wav',
    'Rhodes_Am7.wav',
    'Organ_Chord_05.wav',
    'stab_house_06.wav',
    'Chord_Min9_07.wav',
    'Keys_Progression_08.wav',
    'guitar_strum_like.wav',
    'Riser_FX_10.wav',
  ],
  pad: [
    'Pad_Warm_Cmaj.wav',
    'Strings_Slow_Am.wav',
    'pad_evolving_03.wav',
    'Choir_Like_Pad.wav',
    'Ambient_Swell_05.wav',
    'pad_dark_06.wav',
    'Lush_Chord_Pad_07.wav',
    'Texture_Glass_08.wav',
    'drum_break_03.wav',
    'kick_bass.wav',
  ],
  drone: [
    'Drone_Low_D.wav',
    'Dark_Drone_02.wav',
    'drone_eerie_03.wav',
    'Hum_04.wav',
    'Drone Cinematic.wav',
    'drone_tanpura_like.wav',
    'Bowed_Metal_07.wav',
    'Organ_Drone_08.wav',
    'Sustain_Texture_09.wav',
    'Bass_Sub_Long_10.wav',
  ],
  noise_sweep: [
    'Riser_White_01.wav',
    'Uplifter_02.wav',
    'noise_sweep_03.wav',
    'Downlifter_04.wav',
    'FX_Whoosh_05.wav',
    'riser_8bars.wav',
    'Sweep_Filtered_07.wav',
    'Wind_Texture_08.wav',
    'Noise_Build_09.wav',
    'Shaker_Loop_10.wav',
  ],
};

/** Index (per kind) of the misleading names; the pad also has a second one (`drum_break_03.wav`, index 8). */
const MISLEADING_INDEX = 9;

const KINDS = Object.keys(NAMES) as SampleKind[];

/** Uniform [0, 1) from a seed (the LCG of signals.ts). */
class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededNoise(seed);
    // Skip the first values: consecutive seeds start close together in an LCG.
    for (let i = 0; i < 4; i++) this.next();
  }
  /** [0, 1). */
  u(): number {
    return (this.next() + 1) / 2;
  }
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.u();
  }
  int(lo: number, hi: number): number {
    return Math.min(hi, Math.floor(this.range(lo, hi + 1)));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.min(items.length - 1, Math.floor(this.u() * items.length))]!;
  }
  /** White noise in [−1, 1). */
  noise(): number {
    return this.next();
  }
}

// ---- DSP helpers for synthesis -------------------------------------------------------------------

type FilterType = 'lowpass' | 'highpass' | 'bandpass';

/** RBJ biquad coefficients (normalised by a0). */
function biquadCoefs(type: FilterType, f0: number, q: number, sr: number): [number, number, number, number, number] {
  const w0 = (2 * Math.PI * Math.min(f0, sr * 0.49)) / sr;
  const alpha = Math.sin(w0) / (2 * q);
  const cos = Math.cos(w0);
  const [b0, b1, b2] =
    type === 'highpass'
      ? [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2]
      : type === 'lowpass'
        ? [(1 - cos) / 2, 1 - cos, (1 - cos) / 2]
        : [alpha, 0, -alpha];
  const a0 = 1 + alpha;
  return [b0 / a0, b1 / a0, b2 / a0, (-2 * cos) / a0, (1 - alpha) / a0];
}

/** Biquad in place; `freqAt(i)` may vary the cutoff (coefficients recomputed every 32 samples). */
function filter(x: Float64Array, type: FilterType, freqAt: number | ((i: number) => number), q: number, sr: number): Float64Array {
  let x1 = 0,
    x2 = 0,
    y1 = 0,
    y2 = 0;
  let c = biquadCoefs(type, typeof freqAt === 'number' ? freqAt : freqAt(0), q, sr);
  for (let i = 0; i < x.length; i++) {
    if (typeof freqAt !== 'number' && i % 32 === 0) c = biquadCoefs(type, freqAt(i), q, sr);
    const x0 = x[i]!;
    const y0 = c[0] * x0 + c[1] * x1 + c[2] * x2 - c[3] * y1 - c[4] * y2;
    x2 = x1;
    x1 = x0;
    y2 = y1;
    y1 = y0;
    x[i] = y0;
  }
  return x;
}

function whiteNoise(n: number, rng: Rng): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.noise();
  return out;
}

/** PolyBLEP correction (Välimäki & Huovilainen 2007) for a discontinuity at phase 0 of a unit-step waveform. */
function polyBlep(t: number, dt: number): number {
  if (t < dt) {
    const x = t / dt;
    return x + x - x * x - 1;
  }
  if (t > 1 - dt) {
    const x = (t - 1) / dt;
    return x * x + x + x + 1;
  }
  return 0;
}

type Wave = 'sine' | 'saw' | 'square' | 'triangle';

/** Band-limited oscillator at `freq` Hz (or `freq(i)` for sample i), starting at phase `phase` (cycles). */
function oscillator(n: number, wave: Wave, freq: number | ((i: number) => number), sr: number, phase = 0): Float64Array {
  const out = new Float64Array(n);
  let p = phase - Math.floor(phase);
  let tri = 0;
  const fixed = typeof freq === 'number' ? Math.min(0.45, freq / sr) : 0;
  for (let i = 0; i < n; i++) {
    const dt = typeof freq === 'number' ? fixed : Math.min(0.45, freq(i) / sr);
    let v: number;
    if (wave === 'sine') v = Math.sin(2 * Math.PI * p);
    else if (wave === 'saw') v = 2 * p - 1 - polyBlep(p, dt);
    else {
      let sq = p < 0.5 ? 1 : -1;
      sq += polyBlep(p, dt);
      sq -= polyBlep((p + 0.5) % 1, dt);
      if (wave === 'square') v = sq;
      else {
        // Leaky integration of the square gives a band-limited triangle.
        tri = dt * sq * 4 + (1 - dt * 0.05) * tri;
        v = tri;
      }
    }
    out[i] = v;
    p += dt;
    if (p >= 1) p -= 1;
  }
  return out;
}

/** Attack (linear), then exponential decay with time constant `tau` (s) or a hold, and a release (linear). */
function envelope(
  n: number,
  sr: number,
  o: { attack: number; tau?: number; hold?: number; release?: number; sustain?: number },
): Float64Array {
  const out = new Float64Array(n);
  const a = Math.max(1, Math.round(o.attack * sr));
  const hold = o.hold !== undefined ? Math.round(o.hold * sr) : n;
  const rel = Math.max(1, Math.round((o.release ?? 0.01) * sr));
  const sustain = o.sustain ?? 1;
  for (let i = 0; i < n; i++) {
    let v = i < a ? i / a : o.tau !== undefined ? sustain + (1 - sustain) * Math.exp(-(i - a) / sr / o.tau) : 1;
    if (i >= a + hold) v *= Math.max(0, 1 - (i - a - hold) / rel);
    out[i] = v;
  }
  return out;
}

function mulInto(x: Float64Array, env: Float64Array): Float64Array {
  for (let i = 0; i < x.length; i++) x[i] = x[i]! * env[i]!;
  return x;
}

function addInto(dst: Float64Array, src: Float64Array, gain = 1, offset = 0): Float64Array {
  for (let i = 0; i < src.length && offset + i < dst.length; i++) if (offset + i >= 0) dst[offset + i] = dst[offset + i]! + gain * src[i]!;
  return dst;
}

/** Short cosine fades at both ends (no clicks at the edges). */
function fadeEdges(x: Float64Array, sr: number, inSeconds = 0.001, outSeconds = 0.01): Float64Array {
  const fi = Math.min(x.length >> 1, Math.round(inSeconds * sr));
  const fo = Math.min(x.length >> 1, Math.round(outSeconds * sr));
  for (let i = 0; i < fi; i++) x[i] = x[i]! * 0.5 * (1 - Math.cos((Math.PI * i) / fi));
  for (let i = 0; i < fo; i++) x[x.length - 1 - i] = x[x.length - 1 - i]! * 0.5 * (1 - Math.cos((Math.PI * i) / fo));
  return x;
}

const semis = (f: number, s: number) => f * 2 ** (s / 12);

// ---- Generators: (rng for this render, shared parameters) → mono signal ----------------------------

/** A sound's parameters are drawn once (`params`), then rendered once per channel source with its own rng. */
interface Generator<P> {
  params(rng: Rng, sr: number): P & { seconds: number; width: number };
  render(p: P & { seconds: number; width: number }, rng: Rng, sr: number): Float64Array;
}

const kick: Generator<{ fEnd: number; fStart: number; sweep: number; tau: number; click: number; drive: number }> = {
  params: (r) => ({
    fEnd: r.range(42, 65),
    fStart: r.range(120, 260),
    sweep: r.range(0.012, 0.045),
    tau: r.range(0.07, 0.22),
    click: r.range(0, 0.5),
    drive: r.range(1, 4),
    seconds: r.range(0.25, 0.9),
    width: r.u() < 0.7 ? 0 : r.range(0, 0.15),
  }),
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const out = new Float64Array(n);
    let phase = rng.u();
    for (let i = 0; i < n; i++) {
      const t = i / sr;
      const f = p.fEnd + (p.fStart - p.fEnd) * Math.exp(-t / p.sweep);
      phase += f / sr;
      const body = Math.sin(2 * Math.PI * phase) * Math.exp(-t / p.tau);
      const click = p.click * Math.exp(-t / 0.002) * rng.noise();
      out[i] = Math.tanh(p.drive * (body + click)) / Math.tanh(p.drive);
    }
    return fadeEdges(out, sr, 0, 0.02);
  },
};

const snare: Generator<{ tone: number; toneTau: number; hp: number; lp: number; noiseTau: number; mix: number }> = {
  params: (r) => ({
    tone: r.range(150, 260),
    toneTau: r.range(0.03, 0.1),
    hp: r.range(400, 1500),
    lp: r.range(5000, 11_000),
    noiseTau: r.range(0.05, 0.18),
    mix: r.range(0.4, 0.8),
    seconds: r.range(0.2, 0.6),
    width: r.range(0, 0.35),
  }),
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const noise = filter(filter(whiteNoise(n, rng), 'highpass', p.hp, 0.7, sr), 'lowpass', p.lp, 0.7, sr);
    const out = new Float64Array(n);
    const ph = rng.u();
    for (let i = 0; i < n; i++) {
      const t = i / sr;
      out[i] =
        (1 - p.mix) * Math.sin(2 * Math.PI * (p.tone * t + ph)) * Math.exp(-t / p.toneTau) +
        p.mix * 1.5 * noise[i]! * Math.exp(-t / p.noiseTau);
    }
    return fadeEdges(out, sr, 0, 0.02);
  },
};

const clap: Generator<{ bursts: number; gap: number; center: number; q: number; tail: number; room: number }> = {
  params: (r) => ({
    bursts: r.int(3, 4),
    gap: r.range(0.007, 0.013),
    center: r.range(900, 2200),
    q: r.range(0.6, 1.5),
    tail: r.range(0.04, 0.15),
    room: r.range(0, 0.3),
    seconds: r.range(0.3, 0.9),
    width: r.range(0.1, 0.6),
  }),
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const noise = filter(filter(whiteNoise(n, rng), 'bandpass', p.center, p.q, sr), 'highpass', 500, 0.7, sr);
    const out = new Float64Array(n);
    const tailStart = p.bursts * p.gap;
    for (let i = 0; i < n; i++) {
      const t = i / sr;
      let e = 0;
      for (let b = 0; b < p.bursts; b++) if (t >= b * p.gap) e += Math.exp(-(t - b * p.gap) / 0.003);
      if (t >= tailStart) e += 0.8 * Math.exp(-(t - tailStart) / p.tail) + p.room * Math.exp(-(t - tailStart) / 0.35) * 0.3;
      out[i] = 2 * e * noise[i]!;
    }
    return fadeEdges(out, sr, 0, 0.02);
  },
};

/** Metallic tone: six detuned square waves (the 808 cymbal), for hats and rides. */
function metal(n: number, sr: number, scale: number, rng: Rng): Float64Array {
  const out = new Float64Array(n);
  for (const f of [205.3, 304.4, 369.6, 522.7, 540, 800]) addInto(out, oscillator(n, 'square', f * scale, sr, rng.u()), 1 / 6);
  return out;
}

const hat = (open: boolean): Generator<{ hp: number; tau: number; metal: number; scale: number }> => ({
  params: (r) => ({
    hp: r.range(6000, 9500),
    tau: open ? r.range(0.15, 0.6) : r.range(0.008, 0.04),
    metal: r.range(0, 0.6),
    scale: r.range(1, 1.6),
    seconds: open ? r.range(0.5, 1.6) : r.range(0.2, 0.35),
    width: r.range(0, 0.6),
  }),
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const src = whiteNoise(n, rng);
    addInto(src, metal(n, sr, p.scale, rng), p.metal * 2);
    filter(filter(src, 'highpass', p.hp, 0.7, sr), 'highpass', p.hp, 0.7, sr);
    for (let i = 0; i < n; i++) src[i] = src[i]! * Math.exp(-i / sr / p.tau);
    return fadeEdges(src, sr, 0.0005, 0.02);
  },
});

const shaker: Generator<{ bpm: number; steps: number; center: number; attack: number; tau: number; accent: number }> = {
  params: (r) => {
    const bpm = r.range(90, 130);
    const steps = r.pick([8, 16, 32]);
    return {
      bpm,
      steps,
      center: r.range(5000, 9000),
      attack: r.range(0.006, 0.02),
      tau: r.range(0.02, 0.06),
      accent: r.range(0.3, 0.8),
      seconds: (steps * 15) / bpm,
      width: r.range(0.1, 0.6),
    };
  },
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const noise = filter(filter(whiteNoise(n, rng), 'bandpass', p.center, 0.8, sr), 'highpass', 3500, 0.7, sr);
    const env = new Float64Array(n);
    const step = 15 / p.bpm;
    for (let s = 0; s < p.steps; s++) {
      const start = Math.round(s * step * sr);
      const g = s % 2 === 0 ? 1 : p.accent;
      for (let i = 0; start + i < n && i < step * sr * 1.5; i++) {
        const t = i / sr;
        const e = t < p.attack ? t / p.attack : Math.exp(-(t - p.attack) / p.tau);
        env[start + i] = Math.max(env[start + i]!, g * e);
      }
    }
    return fadeEdges(mulInto(noise, env), sr);
  },
};

const ride: Generator<{ hp: number; tau: number; bell: number; bellF: number; bellTau: number; scale: number }> = {
  params: (r) => ({
    hp: r.range(5000, 8000),
    tau: r.range(0.6, 2.5),
    bell: r.range(0.05, 0.3),
    bellF: r.range(700, 1300),
    bellTau: r.range(0.3, 1),
    scale: r.range(1.5, 2.5),
    seconds: r.range(1, 4),
    width: r.range(0.1, 0.6),
  }),
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const src = whiteNoise(n, rng);
    addInto(src, metal(n, sr, p.scale, rng), 1.5);
    filter(filter(src, 'highpass', p.hp, 0.7, sr), 'highpass', p.hp, 0.7, sr);
    const bell = new Float64Array(n);
    for (const [ratio, amp] of [
      [1, 1],
      [2.76, 0.6],
      [5.4, 0.4],
      [8.93, 0.3],
    ] as const)
      addInto(bell, oscillator(n, 'sine', p.bellF * ratio, sr, rng.u()), amp);
    for (let i = 0; i < n; i++) {
      const t = i / sr;
      const ping = Math.exp(-t / 0.004) * 1.5;
      src[i] = src[i]! * (Math.exp(-t / p.tau) + ping) + p.bell * bell[i]! * Math.exp(-t / p.bellTau);
    }
    return fadeEdges(src, sr, 0.0005, 0.05);
  },
};

/** Notes of a short line: `count` notes from `root` Hz, steps drawn from `intervals` (semitones). */
function melody(rng: Rng, root: number, count: number, intervals: readonly number[]): number[] {
  const out = [root];
  for (let i = 1; i < count; i++) out.push(semis(root, rng.pick(intervals)));
  return out;
}

const subBass: Generator<{ notes: number[]; attack: number; decayTau: number | null; second: number; glide: number; release: number }> = {
  params: (r) => {
    const root = r.range(30, 68);
    const count = r.pick([1, 1, 2, 3, 4]);
    const seconds = count === 1 ? r.range(0.5, 3) : r.range(1.5, 4);
    return {
      notes: melody(r, root, count, [0, 2, 3, 5, 7, -2]),
      attack: r.range(0.003, 0.02),
      decayTau: r.u() < 0.4 ? r.range(0.7, 2) : null,
      second: r.range(0, 0.2),
      glide: r.range(0, 2),
      release: r.range(0.05, 0.3),
      seconds,
      width: 0,
    };
  },
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const out = new Float64Array(n);
    const per = Math.floor(n / p.notes.length);
    for (let k = 0; k < p.notes.length; k++) {
      const len = k === p.notes.length - 1 ? n - k * per : per;
      const f = p.notes[k]!;
      const osc = oscillator(len, 'sine', (i) => f * 2 ** ((p.glide * Math.exp(-i / sr / 0.03)) / 12), sr, rng.u());
      const h2 = oscillator(len, 'sine', (i) => 2 * f * 2 ** ((p.glide * Math.exp(-i / sr / 0.03)) / 12), sr, rng.u());
      addInto(osc, h2, p.second);
      for (let i = 0; i < len; i++) osc[i] = Math.tanh(1.5 * osc[i]!) / Math.tanh(1.5);
      const env = envelope(len, sr, {
        attack: p.attack,
        ...(p.decayTau !== null ? { tau: p.decayTau, sustain: 0.05 } : {}),
        hold: len / sr - p.attack - p.release,
        release: p.release,
      });
      addInto(out, mulInto(osc, env), 1, k * per);
    }
    return fadeEdges(out, sr);
  },
};

const midBass: Generator<{
  notes: number[];
  wave: Wave;
  cutoff: number;
  q: number;
  envAmt: number;
  lfo: number;
  detune: number;
  attack: number;
  gate: number;
}> = {
  params: (r) => {
    const count = r.pick([1, 2, 4, 8]);
    const seconds = count === 1 ? r.range(0.3, 2) : r.range(1, 4);
    return {
      notes: melody(r, r.range(42, 110), count, [0, 0, 3, 5, 7, -5, -7]),
      wave: r.pick(['saw', 'square', 'saw'] as const),
      cutoff: r.range(250, 1000),
      q: r.range(0.7, 4),
      envAmt: r.range(0, 2),
      lfo: r.u() < 0.3 ? r.range(1, 6) : 0,
      detune: r.u() < 0.3 ? r.range(5, 20) : 0,
      attack: r.range(0.003, 0.015),
      gate: r.range(0.6, 0.95),
      seconds,
      width: r.u() < 0.6 ? 0 : r.range(0, 0.3),
    };
  },
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const out = new Float64Array(n);
    const per = Math.floor(n / p.notes.length);
    for (let k = 0; k < p.notes.length; k++) {
      const len = k === p.notes.length - 1 ? n - k * per : per;
      const f = p.notes[k]!;
      const osc = oscillator(len, p.wave, f, sr, rng.u());
      if (p.detune > 0) addInto(osc, oscillator(len, p.wave, semis(f, p.detune / 100), sr, rng.u()));
      const cut = (i: number) =>
        p.cutoff * (1 + p.envAmt * Math.exp(-i / sr / 0.08)) * (p.lfo > 0 ? 1 + 0.6 * Math.sin((2 * Math.PI * p.lfo * i) / sr) : 1);
      filter(osc, 'lowpass', cut, p.q, sr);
      filter(osc, 'lowpass', cut, 0.7, sr);
      const env = envelope(len, sr, { attack: p.attack, hold: (len / sr) * p.gate, release: 0.03 });
      addInto(out, mulInto(osc, env), 1, k * per);
    }
    return fadeEdges(out, sr);
  },
};

const pluck: Generator<{ notes: number[]; step: number; damping: number; bright: number; tone: number }> = {
  params: (r) => {
    const count = r.pick([1, 1, 3, 4, 6]);
    const step = r.range(0.12, 0.3);
    return {
      notes: melody(r, r.range(200, 900), count, [0, 3, 4, 7, 12, 5]),
      step,
      damping: r.range(0.992, 0.9985),
      bright: r.range(0, 0.5),
      tone: r.range(1500, 5000),
      seconds: count === 1 ? r.range(0.3, 1.5) : count * step + r.range(0.2, 0.8),
      width: r.range(0, 0.5),
    };
  },
  render(p, rng, sr) {
    // Karplus–Strong: a delay line of one period, initialised with noise, averaged and damped each pass.
    const n = Math.round(p.seconds * sr);
    const out = new Float64Array(n);
    p.notes.forEach((f, k) => {
      const start = Math.round(k * p.step * sr);
      const len = n - start;
      if (len <= 0) return;
      const period = Math.max(2, Math.round(sr / f));
      // The excitation: a burst of low-passed noise (the pick's tone).
      const line = filter(whiteNoise(period, rng), 'lowpass', p.tone, 0.7, sr);
      const note = new Float64Array(len);
      let idx = 0;
      for (let i = 0; i < len; i++) {
        const cur = line[idx]!;
        const nxt = line[(idx + 1) % period]!;
        note[i] = cur;
        line[idx] = p.damping * (p.bright * cur + (1 - p.bright) * 0.5 * (cur + nxt));
        idx = (idx + 1) % period;
      }
      addInto(out, note, 1, start);
    });
    return fadeEdges(out, sr, 0.0005, 0.03);
  },
};

const lead: Generator<{ notes: number[]; wave: Wave; cutoff: number; vibrato: number; voices: number; attack: number; glide: boolean }> = {
  params: (r) => {
    const count = r.pick([1, 2, 3, 4, 6]);
    return {
      notes: melody(r, r.range(250, 900), count, [0, 2, 3, 5, 7, -2, -5]),
      wave: r.pick(['saw', 'square', 'triangle', 'sine'] as const),
      cutoff: r.range(1500, 8000),
      vibrato: r.range(0, 0.4),
      voices: r.pick([1, 1, 3]),
      attack: r.range(0.005, 0.06),
      glide: r.u() < 0.3,
      seconds: r.range(0.8, 5),
      width: r.range(0, 0.5),
    };
  },
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const per = Math.floor(n / p.notes.length);
    const freqs = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const k = Math.min(p.notes.length - 1, Math.floor(i / per));
      freqs[i] = p.notes[k]! * 2 ** ((p.vibrato * Math.sin((2 * Math.PI * 5.5 * i) / sr)) / 12);
    }
    const out = new Float64Array(n);
    for (let v = 0; v < p.voices; v++) {
      const ratio = p.voices === 1 ? 1 : semis(1, (v - 1) * 0.12);
      addInto(
        out,
        oscillator(n, p.wave, (i) => freqs[i]! * ratio, sr, rng.u()),
        1 / p.voices,
      );
    }
    filter(out, 'lowpass', p.cutoff, 0.8, sr);
    // Re-articulate each note (a short dip between notes).
    const env = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const inNote = i % per;
      const a = Math.round(p.attack * sr);
      env[i] = inNote < a ? inNote / a : Math.max(0.7, 1 - (inNote - a) / sr / 8);
      if (per - inNote < 0.02 * sr && !p.glide) env[i] = env[i]! * ((per - inNote) / (0.02 * sr));
    }
    return fadeEdges(mulInto(out, env), sr, 0.001, 0.05);
  },
};

const CHORDS: readonly (readonly number[])[] = [
  [0, 4, 7],
  [0, 3, 7],
  [0, 3, 7, 10],
  [0, 4, 7, 11],
  [0, 3, 7, 10, 14],
  [0, 5, 7],
];

const chord: Generator<{
  root: number;
  shape: readonly number[];
  style: 'keys' | 'stab' | 'organ';
  tau: number;
  changes: number;
  cutoff: number;
}> = {
  params: (r) => {
    const style = r.pick(['keys', 'stab', 'organ', 'keys'] as const);
    const changes = r.pick([1, 1, 2, 4]);
    return {
      root: r.range(190, 420),
      shape: r.pick(CHORDS),
      style,
      tau: style === 'stab' ? r.range(0.08, 0.3) : r.range(0.4, 1.5),
      changes,
      cutoff: r.range(1500, 5000),
      seconds: style === 'stab' ? r.range(0.3, 1) * changes : r.range(1, 3) * Math.min(2, changes),
      width: r.range(0, 0.5),
    };
  },
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const out = new Float64Array(n);
    const per = Math.floor(n / p.changes);
    const progression = [0, 5, -3, 7];
    for (let c = 0; c < p.changes; c++) {
      const len = c === p.changes - 1 ? n - c * per : per;
      const root = semis(p.root, progression[c % 4]!);
      const voice = new Float64Array(len);
      for (const iv of p.shape) {
        const f = semis(root, iv);
        if (p.style === 'keys') {
          // Electric-piano-like: a few decaying harmonics, upper ones faster.
          for (const [h, a] of [
            [1, 1],
            [2, 0.4],
            [3, 0.15],
            [4, 0.08],
          ] as const) {
            const tone = oscillator(len, 'sine', f * h, sr, rng.u());
            for (let i = 0; i < len; i++) tone[i] = tone[i]! * Math.exp(-i / sr / (p.tau / h));
            addInto(voice, tone, a);
          }
        } else {
          addInto(voice, oscillator(len, p.style === 'organ' ? 'square' : 'saw', f, sr, rng.u()), 0.6);
        }
      }
      if (p.style !== 'keys') filter(voice, 'lowpass', p.cutoff, 0.7, sr);
      const env =
        p.style === 'stab'
          ? envelope(len, sr, { attack: 0.003, tau: p.tau })
          : p.style === 'organ'
            ? envelope(len, sr, { attack: 0.01, hold: len / sr - 0.06, release: 0.04 })
            : envelope(len, sr, { attack: 0.002 });
      addInto(out, mulInto(voice, env), 1, c * per);
    }
    return fadeEdges(out, sr, 0.001, 0.05);
  },
};

const pad: Generator<{
  root: number;
  shape: readonly number[];
  voices: number;
  spread: number;
  cutoff: number;
  attack: number;
  release: number;
  lfo: number;
  noise: number;
}> = {
  params: (r) => ({
    root: r.range(110, 330),
    shape: r.pick(CHORDS),
    voices: r.int(2, 4),
    spread: r.range(8, 25),
    cutoff: r.range(600, 3000),
    attack: r.range(0.4, 2),
    release: r.range(0.5, 2),
    lfo: r.range(0.05, 0.4),
    noise: r.range(0, 0.15),
    seconds: r.range(3, 8),
    width: r.range(0.5, 0.95),
  }),
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const out = new Float64Array(n);
    for (const iv of p.shape) {
      for (let v = 0; v < p.voices; v++) {
        const det = (v / Math.max(1, p.voices - 1) - 0.5) * 2 * p.spread + rng.range(-3, 3);
        addInto(out, oscillator(n, 'saw', semis(semis(p.root, iv), det / 100), sr, rng.u()), 0.3 / p.voices);
      }
    }
    addInto(out, filter(whiteNoise(n, rng), 'bandpass', 2000, 0.5, sr), p.noise);
    const ph = rng.u();
    filter(out, 'lowpass', (i) => p.cutoff * (1 + 0.5 * Math.sin(2 * Math.PI * (p.lfo * (i / sr) + ph))), 0.7, sr);
    const env = envelope(n, sr, { attack: p.attack, hold: p.seconds - p.attack - p.release, release: p.release });
    return mulInto(out, env);
  },
};

const drone: Generator<{ root: number; partials: number; lfo: number; noise: number; attack: number; beat: number; cutoff: number }> = {
  params: (r) => ({
    root: r.range(65, 200),
    partials: r.int(3, 8),
    lfo: r.range(0.03, 0.25),
    noise: r.range(0.02, 0.3),
    attack: r.range(0.3, 2.5),
    beat: r.range(0.1, 1.5),
    cutoff: r.range(400, 2500),
    seconds: r.range(4, 8),
    width: r.range(0.3, 0.9),
  }),
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const out = new Float64Array(n);
    for (let h = 1; h <= p.partials; h++) {
      const amp = 1 / h ** 0.7;
      const ph = rng.u();
      const rate = p.lfo * rng.range(0.5, 2);
      const tone = oscillator(n, 'sine', p.root * h, sr, ph);
      const beat = oscillator(n, 'sine', p.root * h + p.beat, sr, rng.u());
      for (let i = 0; i < n; i++) tone[i] = (tone[i]! + 0.7 * beat[i]!) * (0.6 + 0.4 * Math.sin(2 * Math.PI * (rate * (i / sr) + ph)));
      addInto(out, tone, amp * 0.2);
    }
    addInto(out, filter(whiteNoise(n, rng), 'lowpass', p.cutoff, 0.7, sr), p.noise);
    const ph = rng.u();
    filter(out, 'lowpass', (i) => p.cutoff * (1.2 + Math.sin(2 * Math.PI * (p.lfo * (i / sr) + ph))), 0.9, sr);
    const env = envelope(n, sr, { attack: p.attack, hold: p.seconds - p.attack - 1, release: 1 });
    return mulInto(out, env);
  },
};

const noiseSweep: Generator<{ direction: 'up' | 'down'; from: number; to: number; q: number; shape: number; tone: boolean }> = {
  params: (r) => {
    const up = r.u() < 0.65;
    return {
      direction: up ? 'up' : 'down',
      from: r.range(150, 600),
      to: r.range(5000, 14_000),
      q: r.range(0.5, 3),
      shape: r.range(1, 3),
      tone: r.u() < 0.3,
      seconds: r.range(1.5, 8),
      width: r.range(0.3, 0.9),
    };
  },
  render(p, rng, sr) {
    const n = Math.round(p.seconds * sr);
    const pos = (i: number) => (p.direction === 'up' ? i / n : 1 - i / n);
    const src = whiteNoise(n, rng);
    filter(src, 'bandpass', (i) => p.from * (p.to / p.from) ** pos(i), p.q, sr);
    if (p.tone)
      addInto(
        src,
        oscillator(n, 'saw', (i) => 200 * 8 ** pos(i), sr, rng.u()),
        0.15,
      );
    for (let i = 0; i < n; i++) src[i] = src[i]! * (0.05 + pos(i) ** p.shape);
    return fadeEdges(src, sr, 0.05, 0.1);
  },
};

const GENERATORS: Readonly<Record<Exclude<SampleKind, 'drum_loop'>, Generator<object>>> = {
  kick: kick as Generator<object>,
  snare: snare as Generator<object>,
  clap: clap as Generator<object>,
  closed_hat: hat(false) as Generator<object>,
  open_hat: hat(true) as Generator<object>,
  shaker: shaker as Generator<object>,
  ride: ride as Generator<object>,
  sub_bass: subBass as Generator<object>,
  mid_bass: midBass as Generator<object>,
  pluck: pluck as Generator<object>,
  lead: lead as Generator<object>,
  chord: chord as Generator<object>,
  pad: pad as Generator<object>,
  drone: drone as Generator<object>,
  noise_sweep: noiseSweep as Generator<object>,
};

const PATTERNS: readonly DrumPattern[] = ['straight8', 'straight16', 'clap', 'velocity', 'syncopated', 'swing', 'ghost'];

/** Scale both channels so the peak is `db` dBFS; returns float32 channels. */
function toChannels(chs: readonly Float64Array[], db: number): Float32Array[] {
  let peak = 0;
  for (const c of chs) for (let i = 0; i < c.length; i++) peak = Math.max(peak, Math.abs(c[i]!));
  const g = peak > 0 ? 10 ** (db / 20) / peak : 0;
  return chs.map((c) => Float32Array.from(c, (v) => v * g));
}

/** One labelled sample: kind `kind`, variant `index` (0-based). */
export function renderSample(kind: SampleKind, index: number): LabelledSample {
  const seed = 1000 * (KINDS.indexOf(kind) + 1) + index * 17 + 3;
  const rng = new Rng(seed);
  const sampleRate = index % 4 === 3 ? 48_000 : 44_100;
  const peakDb = rng.range(-30, 0);
  const name = NAMES[kind][index % NAMES[kind].length]!;
  const role = KIND_ROLES[kind];
  const misleading = index % 10 === MISLEADING_INDEX || (kind === 'pad' && index % 10 === 8);
  let chs: Float64Array[];
  if (kind === 'drum_loop') {
    const bpm = rng.range(85, 175);
    const bars = rng.pick([1, 2]);
    const loop = drumLoop({
      bpm,
      bars,
      sampleRate,
      pattern: PATTERNS[index % PATTERNS.length]!,
      leadIn: 0,
      tail: 0,
      seed: (seed % 97) + 1,
      gainDb: 0,
    });
    chs = loop.channels.map((c) => Float64Array.from(c));
  } else {
    const gen = GENERATORS[kind];
    const p = gen.params(rng, sampleRate);
    const a = gen.render(p, new Rng(seed * 31 + 7), sampleRate);
    if (p.width <= 0) chs = [a, Float64Array.from(a)];
    else {
      const b = gen.render(p, new Rng(seed * 31 + 11), sampleRate);
      const r = new Float64Array(a.length);
      for (let i = 0; i < a.length; i++) r[i] = (1 - p.width) * a[i]! + p.width * (b[i] ?? 0);
      chs = [a, r];
    }
    // A few mono files.
    if (index % 5 === 4) chs = [chs[0]!];
  }
  return { name, role, kind, channels: toChannels(chs, peakDb), sampleRate, misleading };
}

/** The whole set: every kind, `perKind` variants each (default 10: 160 samples). */
export function labelledSampleSet(perKind = 10): LabelledSample[] {
  const out: LabelledSample[] = [];
  for (const kind of KINDS) for (let i = 0; i < perKind; i++) out.push(renderSample(kind, i));
  return out;
}

export const SAMPLE_KINDS: readonly SampleKind[] = KINDS;
