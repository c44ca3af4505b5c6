import { z } from 'zod';
import { SAMPLE_ROLES } from '../engines/sample-role.js';
import { librarySortFields } from '../library/library-index.js';

const tiers = ['S', 'A', 'B', 'C', 'D'] as const;
const id = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const boolText = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .describe('true or false');
const num = (min: number, max: number, what: string) => z.coerce.number().min(min).max(max).optional().describe(what);

/** One library item on the wire. */
export const libraryItemSchema = z
  .object({
    id: z.number().int(),
    sha256: z.string().describe('sha256 of the audio bytes, hex'),
    name: z.string().describe('Original file name (or the name given with PATCH)'),
    size: z.number().int().describe('Bytes'),
    added_at: z.string().describe('ISO 8601'),
    status: z.enum(['analysing', 'ready', 'failed']).describe('analysing until the summary is computed in the background; poll GET'),
    error: z.string().optional().describe('Why the summary failed, or that a folder file changed or went away'),
    origin: z.enum(['upload', 'folder', 'source']),
    path: z.string().optional().describe('Absolute path on disk (folder items only)'),
    duration_s: z.number().nullable(),
    sample_rate: z.number().nullable(),
    channels: z.number().nullable(),
    format: z.string().nullable(),
    role: z.enum(SAMPLE_ROLES).nullable(),
    role_confidence: z.number().nullable(),
    tempo_bpm: z.number().nullable().describe('Tempo as measured (/onsets), BPM'),
    tempo_multiplier: z.union([z.literal(0.5), z.literal(1), z.literal(2)]).describe('The user’s ½×/2× correction (default 1)'),
    bpm: z.number().nullable().describe('tempo_bpm × tempo_multiplier: what search and sort use'),
    key: z.string().nullable().describe('"A minor"-style'),
    camelot: z.string().nullable().describe('Camelot code, "8A"-style (8A = A minor, 8B = C major)'),
    loudness_lufs: z.number().nullable().describe('Integrated loudness (ungated clip loudness under 0.4 s), LUFS'),
    true_peak_dbtp: z.number().nullable(),
    grade_tier: z.enum(tiers).nullable(),
    suggested_name: z.string().nullable(),
    thumbnail: z.array(z.number().min(0).max(1)).describe('64 peak values 0..1 for a waveform thumbnail; [] until ready'),
    tags: z.array(z.string()),
    favourite: z.boolean(),
    rating: z.number().int().min(0).max(5),
    collection_ids: z.array(z.number().int()),
    summary_analyses: z
      .array(
        z.object({
          route: z.string().describe('The route under /audio/v1, as "/onsets"'),
          params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('Every parameter, defaults included'),
          defaults: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('The route’s defaults'),
        }),
      )
      .optional()
      .describe(
        'Upload answer only, unless the summary failed: the analyses the background summary is computing (or has computed) for this audio. ' +
          'A request by sha256 to the same route whose parameters, completed with `defaults`, equal `params` adds no work: it joins that analysis or reads its answer',
      ),
  })
  .meta({ id: 'LibraryItem' });

export const libraryItemListSchema = z
  .object({ items: z.array(libraryItemSchema), total: z.number().int(), page: z.number().int(), per_page: z.number().int() })
  .meta({ id: 'LibraryItemList' });

export const librarySimilarSchema = z
  .object({
    items: z.array(z.object({ item: libraryItemSchema, distance: z.number().describe('Euclidean distance of the feature vectors') })),
  })
  .meta({ id: 'LibrarySimilar' });

export const libraryCollectionSchema = z
  .object({ id: z.number().int(), name: z.string(), item_count: z.number().int() })
  .meta({ id: 'LibraryCollection' });
export const libraryCollectionListSchema = z.object({ items: z.array(libraryCollectionSchema) }).meta({ id: 'LibraryCollectionList' });
export const libraryTagListSchema = z
  .object({ items: z.array(z.object({ name: z.string(), count: z.number().int() })) })
  .meta({ id: 'LibraryTagList' });
const count = (what: string) => z.number().int().min(0).describe(what);
export const libraryFolderScanSchema = z
  .object({
    state: z.enum(['scanning', 'done', 'failed']),
    started_at: z.string().describe('ISO 8601'),
    finished_at: z.string().nullable().describe('ISO 8601; null while scanning'),
    resumed: z.boolean().describe('This run took over a scan a restart or crash interrupted (its counts are this run’s)'),
    seen: count('Audio files found so far'),
    added: count('New items'),
    updated: count('Items whose file changed or came back'),
    unchanged: count('Items already indexed with the same size and modification time'),
    failed: count('Files that could not be read'),
    skipped: z.object({
      not_audio: count('Files without an audio extension'),
      outside_roots: count('Symlinks out of the allowed roots, or to folders'),
      name_too_long: count('Names over 255 characters or paths over 1024 bytes'),
      over_limit: count('1 when the walk stopped at the 100 000-file limit'),
    }),
  })
  .meta({ id: 'LibraryFolderScan' });
export const libraryFolderSchema = z
  .object({
    id: z.number().int(),
    path: z.string(),
    item_count: z.number().int(),
    watching: z.boolean(),
    scan: libraryFolderScanSchema.nullable().describe('The running or last scan (null for a folder not scanned since scans were recorded)'),
  })
  .meta({ id: 'LibraryFolder' });
export const libraryFolderListSchema = z.object({ items: z.array(libraryFolderSchema) }).meta({ id: 'LibraryFolderList' });

const sortValues = [...librarySortFields, ...librarySortFields.map((f) => `-${f}` as const)] as const;

/** GET /library/items. */
export const libraryListQuerySchema = z.object({
  q: z.string().max(200).optional().describe('Case-insensitive substring of name, suggested_name or a tag'),
  role: z.enum(SAMPLE_ROLES).optional(),
  key: z
    .string()
    .max(32)
    .optional()
    .describe('A key in any spelling ("Am", "A minor", "C#m", "Db major") or a Camelot code; same as camelot'),
  camelot: z.string().max(32).optional().describe('Camelot code ("8A"); any key spelling is accepted too'),
  bpm_min: num(0, 1000, 'Lowest bpm'),
  bpm_max: num(0, 1000, 'Highest bpm'),
  bpm_related: boolText.optional().describe('Also match items whose bpm is half or double a value in range'),
  lufs_min: num(-200, 50, 'Lowest loudness, LUFS'),
  lufs_max: num(-200, 50, 'Highest loudness, LUFS'),
  tier: z.enum(tiers).optional(),
  duration_min: num(0, 1e7, 'Shortest, seconds'),
  duration_max: num(0, 1e7, 'Longest, seconds'),
  tag: z.string().max(64).optional(),
  favourite: boolText.optional(),
  collection_id: id.optional(),
  sort: z.enum(sortValues).default('-added_at').describe('A field; prefix - for descending'),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number().int().min(1).max(200).default(50),
});

export const libraryItemPathSchema = z.object({ id });
export const libraryCollectionPathSchema = z.object({ id });
export const libraryCollectionItemPathSchema = z.object({ id, item_id: id });
export const librarySimilarQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(50).default(5) });

const tagText = z.string().trim().min(1).max(64);

/** PATCH /library/items/{id}. */
export const libraryItemPatchSchema = z
  .strictObject({
    tags: z.array(tagText).max(100).optional(),
    favourite: z.boolean().optional(),
    rating: z.number().int().min(0).max(5).optional(),
    tempo_multiplier: z.union([z.literal(0.5), z.literal(1), z.literal(2)]).optional(),
    name: z.string().trim().min(1).max(255).optional(),
  })
  .meta({ id: 'LibraryItemPatch' });

/** The text fields of POST /library/items beside `file`. */
export const libraryUploadFieldsSchema = z.object({
  tags: z.string().max(4096).optional().describe('Comma-separated tags'),
  collection_id: id.optional(),
});

export const libraryCollectionBodySchema = z
  .strictObject({ name: z.string().trim().min(1).max(120) })
  .meta({ id: 'LibraryCollectionBody' });
export const libraryCollectionItemsBodySchema = z
  .strictObject({ item_ids: z.array(z.number().int().min(1)).min(1).max(1000) })
  .meta({ id: 'LibraryCollectionItems' });
export const libraryFolderBodySchema = z.strictObject({ path: z.string().min(1).max(4096) }).meta({ id: 'LibraryFolderBody' });
export const libraryFolderPathSchema = z.object({ id });

/** `?sha256=` of the analysis routes: analyse audio the server holds for the caller, with an empty body. */
export const sha256QuerySchema = z.object({
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'String should be 64 hexadecimal characters')
    .optional()
    .describe(
      'Analyse audio the server already holds that you may read (your library, or a source your tenant fetched), with an empty body',
    ),
});
