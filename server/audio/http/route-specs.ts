import { z } from 'zod';
import { headSeconds } from '../engines/engine.js';
import type { EngineId } from '../engines/registry.js';
import { sourceSchema } from '../engines/source-schema.js';
import { featuresSchema } from '../engines/features-schema.js';
import { gradeSchema } from '../engines/grade-schema.js';
import { namingQuerySchema, namingSchema, sampleAnalysisQuerySchema, sampleAnalysisSchema } from '../engines/sample-schema.js';
import {
  emotionSchema,
  errorMessageSchema,
  featuresQuerySchema,
  gradeQuerySchema,
  healthSchema,
  httpValidationErrorSchema,
  artifactPathSchema,
  jobIdPathSchema,
  jobStatusSchema,
  loudnessSchema,
  meSchema,
  onsetsSchema,
  separationPendingSchema,
  sourceRequestSchema,
  spectrumQuerySchema,
  spectrumSchema,
  waveformQuerySchema,
  waveformSchema,
} from './schemas.js';
import { libraryRouteSpecs } from './library-route-specs.js';

/** One route of the audio API: enough to mount it, validate it and describe it in openapi.json. */
export interface AudioRouteSpec {
  readonly id: string;
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI-style path relative to /audio/v1 (`/jobs/{job_id}`). */
  readonly path: string;
  readonly summary: string;
  /** False only for /healthz and /openapi.json. */
  readonly auth: boolean;
  readonly query?: z.ZodObject;
  readonly params?: z.ZodObject;
  readonly multipartFile?: boolean;
  readonly jsonBody?: z.ZodType;
  /** An analysis route's engine (engines/registry.ts): routes.ts runs it on the upload. */
  readonly engine?: EngineId;
  /** Seconds of audio the engine reads from the start (the clip tiers of engine.ts); the whole file when absent. */
  readonly headSeconds?: number;
  readonly responses: Readonly<
    Record<number, { readonly description: string; readonly schema?: z.ZodType; readonly contentType?: string }>
  >;
}

const notFoundResponse = { description: 'Unknown, or owned by another tenant', schema: errorMessageSchema };
/** Errors every upload route may answer besides 422. */
const uploadErrors = {
  401: { description: 'Missing or invalid bearer token', schema: errorMessageSchema },
  413: { description: 'Upload larger than CRATEHOUSE_MAX_UPLOAD_MB', schema: errorMessageSchema },
  415: {
    description:
      'The file could not be decoded as audio, its container is refused (playlists, lists), its format is outside 8–384 kHz and 1–32 channels, or its samples are not finite',
    schema: errorMessageSchema,
  },
  404: {
    description: 'Asked by ?sha256=: no audio with this hash is held for you (the same answer whether or not another tenant holds it)',
    schema: errorMessageSchema,
  },
  503: {
    description:
      'The analysis took longer than its time budget (CRATEHOUSE_ANALYSIS_BUDGET_S plus CRATEHOUSE_ANALYSIS_BUDGET_PER_AUDIO_S per second of audio) and was stopped',
    schema: errorMessageSchema,
  },
} as const;
const unauthorized = { description: 'Missing or invalid bearer token', schema: errorMessageSchema };

/** Every route of the audio API. Later capabilities add theirs here; a test checks nothing is mounted unlisted. */
export const audioRouteSpecs = {
  healthz: {
    id: 'healthz',
    method: 'get',
    path: '/healthz',
    summary: 'Service health, version and the external tools found',
    auth: false,
    responses: { 200: { description: 'Healthy', schema: healthSchema } },
  },
  openapi: {
    id: 'openapi',
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    auth: false,
    responses: { 200: { description: 'OpenAPI 3.1 description of the audio API' } },
  },
  me: {
    id: 'me',
    method: 'get',
    path: '/me',
    summary: "The caller's gateway-resolved identity, tenant and usage",
    auth: true,
    responses: { 200: { description: 'Identity', schema: meSchema }, 401: unauthorized },
  },
  getJob: {
    id: 'getJob',
    method: 'get',
    path: '/jobs/{job_id}',
    summary: 'Status of a job of the caller’s tenant',
    auth: true,
    params: jobIdPathSchema,
    responses: { 200: { description: 'The job', schema: jobStatusSchema }, 401: unauthorized, 404: notFoundResponse },
  },
  cancelJob: {
    id: 'cancelJob',
    method: 'delete',
    path: '/jobs/{job_id}',
    summary: 'Cancel a pending or running job (idempotent; a finished job is unchanged)',
    auth: true,
    params: jobIdPathSchema,
    responses: { 200: { description: 'The job after the request', schema: jobStatusSchema }, 401: unauthorized, 404: notFoundResponse },
  },
  createSource: {
    id: 'createSource',
    method: 'post',
    path: '/sources',
    summary: 'Fetch the best audio behind a URL (media file, page, or a site yt-dlp knows) into a 44.1 kHz WAV artifact, as a job',
    auth: true,
    jsonBody: sourceRequestSchema,
    responses: {
      202: {
        description: 'The job (born done when the URL was fetched before and its artifact exists); result is a SourceDescriptor',
        schema: jobStatusSchema,
      },
      401: unauthorized,
      413: { description: 'JSON body larger than CRATEHOUSE_MAX_JSON_KB', schema: errorMessageSchema },
      503: { description: 'ffmpeg is not installed, so sources cannot be converted', schema: errorMessageSchema },
    },
  },
  getArtifact: {
    id: 'getArtifact',
    method: 'get',
    path: '/artifacts/{content_id}/{name}',
    summary: 'Stream a stored artifact (byte ranges, ETag); any authenticated tenant holding the reference',
    auth: true,
    params: artifactPathSchema,
    responses: {
      200: { description: 'The file (or, behind a front server, an X-Accel-Redirect to it)', contentType: 'audio/wav' },
      206: { description: 'The requested byte range', contentType: 'audio/wav' },
      401: unauthorized,
      404: { description: 'No such artifact', schema: errorMessageSchema },
      416: { description: 'Range not satisfiable' },
    },
  },
  loudness: {
    id: 'loudness',
    method: 'post',
    path: '/loudness',
    summary:
      'Loudness (full track): BS.1770-4 integrated LUFS, ungated clip loudness (clip_lufs), LRA, momentary/short-term maxima, sample and true peak, RMS, crest, gain to targets',
    auth: true,
    engine: 'loudness',
    multipartFile: true,
    responses: { 200: { description: 'Loudness of the whole track', schema: loudnessSchema }, ...uploadErrors },
  },
  waveform: {
    id: 'waveform',
    method: 'post',
    path: '/waveform',
    summary: 'Waveform for rendering (full track, exact): per-bin [min, max] and RMS envelope',
    auth: true,
    query: waveformQuerySchema,
    engine: 'waveform',
    multipartFile: true,
    responses: { 200: { description: 'Waveform bins', schema: waveformSchema }, ...uploadErrors },
  },
  spectrum: {
    id: 'spectrum',
    method: 'post',
    path: '/spectrum',
    summary: 'Spectrogram for rendering (full track): bands × frames values in 0..1',
    auth: true,
    query: spectrumQuerySchema,
    engine: 'spectrum',
    multipartFile: true,
    responses: { 200: { description: 'Spectrogram', schema: spectrumSchema }, ...uploadErrors },
  },
  onsets: {
    id: 'onsets',
    method: 'post',
    path: '/onsets',
    summary: 'Onsets, tempo and onset rate (full track)',
    auth: true,
    engine: 'onsets',
    multipartFile: true,
    responses: { 200: { description: 'Onsets of the whole track', schema: onsetsSchema }, ...uploadErrors },
  },
  grade: {
    id: 'grade',
    method: 'post',
    path: '/grade',
    summary: 'Loop/one-shot quality grade (first 30 s): composite 0..1, tier S–D, sub-scores and flags',
    auth: true,
    query: gradeQuerySchema,
    engine: 'grade',
    headSeconds: headSeconds.clip,
    multipartFile: true,
    responses: { 200: { description: 'Grade', schema: gradeSchema }, ...uploadErrors },
  },
  samples: {
    id: 'analyzeSamples',
    method: 'post',
    path: '/analyze/samples',
    summary: 'Per-sample exploratory analysis and role (first 30 s), measured from the audio, never the file name',
    auth: true,
    query: sampleAnalysisQuerySchema,
    engine: 'samples',
    headSeconds: headSeconds.clip,
    multipartFile: true,
    responses: { 200: { description: 'Sample analysis and role', schema: sampleAnalysisSchema }, ...uploadErrors },
  },
  naming: {
    id: 'naming',
    method: 'post',
    path: '/naming',
    summary: 'Convention name NN_role_character from the measured role and character (first 30 s)',
    auth: true,
    query: namingQuerySchema,
    engine: 'naming',
    headSeconds: headSeconds.clip,
    multipartFile: true,
    responses: { 200: { description: 'Suggested name and its parts', schema: namingSchema }, ...uploadErrors },
  },
  features: {
    id: 'features',
    method: 'post',
    path: '/features',
    summary: 'About 35 features (first 30 s): spectral, MFCC, chroma and key, envelope, and rhythm',
    auth: true,
    query: featuresQuerySchema,
    engine: 'features',
    headSeconds: headSeconds.clip,
    multipartFile: true,
    responses: { 200: { description: 'Features with units', schema: featuresSchema }, ...uploadErrors },
  },
  emotion: {
    id: 'analyzeEmotion',
    method: 'post',
    path: '/analyze/emotion',
    summary: 'Valence, arousal and top emotions (first 60 s), from a transparent model over measured features',
    auth: true,
    engine: 'emotion',
    headSeconds: headSeconds.emotion,
    multipartFile: true,
    responses: { 200: { description: 'Emotion', schema: emotionSchema }, ...uploadErrors },
  },
  analyze: {
    id: 'analyze',
    method: 'post',
    path: '/analyze',
    summary: 'Composite from one decode: emotion (first 60 s), features and sample role (first 30 s)',
    auth: true,
    engine: 'analyze',
    headSeconds: headSeconds.emotion,
    multipartFile: true,
    responses: {
      200: {
        description: 'emotion, features and sample, each equal to its dedicated route’s answer',
        schema: z
          .object({
            source: sourceSchema,
            emotion: emotionSchema.omit({ source: true }),
            features: featuresSchema.omit({ source: true }),
            sample: sampleAnalysisSchema.omit({ source: true }),
          })
          .meta({ id: 'AnalyzeResult' }),
      },
      ...uploadErrors,
    },
  },
  separate: {
    id: 'separate',
    method: 'post',
    path: '/separate',
    summary: 'Stem separation: answers 503 (compute pending) until a separation backend is connected',
    auth: true,
    responses: {
      503: { description: 'No separation backend is connected; retry later', schema: separationPendingSchema },
      401: { description: 'Missing or invalid bearer token', schema: errorMessageSchema },
    },
  },
  ...libraryRouteSpecs,
} as const satisfies Record<string, AudioRouteSpec>;

/** The 422 response every validated route may give. */
export const validationResponse = { description: 'Validation Error', schema: httpValidationErrorSchema };
