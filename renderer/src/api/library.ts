// The library API (/audio/v1/library): kept files, their search, edits, similar sounds, collections
// and tags, typed over the shared contract's wire types.
import type {
  LibraryCollectionListResponse,
  LibraryCollectionResponse,
  LibraryFolderResponse,
  LibraryItemPatch,
  LibraryItemResponse,
  LibraryPageResponse,
  LibraryRole,
  LibrarySimilarResponse,
  LibraryTagListResponse,
  TempoMultiplier,
} from '../../../server/audio/api-types.js';
import { getBlob, getJson, requestJson, uploadFile, type Query, type UploadProgress } from './http';

export type {
  LibraryCollectionResponse,
  LibraryFolderResponse,
  LibraryItemPatch,
  LibraryItemResponse,
  LibraryPageResponse,
  LibraryRole,
  LibrarySimilarResponse,
  TempoMultiplier,
};

const base = '/audio/v1/library';

/** Fields GET /library/items sorts by. */
export const librarySortFields = ['added_at', 'name', 'bpm', 'duration_s', 'loudness_lufs', 'rating', 'key'] as const;
export type LibrarySortField = (typeof librarySortFields)[number];

/** The largest page the server gives. */
export const maxPerPage = 200;

/** What the person filters the library by; unset fields do not filter. */
export interface LibraryFilter {
  readonly q?: string;
  readonly role?: LibraryRole;
  /** "8A" or "A minor" / "Am": the server treats both notations alike. */
  readonly key?: string;
  readonly bpmMin?: number;
  readonly bpmMax?: number;
  /** Also match half and double the tempo range. */
  readonly bpmRelated?: boolean;
  readonly lufsMin?: number;
  readonly lufsMax?: number;
  readonly tier?: 'S' | 'A' | 'B' | 'C' | 'D';
  readonly durationMin?: number;
  readonly durationMax?: number;
  readonly tag?: string;
  readonly favourite?: boolean;
  readonly collectionId?: number;
}

/** A sort field and its direction. */
export interface LibrarySort {
  readonly field: LibrarySortField;
  readonly descending: boolean;
}

/** The default order: newest first. */
export const defaultSort: LibrarySort = { field: 'added_at', descending: true };

const camelotPattern = /^(1[0-2]|[1-9])[AB]$/i;

function finite(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

/**
 * The query of GET /library/items for a filter, sort and page. A Camelot code goes as `camelot`,
 * any other key text as `key`; numbers that are not finite and blank texts are left out, and the
 * page size is kept within the server's 1..200.
 */
export function buildLibraryQuery(filter: LibraryFilter, sort: LibrarySort, page: number, perPage: number): Query {
  const key = filter.key?.trim() ?? '';
  const isCamelot = camelotPattern.test(key);
  const bpmMin = finite(filter.bpmMin);
  const bpmMax = finite(filter.bpmMax);
  return {
    q: filter.q?.trim() || undefined,
    role: filter.role,
    key: key !== '' && !isCamelot ? key : undefined,
    camelot: isCamelot ? key.toUpperCase() : undefined,
    bpm_min: bpmMin,
    bpm_max: bpmMax,
    bpm_related: filter.bpmRelated && (bpmMin !== undefined || bpmMax !== undefined) ? true : undefined,
    lufs_min: finite(filter.lufsMin),
    lufs_max: finite(filter.lufsMax),
    tier: filter.tier,
    duration_min: finite(filter.durationMin),
    duration_max: finite(filter.durationMax),
    tag: filter.tag?.trim() || undefined,
    favourite: filter.favourite ? true : undefined,
    collection_id: filter.collectionId,
    sort:
      sort.field === defaultSort.field && sort.descending === defaultSort.descending
        ? undefined
        : `${sort.descending ? '-' : ''}${sort.field}`,
    page: Math.max(1, Math.floor(page)),
    per_page: Math.min(maxPerPage, Math.max(1, Math.floor(perPage))),
  };
}

/** GET /library/items. */
export function listLibraryItems(token: string, query: Query, signal?: AbortSignal): Promise<LibraryPageResponse> {
  return getJson<LibraryPageResponse>(`${base}/items`, { token, query, signal });
}

/** GET /library/items/:id. */
export function getLibraryItem(token: string, id: number, signal?: AbortSignal): Promise<LibraryItemResponse> {
  return getJson<LibraryItemResponse>(`${base}/items/${id}`, { token, signal });
}

/** A file kept in the library, and whether this upload added it (201) or it was already there (200). */
export interface AddedItem {
  readonly item: LibraryItemResponse;
  readonly created: boolean;
}

/** POST /library/items: upload a file once (multipart `file`), with progress. */
export async function addLibraryItem(
  token: string,
  file: Blob,
  fileName: string,
  options: {
    readonly tags?: readonly string[];
    readonly collectionId?: number;
    readonly signal?: AbortSignal;
    readonly onProgress?: (progress: UploadProgress) => void;
  } = {},
): Promise<AddedItem> {
  const fields: Record<string, string> = {};
  if (options.tags && options.tags.length > 0) fields.tags = options.tags.join(',');
  if (options.collectionId !== undefined) fields.collection_id = String(options.collectionId);
  const response = await uploadFile<LibraryItemResponse>(`${base}/items`, file, fileName, {
    token,
    fields,
    signal: options.signal,
    onProgress: options.onProgress,
  });
  return { item: response.body, created: response.status === 201 };
}

/** PATCH /library/items/:id. */
export function updateLibraryItem(token: string, id: number, patch: LibraryItemPatch): Promise<LibraryItemResponse> {
  return getJson<LibraryItemResponse>(`${base}/items/${id}`, { method: 'PATCH', token, json: patch });
}

/** DELETE /library/items/:id. */
export async function deleteLibraryItem(token: string, id: number): Promise<void> {
  await requestJson<undefined>(`${base}/items/${id}`, { method: 'DELETE', token });
}

/** The path of an item's audio (needs the token: fetch it with downloadLibraryAudio). */
export function libraryAudioPath(id: number): string {
  return `${base}/items/${id}/audio`;
}

/** GET /library/items/:id/audio as a Blob. */
export function downloadLibraryAudio(token: string, id: number, signal?: AbortSignal): Promise<Blob> {
  return getBlob(libraryAudioPath(id), { token, signal });
}

/** GET /library/items/:id/similar: nearest first, the item itself excluded. */
export function findSimilarItems(token: string, id: number, limit = 5, signal?: AbortSignal): Promise<LibrarySimilarResponse> {
  return getJson<LibrarySimilarResponse>(`${base}/items/${id}/similar`, { token, query: { limit }, signal });
}

/** GET /library/collections. */
export function listCollections(token: string, signal?: AbortSignal): Promise<LibraryCollectionListResponse> {
  return getJson<LibraryCollectionListResponse>(`${base}/collections`, { token, signal });
}

/** POST /library/collections. */
export function createCollection(token: string, name: string): Promise<LibraryCollectionResponse> {
  return getJson<LibraryCollectionResponse>(`${base}/collections`, { method: 'POST', token, json: { name } });
}

/** POST /library/collections/:id/items. */
export function addToCollection(token: string, collectionId: number, itemIds: readonly number[]): Promise<LibraryCollectionResponse> {
  return getJson<LibraryCollectionResponse>(`${base}/collections/${collectionId}/items`, {
    method: 'POST',
    token,
    json: { item_ids: itemIds },
  });
}

/** DELETE /library/collections/:id/items/:item_id. */
export async function removeFromCollection(token: string, collectionId: number, itemId: number): Promise<void> {
  await requestJson<undefined>(`${base}/collections/${collectionId}/items/${itemId}`, { method: 'DELETE', token });
}

/** GET /library/tags. */
export function listTags(token: string, signal?: AbortSignal): Promise<LibraryTagListResponse> {
  return getJson<LibraryTagListResponse>(`${base}/tags`, { token, signal });
}
