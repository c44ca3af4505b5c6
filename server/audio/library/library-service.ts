import { stat } from 'node:fs/promises';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import type { ReceivedUpload } from '../../http/multipart.js';
import type { ContentStore } from '../../shared/content-store.js';
import type { AnalysisService, HeldFile } from '../analysis/analysis-service.js';
import { EarlyAnalyses } from '../analysis/early-analyses.js';
import { featureVectorLength, featureVectorVersion } from './feature-vector.js';
import { TenantLibraryIndex, type LibraryQuery } from './library-index.js';
import type { CollectionRecord, LibraryItemRecord, LibraryRepo } from './library-repo.js';
import { computeSummary, type SummaryPlan } from './library-summary.js';
import { createSimilarityIndex, type SimilarityIndex } from './similarity-index.js';
import { WorkQueue } from './work-queue.js';

/** The record the service hands out (routes present it; the repo stays in this folder). */
export type { LibraryItemRecord } from './library-repo.js';

/** A file to add: already on disk (a finished upload, or a file in an indexed folder) and hashed. */
export interface NewItemFile {
  readonly sha256: string;
  readonly size: number;
  readonly name: string;
}

/** What PATCH /library/items/:id may change. */
export interface ItemPatch {
  readonly tags?: readonly string[];
  readonly favourite?: boolean;
  readonly rating?: number;
  readonly tempoMultiplier?: 0.5 | 1 | 2;
  readonly name?: string;
}

/** A collection with its item count. */
export interface CollectionView {
  readonly id: number;
  readonly name: string;
  readonly itemCount: number;
}

/** Summaries computed at once: the pool has two threads, and a folder of thousands must not flood it. */
const summaryConcurrency = 2;

/**
 * The producer's library: items per tenant (a tenant never sees another's), audio held once in the
 * content store, summaries computed in the background, search over per-tenant indexes, and "more like
 * this" over the similarity index.
 */
export class LibraryService {
  private readonly byTenant = new Map<string, Set<number>>();
  private readonly indexes = new Map<string, TenantLibraryIndex>();
  /** Items whose bytes are in the content store, by sha256: the store's own reference count. */
  private readonly holders = new Map<string, Set<number>>();
  private readonly similarity: SimilarityIndex = createSimilarityIndex(featureVectorLength);
  /** Uploads between putting their bytes and saving their item, by sha256. */
  private readonly pendingHolds = new Map<string, number>();
  private readonly adding = new Map<string, Promise<{ readonly item: LibraryItemRecord; readonly created: boolean }>>();
  private readonly summaries = new WorkQueue((id) => this.summarise(id), summaryConcurrency);

  constructor(
    private readonly repo: LibraryRepo,
    private readonly content: ContentStore,
    private readonly analysis: AnalysisService,
    private readonly plan: SummaryPlan,
    private readonly log: Logger,
  ) {
    for (const item of repo.items.values()) this.track(item);
    // Summaries a restart interrupted start again (each analysis it had finished is in the cache).
    for (const item of repo.items.values())
      if (item.status === 'analysing' || item.vectorVersion !== featureVectorVersion) this.summaries.add(item.id);
  }

  /**
   * The item's summary analyses, to start while its upload arrives (pass its `onFileProgress` to
   * receiveUpload, then the result to addUpload): loudness first, which addUpload waits for. Not
   * /naming: its answer is derived from /analyze's (computeSummary), with no pass of its own.
   */
  beginUpload(): EarlyAnalyses {
    const { loudness, naming: _derived, ...rest } = this.plan;
    return new EarlyAnalyses(this.analysis, [loudness, ...Object.values(rest)]);
  }

  /**
   * Add an upload: the same audio already in the tenant's library is that item (the upload is
   * dropped); audio the engines cannot read is refused (415, as the analysis routes answer) before
   * anything is kept; otherwise the bytes go to the content store, once. With `early` (beginUpload,
   * started as the upload arrived) the summary's analyses are already under way and carry on after
   * the answer; the temp file is removed once they are done.
   */
  async addUpload(
    tenant: string,
    upload: ReceivedUpload,
    extra: { readonly tags?: readonly string[]; readonly collectionId?: number } = {},
    early?: EarlyAnalyses,
  ): Promise<{ readonly item: LibraryItemRecord; readonly created: boolean }> {
    const key = `${tenant}\n${upload.sha256}`;
    // The same audio sent twice at once by one tenant is one item.
    const running = this.adding.get(key);
    if (running) {
      early?.cancel();
      await upload.discard();
      return { item: (await running).item, created: false };
    }
    const adding = this.addNewUpload(tenant, upload, extra, early);
    this.adding.set(key, adding);
    try {
      return await adding;
    } finally {
      this.adding.delete(key);
    }
  }

  private async addNewUpload(
    tenant: string,
    upload: ReceivedUpload,
    extra: { readonly tags?: readonly string[]; readonly collectionId?: number },
    early: EarlyAnalyses | undefined,
  ): Promise<{ readonly item: LibraryItemRecord; readonly created: boolean }> {
    // Counted before the bytes are put, so a removal meanwhile does not delete them (see remove).
    this.pendingHolds.set(upload.sha256, (this.pendingHolds.get(upload.sha256) ?? 0) + 1);
    // Settles when no early run reads the temp file any more.
    let reading: Promise<unknown> = Promise.resolve();
    let kept = false;
    try {
      try {
        const existing = this.findBySha(tenant, upload.sha256, (i) => i.origin !== 'folder');
        if (existing) {
          early?.cancel();
          return { item: existing, created: false };
        }
        if (extra.collectionId !== undefined) this.getCollection(tenant, extra.collectionId);
        // The first analysis of the summary: it refuses what cannot be decoded, and is cached.
        if (early) {
          const answers = early.adopt(tenant, upload);
          reading = Promise.allSettled(answers);
          try {
            await answers[0];
          } catch (error) {
            early.cancel();
            throw error;
          }
        } else {
          const r = this.plan.loudness;
          await this.analysis.analyseFile(tenant, upload, r.route, r.engine, r.params, { priority: 'interactive' });
        }
        // Early runs still read the temp file by its path: link the bytes in and leave it to them.
        await this.content.putFile(upload.path, upload.sha256, { keepTemp: early !== undefined });
        kept = true;
      } finally {
        if (kept) void reading.then(() => upload.discard());
        else {
          early?.cancel();
          await reading;
          await upload.discard();
        }
      }
      const file = { sha256: upload.sha256, size: upload.bytes, name: upload.filename || 'audio' };
      const item = this.newItem(tenant, file, 'upload', {
        tags: normaliseTags(extra.tags ?? []),
        collectionIds: extra.collectionId !== undefined ? [extra.collectionId] : [],
      });
      await this.save(item);
      this.summaries.add(item.id);
      return { item, created: true };
    } finally {
      const n = (this.pendingHolds.get(upload.sha256) ?? 1) - 1;
      if (n > 0) this.pendingHolds.set(upload.sha256, n);
      else this.pendingHolds.delete(upload.sha256);
    }
  }

  /** Add a file of an indexed folder, read in place (never copied). */
  async addFolderFile(
    tenant: string,
    folderId: number,
    file: NewItemFile & { readonly path: string; readonly mtimeMs: number },
  ): Promise<LibraryItemRecord> {
    const item = this.newItem(tenant, file, 'folder', { path: file.path, folderId, mtimeMs: file.mtimeMs });
    await this.save(item);
    this.summaries.add(item.id);
    return item;
  }

  /** Mark a folder item whose file changed or went away (it says so, and is not analysed by hash). */
  async markFolderFile(
    id: number,
    error: string | null,
    update?: { readonly sha256: string; readonly size: number; readonly mtimeMs: number },
  ): Promise<void> {
    const item = this.repo.items.get(id);
    if (!item) return;
    if (update) {
      await this.save({ ...item, ...update, status: 'analysing', summary: null, vector: null, error: undefined });
      this.summaries.add(id);
      return;
    }
    if (error !== null) await this.save({ ...item, status: 'failed', error });
  }

  /** A tenant's item, or 404 (also for another tenant's item). */
  get(tenant: string, id: number): LibraryItemRecord {
    const item = this.repo.items.get(id);
    if (!item || item.tenant !== tenant) throw new AppError('not-found', 'Library item not found');
    return item;
  }

  /** Items of one folder. */
  itemsOfFolder(folderId: number): LibraryItemRecord[] {
    return [...this.repo.items.values()].filter((i) => i.folderId === folderId);
  }

  async update(tenant: string, id: number, patch: ItemPatch): Promise<LibraryItemRecord> {
    const item = this.get(tenant, id);
    const next: LibraryItemRecord = {
      ...item,
      ...(patch.tags !== undefined ? { tags: normaliseTags(patch.tags) } : {}),
      ...(patch.favourite !== undefined ? { favourite: patch.favourite } : {}),
      ...(patch.rating !== undefined ? { rating: patch.rating } : {}),
      ...(patch.tempoMultiplier !== undefined ? { tempoMultiplier: patch.tempoMultiplier } : {}),
      ...(patch.name !== undefined ? { name: patch.name } : {}),
    };
    await this.save(next);
    return next;
  }

  /** Remove items; their bytes leave the content store once no item references them. */
  async remove(tenant: string, ids: readonly number[]): Promise<void> {
    const items = ids.map((id) => this.get(tenant, id));
    await this.repo.deleteItems(ids);
    for (const item of items) {
      this.untrack(item);
      if (item.origin !== 'folder' && !this.holders.has(item.sha256) && !this.pendingHolds.has(item.sha256))
        await this.content.remove(item.sha256);
    }
  }

  search(tenant: string, query: LibraryQuery): { readonly items: readonly LibraryItemRecord[]; readonly total: number } {
    return this.indexOf(tenant).search(query);
  }

  /** The tenant's nearest items to one of theirs, the item itself excluded. */
  similar(tenant: string, id: number, limit: number): { readonly item: LibraryItemRecord; readonly distance: number }[] {
    const item = this.get(tenant, id);
    // A vector of older constants (until the start's re-summary reaches it) compares with nothing: no neighbours yet.
    if (!hasCurrentVector(item)) return [];
    const mine = this.byTenant.get(tenant)!;
    return this.similarity
      .nearest(Float32Array.from(item.vector), limit, (other) => other !== id && mine.has(other))
      .map((n) => ({ item: this.repo.items.get(n.id)!, distance: Math.round(n.distance * 1e4) / 1e4 }));
  }

  /** The file of a tenant's item with this sha256 that can be read now (a changed folder file cannot). */
  async findHeldFile(tenant: string, sha256: string): Promise<HeldFile | undefined> {
    for (const id of this.byTenant.get(tenant) ?? []) {
      const item = this.repo.items.get(id)!;
      if (item.sha256 !== sha256) continue;
      const file = await this.readableFile(item);
      if (file) return file;
    }
    return undefined;
  }

  /** The bytes of a tenant's item, or 404 when they are gone (a folder file removed or changed). */
  async getAudio(tenant: string, id: number): Promise<{ readonly path: string; readonly name: string }> {
    const item = this.get(tenant, id);
    const file = await this.readableFile(item);
    if (!file) throw new AppError('not-found', 'The audio of this item is no longer on disk');
    return { path: file.path, name: item.name };
  }

  // Collections.

  collections(tenant: string): CollectionView[] {
    const counts = new Map<number, number>();
    for (const id of this.byTenant.get(tenant) ?? [])
      for (const c of this.repo.items.get(id)!.collectionIds) counts.set(c, (counts.get(c) ?? 0) + 1);
    return [...this.repo.collections.values()]
      .filter((c) => c.tenant === tenant)
      .map((c) => ({ id: c.id, name: c.name, itemCount: counts.get(c.id) ?? 0 }));
  }

  getCollection(tenant: string, id: number): CollectionRecord {
    const c = this.repo.collections.get(id);
    if (!c || c.tenant !== tenant) throw new AppError('not-found', 'Collection not found');
    return c;
  }

  collectionView(tenant: string, id: number): CollectionView {
    const c = this.getCollection(tenant, id);
    let itemCount = 0;
    for (const i of this.byTenant.get(tenant) ?? []) if (this.repo.items.get(i)!.collectionIds.includes(id)) itemCount++;
    return { id, name: c.name, itemCount };
  }

  async createCollection(tenant: string, name: string): Promise<CollectionView> {
    const record = { id: this.repo.nextId(), tenant, name };
    await this.repo.putCollection(record);
    return { id: record.id, name, itemCount: 0 };
  }

  async renameCollection(tenant: string, id: number, name: string): Promise<CollectionView> {
    await this.repo.putCollection({ ...this.getCollection(tenant, id), name });
    return this.collectionView(tenant, id);
  }

  /** Delete a collection; its items stay in the library. */
  async deleteCollection(tenant: string, id: number): Promise<void> {
    this.getCollection(tenant, id);
    const members = [...(this.byTenant.get(tenant) ?? [])].map((i) => this.repo.items.get(i)!).filter((i) => i.collectionIds.includes(id));
    await this.saveAll(members.map((i) => ({ ...i, collectionIds: i.collectionIds.filter((c) => c !== id) })));
    await this.repo.deleteCollection(id);
  }

  async addToCollection(tenant: string, id: number, itemIds: readonly number[]): Promise<CollectionView> {
    this.getCollection(tenant, id);
    const items = [...new Set(itemIds)].map((i) => this.get(tenant, i)).filter((i) => !i.collectionIds.includes(id));
    await this.saveAll(items.map((i) => ({ ...i, collectionIds: [...i.collectionIds, id] })));
    return this.collectionView(tenant, id);
  }

  async removeFromCollection(tenant: string, id: number, itemId: number): Promise<void> {
    this.getCollection(tenant, id);
    const item = this.get(tenant, itemId);
    await this.save({ ...item, collectionIds: item.collectionIds.filter((c) => c !== id) });
  }

  /** Every tag of the tenant's items with how many items carry it, most used first. */
  tags(tenant: string): { readonly name: string; readonly count: number }[] {
    const counts = new Map<string, number>();
    for (const id of this.byTenant.get(tenant) ?? [])
      for (const t of this.repo.items.get(id)!.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
    return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  }

  /** Resolves when no summary is waiting or running (tests, shutdown). */
  whenIdle(): Promise<void> {
    return this.summaries.whenIdle();
  }

  /** Stop starting summaries; wait for those running. */
  async stop(): Promise<void> {
    await this.summaries.stop();
  }

  // Internals.

  private newItem(
    tenant: string,
    file: NewItemFile,
    origin: LibraryItemRecord['origin'],
    extra: Partial<LibraryItemRecord>,
  ): LibraryItemRecord {
    return {
      id: this.repo.nextId(),
      tenant,
      sha256: file.sha256,
      name: file.name,
      size: file.size,
      addedAt: new Date().toISOString(),
      status: 'analysing',
      origin,
      summary: null,
      vector: null,
      tags: [],
      favourite: false,
      rating: 0,
      tempoMultiplier: 1,
      collectionIds: [],
      ...extra,
    };
  }

  private findBySha(tenant: string, sha256: string, accept: (i: LibraryItemRecord) => boolean): LibraryItemRecord | undefined {
    for (const id of this.byTenant.get(tenant) ?? []) {
      const item = this.repo.items.get(id)!;
      if (item.sha256 === sha256 && accept(item)) return item;
    }
    return undefined;
  }

  private async readableFile(item: LibraryItemRecord): Promise<HeldFile | undefined> {
    if (item.origin !== 'folder')
      return (await this.content.has(item.sha256)) ? { path: this.content.pathOf(item.sha256), sha256: item.sha256 } : undefined;
    if (!item.path) return undefined;
    try {
      const s = await stat(item.path);
      // Changed since it was hashed: its sha256 no longer names these bytes.
      if (!s.isFile() || s.size !== item.size || s.mtimeMs !== item.mtimeMs) return undefined;
    } catch {
      return undefined;
    }
    return { path: item.path, sha256: item.sha256 };
  }

  private async save(item: LibraryItemRecord): Promise<void> {
    await this.saveAll([item]);
  }

  private async saveAll(items: readonly LibraryItemRecord[]): Promise<void> {
    if (items.length === 0) return;
    await this.repo.putItems(items);
    for (const item of items) this.track(item);
  }

  private indexOf(tenant: string): TenantLibraryIndex {
    let index = this.indexes.get(tenant);
    if (!index) {
      const ids = this.byTenant.get(tenant) ?? new Set<number>();
      index = new TenantLibraryIndex([...ids].map((id) => this.repo.items.get(id)!));
      this.indexes.set(tenant, index);
    }
    return index;
  }

  private track(item: LibraryItemRecord): void {
    let mine = this.byTenant.get(item.tenant);
    if (!mine) this.byTenant.set(item.tenant, (mine = new Set()));
    mine.add(item.id);
    if (item.origin !== 'folder') {
      let h = this.holders.get(item.sha256);
      if (!h) this.holders.set(item.sha256, (h = new Set()));
      h.add(item.id);
    }
    if (hasCurrentVector(item)) this.similarity.add(item.id, Float32Array.from(item.vector));
    else this.similarity.remove(item.id);
    this.indexes.get(item.tenant)?.upsert(item);
  }

  private untrack(item: LibraryItemRecord): void {
    this.byTenant.get(item.tenant)?.delete(item.id);
    const h = this.holders.get(item.sha256);
    h?.delete(item.id);
    if (h?.size === 0) this.holders.delete(item.sha256);
    this.similarity.remove(item.id);
    this.indexes.get(item.tenant)?.remove(item.id);
  }

  private async summarise(id: number): Promise<void> {
    const item = this.repo.items.get(id);
    if (!item) return;
    const file = await this.readableFile(item);
    try {
      if (!file)
        throw new AppError('not-found', item.origin === 'folder' ? 'The file changed or is missing on disk' : 'The audio is missing');
      const computed = await computeSummary(this.analysis, item.tenant, file, this.plan);
      const now = this.repo.items.get(id);
      if (!now || now.sha256 !== item.sha256) return; // removed or replaced meanwhile
      await this.save({ ...now, status: 'ready', error: undefined, ...computed });
    } catch (error) {
      const now = this.repo.items.get(id);
      if (!now) return;
      const message = error instanceof AppError ? error.message : 'The analysis failed';
      if (!(error instanceof AppError)) this.log.error(`library summary of item ${id} failed`, error);
      await this.save({ ...now, status: 'failed', error: message }).catch((e: unknown) => this.log.error('library save failed', e));
    }
  }
}

/** Tags trimmed, lower-cased, de-duplicated, empty ones dropped. */
export function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0))];
}

/** The item's vector was computed under the committed constants (a stored one of another version waits for its re-summary). */
function hasCurrentVector(item: LibraryItemRecord): item is LibraryItemRecord & { readonly vector: readonly number[] } {
  return item.vector !== null && item.vectorVersion === featureVectorVersion && item.vector.length === featureVectorLength;
}
