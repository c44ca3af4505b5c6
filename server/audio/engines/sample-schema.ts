import { z } from 'zod';
import { DESCRIPTOR_WORDS, namingBounds } from './naming.js';
import { SAMPLE_ROLES } from './sample-role.js';
import { sourceSchema } from './source-schema.js';

/**
 * Schemas of /analyze/samples (`sampleAnalysisSchema`, the `samples` engine's result) and /naming
 * (`namingSchema`, the `naming` engine's result), each with the `source` block the route adds. Field names
 * and nesting are exactly those of `SampleAnalysisResult` and `NamingResult`.
 */

const unit = z.number().min(0).max(1);
const roleSchema = z
  .enum(SAMPLE_ROLES)
  .describe(
    'percs: kicks, snares, claps, toms, hand percussion, drum loops and breaks; tops: hi-hats, cymbals, shakers, tambourines, top loops; bass: pitched bass sounds with a low fundamental (electric, synth, sub, 808), bass lines; melodic: pitched parts above the bass register (keys, leads, plucks, chords, guitars, bells); atmos: pads, drones, textures, ambiences, noise beds, risers and other FX',
  );
const roleScoreSchema = z.object({ role: roleSchema, confidence: unit.describe('Calibrated probability, 0..1') });
const perRole = (what: string) =>
  z.object(Object.fromEntries(SAMPLE_ROLES.map((r) => [r, unit])) as Record<(typeof SAMPLE_ROLES)[number], typeof unit>).describe(what);

export const sampleAnalysisSchema = z
  .object({
    source: sourceSchema,
    role: roleSchema.describe(
      'The role: measured from the audio, or percs when the name marked percussive material as a drum loop/break (name_used)',
    ),
    confidence: unit.describe('Calibrated probability of the role, 0..1 (at most 0.4 for a mix)'),
    runner_up: roleScoreSchema.describe('The next most likely role'),
    scores: perRole('Calibrated probability of every role, 0..1, summing to 1'),
    measured_role: roleSchema.describe('The role from the audio alone, never from the name'),
    reasons: z
      .array(z.string())
      .describe(
        'The 2–3 measurements that decided the role, in words (the model\'s largest contributions), e.g. "strong low fundamental at 55 Hz (A1)"',
      ),
    mixture: z
      .boolean()
      .describe(
        'A full mix (≥ 8 s, ≥ 1.5 onsets/s, percussive and harmonic parts, broadband): no single role fits, the confidence is capped at 0.4',
      ),
    shares: perRole('Estimated share of each role in a mix, summing to 1')
      .nullable()
      .describe('Estimated share of each role in a mix (HPSS split, bands, sustain), summing to 1; null unless mixture'),
    name_used: z.boolean().describe('True when the name (break, loop, drum, beat) made percussive material percs'),
    duration_s: z.number().min(0).describe('Seconds analysed'),
    level: z.object({
      peak_dbfs: z.number().nullable().describe('Sample peak over all channels, dBFS; null for silence'),
      rms_dbfs: z.number().nullable().describe('RMS over all channels, dBFS; null for silence'),
    }),
    bands: z
      .object({
        sub: unit.describe('Below 60 Hz'),
        low: unit.describe('60–250 Hz'),
        low_mid: unit.describe('250 Hz–2 kHz'),
        high_mid: unit.describe('2–6 kHz'),
        high: unit.describe('Above 6 kHz'),
      })
      .describe('Share of the spectral power (channel mean) per band, summing to 1 (all 0 for silence)'),
    spectrum: z.object({
      centroid_hz: z.number().min(0).describe('Power-weighted mean frequency, Hz'),
      above_4k: unit.describe('Share of the power above 4 kHz'),
      flatness: unit.describe('Spectral flatness 100 Hz–16 kHz, power-weighted mean over frames: 0 tonal .. 1 white noise'),
      tonal_peak_share: unit.describe('Share of the power (50 Hz–16 kHz) in spectral peaks ≥ 10 dB above their surroundings'),
      centroid_motion_oct: z.number().min(0).describe('Standard deviation of the frame centroids over the active frames, octaves'),
    }),
    percussion: z.object({
      hpss_percussive: unit.describe('Median-filter HPSS (Fitzgerald 2010) percussive share of the power, 0..1'),
      onset_count: z.number().int().min(0),
      onset_density: z.number().min(0).describe('Onsets per second of active audio'),
      percussiveness: unit.describe('Mean of four cues: decay, fast attack, HPSS share, onset density; 0..1'),
      harmonicity: unit.describe('Mean of pitch salience, tonal peak share and HPSS harmonic share; 0..1'),
      percussive: z
        .boolean()
        .describe('percussiveness ≥ 0.5 and the measured role is percs or tops (only then may the name make it percs)'),
    }),
    pitch: z.object({
      f0_hz: z
        .number()
        .positive()
        .nullable()
        .describe('YIN (de Cheveigné & Kawahara 2002) median f0 of the voiced frames, Hz; null when under a fifth are voiced'),
      note: z.string().nullable().describe('Nearest equal-tempered note, scientific pitch notation (A4 = 440 Hz), e.g. A2'),
      midi: z.number().nullable().describe('Fractional MIDI note number of f0'),
      salience: unit.describe('Mean periodicity of the active frames: 1 − 2·YIN aperiodicity, clipped; 0..1'),
      voiced_fraction: unit.describe('Share of the active frames with YIN aperiodicity ≤ 0.2'),
      spread_semitones: z.number().min(0).nullable().describe('Interquartile range of the voiced pitch, semitones'),
    }),
    timbre: z
      .object({
        tristimulus: z
          .tuple([unit, unit, unit])
          .describe('Tristimulus T1, T2, T3 (Pollard & Jansson 1982): amplitude share of partial 1, partials 2–4 and partials 5 and up'),
        even_harmonic_share: unit.describe('Energy of the even partials over that of partials 2 and up (0 a square wave, 0.66 a sawtooth)'),
        harmonic_centroid: z
          .number()
          .min(1)
          .describe('Amplitude-weighted mean partial rank: brightness independent of the pitch (1 a sine)'),
        irregularity: z.number().min(0).describe("Jensen's irregularity of the partial amplitudes, Σ(a_h − a_{h+1})²/Σa_h²"),
        inharmonicity: z
          .number()
          .nullable()
          .describe(
            'Stiff-string inharmonicity coefficient B of f_h = h·F·√(1 + B·h²) (0 harmonic, about 1e-4..1e-3 a piano string); null without four partials',
          ),
        noisiness: unit.describe("Share of the voiced frames' energy outside the partials' main lobes"),
      })
      .nullable()
      .describe(
        'Harmonic timbre (Peeters et al. 2011, The Timbre Toolbox) of the voiced pitch frames: up to 20 partials of the YIN f0, energy-weighted means; null when no frame is voiced',
      ),
    embedding: z
      .array(z.number().min(-1).max(1))
      .nullable()
      .describe(
        'Timbre embedding: a unit vector (64 numbers, 4 decimals) that a small convolutional network trained on the training libraries computes from the level-free log-mel patch of the first 1.5 s; sounds of one instrument family lie close. The similarity vector reads it (docs/audio-api.md, "Similarity"). Null for silence',
      ),
    envelope: z.object({
      attack_s: z.number().min(0).describe('Attack of the first event, s'),
      decay_s: z.number().min(0).describe('From the peak to 15 dB below it, s (to the end if it never falls that far)'),
      sustain: unit.describe('Fraction of the clip within 20 dB of the peak'),
      mean_drop_db: z
        .number()
        .min(0)
        .describe('Mean level under the loudest of the preceding 0.3 s, dB, over the blocks within 25 dB of the peak'),
    }),
    stereo: z.object({
      width: unit.describe('Side/mid energy ratio 1 − 2·ΣLR/(ΣL² + ΣR²), clipped: 0 mono, 1 uncorrelated (or anti-phase)'),
      correlation: z
        .number()
        .min(-1)
        .max(1)
        .nullable()
        .describe('Pearson correlation of the first two channels (1 for mono input; null for silence)'),
    }),
    role_model: z
      .object({
        features: z
          .record(z.string(), z.number())
          .describe('The feature values the model read, by name (role-model-features.ts), before standardisation'),
        logits: z
          .object(Object.fromEntries(SAMPLE_ROLES.map((r) => [r, z.number()])) as Record<(typeof SAMPLE_ROLES)[number], z.ZodNumber>)
          .describe('Logit of each role before the temperature'),
        temperature: z.number().positive().describe('Softmax temperature, calibrated on held-out libraries'),
      })
      .describe(
        'Inputs and outputs of the fitted role model (role-model.ts; coefficients in role-model-weights.ts, fitted by npm run fit:roles)',
      ),
    loop: z.object({
      halves_similarity: unit.describe("Similarity of the two halves' mean spectra (24 log bands), exp(−mean |ΔdB|/6), 0..1"),
      end_level_db: z
        .number()
        .nullable()
        .describe(
          'Level of the last eighth of the clip (50 ms..0.5 s) against the median frame level, dB; far below 0 for a decayed one-shot; null for silence',
        ),
      detected_tempo_bpm: z
        .number()
        .nullable()
        .describe(
          'Beat tempo from the periodicity of the amplitude-onset curve (70–180 BPM, clips ≥ 1.5 s); null when not periodic. A kick/snare backbeat above ~130 BPM may read at half tempo. The role model reads this one (has_tempo)',
        ),
      tempo_bpm: z
        .number()
        .nullable()
        .describe(
          "The tempo: 240 × bars / duration when the clip is 1, 2, 4 or 8 whole 4/4 bars whose onsets fit that grid (tempo_source 'loop_length'), else detected_tempo_bpm",
        ),
      tempo_source: z
        .enum(['onsets', 'loop_length'])
        .nullable()
        .describe("How tempo_bpm was found: 'loop_length', 'onsets' (= detected_tempo_bpm), or null"),
      bars: z.number().int().nullable().describe("Whole 4/4 bars at tempo_bpm when tempo_source is 'loop_length', else null"),
      beats: z.number().nullable().describe('Duration in beats at tempo_bpm'),
      whole_beats: z.boolean().describe('beats within 0.1 of a whole number ≥ 2'),
      score: unit.describe('0.6·halves_similarity·ramp(end_level_db, −15, −6) + 0.4·beat fit (1 − |beats − round(beats)|/0.25)'),
      is_loop: z.boolean().describe('score ≥ 0.6'),
    }),
  })
  .meta({ id: 'SampleAnalysisResult' });

const descriptorSchema = (axis: keyof typeof DESCRIPTOR_WORDS) =>
  z.object({
    word: z
      .enum(DESCRIPTOR_WORDS[axis])
      .nullable()
      .describe(`One of ${DESCRIPTOR_WORDS[axis].join(', ')}; null when the axis has no word`),
    strength: unit.describe('How distinctive the word is, 0..1'),
  });

export const namingSchema = z
  .object({
    source: sourceSchema,
    name: z
      .string()
      .regex(/^\d{2,3}_(percs|bass|melodic|tops|atmos)_[a-z0-9-]+(_[a-z0-9-]+)?$/)
      .describe('NN_role_character, e.g. 01_bass_dark-sub; only [a-z0-9_-]'),
    parts: z.object({
      index: z
        .number()
        .int()
        .min(namingBounds.index.min)
        .max(namingBounds.index.max)
        .describe('NN: zero-padded to two digits, three from 100'),
      role: roleSchema,
      character: z
        .array(z.string().regex(/^[a-z]+$/))
        .min(1)
        .max(2)
        .describe('The two most distinctive descriptors, joined by "-" in the name'),
    }),
    role: roleSchema.describe('The measured role (the file name is never used)'),
    confidence: unit,
    runner_up: roleScoreSchema,
    descriptors: z
      .object({
        brightness: descriptorSchema('brightness'),
        weight: descriptorSchema('weight'),
        attack: descriptorSchema('attack'),
        texture: descriptorSchema('texture'),
        width: descriptorSchema('width'),
      })
      .describe('Every axis of the vocabulary with its word and strength'),
  })
  .meta({ id: 'NamingResult' });

/** Query of /analyze/samples. */
export const sampleAnalysisQuerySchema = z.object({
  name: z.string().max(1000).default('').describe('The file name; only marks percussive material as a drum loop or break'),
});

/** Query of /naming. */
export const namingQuerySchema = z.object({
  index: z.coerce.number().int().min(namingBounds.index.min).max(namingBounds.index.max).default(1).describe('Sequence number NN, 0..999'),
});
