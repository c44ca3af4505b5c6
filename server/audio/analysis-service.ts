import type { Meter } from '../auth/metering.js';
import type { ReceivedUpload } from '../http/multipart.js';
import type { AnalysisPool } from './worker-pool.js';
import { cacheKey, type ResultCache } from './cache.js';
import type { DecoderChoice } from './decode/pcm-source.js';
import { engines } from './engines.js';
import type { SourceInfo } from './analysis-worker.js';

/** One analysis answer and whether it came from the cache. */
export interface AnalysisAnswer {
  readonly source: SourceInfo;
  readonly result: unknown;
  readonly cache: 'hit' | 'miss';
}

/** Upload → cache lookup → worker pool (decode + engine) → cache write, metered per tenant. */
export class AnalysisService {
  constructor(
    private readonly pool: AnalysisPool,
    private readonly cache: ResultCache,
    private readonly decoder: DecoderChoice,
    private readonly meter: Meter,
  ) {}

  /**
   * Answer from the cache by content hash alone, before any upload, when this tenant has uploaded
   * that content before (so a hash is never a way to read someone else's audio analysis).
   */
  async lookup(tenant: string, sha256: string, route: string, engineId: string, params: Readonly<Record<string, unknown>>, headSeconds?: number): Promise<AnalysisAnswer | null> {
    const engine = engines[engineId];
    if (!engine || !(await this.cache.hasSeen(tenant, sha256))) return null;
    const cached = (await this.cache.get(cacheKey({ sha256, route, params: { ...params, head: headSeconds ?? null }, engineVersion: engine.version }))) as { source: SourceInfo; result: unknown } | undefined;
    return cached ? { ...cached, cache: 'hit' } : null;
  }

  /** Analyse an upload with one engine; the temp file is always removed afterwards. */
  async analyse(tenant: string, upload: ReceivedUpload, route: string, engineId: string, params: Readonly<Record<string, unknown>>, options: { readonly headSeconds?: number; readonly signal?: AbortSignal } = {}): Promise<AnalysisAnswer> {
    try {
      const engine = engines[engineId];
      if (!engine) throw new Error(`unknown engine ${engineId}`);
      const key = cacheKey({ sha256: upload.sha256, route, params: { ...params, head: options.headSeconds ?? null }, engineVersion: engine.version });
      await this.cache.markSeen(tenant, upload.sha256);
      const cached = (await this.cache.get(key)) as { source: SourceInfo; result: unknown } | undefined;
      if (cached) return { ...cached, cache: 'hit' };
      const out = await this.pool.run({ engineId, params, file: upload.path, decoder: this.decoder, ...(options.headSeconds ? { headSeconds: options.headSeconds } : {}) }, options.signal);
      this.meter.analysed(tenant, out.analysedSeconds);
      const entry = { source: out.source, result: out.result };
      await this.cache.set(key, entry);
      return { ...entry, cache: 'miss' };
    } finally {
      await upload.discard();
    }
  }
}
