// The audio analysis API (/audio/v1): analysis uploads, source jobs and artifacts.
import type {
  AnalyzeResponse,
  EmotionResponse,
  FeaturesResponse,
  GradeResponse,
  JobStatus,
  LoudnessResponse,
  NamingResponse,
  OnsetsResponse,
  SampleAnalysisResponse,
  SourceDescriptor,
  SourceRequest,
  SpectrumResponse,
  WaveformResponse,
} from '../../../server/audio/api-types.js';
import { getBlob, getJson, requestJson, uploadFile, type Query, type UploadProgress } from './http';

export type {
  AnalyzeResponse,
  EmotionResponse,
  FeaturesResponse,
  GradeResponse,
  JobStatus,
  LoudnessResponse,
  NamingResponse,
  OnsetsResponse,
  SampleAnalysisResponse,
  SourceDescriptor,
  SourceRequest,
  SpectrumResponse,
  WaveformResponse,
};

const base = '/audio/v1';

/** Every analysis route, with its query and its answer. */
export interface AnalysisRoutes {
  readonly loudness: { readonly query: Record<string, never>; readonly result: LoudnessResponse };
  readonly waveform: { readonly query: { readonly bins?: number }; readonly result: WaveformResponse };
  readonly spectrum: {
    readonly query: { readonly bands?: number; readonly frames?: number; readonly mel?: boolean };
    readonly result: SpectrumResponse;
  };
  readonly onsets: { readonly query: Record<string, never>; readonly result: OnsetsResponse };
  readonly features: { readonly query: { readonly rhythm?: boolean }; readonly result: FeaturesResponse };
  readonly samples: { readonly query: { readonly name?: string }; readonly result: SampleAnalysisResponse };
  readonly grade: { readonly query: { readonly role?: string }; readonly result: GradeResponse };
  readonly naming: { readonly query: { readonly index?: number }; readonly result: NamingResponse };
  readonly emotion: { readonly query: Record<string, never>; readonly result: EmotionResponse };
  readonly analyze: { readonly query: Record<string, never>; readonly result: AnalyzeResponse };
}

export type AnalysisRoute = keyof AnalysisRoutes;

/** Each analysis route's path under /audio/v1. */
export const analysisPaths: Readonly<Record<AnalysisRoute, string>> = {
  loudness: '/loudness',
  waveform: '/waveform',
  spectrum: '/spectrum',
  onsets: '/onsets',
  features: '/features',
  samples: '/analyze/samples',
  grade: '/grade',
  naming: '/naming',
  emotion: '/analyze/emotion',
  analyze: '/analyze',
};

/** An analysis answer and whether the server computed it now or had it cached. */
export interface Analysis<T> {
  readonly result: T;
  readonly cache: 'hit' | 'miss' | null;
}

export interface AnalyseOptions {
  readonly token: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: UploadProgress) => void;
}

/** Upload a file to one analysis route (multipart `file`) and return its answer. */
export async function analyse<R extends AnalysisRoute>(
  route: R,
  file: Blob,
  fileName: string,
  query: AnalysisRoutes[R]['query'],
  options: AnalyseOptions,
): Promise<Analysis<AnalysisRoutes[R]['result']>> {
  const response = await uploadFile<AnalysisRoutes[R]['result']>(`${base}${analysisPaths[route]}`, file, fileName, {
    token: options.token,
    query,
    signal: options.signal,
    onProgress: options.onProgress,
  });
  const cache = response.headers.get('X-Cache');
  return { result: response.body, cache: cache === 'hit' || cache === 'miss' ? cache : null };
}

/**
 * Ask one analysis route about audio the server already holds, by its SHA-256 (`?sha256=` and an
 * empty body): no upload. A 404 means the server holds no such audio for this caller.
 */
export async function analyseByHash<R extends AnalysisRoute>(
  route: R,
  sha256: string,
  query: AnalysisRoutes[R]['query'],
  options: Pick<AnalyseOptions, 'token' | 'signal'>,
): Promise<Analysis<AnalysisRoutes[R]['result']>> {
  const response = await requestJson<AnalysisRoutes[R]['result']>(`${base}${analysisPaths[route]}`, {
    method: 'POST',
    token: options.token,
    query: { ...(query as Query), sha256 },
    signal: options.signal,
  });
  const cache = response.headers.get('X-Cache');
  return { result: response.body, cache: cache === 'hit' || cache === 'miss' ? cache : null };
}

/** POST /sources: start fetching the audio behind a URL as a job. */
export async function createSourceJob(token: string, request: SourceRequest): Promise<JobStatus> {
  return getJson<JobStatus>(`${base}/sources`, { method: 'POST', token, json: request });
}

/** GET /jobs/{id}. */
export function getJob(token: string, jobId: string, signal?: AbortSignal): Promise<JobStatus> {
  return getJson<JobStatus>(`${base}/jobs/${encodeURIComponent(jobId)}`, { token, signal });
}

/** DELETE /jobs/{id}: cancel; the job ends in `error` with `error: "cancelled"`. */
export function cancelJob(token: string, jobId: string): Promise<JobStatus> {
  return getJson<JobStatus>(`${base}/jobs/${encodeURIComponent(jobId)}`, { method: 'DELETE', token });
}

/** The path of a stored artifact (needs the token: fetch it with downloadArtifact). */
export function artifactPath(contentId: string, name: string): string {
  return `${base}/artifacts/${encodeURIComponent(contentId)}/${encodeURIComponent(name)}`;
}

/** GET /artifacts/{content_id}/{name} as a Blob. */
export function downloadArtifact(token: string, contentId: string, name: string, signal?: AbortSignal): Promise<Blob> {
  return getBlob(artifactPath(contentId, name), { token, signal });
}
