import { existsSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { resolveFfmpeg } from './audio/decode/ffmpeg-path.js';
import { bootstrapAdmin, type BootstrapResult } from './auth/bootstrap.js';
import { buildServices } from './build-services.js';
import { ConfigError, hooksMayTargetPrivate, type Config } from './config/load-config.js';
import { resolveGit } from './hosting/git/git-path.js';
import { answerClientErrorsAsJson } from './http/client-errors.js';
import { keepIdleConnectionsOpen } from './http/keep-alive.js';
import { handleExpectContinue } from './http/expect-continue.js';
import { createLogger, type Logger } from './http/logger.js';
import { warmUpUploads } from './http/multipart.js';
import type { JobHandler } from './queue/job-runner.js';
import { checkRedisReachable } from './queue/redis-connection.js';
import { outboundTransport, type WebhookOptions, type WebhookTransport } from './queue/webhooks.js';
import { defaultArchiveLimits } from './shared/tar-archive.js';
import { acquireLock, prepareDataDir, readLiveNodeLocks } from './store/data-dir.js';
import { openDataStore } from './store/open-data-store.js';

/** A server that is listening. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly admin: BootstrapResult;
  /** Stop accepting requests, let in-flight ones and writes finish, release the data dir. */
  stop(): Promise<void>;
}

/** Hooks for the host (tests, the desktop app) beyond the config. */
export interface StartOptions {
  readonly log?: Logger;
  readonly rendererDir?: string | null;
  readonly jobHandlers?: ReadonlyMap<string, JobHandler>;
  readonly webhookTransport?: WebhookTransport;
  readonly webhookOptions?: Partial<WebhookOptions>;
  /** How often usage counters are persisted (ms). */
  readonly meterFlushMs?: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** Redirects a source fetch follows before giving up. */
const sourceMaxRedirects = 5;

/** The one composition root: open the store, queue and services, build the app and listen. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const log = options.log ?? createLogger(config.logLevel);
  // With the metadata in PostgreSQL several nodes share the data dir; db.json has one owner.
  const dirMode = config.databaseUrl ? 'shared' : 'exclusive';
  // Other nodes running now (read before this node's own lock exists): their work in flight is spared.
  const othersLive = dirMode === 'shared' && readLiveNodeLocks(config.dataDir).length > 0;
  // Without a shared queue each node would run the jobs the others have under way again.
  if (othersLive && !config.redisUrl)
    throw new ConfigError(
      'other application nodes are running on this data dir: several nodes need CRATEHOUSE_REDIS_URL (their jobs are queued in Redis; docs/deploy/scale-out.md)',
    );
  prepareDataDir(config.dataDir, othersLive ? 'shared' : 'exclusive');
  const lock = acquireLock(config.dataDir, 'server', dirMode);
  // What a start that fails part-way (e.g. EADDRINUSE at the listen) must stop again, newest first.
  const undo: (() => Promise<void>)[] = [];
  try {
    const store = await openDataStore(config);
    undo.push(() => store.close());
    for (const step of store.migrationsApplied) log.info(`store: ${step}`);

    if (config.redisUrl) await checkRedisReachable(config.redisUrl);
    const [ffmpeg, git] = await Promise.all([resolveFfmpeg(config.ffmpegPath), resolveGit(config.gitPath)]);
    if (!ffmpeg)
      log.info(
        'ffmpeg not found: set CRATEHOUSE_FFMPEG or install ffmpeg (audio decoding falls back to the built-in decoders; sources need it)',
      );
    if (!git) log.info('git not found: set CRATEHOUSE_GIT or install git (project repositories need it)');
    const version = packageVersion();
    const uploads = { tmpDir: path.join(config.dataDir, 'tmp'), maxBytes: config.maxUploadMb * 1024 * 1024 };
    // Payload links need the server's URL, known once it listens (or the configured public URL).
    let listeningUrl = `http://${config.host}:${config.port}`;
    const services = await buildServices({
      store,
      dataDir: config.dataDir,
      version,
      log,
      tools: { ffmpeg, git },
      ffmpegPath: ffmpeg?.path ?? null,
      gitPath: git?.path ?? config.gitPath,
      meterFlushMs: options.meterFlushMs ?? 5000,
      webhooks: { transport: options.webhookTransport ?? outboundTransport(config.fetchAllowPrivate), options: options.webhookOptions },
      jobConcurrency: config.jobConcurrency,
      jobHandlers: options.jobHandlers,
      redis: config.redisUrl ? { url: config.redisUrl, lockS: config.redisLockS, analysisInApp: config.analysisInApp } : null,
      sources: {
        ytdlpPath: config.ytdlpPath,
        policy: { allowPrivate: config.fetchAllowPrivate, maxRedirects: sourceMaxRedirects, timeoutMs: 30_000 },
        maxBytes: config.maxSourceMb * 1024 * 1024,
        timeoutS: config.sourceTimeoutS,
      },
      projectsAllowPrivate: config.fetchAllowPrivate,
      // An import is capped as a whole: the archive and what it expands to (a 7 MB gzip can hold 1.5 GB).
      importLimits: { ...defaultArchiveLimits, maxBytes: config.maxImportMb * 1024 * 1024 },
      maxLfsObjectBytes: config.maxLfsObjectMb * 1024 * 1024,
      pushAnalysis: { maxFiles: config.pushAnalysisMaxFiles, maxBytes: config.pushAnalysisMaxMb * 1024 * 1024 },
      hooks: { allowPrivate: hooksMayTargetPrivate(config), version, baseUrl: () => config.publicUrl ?? listeningUrl },
      // Warm the JIT before the first request: the analysis threads in the background (they write a
      // WAV to the upload dir), the upload path on this thread below (~0.2 s).
      analysisPool: {
        ...(config.analysisThreads > 0 ? { threads: config.analysisThreads } : {}),
        options: {
          warmUp: config.warmUp,
          warmUpDir: uploads.tmpDir,
          budget: { baseS: config.analysisBudgetS, perAudioS: config.analysisBudgetPerAudioS },
        },
      },
      failedAuth: {
        failures: config.authFailLimit,
        windowS: config.authFailWindowS,
        blockS: config.authFailBlockS,
        exemptLoopback: config.authFailExemptLoopback,
      },
      uploads,
      http: { publicUrl: config.publicUrl, maxJsonKb: config.maxJsonKb, accelRedirect: config.accelRedirect },
      libraryFolders: config.libraryFolders,
    });
    undo.push(() => services.stop());
    const { identity, meter, jobs } = services;
    const admin = await bootstrapAdmin(identity, config.dataDir, config.adminToken);
    meter.start();
    undo.push(() => meter.stop());
    if (services.ytdlp) log.info(`yt-dlp ${services.ytdlp.version} found: used for the sites it supports`);
    // Before any request or job: no repository without a project, no project without a repository.
    // A shared data dir: another node may be creating a repository whose record is not committed yet.
    const graceMs = config.reconcileGraceS * 1000;
    await services.hosting.reconcileRepositories(log, { spareYoungerThanMs: othersLive ? graceMs : 0 });
    if (config.warmUp) await warmUpUploads(uploads.tmpDir);

    const app = createApp({
      ...services.app,
      rendererDir: options.rendererDir === undefined ? findRendererDir() : options.rendererDir,
      allowedHosts: config.allowedHosts,
      trustProxy: config.trustProxy,
    });

    const server = await listen(app, config.host, config.port);
    undo.push(() => closeServer(server, 0));
    const port = (server.address() as AddressInfo).port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    lock.update(url);
    listeningUrl = url;
    // Part of the warm-up's trade (memory for first-call speed): the project search index, built a slice at a time.
    const warming = new AbortController();
    undo.push(async () => warming.abort());
    if (config.warmUp)
      services.hosting.projectQueries.warmSearch(warming.signal).catch((error: unknown) => log.error('search index warm-up failed', error));
    const resumed = await jobs.resume({ othersLive });
    if (resumed > 0) log.info(`resumed ${resumed} unfinished job(s)`);
    // While serving: what a node killed mid-create leaves on a shared data dir is repaired without a restart.
    const reconciling =
      config.reconcileIntervalS > 0
        ? services.hosting.reconcileEvery(log, { intervalMs: config.reconcileIntervalS * 1000, graceMs })
        : null;
    undo.push(async () => reconciling?.stop());

    let stopping: Promise<void> | null = null;
    return {
      url,
      port,
      dataDir: config.dataDir,
      admin,
      stop: () =>
        (stopping ??= (async () => {
          warming.abort();
          await closeServer(server, 10_000);
          await reconciling?.stop();
          await services.stop();
          await meter.stop();
          await store.close();
          lock.release();
        })()),
    };
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    lock.release();
    throw error;
  }
}

function listen(app: ReturnType<typeof createApp>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    handleExpectContinue(server, app);
    answerClientErrorsAsJson(server);
    keepIdleConnectionsOpen(server);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

/** Stop accepting, wait for in-flight requests up to `graceMs`, then drop what is left. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    // Keep-alive connections become idle as their last response finishes: close them as they do.
    const sweeper = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweeper);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The renderer bundle next to the compiled server (dist/renderer), if built. */
function findRendererDir(): string | null {
  const candidates = [path.join(here, '../renderer'), path.join(here, '../dist/renderer')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? null;
}

/** The version in the project's package.json (found from src or dist). */
export function packageVersion(): string {
  for (const candidate of [path.join(here, '../package.json'), path.join(here, '../../package.json')]) {
    try {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cratehouse' && pkg.version) return pkg.version;
    } catch {
      // try the next one
    }
  }
  return '0.0.0';
}
