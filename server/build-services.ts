import path from 'node:path';
import type { AppDeps } from './app.js';
import { AnalysisService } from './audio/analysis/analysis-service.js';
import { ResultCache } from './audio/analysis/cache.js';
import { presentJob } from './audio/http/present.js';
import type { ToolInfo } from './http/tool-probe.js';
import { sourceJobType } from './audio/sources/source-job.js';
import { createSourcesRepo } from './audio/sources/sources-repo.js';
import { setUpSources } from './audio/sources/set-up-sources.js';
import type { SourceService } from './audio/sources/source-service.js';
import type { YtDlp } from './audio/sources/yt-dlp.js';
import { createAnalysisPool, type AnalysisPool, type PoolOptions } from './audio/analysis/worker-pool.js';
import { analysisInputsDir } from './audio/analysis/analysis-queue.js';
import { startAnalysisTaskWorker, type AnalysisTaskWorker } from './audio/analysis/analysis-task-worker.js';
import { createQueuedAnalysisPool } from './audio/analysis/queued-pool.js';
import type { DecoderChoice } from './audio/decode/pcm-source.js';
import { availableParallelism } from 'node:os';
import { createAuthGuard } from './auth/authenticate.js';
import { FailedAuthLimiter, redisFailureCounters, type FailedAuthLimits } from './auth/failed-auth-limiter.js';
import { Redis } from 'ioredis';
import { redisOptions } from './queue/redis-connection.js';
import { createIdentityRepo } from './auth/identity-repo.js';
import { createIdentityService, type IdentityService } from './auth/identity.js';
import { Meter } from './auth/metering.js';
import { createUsageRepo } from './auth/usage-repo.js';
import { createBadgesRepo } from './hosting/badges/badges-repo.js';
import { defaultHookDelivery, type HookDelivery, type HookServiceOptions } from './hosting/hooks/hooks.js';
import { createHooksRepo } from './hosting/hooks/hooks-repo.js';
import { createExportsRepo } from './hosting/import-export/exports-repo.js';
import { createNotificationsRepo } from './hosting/notifications/notifications-repo.js';
import { createProjectsRepo } from './hosting/projects/projects-repo.js';
import { createLfsRepo } from './hosting/lfs/lfs-repo.js';
import { setUpHosting, type HostingServices } from './hosting/set-up-hosting.js';
import type { Logger } from './http/logger.js';
import { createRepositoryAudio } from './project-audio.js';
import { librarySummaryPlan } from './audio/http/summary-plan.js';
import { analyzeDerivations } from './audio/http/derived-analyses.js';
import { LibraryFolders, resolveFolderRoots } from './audio/library/library-folders.js';
import { openJournalLibraryRepo } from './audio/library/library-repo.js';
import { LibraryService } from './audio/library/library-service.js';
import { LfsObjectStore } from './hosting/lfs/lfs-objects.js';
import { ContentStore } from './shared/content-store.js';
import type { OutboundPolicy } from './http/outbound.js';
import { JobRunner, type JobHandler } from './queue/job-runner.js';
import { createJobsRepo } from './queue/jobs-repo.js';
import { createBullJobQueue } from './queue/bullmq-job-queue.js';
import { createBullDeliveryQueue } from './queue/bullmq-delivery-queue.js';
import {
  createWebhookSender,
  defaultWebhookOptions,
  type WebhookDelivery,
  type WebhookOptions,
  type WebhookTransport,
} from './queue/webhooks.js';
import type { ArchiveLimits } from './shared/tar-archive.js';
import type { Store } from './store/store.js';

/** Everything the services are built from; startServer reads it from the config, the test harness from its options. */
export interface ServiceOptions {
  readonly store: Store;
  readonly dataDir: string;
  readonly version: string;
  readonly log: Logger;
  /** ffmpeg and git as /audio/v1/healthz reports them. */
  readonly tools: { readonly ffmpeg: ToolInfo | null; readonly git: ToolInfo | null };
  /** The ffmpeg that decodes and converts (null: the built-in JavaScript decoders, and no sources). */
  readonly ffmpegPath: string | null;
  readonly gitPath: string;
  /** How often usage counters are persisted (ms); the caller starts the meter. */
  readonly meterFlushMs: number;
  readonly webhooks: { readonly transport: WebhookTransport; readonly options?: Partial<WebhookOptions> };
  readonly jobConcurrency: number;
  /** Redis for the queues (BullMQ); null or absent: both queues in process, no Redis needed. */
  readonly redis?: RedisQueues | null;
  /** Extra job kinds (tests). */
  readonly jobHandlers?: ReadonlyMap<string, JobHandler>;
  /** Source fetching. */
  readonly sources: {
    readonly ytdlpPath: string | null;
    readonly policy: OutboundPolicy;
    readonly maxBytes: number;
    readonly timeoutS: number;
  };
  /** May project imports from a URL and exports reach private addresses? */
  readonly projectsAllowPrivate: boolean;
  readonly importLimits?: ArchiveLimits;
  /** The largest Git LFS object accepted (5 GiB when omitted). */
  readonly maxLfsObjectBytes?: number;
  /** What a push queues for background analysis: files at most, bytes per file (50 and 1 GiB when omitted). */
  readonly pushAnalysis?: { readonly maxFiles: number; readonly maxBytes: number };
  readonly hooks: Omit<HookServiceOptions, 'gitPath' | 'log'>;
  readonly analysisPool: { readonly threads?: number; readonly options: PoolOptions };
  readonly failedAuth: FailedAuthLimits;
  /** Where uploads stream to while they arrive, and how large they may be. */
  readonly uploads: { readonly tmpDir: string; readonly maxBytes: number };
  readonly http: { readonly publicUrl: string | null; readonly maxJsonKb: number; readonly accelRedirect: string | null };
  /** Roots below which the library may index folders in place (empty: off). */
  readonly libraryFolders?: readonly string[];
}

/** The queues over Redis: where, how long a dead node keeps a job, and whether this node analyses too. */
export interface RedisQueues {
  readonly url: string;
  readonly lockS: number;
  readonly analysisInApp: boolean;
}

/** The built service graph: what createApp takes, and the parts the host starts, stops or inspects. */
export interface Services {
  readonly identity: IdentityService;
  readonly meter: Meter;
  readonly jobs: JobRunner;
  readonly hosting: HostingServices;
  readonly sources: SourceService;
  readonly ytdlp: YtDlp | null;
  readonly pool: AnalysisPool;
  readonly library: LibraryService;
  /** The audio, hosting and repository parts of createApp's deps. */
  readonly app: Pick<AppDeps, 'audio' | 'hosting' | 'repositories'>;
  /** Stop the job runner, hook deliveries and analysis threads (the meter and store are the host's). */
  stop(): Promise<void>;
}

/**
 * This node's analysis threads; with Redis, the pool queues tasks there instead, and the threads take
 * tasks from the queue like a `cratehouse worker` does unless `analysisInApp` is off (then one thread,
 * for the combine step, whatever the configured count).
 */
function setUpAnalysisPool(
  options: ServiceOptions,
  decoder: DecoderChoice,
  log: Logger,
): { readonly pool: AnalysisPool; readonly analysisTasks: AnalysisTaskWorker | null } {
  const { redis } = options;
  // An app node that leaves analysis to workers only combines split engines' parts here: one thread does.
  const threads = redis && !redis.analysisInApp ? 1 : (options.analysisPool.threads ?? availableParallelism());
  const local = createAnalysisPool(threads, options.analysisPool.options);
  if (!redis) return { pool: local, analysisTasks: null };
  const inputs = new ContentStore(path.join(options.dataDir, analysisInputsDir), options.uploads.tmpDir);
  const pool = createQueuedAnalysisPool(local, { url: redis.url, inputs, budget: options.analysisPool.options.budget, log });
  const analysisTasks = redis.analysisInApp
    ? startAnalysisTaskWorker({ url: redis.url, inputs, pool: local, decoder, concurrency: 2 * threads, lockS: redis.lockS, log })
    : null;
  return { pool, analysisTasks };
}

/** The one wiring of the service graph, used by startServer and the test harness alike. */
export async function buildServices(options: ServiceOptions): Promise<Services> {
  const { store, dataDir, log, version } = options;
  const identity = createIdentityService(createIdentityRepo(store));
  const meter = new Meter(createUsageRepo(store), options.meterFlushMs);
  const jobsRepo = createJobsRepo(store);
  const webhooks = createWebhookSender({
    repo: jobsRepo,
    secretFor: (tenant) => identity.tenantSecret(tenant),
    present: presentJob,
    transport: options.webhooks.transport,
    log,
    options: options.webhooks.options,
    // With Redis a job's webhook is made by any node, and survives the node that finished the job.
    queue: options.redis
      ? createBullDeliveryQueue<WebhookDelivery>(
          {
            url: options.redis.url,
            name: 'job-webhooks',
            lockS: options.redis.lockS,
            tryTimeoutMs: options.webhooks.options?.timeoutMs ?? defaultWebhookOptions.timeoutMs,
          },
          log,
        )
      : undefined,
  });
  const sourcesSetup = await setUpSources({ repo: createSourcesRepo(store), dataDir, ffmpegPath: options.ffmpegPath, ...options.sources });
  const jobs = new JobRunner(
    jobsRepo,
    new Map([[sourceJobType, sourcesSetup.handler], ...(options.jobHandlers ?? [])]),
    webhooks,
    log,
    options.redis
      ? createBullJobQueue({ url: options.redis.url, concurrency: options.jobConcurrency, lockS: options.redis.lockS }, log)
      : options.jobConcurrency,
  );
  const sources = sourcesSetup.connect(jobs);
  const decoder: DecoderChoice = options.ffmpegPath ? { kind: 'ffmpeg', path: options.ffmpegPath } : { kind: 'js' };
  const { pool, analysisTasks } = setUpAnalysisPool(options, decoder, log);
  const analysis = new AnalysisService(pool, new ResultCache(path.join(dataDir, 'cache')), decoder, meter, analyzeDerivations());
  // Audio bytes held once across the library, source artifacts and Git LFS objects (hard links).
  // Each side links from the other: an LFS upload of bytes the library holds, and a library upload of an LFS object's.
  const lfsObjects: LfsObjectStore = new LfsObjectStore(dataDir, [
    async (sha): Promise<string | null> => ((await content.has(sha)) ? content.pathOf(sha) : null),
    async (sha) => (await sourcesSetup.artifacts.findByContent(sha))?.file ?? null,
  ]);
  const content: ContentStore = new ContentStore(path.join(dataDir, 'content'), options.uploads.tmpDir, [
    async (sha): Promise<string | null> => ((await lfsObjects.findSize(sha)) !== undefined ? lfsObjects.pathOf(sha) : null),
    async (sha) => (await sourcesSetup.artifacts.findByContent(sha))?.file ?? null,
  ]);
  const libraryRepo = await openJournalLibraryRepo(path.join(dataDir, 'library'));
  const library = new LibraryService(libraryRepo, content, analysis, librarySummaryPlan(), log);
  const folders = new LibraryFolders(libraryRepo, library, await resolveFolderRoots(options.libraryFolders ?? []), log);
  await folders.start();
  const findHeldAudio = async (tenant: string, sha256: string) =>
    (await library.findHeldFile(tenant, sha256)) ??
    (await sources.findFetchedArtifact(tenant, sha256).then((a) => (a ? { path: a.file, sha256 } : undefined)));
  const hosting = setUpHosting({
    repos: {
      projects: createProjectsRepo(store),
      exports: createExportsRepo(store),
      hooks: createHooksRepo(store),
      badges: createBadgesRepo(store),
      notifications: createNotificationsRepo(store),
      lfs: createLfsRepo(store),
    },
    identity,
    jobs,
    dataDir,
    gitPath: options.gitPath,
    allowPrivate: options.projectsAllowPrivate,
    importLimits: options.importLimits,
    maxLfsObjectBytes: options.maxLfsObjectBytes,
    lfsObjects,
    hooks: {
      ...options.hooks,
      // With Redis a hook delivery queued here survives this node: any node makes it.
      queue: options.redis
        ? createBullDeliveryQueue<HookDelivery>(
            {
              url: options.redis.url,
              name: 'hook-deliveries',
              lockS: options.redis.lockS,
              tryTimeoutMs: options.hooks.delivery?.timeoutMs ?? defaultHookDelivery.timeoutMs,
            },
            log,
          )
        : undefined,
    },
    log,
    // Hosting's one way to the audio service: a capability, so neither imports the other.
    audio: createRepositoryAudio(analysis),
    audioAnalysis: {
      maxFilesPerPush: options.pushAnalysis?.maxFiles ?? 50,
      maxBytes: options.pushAnalysis?.maxBytes ?? 1024 ** 3,
      tmpDir: options.uploads.tmpDir,
    },
  });
  // With Redis, failed authentications count across nodes. A request never waits for Redis: no offline queue, one try.
  const limiterRedis = options.redis
    ? new Redis({ ...redisOptions(options.redis.url), enableOfflineQueue: false, maxRetriesPerRequest: 1 })
    : null;
  limiterRedis?.on('error', () => undefined);
  const auth = createAuthGuard(
    identity,
    new FailedAuthLimiter(options.failedAuth, limiterRedis ? redisFailureCounters(options.failedAuth, limiterRedis) : undefined),
  );
  const { uploads } = options;
  const { projects, hooks } = hosting;
  return {
    identity,
    meter,
    jobs,
    hosting,
    sources,
    ytdlp: sourcesSetup.ytdlp,
    pool,
    library,
    app: {
      audio: {
        version,
        identity,
        auth,
        meter,
        jobs,
        tools: options.tools,
        maxJsonKb: options.http.maxJsonKb,
        analysis,
        uploads,
        sources,
        accelRedirect: options.http.accelRedirect,
        log,
        library,
        folders,
        findHeldAudio,
      },
      hosting: {
        version,
        identity,
        auth,
        meter,
        publicUrl: options.http.publicUrl,
        maxJsonKb: options.http.maxJsonKb,
        ...hosting,
        uploads,
        log,
      },
      repositories: {
        projects,
        auth,
        gitPath: options.gitPath,
        log,
        onPush: (push) => {
          hooks.firePush(push.project, push.identity.user, push.refUpdates);
          hosting.fileAnalyses.queueAfterPush(push.project, push.refUpdates);
        },
        lfs: { lfs: hosting.lfs, locks: hosting.lfsLocks, publicUrl: options.http.publicUrl, pushCheck: hosting.lfsPushCheck },
      },
    },
    async stop() {
      await folders.stop();
      await library.stop();
      await libraryRepo.close();
      await jobs.stop();
      await hooks.stop();
      await analysisTasks?.close();
      await pool.destroy();
      limiterRedis?.disconnect();
    },
  };
}
