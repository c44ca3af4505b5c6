import { z } from 'zod';
import { FEATURE_UNITS, FEATURES_HEAD_S, MFCC_COUNT } from './features.js';
import { PITCH_CLASSES } from '../dsp/chroma.js';
import { sourceSchema } from './source-schema.js';

/**
 * Schema of the /features answer: what `featuresEngine` returns plus the `source` block the route adds.
 * Units and ranges are in the descriptions (and, in the answer itself, in `units`).
 */

const hz = (what: string) => z.number().min(0).describe(`${what}, Hz`);
const unit = z.number().min(0).max(1);
const nullableSeconds = (what: string) => z.number().min(0).nullable().describe(`${what}, seconds; null for a silent clip`);

const pitchClassSchema = z.enum(PITCH_CLASSES);
const modeSchema = z.enum(['major', 'minor']);

/** The `units` map: the same literal strings in every answer. */
function literalTree(tree: Readonly<Record<string, unknown>>): z.ZodType {
  return z.object(
    Object.fromEntries(
      Object.entries(tree).map(([k, v]) => [k, typeof v === 'string' ? z.literal(v) : literalTree(v as Record<string, unknown>)]),
    ),
  );
}

export const featuresSpectralSchema = z
  .object({
    centroid_hz: hz('Mean spectral centroid (librosa spectral_centroid)'),
    centroid_std_hz: hz('Standard deviation of the centroid over frames'),
    bandwidth_hz: hz('Mean spectral bandwidth, p = 2 (librosa spectral_bandwidth)'),
    rolloff_hz: hz('Mean 85 % roll-off frequency (librosa spectral_rolloff)'),
    rolloff_std_hz: hz('Standard deviation of the roll-off over frames'),
    flatness: unit.describe('Mean spectral flatness of the power spectrum (librosa spectral_flatness), 0..1: 0 tonal, 1 white noise'),
    flux: unit.describe(
      'Mean positive flux between consecutive L1-normalised magnitude spectra (total-variation distance), 0..1: 0 steady, 1 entirely new spectrum',
    ),
    flux_std: unit.describe('Standard deviation of the flux over frames, 0..1'),
    contrast_db: z
      .array(z.number().min(0))
      .describe(
        'Mean spectral contrast (librosa spectral_contrast, 10·log10 of peak/valley magnitude), dB, for the bands 0–200, 200–400, 400–800, 800–1600, 1600–3200, 3200–6400 Hz and 6400 Hz–Nyquist (fewer bands below 12.8 kHz sample rate)',
      ),
    zero_crossing_rate: unit.describe('Sign changes per sample over the clip, 0..1 (a sine of f Hz: 2f/sample rate)'),
  })
  .describe(
    'librosa-compatible spectral features of a 2048-point, hop-512 STFT of the mono mix at the file sample rate; means over non-silent frames',
  );

export const featuresMfccSchema = z
  .object({
    mean: z
      .array(z.number())
      .length(MFCC_COUNT)
      .describe(
        'Mean of MFCC c0..c12 over frames (librosa feature.mfcc: 128 Slaney mel bands, power_to_db with top_db 80, orthonormal DCT-II), dB-scaled cepstral units',
      ),
    std: z.array(z.number().min(0)).length(MFCC_COUNT).describe('Population standard deviation of c0..c12 over frames, same units'),
  })
  .describe('Mel-frequency cepstral coefficients');

export const featuresChromaSchema = z
  .object({
    mean: z
      .object(Object.fromEntries(PITCH_CLASSES.map((pc) => [pc, unit])) as Record<(typeof PITCH_CLASSES)[number], typeof unit>)
      .describe(
        'Mean chroma per pitch class, 0..1 (the largest is 1); from interpolated spectral peaks 60 Hz–5 kHz with harmonic suppression and tuning correction',
      ),
    tuning_cents: z.number().min(-50).max(50).describe('Deviation of the reference pitch from A4 = 440 Hz, cents'),
    key: pitchClassSchema
      .nullable()
      .describe(
        "Tonic of the Krumhansl–Schmuckler key (Pearson correlation with Temperley's Kostka–Payne key profiles, which model harmonic minor); null when key_reason says why there is none",
      ),
    mode: modeSchema.nullable().describe('major or minor; null with key'),
    key_reason: z
      .enum(['no_pitched_content', 'low_confidence'])
      .nullable()
      .describe(
        'Why key is null: no_pitched_content (silence, flat chroma, or tonal_stability < 0.35: drums, noise), low_confidence (best key correlation < 0.7 or key_confidence < 0.02: no key fits clearly, e.g. a single note or pitch class); null when a key is given',
      ),
    best_guess: z
      .object({ key: pitchClassSchema, mode: modeSchema, correlation: z.number().min(-1).max(1).describe('Pearson correlation, -1..1') })
      .nullable()
      .describe('The best-fitting key even when key is withheld (equal to key and mode when given); null without a pitch-class profile'),
    key_confidence: unit.describe(
      '(r1 − r2)/(1 − r2) for the correlations r1, r2 of the best and second key, 0..1: 0 a tie with the runner-up, 1 a perfect profile match',
    ),
    tonal_stability: unit.describe(
      'Mean Pearson correlation of the pitch-class profiles of consecutive frames, 0..1: white noise about 0.3, held notes and chords near 1; below 0.35 the key is withheld (no_pitched_content)',
    ),
    key_correlation: z
      .number()
      .min(-1)
      .max(1)
      .nullable()
      .describe('Pearson correlation of the mean chroma with the best key profile, -1..1'),
    runner_up: z
      .object({ key: pitchClassSchema, mode: modeSchema, correlation: z.number().min(-1).max(1).describe('Pearson correlation, -1..1') })
      .nullable()
      .describe('The second-best key'),
  })
  .describe('Pitch-class profile and key');

export const featuresEnvelopeSchema = z
  .object({
    attack_s: nullableSeconds('Time from 10 % to 90 % of the peak of the 10 ms RMS envelope'),
    decay_s: nullableSeconds('Time from the envelope peak until 90 % of the drop to the sustain level'),
    sustain_level: unit
      .nullable()
      .describe('Median envelope after the peak while the sound lasts (above 10 % of the peak), relative to the peak, 0..1'),
    temporal_centroid_s: nullableSeconds('RMS-weighted mean time of the envelope'),
    crest_db: z.number().min(0).nullable().describe('Sample peak over RMS, all channels, dB (a sine: 3.01)'),
    dynamic_range_db: z.number().min(0).nullable().describe('95th minus 10th percentile of the 10 ms block levels (above -100 dBFS), dB'),
  })
  .describe('Amplitude-envelope descriptors from 10 ms RMS blocks of the mono mix');

export const featuresRhythmSchema = z
  .object({
    tempo_bpm: z.number().min(0).nullable().describe('Tempo of the onsets engine, BPM (60–200); null with too few onsets'),
    onset_rate_per_s: z.number().min(0).describe('Onsets per second (onsets engine)'),
    beat_strength: z
      .number()
      .min(0)
      .nullable()
      .describe(
        'Mean onset strength on the best beat grid at tempo_bpm divided by the overall mean (ratio; about 1 = no beat emphasis); null without a tempo',
      ),
    pulse_clarity: unit
      .nullable()
      .describe('Normalised autocorrelation peak of the onset strength over 40–200 BPM (Lartillot et al. 2008), 0..1'),
  })
  .describe('Rhythm features; present only when rhythm=true');

export const featuresSchema = z
  .object({
    source: sourceSchema,
    duration_analysed_s: z
      .number()
      .min(0)
      .max(FEATURES_HEAD_S)
      .describe(`Seconds analysed from the start of the file (at most ${FEATURES_HEAD_S})`),
    stft: z
      .object({
        n_fft: z.literal(2048),
        hop: z.literal(512),
        frames: z.number().int().min(0).describe('STFT frames of the analysed audio'),
        active_frames: z
          .number()
          .int()
          .min(0)
          .describe('Frames with windowed RMS ≥ 1e-4 of full scale, over which frame statistics are taken (all frames when none is)'),
      })
      .describe('Analysis frames'),
    spectral: featuresSpectralSchema,
    mfcc: featuresMfccSchema,
    chroma: featuresChromaSchema,
    envelope: featuresEnvelopeSchema,
    rhythm: featuresRhythmSchema.optional(),
    units: literalTree(FEATURE_UNITS).describe('Unit or range of every field, by group and name'),
  })
  .meta({ id: 'FeaturesResult' });
