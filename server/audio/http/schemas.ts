import { z } from 'zod';
import { sourceSchema } from '../engines/source-schema.js';

/**
 * Schemas of the audio API: the routes validate with them and openapi.json is generated from them,
 * so the two cannot drift. Field names follow the spec (snake_case).
 */

export const jobStatusSchema = z
  .object({
    job_id: z.string(),
    type: z.string(),
    status: z.enum(['pending', 'running', 'done', 'error']),
    progress: z.number().min(0).max(1).describe('Fraction done, 0..1'),
    result: z.record(z.string(), z.unknown()).nullable().optional(),
    result_ref: z.string().nullable().optional(),
    error: z.string().nullable().optional(),
    created: z.number().describe('Unix epoch seconds (fractional)'),
    started: z.number().nullable().optional(),
    finished: z.number().nullable().optional(),
  })
  .meta({ id: 'JobStatus' });

const toolSchema = z.object({ found: z.boolean(), path: z.string().nullable(), version: z.string().nullable() });

export const healthSchema = z
  .object({
    status: z.literal('ok'),
    service: z.literal('cratehouse-audio'),
    version: z.string(),
    api_version: z.string(),
    ffmpeg: toolSchema,
    git: toolSchema,
    analysis: z.object({
      warm: z
        .boolean()
        .describe(
          'The analysis threads have finished their start-up warm-up (about 2 s after start); before that the first analyses run slower code',
        ),
    }),
  })
  .meta({ id: 'Health' });

export const usageSchema = z.object({
  requests: z.record(z.string(), z.number()).describe('Requests per route'),
  requests_total: z.number(),
  bytes_uploaded: z.number(),
  audio_seconds: z.number().describe('Seconds of audio analysed'),
});

export const meSchema = z
  .object({
    identity: z.object({ user_id: z.number(), username: z.string(), name: z.string(), admin: z.boolean(), token_name: z.string() }),
    tenant: z.object({ id: z.string(), webhook_secret: z.string().describe('HMAC-SHA256 secret for webhook signatures') }),
    usage: usageSchema,
  })
  .meta({ id: 'Me' });

export const validationErrorSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationError' });

export const httpValidationErrorSchema = z
  .object({ detail: z.array(validationErrorSchema).optional() })
  .meta({ id: 'HTTPValidationError' });

export const errorMessageSchema = z.object({ detail: z.string() }).meta({ id: 'ErrorMessage' });

export const jobIdPathSchema = z.object({ job_id: z.string() });

const httpUrl = z
  .string()
  .max(4096)
  .refine((value) => {
    try {
      const u = new URL(value);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'URL should be an absolute http or https URL');

export const sourceRequestSchema = z
  .object({
    url: httpUrl.describe('Page or media URL to fetch (http or https)'),
    priority: z.number().int().min(-100).max(100).default(0).describe('Higher runs first among queued jobs; -100..100'),
    webhook_url: httpUrl.nullable().default(null).describe('Receives the final JobStatus as a signed POST (docs/webhooks.md)'),
  })
  .meta({ id: 'SourceRequest' });

export const artifactPathSchema = z.object({
  content_id: z.string().regex(/^[0-9a-f]{64}$/, 'content_id is 64 lowercase hexadecimal characters'),
  name: z.string().min(1),
});

export const sourceDescriptorSchema = z
  .object({
    content_id: z.string().describe('sha256 of the artifact bytes'),
    name: z.string(),
    artifact_ref: z.string().describe('Path of the WAV: GET it with the same bearer token'),
    url: z.string().describe('The URL as requested'),
    final_url: z.string().describe('Where the media was downloaded from, after redirects (the page URL for yt-dlp)'),
    via: z.enum(['direct', 'page', 'yt-dlp']),
    media_type: z.string().nullable().describe('Media type of what was downloaded'),
    source_codec: z.string(),
    source_sample_rate: z.number(),
    duration_s: z.number(),
    frames: z.number().describe('Sample frames in the WAV'),
    sample_rate: z.literal(44100),
    channels: z.number(),
    bits_per_sample: z.number().describe('16, or 24 for lossless sources deeper than 16 bits'),
    bytes: z.number().describe('Size of the WAV file'),
  })
  .meta({ id: 'SourceDescriptor' });

/** A query schema's parsed output. */
export type QueryOf<S extends z.ZodType> = z.output<S>;

const dbOrNull = z.number().nullable();

export const loudnessSchema = z
  .object({
    source: sourceSchema,
    integrated_lufs: dbOrNull.describe('BS.1770-4 gated integrated loudness (LUFS); null for silence or under one 400 ms gating block'),
    clip_lufs: dbOrNull.describe(
      'Clip loudness (LUFS): BS.1770-4 K-weighting and channel weights, UNGATED, mean square over the whole clip. Not BS.1770 integrated loudness; present at any length (one-shots under 0.4 s included); null only for silence',
    ),
    approximate: z.boolean().describe('False: the integrated value is exact over the whole stream'),
    loudness_range_lu: dbOrNull.describe('EBU Tech 3342 loudness range (LU)'),
    max_momentary_lufs: dbOrNull,
    max_short_term_lufs: dbOrNull,
    sample_peak_dbfs: dbOrNull,
    true_peak_dbtp: dbOrNull.describe('BS.1770-4 Annex 2 true peak, 4× oversampled below 96 kHz'),
    rms_dbfs: dbOrNull,
    crest_factor_db: dbOrNull,
    gain_to_target_db: z
      .object({ streaming: dbOrNull, club: dbOrNull })
      .describe('Gain that brings integrated loudness to -14 (streaming) and -9 (club) LUFS'),
    targets: z.object({ streaming: z.number(), club: z.number() }),
    channel_weights: z.array(z.number()),
  })
  .meta({ id: 'LoudnessResult' });

export const waveformSchema = z
  .object({
    source: sourceSchema,
    bins: z.number(),
    frames: z.number().describe('Frames (samples per channel) in the track'),
    samples_per_bin: z.number(),
    min_max: z
      .array(z.tuple([z.number(), z.number()]))
      .describe('Per bin [min, max] over all channels; bin i covers frames [floor(i·N/bins), floor((i+1)·N/bins))'),
    rms: z.array(z.number().min(0).max(1)).describe('Per bin RMS over all channels, full scale = 1'),
  })
  .meta({ id: 'WaveformResult' });

export const spectrumSchema = z
  .object({
    source: sourceSchema,
    bands: z.number(),
    frames: z.number(),
    scale: z.enum(['mel', 'log']),
    fft_size: z.number(),
    db_floor: z.number().describe('dB mapped to 0; 0 dB (a full-scale sine) maps to 1'),
    band_hz: z.array(z.number()).describe('Band centre frequencies'),
    frame_times_s: z.array(z.number()),
    data: z.array(z.array(z.number().min(0).max(1))).describe('frames rows of bands values in 0..1'),
  })
  .meta({ id: 'SpectrumResult' });

export const onsetsSchema = z
  .object({
    source: sourceSchema,
    onsets: z.array(z.number()).describe('Onset times in seconds'),
    onset_count: z.number(),
    onset_rate: z.number().describe('Onsets per second'),
    tempo_bpm: z
      .number()
      .nullable()
      .describe('Global tempo, BPM (60–200); null with fewer than 4 onsets, or under 2 s when the clip is not a loop of whole bars'),
    tempo_source: z
      .enum(['onsets', 'loop_length'])
      .nullable()
      .describe(
        "How the tempo was found: 'loop_length' = 240 × loop_bars / duration, for a clip of 1, 2, 4 or 8 whole 4/4 bars whose onsets fit that grid (16ths or 8th triplets), the metrical level in 70–180 BPM; 'onsets' = the periodicity of the onsets; null without a tempo",
      ),
    loop_bars: z.number().int().nullable().describe("Whole 4/4 bars at tempo_bpm when tempo_source is 'loop_length', else null"),
    full_track: z.literal(true),
    duration_s: z.number(),
  })
  .meta({ id: 'OnsetsResult' });

/** Query of /waveform. */
export const waveformQuerySchema = z.object({
  bins: z.coerce.number().int().min(1).max(4000).default(800).describe('Number of bins, 1..4000'),
});

/** Query of /spectrum. */
export const spectrumQuerySchema = z.object({
  bands: z.coerce.number().int().min(4).max(512).default(64).describe('Frequency bands, 4..512'),
  frames: z.coerce
    .number()
    .int()
    .min(1)
    .max(4000)
    .default(200)
    .describe('Time frames spread over the whole track, 1..4000 (1 = averaged spectrum)'),
  mel: z.stringbool().default(true).describe('true: mel bands; false: log-linear bands').meta({ type: 'boolean' }),
});

/** The answer of /separate while no compute backend is connected (the shape a backend uses for "pending"). */
export const separationPendingSchema = z
  .object({
    detail: z.string(),
    status: z.literal('pending'),
    code: z.literal('compute_pending'),
    backend: z.object({ kind: z.literal('stem-separation'), connected: z.boolean(), needs: z.string() }),
    retry_after_s: z.number(),
  })
  .meta({ id: 'SeparationPending' });

/** Query of /grade. */
export const gradeQuerySchema = z.object({
  role: z
    .string()
    .max(64)
    .default('')
    .describe(
      'Role hint that changes the weights (percs, tops, bass, melodic, atmos and synonyms such as drums, hats, 808, pad); empty for the default weights',
    ),
});

/** Query of /features. */
export const featuresQuerySchema = z.object({
  rhythm: z
    .stringbool()
    .default(true)
    .describe('Include the rhythm group (tempo, beat strength, onset rate, pulse clarity)')
    .meta({ type: 'boolean' }),
});

export const emotionSchema = z
  .object({
    source: sourceSchema,
    valence: z.number().min(-1).max(1).describe('−1 (negative) .. 1 (positive)'),
    arousal: z.number().min(-1).max(1).describe('−1 (calm) .. 1 (energetic)'),
    top: z
      .array(z.object({ emotion: z.string(), score: z.number().min(0).max(1) }))
      .describe('The three nearest emotion labels on the valence/arousal plane, softmax scores'),
    cues: z.record(z.string(), z.number()).describe('Each normalised cue (−1..1) behind the prediction'),
    range: z.tuple([z.literal(-1), z.literal(1)]),
    model: z
      .object({ id: z.string(), version: z.string(), trained: z.boolean() })
      .describe('transparent@1: a documented mapping from measured features, not a trained model'),
    measures: z.object({
      tempo_bpm: z.number().nullable(),
      loudness_lufs: z.number().nullable(),
      onset_rate_per_s: z.number(),
      centroid_hz: z.number(),
      mode: z.enum(['major', 'minor']).nullable(),
      key: z.string().nullable(),
      key_confidence: z.number(),
      harmonicity: z.number().describe('1 − spectral flatness, 0..1'),
    }),
    duration_analysed_s: z.number(),
  })
  .meta({ id: 'EmotionResult' });
