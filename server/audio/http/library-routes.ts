import type { Request, Response } from 'express';
import type { Identity } from '../../auth/identity.js';
import { AppError, invalidParams } from '../../http/errors.js';
import { receiveAudioUpload } from './receive-audio-upload.js';
import { sendUserContent } from '../../http/serve-user-content.js';
import { findCamelot } from '../library/camelot.js';
import type { FolderView, LibraryFolders } from '../library/library-folders.js';
import { bpmOf, type LibraryQuery, type LibrarySortField } from '../library/library-index.js';
import type { LibraryItemRecord, LibraryService } from '../library/library-service.js';
import type { LibraryFolderResponse, LibraryItemResponse } from '../api-types.js';
import { libraryRouteSpecs } from './library-route-specs.js';
import {
  libraryCollectionBodySchema,
  libraryCollectionItemsBodySchema,
  libraryFolderBodySchema,
  libraryItemPatchSchema,
  libraryListQuerySchema,
  librarySimilarQuerySchema,
  libraryUploadFieldsSchema,
} from './library-schemas.js';
import type { AudioRouteSpec } from './route-specs.js';
import { listSummaryAnalyses } from './summary-plan.js';
import { validatePart } from './validation.js';

type Handler = (req: Request, res: Response, caller: Identity | null) => Promise<unknown> | unknown;

/** What the library routes need from the audio router. */
export interface LibraryRouteDeps {
  readonly library: LibraryService;
  readonly folders: LibraryFolders;
  readonly uploads: { readonly tmpDir: string; readonly maxBytes: number };
  onUploaded(tenant: string, bytes: number): void;
}

/** An item as the API shows it. */
export function presentLibraryItem(item: LibraryItemRecord): LibraryItemResponse {
  const s = item.summary;
  return {
    id: item.id,
    sha256: item.sha256,
    name: item.name,
    size: item.size,
    added_at: item.addedAt,
    status: item.status,
    ...(item.error ? { error: item.error } : {}),
    origin: item.origin,
    ...(item.path ? { path: item.path } : {}),
    duration_s: s?.duration_s ?? null,
    sample_rate: s?.sample_rate ?? null,
    channels: s?.channels ?? null,
    format: s?.format ?? null,
    role: (s?.role ?? null) as LibraryItemResponse['role'],
    role_confidence: s?.role_confidence ?? null,
    tempo_bpm: s?.tempo_bpm ?? null,
    tempo_multiplier: item.tempoMultiplier,
    bpm: bpmOf(item),
    key: s?.key ?? null,
    camelot: s?.camelot ?? null,
    loudness_lufs: s?.loudness_lufs ?? null,
    true_peak_dbtp: s?.true_peak_dbtp ?? null,
    grade_tier: (s?.grade_tier ?? null) as LibraryItemResponse['grade_tier'],
    suggested_name: s?.suggested_name ?? null,
    thumbnail: [...(s?.thumbnail ?? [])],
    tags: [...item.tags],
    favourite: item.favourite,
    rating: item.rating,
    collection_ids: [...item.collectionIds],
  };
}

/** A key or camelot query value as a Camelot code, or 422. */
function camelotParam(name: 'key' | 'camelot', value: string): string {
  const code = findCamelot(value);
  if (code) return code;
  throw invalidParams([
    {
      loc: ['query', name],
      msg: 'Not a key: use a spelling like "Am", "A minor", "C#m" or a Camelot code like "8A"',
      type: 'value_error',
      input: value,
    },
  ]);
}

/** Mount the library routes (libraryRouteSpecs) with the audio router's `mount` (auth, scopes, metering). */
export function mountLibraryRoutes(mount: (spec: AudioRouteSpec, handler: Handler) => void, deps: LibraryRouteDeps): void {
  const { library, folders } = deps;
  const specs = libraryRouteSpecs;
  const who = (caller: Identity | null): Identity => {
    if (!caller) throw new AppError('unauthorized', 'Not authenticated');
    return caller;
  };
  const idOf = (req: Request, name = 'id') => Number(req.params[name]);

  mount(specs.libraryAddItem, async (req, res, caller) => {
    const tenant = who(caller).tenant;
    // The item's summary analyses start while the bytes arrive (a PCM WAV is analysed as it streams in).
    const early = library.beginUpload();
    const upload = await receiveAudioUpload(req, deps.uploads, early);
    deps.onUploaded(tenant, upload.bytes);
    const refuse = async (error: unknown): Promise<never> => {
      early.cancel();
      await upload.discard();
      throw error;
    };
    let fields;
    try {
      fields = validatePart(libraryUploadFieldsSchema, 'body', upload.fields);
    } catch (e) {
      return refuse(e);
    }
    const tags = fields.tags?.split(',') ?? [];
    if (tags.some((t) => t.trim().length > 64))
      return refuse(
        invalidParams([{ loc: ['body', 'tags'], msg: 'A tag has at most 64 characters', type: 'string_too_long', input: fields.tags }]),
      );
    const { item, created } = await library.addUpload(tenant, upload, { tags, collectionId: fields.collection_id }, early);
    res.status(created ? 201 : 200);
    // Tells the client which of its analyses by hash are already under way (the Analyse screen asks those at once).
    const analyses = item.status === 'failed' ? {} : { summary_analyses: listSummaryAnalyses().map((a) => ({ ...a })) };
    return { ...presentLibraryItem(item), ...analyses };
  });

  mount(specs.libraryListItems, (req, _res, caller) => {
    const tenant = who(caller).tenant;
    const p = validatePart(libraryListQuerySchema, 'query', req.query);
    const keyCode = p.key !== undefined ? camelotParam('key', p.key) : undefined;
    const camelotCode = p.camelot !== undefined ? camelotParam('camelot', p.camelot) : undefined;
    if (keyCode && camelotCode && keyCode !== camelotCode) return { items: [], total: 0, page: p.page, per_page: p.per_page };
    const descending = p.sort.startsWith('-');
    const query: LibraryQuery = {
      q: p.q,
      role: p.role,
      camelot: keyCode ?? camelotCode,
      bpmMin: p.bpm_min,
      bpmMax: p.bpm_max,
      bpmRelated: p.bpm_related,
      lufsMin: p.lufs_min,
      lufsMax: p.lufs_max,
      tier: p.tier,
      durationMin: p.duration_min,
      durationMax: p.duration_max,
      tag: p.tag,
      favourite: p.favourite,
      collectionId: p.collection_id,
      sort: (descending ? p.sort.slice(1) : p.sort) as LibrarySortField,
      descending,
      page: p.page,
      perPage: p.per_page,
    };
    const found = library.search(tenant, query);
    return { items: found.items.map(presentLibraryItem), total: found.total, page: p.page, per_page: p.per_page };
  });

  mount(specs.libraryGetItem, (req, _res, caller) => presentLibraryItem(library.get(who(caller).tenant, idOf(req))));
  mount(specs.libraryPatchItem, async (req, _res, caller) => {
    const tenant = who(caller).tenant;
    const body = validatePart(libraryItemPatchSchema, 'body', req.body);
    const item = await library.update(tenant, idOf(req), {
      tags: body.tags,
      favourite: body.favourite,
      rating: body.rating,
      tempoMultiplier: body.tempo_multiplier,
      name: body.name,
    });
    return presentLibraryItem(item);
  });
  mount(specs.libraryDeleteItem, async (req, res, caller) => {
    await library.remove(who(caller).tenant, [idOf(req)]);
    res.status(204).end();
  });
  mount(specs.libraryItemAudio, async (req, res, caller) => {
    const audio = await library.getAudio(who(caller).tenant, idOf(req));
    const sent = await sendUserContent(res, audio.path, audio.name, {
      cacheControl: 'private, max-age=0, must-revalidate',
      attachment: true,
    });
    if (!sent) throw new AppError('not-found', 'The audio of this item is no longer on disk');
  });
  mount(specs.librarySimilar, (req, _res, caller) => {
    const { limit } = validatePart(librarySimilarQuerySchema, 'query', req.query);
    const near = library.similar(who(caller).tenant, idOf(req), limit);
    return { items: near.map((n) => ({ item: presentLibraryItem(n.item), distance: n.distance })) };
  });

  const presentCollection = (c: { id: number; name: string; itemCount: number }) => ({ id: c.id, name: c.name, item_count: c.itemCount });
  mount(specs.libraryListCollections, (_req, _res, caller) => ({ items: library.collections(who(caller).tenant).map(presentCollection) }));
  mount(specs.libraryCreateCollection, async (req, res, caller) => {
    const { name } = validatePart(libraryCollectionBodySchema, 'body', req.body);
    res.status(201);
    return presentCollection(await library.createCollection(who(caller).tenant, name));
  });
  mount(specs.libraryRenameCollection, async (req, _res, caller) => {
    const { name } = validatePart(libraryCollectionBodySchema, 'body', req.body);
    return presentCollection(await library.renameCollection(who(caller).tenant, idOf(req), name));
  });
  mount(specs.libraryDeleteCollection, async (req, res, caller) => {
    await library.deleteCollection(who(caller).tenant, idOf(req));
    res.status(204).end();
  });
  mount(specs.libraryAddToCollection, async (req, _res, caller) => {
    const { item_ids } = validatePart(libraryCollectionItemsBodySchema, 'body', req.body);
    return presentCollection(await library.addToCollection(who(caller).tenant, idOf(req), item_ids));
  });
  mount(specs.libraryRemoveFromCollection, async (req, res, caller) => {
    await library.removeFromCollection(who(caller).tenant, idOf(req), idOf(req, 'item_id'));
    res.status(204).end();
  });
  mount(specs.libraryTags, (_req, _res, caller) => ({ items: library.tags(who(caller).tenant) }));

  const presentFolder = (f: FolderView): LibraryFolderResponse => ({
    id: f.id,
    path: f.path,
    item_count: f.itemCount,
    watching: f.watching,
    scan: f.scan
      ? {
          state: f.scan.state,
          started_at: f.scan.startedAt,
          finished_at: f.scan.finishedAt ?? null,
          resumed: f.scan.resumed,
          seen: f.scan.seen,
          added: f.scan.added,
          updated: f.scan.updated,
          unchanged: f.scan.unchanged,
          failed: f.scan.failed,
          skipped: {
            not_audio: f.scan.skipped.notAudio,
            outside_roots: f.scan.skipped.outsideRoots,
            name_too_long: f.scan.skipped.nameTooLong,
            over_limit: f.scan.skipped.overLimit,
          },
        }
      : null,
  });
  /** Folders read the server's own disk: only for administrators (the desktop app's user is one). */
  const admin = (caller: Identity | null): Identity => {
    const c = who(caller);
    if (!c.user.admin) throw new AppError('forbidden', 'Only an administrator may index folders on the server’s disk');
    return c;
  };
  mount(specs.libraryListFolders, (_req, _res, caller) => ({ items: folders.list(admin(caller).tenant).map(presentFolder) }));
  mount(specs.libraryAddFolder, async (req, res, caller) => {
    const tenant = admin(caller).tenant;
    const body = validatePart(libraryFolderBodySchema, 'body', req.body);
    const { folder, created } = await folders.add(tenant, body.path);
    // A new folder is answered before its scan: 202, the scan's progress in `scan`.
    res.status(created ? 202 : 200);
    return presentFolder(folder);
  });
  mount(specs.libraryDeleteFolder, async (req, res, caller) => {
    await folders.remove(admin(caller).tenant, idOf(req));
    res.status(204).end();
  });
}
