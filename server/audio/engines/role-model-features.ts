/**
 * The role model's inputs: named transforms of the sample engine's measurements (never the file name),
 * each with the words a producer reads when it decides a role (`describeFeature`).
 */
import { noteName } from '../dsp/pitch.js';
import type { SampleAnalysisResult } from './sample-analysis.js';

/** The measurements of a sample analysis the role model reads: picked from SampleAnalysisResult, so the two cannot drift. */
export interface RoleMeasurements extends Pick<SampleAnalysisResult, 'duration_s' | 'bands' | 'spectrum' | 'envelope'> {
  readonly percussion: Pick<SampleAnalysisResult['percussion'], 'hpss_percussive' | 'onset_count' | 'onset_density'>;
  readonly pitch: Pick<SampleAnalysisResult['pitch'], 'f0_hz' | 'salience' | 'voiced_fraction' | 'spread_semitones'>;
  readonly stereo: Pick<SampleAnalysisResult['stereo'], 'width'>;
  readonly loop: Pick<SampleAnalysisResult['loop'], 'halves_similarity' | 'end_level_db' | 'tempo_bpm'>;
}

interface FeatureSpec {
  readonly name: string;
  readonly value: (m: RoleMeasurements) => number;
}

const log2 = Math.log2;
/** f0 in octaves above 55 Hz (A1), 0 without a pitch (then `pitched` is 0 too). */
const f0Octaves = (m: RoleMeasurements) => (m.pitch.f0_hz !== null ? log2(m.pitch.f0_hz / 55) : 0);
const hasF0 = (m: RoleMeasurements) => (m.pitch.f0_hz !== null ? 1 : 0);
/** A soft "the fundamental is in the bass register" (below ~160 Hz, E3): 1 two octaves down, 0 above; 0 without f0. */
const lowPitch = (m: RoleMeasurements) => (m.pitch.f0_hz !== null ? 1 / (1 + Math.exp((f0Octaves(m) - 1.5) * 4)) : 0);
/** 1 for an attack within 10 ms, 0 from 60 ms, log-linear between. */
const fastAttack = (m: RoleMeasurements) => Math.max(0, Math.min(1, Math.log(0.06 / Math.max(0.001, m.envelope.attack_s)) / Math.log(6)));

/** The features, in the order of the model's weight columns. */
export const ROLE_FEATURES: readonly FeatureSpec[] = [
  { name: 'log_duration', value: (m) => log2(Math.max(0.02, m.duration_s)) },
  // Sub and low together: apart, "nearly all below 60 Hz" singled out the 808 kicks of the fitting sets
  // and called every pure sub sine a kick.
  { name: 'below_250', value: (m) => m.bands.sub + m.bands.low },
  { name: 'low_mid', value: (m) => m.bands.low_mid },
  { name: 'high_mid', value: (m) => m.bands.high_mid },
  { name: 'high', value: (m) => m.bands.high },
  // No centroid: below every bass of the fitting sets (a pure sub sine) it read as a kick; the band shares carry the balance.
  { name: 'above_4k', value: (m) => m.spectrum.above_4k },
  { name: 'flatness', value: (m) => Math.sqrt(m.spectrum.flatness) },
  { name: 'tonal_peaks', value: (m) => m.spectrum.tonal_peak_share },
  { name: 'centroid_motion', value: (m) => m.spectrum.centroid_motion_oct },
  { name: 'hpss_percussive', value: (m) => m.percussion.hpss_percussive },
  { name: 'log_onsets', value: (m) => log2(1 + m.percussion.onset_count) },
  { name: 'onset_density', value: (m) => log2(1 + m.percussion.onset_density) },
  { name: 'salience', value: (m) => m.pitch.salience },
  { name: 'voiced', value: (m) => m.pitch.voiced_fraction },
  { name: 'has_f0', value: hasF0 },
  { name: 'f0_octave', value: f0Octaves },
  { name: 'low_f0', value: lowPitch },
  { name: 'pitch_spread', value: (m) => Math.min(12, m.pitch.spread_semitones ?? 12) / 12 },
  { name: 'log_attack', value: (m) => Math.log10(m.envelope.attack_s + 0.005) },
  { name: 'log_decay', value: (m) => Math.log10(m.envelope.decay_s + 0.01) },
  { name: 'sustain', value: (m) => m.envelope.sustain },
  { name: 'drop', value: (m) => m.envelope.mean_drop_db / 10 },
  { name: 'width', value: (m) => m.stereo.width },
  { name: 'halves_similarity', value: (m) => m.loop.halves_similarity },
  { name: 'end_level', value: (m) => Math.max(-60, Math.min(10, m.loop.end_level_db ?? -60)) / 20 },
  { name: 'has_tempo', value: (m) => (m.loop.tempo_bpm !== null ? 1 : 0) },
  // Products of two measurements, for the "and" a linear model cannot make on its own.
  { name: 'high_over_low', value: (m) => log2((m.bands.high_mid + m.bands.high + 0.01) / (m.bands.sub + m.bands.low + 0.01)) },
  { name: 'fast_and_high', value: (m) => fastAttack(m) * m.spectrum.above_4k },
  { name: 'noisy_and_high', value: (m) => Math.sqrt(m.spectrum.flatness) * m.spectrum.above_4k },
  { name: 'decay_share', value: (m) => Math.min(1, m.envelope.decay_s / Math.max(0.02, m.duration_s)) },
  { name: 'pitched_low', value: (m) => m.pitch.voiced_fraction * lowPitch(m) },
  { name: 'tonal_and_held', value: (m) => m.spectrum.tonal_peak_share * m.envelope.sustain },
  // A held low tone (sub and 808 basses): a low voiced fundamental that does not die within ~0.5 s and
  // no percussive energy; a kick's body falls 15 dB within a few hundred ms.
  {
    name: 'held_low_tone',
    value: (m) =>
      lowPitch(m) *
      m.pitch.voiced_fraction *
      Math.max(0, Math.min(1, (m.envelope.decay_s - 0.2) / 0.6)) *
      (1 - m.percussion.hpss_percussive),
  },
];

/** The feature vector of a measurement set, in ROLE_FEATURES order. */
export function extractRoleFeatures(m: RoleMeasurements): Float64Array {
  return Float64Array.from(ROLE_FEATURES, (f) => f.value(m));
}

const pct = (x: number) => `${Math.round(100 * x)} %`;
const ms = (s: number) => (s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(1)} s`);

/**
 * Words for a feature that pushed a role up: `high` when the measurement is above the fitting data's
 * mean (the direction in which it counted). Null when there is nothing to say in that direction.
 */
export function describeFeature(name: string, high: boolean, m: RoleMeasurements): string | null {
  const f0 = m.pitch.f0_hz;
  switch (name) {
    case 'log_duration':
      return high ? `long sound (${m.duration_s.toFixed(1)} s)` : `short sound (${ms(m.duration_s)})`;
    case 'below_250':
      return high
        ? `energy low in the spectrum (${pct(m.bands.sub + m.bands.low)} below 250 Hz)`
        : `little low end (${pct(m.bands.sub + m.bands.low)} below 250 Hz)`;
    case 'low_mid':
      return high ? `body in the low mids (${pct(m.bands.low_mid)} at 250 Hz–2 kHz)` : null;
    case 'high_mid':
    case 'high':
    case 'above_4k':
      return high
        ? `energy mostly high (${pct(m.spectrum.above_4k)} above 4 kHz)`
        : `little high end (${pct(m.spectrum.above_4k)} above 4 kHz)`;
    case 'log_centroid':
      return high
        ? `bright (centre of mass ${Math.round(m.spectrum.centroid_hz)} Hz)`
        : `dark (centre of mass ${Math.round(m.spectrum.centroid_hz)} Hz)`;
    case 'flatness':
      return high ? 'noisy spectrum' : 'clean, tonal spectrum';
    case 'tonal_peaks':
      return high ? `clear spectral peaks (${pct(m.spectrum.tonal_peak_share)} of the power)` : 'no clear spectral peaks';
    case 'centroid_motion':
      return high ? `timbre moves (${m.spectrum.centroid_motion_oct.toFixed(2)} octaves)` : 'steady timbre';
    case 'hpss_percussive':
      return high
        ? `mostly percussive energy (${pct(m.percussion.hpss_percussive)})`
        : `mostly sustained, harmonic energy (${pct(1 - m.percussion.hpss_percussive)})`;
    case 'log_onsets':
    case 'onset_density':
      return high
        ? `many onsets (${m.percussion.onset_count}, ${m.percussion.onset_density.toFixed(1)}/s)`
        : m.percussion.onset_count <= 1
          ? 'a single event'
          : `few onsets (${m.percussion.onset_count})`;
    case 'salience':
    case 'voiced':
    case 'has_f0':
      return high ? (f0 !== null ? `clear pitch (${noteName(f0)}, ${Math.round(f0)} Hz)` : 'periodic, pitched sound') : 'no stable pitch';
    case 'f0_octave':
    case 'low_f0':
      if (f0 === null) return high ? null : 'no stable pitch';
      return (name === 'low_f0') === high
        ? `strong low fundamental at ${Math.round(f0)} Hz (${noteName(f0)})`
        : `pitch above the bass register (${noteName(f0)}, ${Math.round(f0)} Hz)`;
    case 'pitch_spread':
      return high ? 'pitch moves or is unstable' : 'steady pitch';
    case 'log_attack':
      return high ? `slow attack (${ms(m.envelope.attack_s)})` : `short percussive attack (${ms(m.envelope.attack_s)})`;
    case 'log_decay':
      return high ? `long decay (${ms(m.envelope.decay_s)})` : `fast decay (${ms(m.envelope.decay_s)})`;
    case 'sustain':
      return high ? `held, sustained level (${pct(m.envelope.sustain)} within 20 dB of the peak)` : 'short, not sustained';
    case 'drop':
      return high ? `decays fast after each hit (${m.envelope.mean_drop_db.toFixed(1)} dB)` : 'level holds or swells';
    case 'width':
      return high ? `wide stereo (${pct(m.stereo.width)})` : 'narrow or mono';
    case 'halves_similarity':
      return high ? 'the same material throughout' : 'changes from start to end';
    case 'end_level':
      return high ? 'sound continues to the end' : 'fades out by the end';
    case 'high_over_low':
      return high
        ? `energy mostly high (${pct(m.spectrum.above_4k)} above 4 kHz)`
        : `energy low in the spectrum (${pct(m.bands.sub + m.bands.low)} below 250 Hz)`;
    case 'fast_and_high':
      return high ? `sharp attack with bright, high energy (${pct(m.spectrum.above_4k)} above 4 kHz)` : null;
    case 'noisy_and_high':
      return high ? 'noisy, high-frequency spectrum (metal or shaker)' : null;
    case 'decay_share':
      return high ? 'rings out over the whole clip' : `short hit that dies away (${ms(m.envelope.decay_s)})`;
    case 'pitched_low':
      return high && m.pitch.f0_hz !== null
        ? `strong low fundamental at ${Math.round(m.pitch.f0_hz)} Hz (${noteName(m.pitch.f0_hz)})`
        : null;
    case 'held_low_tone':
      return high && m.pitch.f0_hz !== null
        ? `held low tone at ${Math.round(m.pitch.f0_hz)} Hz (${noteName(m.pitch.f0_hz)}), not a decaying hit`
        : null;
    case 'tonal_and_held':
      return high ? 'held tonal sound' : null;
    case 'has_tempo':
      return high ? `a steady beat (${Math.round(m.loop.tempo_bpm ?? 0)} BPM)` : null;
    default:
      return null;
  }
}
