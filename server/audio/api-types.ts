import type { z } from 'zod';
import type { sourceSchema } from './engines/source-schema.js';
import type { featuresSchema } from './engines/features-schema.js';
import type { gradeSchema } from './engines/grade-schema.js';
import type { namingSchema, sampleAnalysisSchema } from './engines/sample-schema.js';
import type {
  emotionSchema,
  healthSchema,
  jobStatusSchema,
  loudnessSchema,
  meSchema,
  onsetsSchema,
  sourceDescriptorSchema,
  sourceRequestSchema,
  spectrumSchema,
  validationErrorSchema,
  waveformSchema,
} from './http/schemas.js';
import type {
  libraryCollectionListSchema,
  libraryCollectionSchema,
  libraryFolderListSchema,
  libraryFolderSchema,
  libraryItemListSchema,
  libraryItemPatchSchema,
  libraryItemSchema,
  librarySimilarSchema,
  libraryTagListSchema,
} from './http/library-schemas.js';

/**
 * Response bodies of the audio API, for clients (the renderer imports these as types only). An analysis
 * route's body is its `*Response`; the engine's own output (engines/, without `source`) is its `*Result`.
 * openapi.json keeps the spec's component names (`LoudnessResult`, …), set by each schema's `meta`.
 */
export type JobStatus = z.infer<typeof jobStatusSchema>;
export type Health = z.infer<typeof healthSchema>;
export type Me = z.infer<typeof meSchema>;
export type ValidationError = z.infer<typeof validationErrorSchema>;
/** Body of POST /sources (priority and webhook_url optional). */
export type SourceRequest = z.input<typeof sourceRequestSchema>;
/** JobStatus.result of a finished source job. */
export type SourceDescriptor = z.infer<typeof sourceDescriptorSchema>;
export interface HTTPValidationError {
  readonly detail: readonly ValidationError[];
}

/** `source` block of every analysis answer. */
export type SourceInfo = z.infer<typeof sourceSchema>;
/** POST /loudness. */
export type LoudnessResponse = z.infer<typeof loudnessSchema>;
/** POST /waveform. */
export type WaveformResponse = z.infer<typeof waveformSchema>;
/** POST /spectrum. */
export type SpectrumResponse = z.infer<typeof spectrumSchema>;
/** POST /onsets. */
export type OnsetsResponse = z.infer<typeof onsetsSchema>;
/** POST /features. */
export type FeaturesResponse = z.infer<typeof featuresSchema>;
/** POST /analyze/samples. */
export type SampleAnalysisResponse = z.infer<typeof sampleAnalysisSchema>;
/** POST /grade. */
export type GradeResponse = z.infer<typeof gradeSchema>;
/** POST /naming. */
export type NamingResponse = z.infer<typeof namingSchema>;
/** POST /analyze/emotion. */
export type EmotionResponse = z.infer<typeof emotionSchema>;
/** POST /analyze: emotion, features and sample role from one decode. */
export interface AnalyzeResponse {
  readonly source: SourceInfo;
  readonly emotion: Omit<EmotionResponse, 'source'>;
  readonly features: Omit<FeaturesResponse, 'source'>;
  readonly sample: Omit<SampleAnalysisResponse, 'source'>;
}

// The library (docs/audio-api.md, "Library").
/** One library item (GET /library/items/{id}). */
export type LibraryItemResponse = z.infer<typeof libraryItemSchema>;
/** GET /library/items. */
export type LibraryItemListResponse = z.infer<typeof libraryItemListSchema>;
/** GET /library/items/{id}/similar. */
export type LibrarySimilarResponse = z.infer<typeof librarySimilarSchema>;
/** A collection (GET /library/collections items). */
export type LibraryCollectionResponse = z.infer<typeof libraryCollectionSchema>;
/** GET /library/collections. */
export type LibraryCollectionListResponse = z.infer<typeof libraryCollectionListSchema>;
/** GET /library/tags. */
export type LibraryTagListResponse = z.infer<typeof libraryTagListSchema>;
/** A folder indexed in place (GET/POST /library/folders). */
export type LibraryFolderResponse = z.infer<typeof libraryFolderSchema>;
/** GET /library/folders. */
export type LibraryFolderListResponse = z.infer<typeof libraryFolderListSchema>;
/** PATCH /library/items/{id} body. */
export type LibraryItemPatch = z.input<typeof libraryItemPatchSchema>;
/** The page of GET /library/items (the GUI's name for LibraryItemListResponse). */
export type LibraryPageResponse = LibraryItemListResponse;
/** A sample role the library files an item under. */
export type LibraryRole = NonNullable<LibraryItemResponse['role']>;
/** The user's tempo correction: the measured tempo halved, kept or doubled. */
export type TempoMultiplier = LibraryItemResponse['tempo_multiplier'];
