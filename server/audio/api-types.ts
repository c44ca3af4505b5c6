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

// The library (issue 22), as the shared contract states it. Written here by the GUI branch as plain
// declarations; the server branch derives the same shapes from its schemas (the merge keeps one).

/** A sample role the library files an item under. */
export type LibraryRole = 'percs' | 'bass' | 'melodic' | 'tops' | 'atmos';
/** The user's tempo correction: the measured tempo halved, kept or doubled. */
export type TempoMultiplier = 0.5 | 1 | 2;
/** GET /library/items/:id: one kept file and its analysis summary. */
export interface LibraryItemResponse {
  readonly id: number;
  /** Hex SHA-256 of the audio bytes. */
  readonly sha256: string;
  /** The original file name. */
  readonly name: string;
  /** Bytes. */
  readonly size: number;
  /** ISO 8601. */
  readonly added_at: string;
  readonly status: 'analysing' | 'ready' | 'failed';
  readonly error?: string;
  readonly origin: 'upload' | 'folder' | 'source';
  /** Absolute path on disk (folder items only). */
  readonly path?: string;
  readonly duration_s: number | null;
  readonly sample_rate: number | null;
  readonly channels: number | null;
  readonly format: string | null;
  readonly role: LibraryRole | null;
  readonly role_confidence: number | null;
  /** As measured, BPM. */
  readonly tempo_bpm: number | null;
  readonly tempo_multiplier: TempoMultiplier;
  /** tempo_bpm × tempo_multiplier: what search uses. */
  readonly bpm: number | null;
  /** "A minor" style. */
  readonly key: string | null;
  /** "8A" style. */
  readonly camelot: string | null;
  readonly loudness_lufs: number | null;
  readonly true_peak_dbtp: number | null;
  readonly grade_tier: 'S' | 'A' | 'B' | 'C' | 'D' | null;
  readonly suggested_name: string | null;
  /** 64 peak values 0..1 for a row's waveform thumbnail ([] until ready). */
  readonly thumbnail: readonly number[];
  readonly tags: readonly string[];
  readonly favourite: boolean;
  /** 0..5. */
  readonly rating: number;
  readonly collection_ids: readonly number[];
}
/** GET /library/items. */
export interface LibraryPageResponse {
  readonly items: readonly LibraryItemResponse[];
  readonly total: number;
  readonly page: number;
  readonly per_page: number;
}
/** PATCH /library/items/:id. */
export interface LibraryItemPatch {
  readonly tags?: readonly string[];
  readonly favourite?: boolean;
  readonly rating?: number;
  readonly tempo_multiplier?: TempoMultiplier;
  readonly name?: string;
}
/** GET /library/items/:id/similar. */
export interface LibrarySimilarResponse {
  readonly items: readonly { readonly item: LibraryItemResponse; readonly distance: number }[];
}
/** A collection of library items. */
export interface LibraryCollectionResponse {
  readonly id: number;
  readonly name: string;
  readonly item_count: number;
}
/** GET /library/collections. */
export interface LibraryCollectionListResponse {
  readonly items: readonly LibraryCollectionResponse[];
}
/** GET /library/tags. */
export interface LibraryTagListResponse {
  readonly items: readonly { readonly name: string; readonly count: number }[];
}
/** A folder indexed in place (desktop / self-hosted admin only). */
export interface LibraryFolderResponse {
  readonly id: number;
  readonly path: string;
  readonly item_count: number;
  readonly watching: boolean;
}
