import { mkdtemp, mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../app.js';
import { resolveFfmpeg } from '../audio/decode/ffmpeg-path.js';
import type { AudioDeps } from '../audio/http/routes.js';
import type { LibraryService } from '../audio/library/library-service.js';
import type { AnalysisBudget } from '../audio/analysis/task-deadline.js';
import { defaultFailedAuthLimits, type FailedAuthLimits } from '../auth/failed-auth-limiter.js';
import type { IdentityService } from '../auth/identity.js';
import type { Meter } from '../auth/metering.js';
import { buildServices, type RedisQueues } from '../build-services.js';
import type { RepositoryRouteDeps } from '../hosting/git/repository-routes.js';
import type { HookDeliveryOptions, HookService } from '../hosting/hooks/hooks.js';
import type { ProjectService } from '../hosting/projects/projects.js';
import type { HostingDeps } from '../hosting/routes.js';
import { answerClientErrorsAsJson } from '../http/client-errors.js';
import { keepIdleConnectionsOpen } from '../http/keep-alive.js';
import { handleExpectContinue } from '../http/expect-continue.js';
import type { Logger } from '../http/logger.js';
import type { OutboundPolicy } from '../http/outbound.js';
import type { JobHandler, JobRunner } from '../queue/job-runner.js';
import type { WebhookOptions, WebhookTransport } from '../queue/webhooks.js';
import type { ArchiveLimits } from '../shared/tar-archive.js';
import { MemoryAdapter } from '../store/file-adapter.js';
import type { DbSchema } from '../store/schema.js';
import { openStore, type Store } from '../store/store.js';

/** A logger that keeps what it is told, for assertions. */
export function memoryLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => void lines.push(`info ${m}`),
    debug: () => undefined,
    error: (m, e) => void lines.push(`error ${m} ${String(e)}`),
  };
}

/** A running app over a memory store, with an admin (token `admin-token`) and helpers to call it. */
export interface TestApp {
  readonly url: string;
  readonly store: Store;
  readonly adapter: MemoryAdapter<DbSchema>;
  readonly identity: IdentityService;
  readonly jobs: JobRunner;
  readonly projects: ProjectService;
  readonly hooks: HookService;
  readonly meter: Meter;
  readonly library: LibraryService;
  readonly log: ReturnType<typeof memoryLogger>;
  /** The app's data dir (tmp/ and cache/ live here). */
  readonly dataDir: string;
  /** What the audio router was built with (to build another, e.g. to inspect its routes). */
  readonly audioDeps: AudioDeps;
  /** What the /api/v4 router was built with (likewise). */
  readonly hostingDeps: HostingDeps;
  /** What the root router (git over HTTP, uploads) was built with (likewise). */
  readonly repositoryDeps: RepositoryRouteDeps;
  /** Create a user and a token for them; returns the token. */
  addUser(username: string, options?: { admin?: boolean; tenant?: string }): Promise<{ readonly id: number; readonly token: string }>;
  /** fetch relative to the server. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export const adminToken = 'admin-token';

/** Start createApp on a free loopback port over a memory store. */
export async function startTestApp(
  options: {
    readonly jobHandlers?: ReadonlyMap<string, JobHandler>;
    readonly webhookTransport?: WebhookTransport;
    readonly webhookOptions?: Partial<WebhookOptions>;
    readonly jobConcurrency?: number;
    readonly publicUrl?: string | null;
    /** Decode with the built-in JS decoders instead of ffmpeg. */
    readonly jsDecoder?: boolean;
    readonly maxUploadBytes?: number;
    /** Source fetching: private (loopback) destinations are allowed unless said otherwise. */
    readonly sources?: {
      readonly allowPrivate?: boolean;
      readonly maxBytes?: number;
      readonly timeoutS?: number;
      readonly ytdlpPath?: string | null;
      readonly maxRedirects?: number;
    };
    readonly accelRedirect?: string | null;
    /** Limits of imported project archives (the server's defaults otherwise). */
    readonly importLimits?: ArchiveLimits;
    /** The largest Git LFS object accepted (the server's default otherwise). */
    readonly maxLfsObjectBytes?: number;
    readonly hookDelivery?: Partial<HookDeliveryOptions>;
    /** A built renderer bundle to serve at `/` (none by default). */
    readonly rendererDir?: string | null;
    /** Hook URLs: private (loopback) targets follow `sources.allowPrivate` unless said here; a resolver for host names. */
    readonly hooks?: { readonly allowPrivate?: boolean; readonly resolve?: OutboundPolicy['resolve'] };
    /** The failed-authentication limit; off unless given (tests present bad tokens on purpose). */
    readonly failedAuth?: FailedAuthLimits;
    /** Express's `trust proxy`. */
    readonly trustProxy?: string;
    /** What a push queues for background analysis (the server's defaults otherwise). */
    readonly pushAnalysis?: { readonly maxFiles: number; readonly maxBytes: number };
    /** Time budget of analysis tasks (the server's default otherwise). */
    readonly analysisBudget?: AnalysisBudget;
    /** Roots the library may index folders below (none: local folders off). */
    readonly libraryFolders?: readonly string[];
    /** Use this data dir (to restart over the same files) instead of a new temp dir. */
    readonly dataDir?: string;
    /** Queues over this Redis (BullMQ) instead of in process. */
    readonly redis?: RedisQueues;
    /** Another node: run over this app's store (as nodes share PostgreSQL), whose admin already exists. */
    readonly shareStoreOf?: Pick<TestApp, 'store' | 'adapter'>;
  } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'cratehouse-test-')));
  await mkdir(path.join(dataDir, 'tmp'), { recursive: true });
  await mkdir(path.join(dataDir, 'artifacts'), { recursive: true });
  const adapter = options.shareStoreOf?.adapter ?? new MemoryAdapter<DbSchema>();
  const store = options.shareStoreOf?.store ?? (await openStore(adapter));
  const log = memoryLogger();
  const ffmpeg = options.jsDecoder ? null : await resolveFfmpeg(null);
  let appUrl = '';
  const services = await buildServices({
    store,
    dataDir,
    version: '0.0.0-test',
    log,
    tools: { ffmpeg: null, git: null },
    ffmpegPath: ffmpeg?.path ?? null,
    gitPath: 'git',
    meterFlushMs: 60_000,
    webhooks: { transport: options.webhookTransport ?? (async () => 599), options: { backoffMs: 10, ...options.webhookOptions } },
    jobConcurrency: options.jobConcurrency ?? 1,
    jobHandlers: options.jobHandlers,
    redis: options.redis ?? null,
    sources: {
      ytdlpPath: options.sources?.ytdlpPath ?? 'off',
      policy: { allowPrivate: options.sources?.allowPrivate ?? true, maxRedirects: options.sources?.maxRedirects ?? 5, timeoutMs: 10_000 },
      maxBytes: options.sources?.maxBytes ?? 256 * 1024 * 1024,
      timeoutS: options.sources?.timeoutS ?? 60,
    },
    projectsAllowPrivate: options.sources?.allowPrivate ?? true,
    importLimits: options.importLimits,
    maxLfsObjectBytes: options.maxLfsObjectBytes,
    pushAnalysis: options.pushAnalysis,
    hooks: {
      allowPrivate: options.hooks?.allowPrivate ?? options.sources?.allowPrivate ?? true,
      resolve: options.hooks?.resolve,
      version: '0.0.0-test',
      baseUrl: () => appUrl,
      delivery: { backoffMs: 20, timeoutMs: 2000, ...options.hookDelivery },
    },
    analysisPool: { threads: 2, options: options.analysisBudget ? { budget: options.analysisBudget } : {} },
    failedAuth: options.failedAuth ?? { ...defaultFailedAuthLimits, failures: 0 },
    uploads: { tmpDir: path.join(dataDir, 'tmp'), maxBytes: options.maxUploadBytes ?? 64 * 1024 * 1024 },
    http: { publicUrl: options.publicUrl ?? null, maxJsonKb: 64, accelRedirect: options.accelRedirect ?? null },
    libraryFolders: options.libraryFolders,
  });
  const { identity, meter, jobs } = services;
  const { projects, hooks } = services.hosting;
  if (!options.shareStoreOf) {
    const admin = await identity.createUser({ username: 'root', name: 'Administrator', email: 'root@example.com', admin: true });
    await identity.createToken(admin.id, { name: 'test', scopes: ['api'] }, adminToken);
  }
  const { audio: audioDeps, hosting: hostingDeps, repositories: repositoryDeps } = services.app;
  const app = createApp({ ...services.app, rendererDir: options.rendererDir ?? null, trustProxy: options.trustProxy ?? null });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    handleExpectContinue(s, app);
    answerClientErrorsAsJson(s);
    keepIdleConnectionsOpen(s);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  appUrl = url;
  return {
    url,
    store,
    adapter,
    identity,
    jobs,
    projects,
    hooks,
    meter,
    library: services.library,
    log,
    dataDir,
    audioDeps,
    hostingDeps,
    repositoryDeps,
    async addUser(username, o = {}) {
      const user = await identity.createUser({
        username,
        name: username,
        email: `${username}@example.com`,
        admin: o.admin,
        tenant: o.tenant,
      });
      const { token } = await identity.createToken(user.id, { name: 'test', scopes: ['api'] });
      return { id: user.id, token };
    },
    fetch: (path, init) => fetch(url + path, init),
    async close() {
      await services.stop();
      await new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
      await store.flush();
    },
  };
}

/** Add users by name, recording each one's token and id under that name. */
export async function addUsers(
  app: Pick<TestApp, 'addUser'>,
  names: readonly string[],
  tokens: Record<string, string>,
  ids: Record<string, number>,
): Promise<void> {
  for (const name of names) {
    const u = await app.addUser(name);
    tokens[name] = u.token;
    ids[name] = u.id;
  }
}

/** A multipart body with one file part (`file` unless said otherwise), as upload routes take it. */
export function fileForm(bytes: Buffer, filename: string, field = 'file'): FormData {
  const fd = new FormData();
  fd.append(field, new Blob([new Uint8Array(bytes)]), filename);
  return fd;
}
