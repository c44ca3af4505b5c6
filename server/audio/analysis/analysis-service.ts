// One file past ~400 lines on purpose: joining a running computation (shareRun, attend), adopting
// an upload's early run and deriving an answer from a containing analysis all work on the one map of
// running computations; split apart, each would need that map's internals.
import type { Meter } from '../../auth/metering.js';
import type { ReceivedUpload } from '../../http/multipart.js';
import type { AnalysisPool, AnalysisPriority } from './worker-pool.js';
import { cancelled } from './analysis-failure.js';
import { cacheKey, type ResultCache } from './cache.js';
import type { DecoderChoice } from '../decode/pcm-source.js';
import { FeedWriter } from '../decode/upload-feed.js';
import { engines, getEngineId, type EngineId } from '../engines/registry.js';
import type { AnalysisOutput, SourceInfo } from './analysis-worker.js';

/** One analysis answer and whether it came from the cache. */
export interface AnalysisAnswer {
  readonly source: SourceInfo;
  readonly result: unknown;
  readonly cache: 'hit' | 'miss';
}

/** One analysis exactly as its route runs it (the same cache key: a later request for it is a hit or joins it). */
export interface AnalysisRequest {
  readonly route: string;
  readonly engine: EngineId;
  readonly params: Readonly<Record<string, unknown>>;
  readonly headSeconds?: number;
}

/** An analysis answer as cached: the `source` block and the engine's result. */
export interface AnalysisEntry {
  readonly source: SourceInfo;
  readonly result: unknown;
}

/**
 * A route whose answer is contained in another analysis's answer of the same file (the composite
 * /analyze holds the sample analysis /naming names, for example). When that analysis is cached or
 * being computed, the route's answer is derived from it instead of running its own engine over the
 * audio again. `derive` must give exactly the answer the route's own engine gives.
 */
export interface Derivation {
  /** The analysis whose answer contains this route's. */
  readonly from: AnalysisRequest;
  /** The route's own head (its cache key has it): requests with another head run the engine. */
  readonly headSeconds?: number;
  /** The answer for `params` from `from`'s answer; undefined when it cannot be told exactly from it. */
  derive(answer: AnalysisEntry, params: Readonly<Record<string, unknown>>): AnalysisEntry | undefined;
}

/** How an analysis runs: the clip-tier head, and a signal that cancels it (the client went away). */
export interface AnalysisOptions {
  readonly headSeconds?: number;
  readonly signal?: AbortSignal;
  /** Interactive unless said (see worker-pool.ts AnalysisPriority). */
  readonly priority?: AnalysisPriority;
}

/** A file the server already holds, with the sha256 of its bytes. */
export interface HeldFile {
  readonly path: string;
  readonly sha256: string;
}

/**
 * An analysis started while its upload is still arriving: the worker reads the temp file as it grows
 * (a PCM WAV from its first bytes; other formats once complete), so decoding and analysis overlap the
 * upload instead of following it. Its answer is used only on a cache miss; otherwise it is cancelled.
 * The upload is hashed on the HTTP thread as its chunks pass (receiveUpload), which leaves both worker
 * threads to the analysis: a hash task in the pool held one of them until the upload was complete, so
 * the second part of a split /analyze waited for the whole upload before it could start.
 */
export class EarlyAnalysis {
  private readonly feed = new FeedWriter();
  private started: { readonly path: string; readonly result: Promise<AnalysisOutput> } | null = null;

  /** `begin` null: nothing starts early (the pool cannot read a growing file), the answer comes after the upload. */
  constructor(private readonly begin: ((path: string, control: SharedArrayBuffer) => Promise<AnalysisOutput>) | null) {}

  /** receiveUpload's `onFileProgress`: starts the analysis when the file opens, then reports progress. */
  readonly onFileProgress = (path: string, bytesOnDisk: number, complete: boolean): void => {
    if (!this.begin) return;
    if (!this.started) {
      const result = this.begin(path, this.feed.shared);
      result.catch(() => undefined); // awaited only on a cache miss
      this.started = { path, result };
    }
    this.feed.written(bytesOnDisk, complete);
  };

  /** The upload failed or was refused, or the answer came from elsewhere: stop. */
  cancel(): void {
    this.feed.fail();
    this.feed.cancel();
  }

  /** The running analysis of the upload at `path`, or null when none was started for it. */
  resultFor(path: string): Promise<AnalysisOutput> | null {
    return this.started?.path === path ? this.started.result : null;
  }
}

/** A cache miss being computed, which later requests for the same cache key join (see analyseFile). */
interface SharedRun {
  readonly done: Promise<AnalysisEntry>;
  /** Cancels the computation: only once every request waiting for it has gone. */
  readonly stop: AbortController;
  readonly priority: AnalysisPriority;
  /** Its key in `running` (where it is only while offered to others and neither stopped nor settled). */
  readonly key: string;
  /** Requests waiting for it. */
  waiting: number;
}

/** A stop for a run that `early` computes: aborting it cancels `early`. */
function stopping(early: EarlyAnalysis): AbortController {
  const stop = new AbortController();
  stop.signal.addEventListener('abort', () => early.cancel(), { once: true });
  return stop;
}

/** Upload → cache lookup → worker pool (decode + engine) → cache write, metered per tenant. */
export class AnalysisService {
  /** Cache misses being computed, by cache key. */
  private readonly running = new Map<string, SharedRun>();

  constructor(
    private readonly pool: AnalysisPool,
    private readonly cache: ResultCache,
    private readonly decoder: DecoderChoice,
    private readonly meter: Meter,
    /** By route path: answers derived from another analysis when it is at hand (see Derivation). */
    private readonly derivations: ReadonlyMap<string, Derivation> = new Map(),
  ) {}

  /**
   * Answer from the cache by content hash alone, before any upload, only when this tenant has been
   * given this very answer before, after uploading that content: a hash is not proof of possession, so
   * it is never a way to read, or learn of, another tenant's analysis.
   */
  async lookup(
    tenant: string,
    sha256: string,
    route: string,
    engineId: EngineId,
    params: Readonly<Record<string, unknown>>,
    headSeconds?: number,
  ): Promise<AnalysisAnswer | null> {
    const engine = engines[engineId];
    const key = cacheKey({ sha256, route, params: { ...params, head: headSeconds ?? null }, engineVersion: engine.version });
    if (!(await this.cache.hasSeen(tenant, key))) return null;
    const cached = (await this.cache.get(key)) as AnalysisEntry | undefined;
    return cached ? { ...cached, cache: 'hit' } : null;
  }

  /** True once the analysis threads have warmed up (GET /healthz reports it). */
  isWarm(): boolean {
    return this.pool.isWarm();
  }

  /** Start analysing an upload as it arrives; hand the result to `analyse` with the finished upload. */
  begin(engineId: EngineId, params: Readonly<Record<string, unknown>>, options: AnalysisOptions = {}): EarlyAnalysis {
    if (!this.pool.analysesGrowingFiles) return new EarlyAnalysis(null);
    return new EarlyAnalysis((file, control) => this.run(engineId, params, file, options, control));
  }

  /**
   * Run an engine in the pool. An engine with `split` parts runs them as separate tasks at once (one
   * per thread when threads are free), each reading the file itself, and combines their results; a
   * failing part stops the others. With `control`, the file may still be arriving (see EarlyAnalysis);
   * a HeldFile (complete, its sha256 known) passes its hash on with each task.
   */
  private async run(
    engineId: EngineId,
    params: Readonly<Record<string, unknown>>,
    file: string | HeldFile,
    options: AnalysisOptions,
    control?: SharedArrayBuffer,
  ): Promise<AnalysisOutput> {
    const engine = engines[engineId];
    const task = (id: EngineId, shared?: SharedArrayBuffer, part?: number) => ({
      engineId: id,
      ...(part !== undefined ? { split: { whole: engineId, part } } : {}),
      params,
      ...(typeof file === 'string' ? { file } : { file: file.path, sha256: file.sha256 }),
      decoder: this.decoder,
      ...(options.headSeconds ? { headSeconds: options.headSeconds } : {}),
      ...(shared ? { control: shared, growing: control !== undefined } : {}),
    });
    if (!engine.split) return this.pool.run(task(engineId, control), options.signal, options.priority);
    const feed = new FeedWriter(control);
    const runs = engine.split.parts.map((id, part) =>
      this.pool.run(task(getEngineId(id), feed.shared, part), options.signal, options.priority),
    );
    let outs: AnalysisOutput[];
    try {
      outs = await Promise.all(runs);
    } catch (error) {
      feed.cancel();
      await Promise.allSettled(runs);
      throw error;
    }
    // A source that needs a decoder was analysed whole by part 0 (one decode); see AnalysisTask.split.
    const whole = outs.find((o) => o.split === 'whole');
    if (whole) return { result: whole.result, source: whole.source, analysedSeconds: whole.analysedSeconds };
    const seconds = Math.max(...outs.map((o) => o.analysedSeconds));
    return {
      result: await this.pool.combine(
        engineId,
        outs.map((o) => o.result),
        seconds,
      ),
      source: outs[0]!.source,
      analysedSeconds: seconds,
    };
  }

  /**
   * Analyse an upload with one engine (reusing the analysis `early` started while it arrived); the
   * temp file is always removed afterwards.
   */
  async analyse(
    tenant: string,
    upload: ReceivedUpload,
    route: string,
    engineId: EngineId,
    params: Readonly<Record<string, unknown>>,
    options: AnalysisOptions & { readonly early?: EarlyAnalysis } = {},
  ): Promise<AnalysisAnswer> {
    try {
      // The temp file goes with this request: others may not join a run that reads it (see shareRun).
      return await this.answer(tenant, upload, route, engineId, params, options, false);
    } finally {
      await upload.discard();
    }
  }

  /**
   * Analyse a file the server already holds (nothing is uploaded, and the file is left in place),
   * cached and marked seen for `tenant` exactly as an upload of the same bytes to `route` would be.
   */
  async analyseFile(
    tenant: string,
    file: HeldFile,
    route: string,
    engineId: EngineId,
    params: Readonly<Record<string, unknown>>,
    options: AnalysisOptions = {},
  ): Promise<AnalysisAnswer> {
    return this.answer(tenant, file, route, engineId, params, options, true);
  }

  /** analyse and analyseFile: a run over `file` is offered to other requests when `offer` (see shareRun). */
  private async answer(
    tenant: string,
    file: HeldFile,
    route: string,
    engineId: EngineId,
    params: Readonly<Record<string, unknown>>,
    options: AnalysisOptions & { readonly early?: EarlyAnalysis },
    offer: boolean,
  ): Promise<AnalysisAnswer> {
    const engine = engines[engineId];
    const key = cacheKey({
      sha256: file.sha256,
      route,
      params: { ...params, head: options.headSeconds ?? null },
      engineVersion: engine.version,
    });
    // The computation is shared across tenants, but a tenant's first answer is a `miss` whoever
    // computed it: X-Cache must not tell them that someone else analysed this exact file.
    const seenBefore = await this.cache.hasSeen(tenant, key);
    const cached = (await this.cache.get(key)) as AnalysisEntry | undefined;
    if (cached) {
      options.early?.cancel();
      if (!seenBefore) await this.cache.markSeen(tenant, key);
      return { ...cached, cache: seenBefore ? 'hit' : 'miss' };
    }
    const derived = await this.derive(file.sha256, route, params, options);
    if (derived) {
      options.early?.cancel();
      await this.cache.set(key, derived);
      await this.cache.markSeen(tenant, key);
      return { ...derived, cache: 'miss' };
    }
    const early = options.early?.resultFor(file.path) ?? null;
    let entry: AnalysisEntry;
    // An upload's own early run reads a temp file its request removes: kept, never offered.
    if (early && !offer) entry = await this.keep(key, tenant, await early);
    else {
      // Offered: the early run becomes the key's shared run, unless one is under way already.
      const adopt = early !== null && !this.running.has(key);
      if (!adopt) options.early?.cancel();
      const run = adopt
        ? this.offerRun(key, tenant, early, options.priority ?? 'interactive', stopping(options.early!), true)
        : this.shareRun(key, tenant, engineId, params, file, options, offer);
      entry = await this.attend(run, options.signal);
    }
    await this.cache.markSeen(tenant, key);
    return { ...entry, cache: 'miss' };
  }

  /**
   * `route`'s answer derived from the analysis that contains it, when that one is cached or being
   * computed on this node (joined as shareRun would join it); undefined otherwise, or when the
   * derivation cannot tell the answer exactly. Nothing is metered: no audio goes through an engine.
   */
  private async derive(
    sha256: string,
    route: string,
    params: Readonly<Record<string, unknown>>,
    options: AnalysisOptions,
  ): Promise<AnalysisEntry | undefined> {
    const derivation = this.derivations.get(route);
    if (!derivation || derivation.headSeconds !== options.headSeconds) return undefined;
    const from = derivation.from;
    const key = cacheKey({
      sha256,
      route: from.route,
      params: { ...from.params, head: from.headSeconds ?? null },
      engineVersion: engines[from.engine].version,
    });
    const run = this.running.get(key);
    let answer: AnalysisEntry | undefined;
    if (run && !(run.priority === 'background' && (options.priority ?? 'interactive') === 'interactive')) {
      try {
        answer = await this.attend(run, options.signal);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        return undefined; // the containing analysis failed: the route's own run gives the route's own error
      }
    } else if (!run) answer = (await this.cache.get(key)) as AnalysisEntry | undefined;
    return answer && derivation.derive(answer, params);
  }

  /**
   * The computation of cache key `key`: the one already running, or a new one. Two requests for the
   * same analysis of the same bytes at once (the library's background summary of a new item and the
   * Analyse screen asking for the same route by hash) then cost one analysis, not two. It is metered
   * to the tenant that started it (a joiner is served as from the cache). An interactive request does
   * not join a background run, which would make it wait behind the interactive queue. A run over an
   * upload's temp file is not offered to others (`offer` false): the file is removed when its own
   * request ends, which may be before theirs.
   */
  private shareRun(
    key: string,
    tenant: string,
    engineId: EngineId,
    params: Readonly<Record<string, unknown>>,
    file: HeldFile,
    options: AnalysisOptions,
    offer: boolean,
  ): SharedRun {
    const priority = options.priority ?? 'interactive';
    const current = this.running.get(key);
    if (current && !(current.priority === 'background' && priority === 'interactive')) return current;
    const stop = new AbortController();
    const output = this.run(engineId, params, file, { ...options, signal: stop.signal });
    return this.offerRun(key, tenant, output, priority, stop, offer);
  }

  /** The SharedRun of computation `output` (metered to `tenant`, cached under `key`; `stop` cancels it), in `running` while offered and unsettled. */
  private offerRun(
    key: string,
    tenant: string,
    output: Promise<AnalysisOutput>,
    priority: AnalysisPriority,
    stop: AbortController,
    offer: boolean,
  ): SharedRun {
    const done = output.then((out) => this.keep(key, tenant, out));
    const run: SharedRun = { done, stop, priority, key, waiting: 0 };
    if (offer) this.running.set(key, run);
    const forget = () => this.forget(run);
    done.then(forget, forget);
    return run;
  }

  /**
   * The answer of `request` for `tenant` over `file` (complete, hashed), reusing the analysis `early`
   * started while it arrived (see EarlyAnalyses). Unlike an upload's own run (analyse), this run is
   * offered to other requests for the same cache key (the library summary and requests by hash join
   * it): the caller keeps `file` until it settles.
   */
  adoptEarly(tenant: string, file: HeldFile, request: AnalysisRequest, early: EarlyAnalysis): Promise<AnalysisAnswer> {
    const { route, engine, params, headSeconds } = request;
    return this.answer(tenant, file, route, engine, params, { ...(headSeconds !== undefined ? { headSeconds } : {}), early }, true);
  }

  /** A computed answer: metered to `tenant` and cached under `key`. */
  private async keep(key: string, tenant: string, out: AnalysisOutput): Promise<AnalysisEntry> {
    this.meter.analysed(tenant, out.analysedSeconds);
    const entry = { source: out.source, result: out.result };
    await this.cache.set(key, entry);
    return entry;
  }

  /** A run stopped or settled: later requests for its key start afresh. */
  private forget(run: SharedRun): void {
    if (this.running.get(run.key) === run) this.running.delete(run.key);
  }

  /** Wait for a shared run; a request that goes (its signal) stops waiting, and the last one to go stops the run. */
  private async attend(run: SharedRun, signal: AbortSignal | undefined): Promise<AnalysisEntry> {
    run.waiting++;
    let leave: (() => void) | undefined;
    // Never settles without a signal.
    const gone = new Promise<never>((_, reject) => {
      if (!signal) return;
      leave = () => reject(cancelled());
      if (signal.aborted) leave();
      else signal.addEventListener('abort', leave, { once: true });
    });
    try {
      return await Promise.race([run.done, gone]);
    } finally {
      if (leave) signal?.removeEventListener('abort', leave);
      run.waiting--;
      if (run.waiting === 0 && signal?.aborted) {
        this.forget(run);
        run.stop.abort();
      }
    }
  }
}
