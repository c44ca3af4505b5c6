/**
 * The `naming` engine: a convention-compliant file name `NN_role_character` for a sample, from the
 * measured analysis only (the file name is never read; the sample analysis runs with an empty name).
 *
 * - NN: the index, zero-padded to two digits (three from 100): 7 → `07`, 123 → `123`.
 * - role: the measured role (sample-analysis.ts), one of percs, bass, melodic, tops, atmos.
 * - character: the two most distinctive descriptors, joined by `-` (`dark-sub`).
 *
 * Descriptors (one word per axis, each with a strength 0..1; all inputs are fields of the analysis):
 * - brightness, from the spectral centroid's position x on a log axis from 100 Hz (0) to 12 kHz (1):
 *   dark (x < 0.3, below ~420 Hz), warm (< 0.5, ~1.1 kHz), bright (< 0.75, ~3.6 kHz), airy (above);
 *   strength |x − 0.5|·2 (the extremes are the distinctive ones).
 * - weight, from the band shares: sub (sub < 60 Hz ≥ 0.3; strength 0.6 + 0.4·sub), heavy (sub + low
 *   ≥ 0.3; strength sub + low), light (otherwise; strength 0.3·(1 − (sub + low)/0.3), since lacking
 *   lows is the common case).
 * - attack: the strongest of soft (strength ramp(attack, 50 ms, 500 ms)), plucky (pitched mid/high
 *   material that decays: strength pitchedHigh·ramp(drop, 3, 8 dB)) and punchy (a hit that is not
 *   pitched mid/high material, kicks included: strength percussiveness·(1 − pitchedHigh)), where
 *   pitchedHigh = pitched·(1 − ramp(sub + low, 0.4, 0.65)).
 * - texture: noisy (strength noisy), gritty (pitched with a noise part: pitched·ramp(flatness, 0.04,
 *   0.12)), tonal (strength 0.6·pitched·ramp(tonal share, 0.6, 0.9)), clean (strength 0.2, the
 *   fallback); the strongest.
 * - width: wide (stereo width ≥ 0.3; strength ramp(width, 0.3, 0.8)), mono (width < 0.05; strength 0.25),
 *   none in between (strength 0).
 * Here pitched = ramp(salience, 0.5, 0.75)·ramp(voiced, 0.4, 0.7) maxed with ramp(tonal share, 0.55,
 * 0.8), and noisy = (1 − ramp(salience, 0.3, 0.6))·(1 − ramp(tonal share, 0.3, 0.6)) — the role
 * model's cues. The character is the strongest descriptor, then the strongest of another axis; equal
 * strengths go by the axis order above. Same audio, same analysis, same name.
 */
import type { EngineSpec, StreamEngine } from './engine.js';
import { ramp } from '../dsp/role-features.js';
import { sampleAnalysisEngine, type SampleAnalysisResult } from './sample-analysis.js';
import type { RoleScore, SampleRole } from './sample-role.js';
import { roundTo } from '../dsp/round.js';

export interface NamingParams {
  /** The sequence number NN (0..999). */
  readonly index: number;
}

/** Documented limits of the parameters. */
export const namingBounds = { index: { min: 0, max: 999 } } as const;

export const DESCRIPTOR_AXES = ['brightness', 'weight', 'attack', 'texture', 'width'] as const;
export type DescriptorAxis = (typeof DESCRIPTOR_AXES)[number];

export const DESCRIPTOR_WORDS = {
  brightness: ['dark', 'warm', 'bright', 'airy'],
  weight: ['sub', 'heavy', 'light'],
  attack: ['punchy', 'soft', 'plucky'],
  texture: ['clean', 'gritty', 'noisy', 'tonal'],
  width: ['wide', 'mono'],
} as const;

export interface Descriptor {
  /** The axis's word; null when the axis has none for this sound (width between mono and wide). */
  readonly word: string | null;
  /** How distinctive the word is, 0..1. */
  readonly strength: number;
}

export interface NamingResult {
  /** `NN_role_character`, only [a-z0-9_-]. */
  readonly name: string;
  readonly parts: { readonly index: number; readonly role: SampleRole; readonly character: string[] };
  readonly role: SampleRole;
  readonly confidence: number;
  readonly runner_up: RoleScore;
  /** Every axis's descriptor; `parts.character` holds the two strongest. */
  readonly descriptors: Record<DescriptorAxis, Descriptor>;
}

/** NN: zero-padded to two digits, three from 100. */
export function formatIndex(index: number): string {
  return String(index).padStart(index >= 100 ? 3 : 2, '0');
}

/** The five descriptors of an analysis (see the module comment). */
export function describe(a: SampleAnalysisResult): Record<DescriptorAxis, Descriptor> {
  const pitched = Math.max(
    ramp(a.pitch.salience, 0.5, 0.75) * ramp(a.pitch.voiced_fraction, 0.4, 0.7),
    ramp(a.spectrum.tonal_peak_share, 0.55, 0.8),
  );
  const noisy = (1 - ramp(a.pitch.salience, 0.3, 0.6)) * (1 - ramp(a.spectrum.tonal_peak_share, 0.3, 0.6));

  const low = a.bands.sub + a.bands.low;
  const c = a.spectrum.centroid_hz;
  const x = c > 0 ? Math.max(0, Math.min(1, Math.log(c / 100) / Math.log(120))) : 0;
  const brightness: Descriptor = {
    word: x < 0.3 ? 'dark' : x < 0.5 ? 'warm' : x < 0.75 ? 'bright' : 'airy',
    strength: Math.abs(x - 0.5) * 2,
  };

  const weight: Descriptor =
    a.bands.sub >= 0.3
      ? { word: 'sub', strength: 0.6 + 0.4 * a.bands.sub }
      : low >= 0.3
        ? { word: 'heavy', strength: low }
        : { word: 'light', strength: 0.3 * (1 - low / 0.3) };

  // Pitched mid/high material (a kick's tone is low: a kick stays punchy).
  const pitchedHigh = pitched * (1 - ramp(low, 0.4, 0.65));
  const attacks: Descriptor[] = [
    { word: 'punchy', strength: a.percussion.percussiveness * (1 - pitchedHigh) },
    { word: 'soft', strength: ramp(a.envelope.attack_s, 0.05, 0.5) },
    { word: 'plucky', strength: pitchedHigh * ramp(a.envelope.mean_drop_db, 3, 8) },
  ];
  const textures: Descriptor[] = [
    { word: 'clean', strength: 0.2 },
    { word: 'gritty', strength: pitched * ramp(a.spectrum.flatness, 0.04, 0.12) },
    { word: 'noisy', strength: noisy },
    { word: 'tonal', strength: 0.6 * pitched * ramp(a.spectrum.tonal_peak_share, 0.6, 0.9) },
  ];
  const w = a.stereo.width;
  const width: Descriptor =
    w >= 0.3 ? { word: 'wide', strength: ramp(w, 0.3, 0.8) } : w < 0.05 ? { word: 'mono', strength: 0.25 } : { word: null, strength: 0 };
  // The strongest of several words (the first on ties).
  const strongest = (options: Descriptor[]) => options.reduce((best, d) => (d.strength > best.strength ? d : best));
  const out = { brightness, weight, attack: strongest(attacks), texture: strongest(textures), width };
  return Object.fromEntries(
    DESCRIPTOR_AXES.map((axis) => [axis, { word: out[axis].word, strength: roundTo(out[axis].strength, 3) }]),
  ) as Record<DescriptorAxis, Descriptor>;
}

/** The two strongest descriptors of different axes (axis order breaks ties). */
export function characterOf(descriptors: Record<DescriptorAxis, Descriptor>): string[] {
  const ranked = DESCRIPTOR_AXES.filter((axis) => descriptors[axis].word !== null).sort(
    (p, q) => descriptors[q].strength - descriptors[p].strength || DESCRIPTOR_AXES.indexOf(p) - DESCRIPTOR_AXES.indexOf(q),
  );
  return ranked.slice(0, 2).map((axis) => descriptors[axis].word!);
}

/** The whole naming answer from a sample analysis. */
export function nameFromAnalysis(analysis: SampleAnalysisResult, index: number): NamingResult {
  const descriptors = describe(analysis);
  const character = characterOf(descriptors);
  // The analysis ran without a name, so its role is the measured one.
  const role = analysis.role;
  const name = `${formatIndex(index)}_${role}_${character.join('-')}`;
  return {
    name,
    parts: { index, role, character },
    role,
    confidence: analysis.confidence,
    runner_up: analysis.runner_up,
    descriptors,
  };
}

export const namingEngine: EngineSpec<NamingParams, NamingResult> = {
  id: 'naming',
  version: '1',
  needsTotalFrames: false,
  create(format, params): StreamEngine<NamingResult> {
    const index = params.index;
    if (!Number.isInteger(index) || index < namingBounds.index.min || index > namingBounds.index.max) {
      throw new RangeError(`index must be an integer in ${namingBounds.index.min}..${namingBounds.index.max}, got ${index}`);
    }
    // The file name never takes part: the analysis runs without it.
    const analysis = sampleAnalysisEngine.create(format, { name: '' });
    return {
      push: (chunk) => analysis.push(chunk),
      finish: () => nameFromAnalysis(analysis.finish(), index),
    };
  },
};
