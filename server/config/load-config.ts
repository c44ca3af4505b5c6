import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Everything the server needs to know about its deployment, resolved once at start. */
export interface Config {
  readonly host: string;
  /** 0 asks the OS for a free port; the chosen URL is printed at start. */
  readonly port: number;
  readonly dataDir: string;
  /** Token the first admin gets at first start (automation, containers); otherwise one is generated. */
  readonly adminToken: string | null;
  readonly maxUploadMb: number;
  readonly maxJsonKb: number;
  /** Largest project import (`POST /projects/import`): the archive, and everything it expands to, in MiB. */
  readonly maxImportMb: number;
  /** Largest Git LFS object a push may upload, in MiB. */
  readonly maxLfsObjectMb: number;
  /** Audio files of at most this many MiB that a push adds are analysed in the background. */
  readonly pushAnalysisMaxMb: number;
  /** Audio files one push queues for background analysis at most. */
  readonly pushAnalysisMaxFiles: number;
  /** Concurrent jobs in the p-queue runner. */
  readonly jobConcurrency: number;
  /** Explicit ffmpeg path; otherwise ffmpeg-static, then `ffmpeg` on PATH. */
  readonly ffmpegPath: string | null;
  readonly gitPath: string;
  /** Base URL used in links (pagination, web_url); null derives it from each request's Host. */
  readonly publicUrl: string | null;
  /** Allow outbound calls (sources, webhooks, imports) to private and loopback addresses. */
  readonly fetchAllowPrivate: boolean;
  /**
   * Allow project hook URLs (at create, edit and delivery) to name private and loopback addresses;
   * null follows fetchAllowPrivate (GitLab's separate "allow local requests from web hooks").
   */
  readonly hooksAllowPrivate: boolean | null;
  /** Largest source download (`POST /audio/v1/sources`), in MiB. */
  readonly maxSourceMb: number;
  /** Wall-clock limit of one source job (download and conversion), in seconds. */
  readonly sourceTimeoutS: number;
  /** Time one analysis task may hold a worker: this many seconds… */
  readonly analysisBudgetS: number;
  /** …plus this many per second of audio decoded (stereo 48 kHz; denser audio counts for more). */
  readonly analysisBudgetPerAudioS: number;
  /** yt-dlp for pages it supports: a path, or null to look for `yt-dlp` on PATH; `off` disables it. */
  readonly ytdlpPath: string | null;
  /** Internal prefix for `X-Accel-Redirect` (a front server streams artifacts); null sends the bytes. */
  readonly accelRedirect: string | null;
  readonly logLevel: 'silent' | 'error' | 'info' | 'debug';
  /**
   * Host names the server answers to (DNS-rebinding defence for the local API); null answers any.
   * `loopback` in the list stands for localhost, 127.0.0.1 and ::1.
   */
  readonly allowedHosts: readonly string[] | null;
  /** Failed authentications tolerated per client address and per token in the window; 0 turns the limit off. */
  readonly authFailLimit: number;
  readonly authFailWindowS: number;
  /** How long a client address or token over the limit is answered 429. */
  readonly authFailBlockS: number;
  /** Leave loopback clients out of the failed-authentication limit (the desktop app sets it). */
  readonly authFailExemptLoopback: boolean;
  /** Warm the JIT at start (analysis threads and the upload path): faster first calls, ~100 MB more idle RSS (docs/performance.md). */
  readonly warmUp: boolean;
  /**
   * Express's `trust proxy`: which proxies' X-Forwarded-For to believe for the client address (e.g.
   * `loopback` behind a local nginx); null takes the socket's address.
   */
  readonly trustProxy: string | null;
  /**
   * Folders on this machine the library may index in place (POST /audio/v1/library/folders), only
   * below these roots (symlinks resolved); empty turns local folders off. The desktop app sets the
   * user's home.
   */
  readonly libraryFolders: readonly string[];
  /**
   * Redis for the queues (jobs and analysis tasks over BullMQ, shared with `cratehouse worker`
   * processes): `redis://`, `rediss://` or `unix:///path/to.sock`; null keeps both queues in process.
   */
  readonly redisUrl: string | null;
  /** How long a node may hold a queued job without renewing its lock before another node retries it (s). */
  readonly redisLockS: number;
  /** With Redis: whether this app node also runs analysis tasks from the queue (off: only workers do). */
  readonly analysisInApp: boolean;
  /** Analysis threads of this node (server or `cratehouse worker`); 0: one per core. */
  readonly analysisThreads: number;
  /** PostgreSQL connection URL for the metadata (several nodes, large deployments); null keeps it in db.json in the data dir. */
  readonly databaseUrl: string | null;
  /** With PostgreSQL: how often a node reads the change log when no notification came (ms): the staleness bound if a NOTIFY is lost. */
  readonly pgPollMs: number;
  /** With PostgreSQL: change-log entries kept; a node further behind than that reloads every table. */
  readonly pgChangeLogKeep: number;
  /** Seconds between the running node's passes that make repositories and project records agree; 0: only at start. */
  readonly reconcileIntervalS: number;
  /**
   * On a shared data dir: an unowned repository or a project without its repository younger than this
   * (s) is left alone, since another node may be part-way through making it.
   */
  readonly reconcileGraceS: number;
}

/** Values every deployment starts from; the data dir is relative to the working directory. */
export const defaultConfig: Config = {
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  adminToken: null,
  maxUploadMb: 1024,
  maxJsonKb: 1024,
  maxImportMb: 1024,
  maxLfsObjectMb: 5120,
  pushAnalysisMaxMb: 1024,
  pushAnalysisMaxFiles: 50,
  jobConcurrency: 2,
  ffmpegPath: null,
  gitPath: 'git',
  publicUrl: null,
  fetchAllowPrivate: false,
  hooksAllowPrivate: null,
  maxSourceMb: 2048,
  sourceTimeoutS: 3600,
  analysisBudgetS: 30,
  analysisBudgetPerAudioS: 0.5,
  ytdlpPath: null,
  accelRedirect: null,
  logLevel: 'info',
  allowedHosts: null,
  authFailLimit: 10,
  authFailWindowS: 60,
  authFailBlockS: 300,
  authFailExemptLoopback: false,
  warmUp: true,
  trustProxy: null,
  libraryFolders: [],
  redisUrl: null,
  redisLockS: 30,
  analysisInApp: true,
  analysisThreads: 0,
  databaseUrl: null,
  pgPollMs: 1000,
  pgChangeLogKeep: 10_000,
  reconcileIntervalS: 300,
  reconcileGraceS: 3600,
};

/** The config file in the data dir: the same keys as Config, all optional. */
export const configFileName = 'config.json';

type Overrides = Partial<{ -readonly [K in keyof Config]: Config[K] }>;

const envKeys: Readonly<Record<keyof Config, string>> = {
  host: 'CRATEHOUSE_HOST',
  port: 'CRATEHOUSE_PORT',
  dataDir: 'CRATEHOUSE_DATA_DIR',
  adminToken: 'CRATEHOUSE_ADMIN_TOKEN',
  maxUploadMb: 'CRATEHOUSE_MAX_UPLOAD_MB',
  maxJsonKb: 'CRATEHOUSE_MAX_JSON_KB',
  maxImportMb: 'CRATEHOUSE_MAX_IMPORT_MB',
  maxLfsObjectMb: 'CRATEHOUSE_MAX_LFS_OBJECT_MB',
  pushAnalysisMaxMb: 'CRATEHOUSE_PUSH_ANALYSIS_MAX_MB',
  pushAnalysisMaxFiles: 'CRATEHOUSE_PUSH_ANALYSIS_MAX_FILES',
  jobConcurrency: 'CRATEHOUSE_JOB_CONCURRENCY',
  ffmpegPath: 'CRATEHOUSE_FFMPEG',
  gitPath: 'CRATEHOUSE_GIT',
  publicUrl: 'CRATEHOUSE_PUBLIC_URL',
  fetchAllowPrivate: 'CRATEHOUSE_FETCH_ALLOW_PRIVATE',
  hooksAllowPrivate: 'CRATEHOUSE_HOOKS_ALLOW_PRIVATE',
  maxSourceMb: 'CRATEHOUSE_MAX_SOURCE_MB',
  sourceTimeoutS: 'CRATEHOUSE_SOURCE_TIMEOUT_S',
  analysisBudgetS: 'CRATEHOUSE_ANALYSIS_BUDGET_S',
  analysisBudgetPerAudioS: 'CRATEHOUSE_ANALYSIS_BUDGET_PER_AUDIO_S',
  ytdlpPath: 'CRATEHOUSE_YTDLP',
  accelRedirect: 'CRATEHOUSE_ACCEL_REDIRECT',
  logLevel: 'CRATEHOUSE_LOG_LEVEL',
  allowedHosts: 'CRATEHOUSE_ALLOWED_HOSTS',
  authFailLimit: 'CRATEHOUSE_AUTH_FAIL_LIMIT',
  authFailWindowS: 'CRATEHOUSE_AUTH_FAIL_WINDOW_S',
  authFailBlockS: 'CRATEHOUSE_AUTH_FAIL_BLOCK_S',
  authFailExemptLoopback: 'CRATEHOUSE_AUTH_FAIL_EXEMPT_LOOPBACK',
  warmUp: 'CRATEHOUSE_WARMUP',
  trustProxy: 'CRATEHOUSE_TRUST_PROXY',
  libraryFolders: 'CRATEHOUSE_LIBRARY_FOLDERS',
  redisUrl: 'CRATEHOUSE_REDIS_URL',
  redisLockS: 'CRATEHOUSE_REDIS_LOCK_S',
  analysisInApp: 'CRATEHOUSE_ANALYSIS_IN_APP',
  analysisThreads: 'CRATEHOUSE_ANALYSIS_THREADS',
  databaseUrl: 'CRATEHOUSE_DATABASE_URL',
  pgPollMs: 'CRATEHOUSE_PG_POLL_MS',
  pgChangeLogKeep: 'CRATEHOUSE_PG_CHANGE_LOG_KEEP',
  reconcileIntervalS: 'CRATEHOUSE_RECONCILE_INTERVAL_S',
  reconcileGraceS: 'CRATEHOUSE_RECONCILE_GRACE_S',
};

/** Thrown for a value that cannot be used; the message names the setting and where it came from. */
export class ConfigError extends Error {}

/**
 * Resolve the configuration. Precedence: defaults < config file in the data dir < CRATEHOUSE_* env
 * < explicit overrides (CLI flags, the Electron host). Pure apart from reading that one file.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>, overrides: Overrides = {}): Config {
  const fromEnv = parseSource(
    Object.fromEntries(
      Object.entries(envKeys)
        .map(([key, name]) => [key, env[name]])
        .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
    ),
    'environment',
  );
  const dataDir = path.resolve(overrides.dataDir ?? fromEnv.dataDir ?? defaultConfig.dataDir);
  const fromFile = parseSource(readConfigFile(dataDir), configFileName);
  const merged = { ...defaultConfig, ...fromFile, ...fromEnv, ...overrides, dataDir };
  return Object.freeze(validate(merged));
}

function readConfigFile(dataDir: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, configFileName), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new ConfigError(`${path.join(dataDir, configFileName)} is not a JSON object`);
}

const numberKeys = new Set<keyof Config>([
  'port',
  'maxUploadMb',
  'maxJsonKb',
  'maxImportMb',
  'maxLfsObjectMb',
  'pushAnalysisMaxMb',
  'pushAnalysisMaxFiles',
  'jobConcurrency',
  'maxSourceMb',
  'sourceTimeoutS',
  'analysisBudgetS',
  'analysisBudgetPerAudioS',
  'authFailLimit',
  'authFailWindowS',
  'authFailBlockS',
  'redisLockS',
  'analysisThreads',
  'pgPollMs',
  'pgChangeLogKeep',
  'reconcileIntervalS',
  'reconcileGraceS',
]);
const booleanKeys = new Set<keyof Config>(['fetchAllowPrivate', 'hooksAllowPrivate', 'authFailExemptLoopback', 'analysisInApp', 'warmUp']);

function parseSource(raw: Record<string, unknown>, source: string): Overrides {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(key in defaultConfig)) continue;
    const k = key as keyof Config;
    const where = source === 'environment' ? envKeys[k] : `${source}: ${key}`;
    if (numberKeys.has(k)) out[k] = parseNumber(value, where);
    else if (booleanKeys.has(k)) out[k] = value === null && defaultConfig[k] === null ? null : parseBoolean(value, where);
    else if (k === 'allowedHosts') out[k] = parseHostList(value, where);
    else if (k === 'libraryFolders') out[k] = parseFolderRoots(value, where);
    else out[k] = value === null ? null : String(value);
  }
  return out as Overrides;
}

function parseNumber(value: unknown, where: string): number {
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isFinite(n) || String(value).trim() === '') throw new ConfigError(`${where} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

/** `loopback, studio.local` or a JSON array → lowercased host names; empty or `*` → null (any host). */
function parseHostList(value: unknown, where: string): readonly string[] | null {
  if (value === null) return null;
  const items = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const hosts = items.map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
  if (hosts.length === 0 || hosts.includes('*')) return null;
  const bad = hosts.find((h) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+|[0-9a-f:]+)$/.test(h));
  if (bad !== undefined) throw new ConfigError(`${where} must list host names (or loopback), got ${JSON.stringify(bad)}`);
  return hosts;
}

/** Roots separated by the platform's path delimiter (`:`; `;` on Windows) or a JSON array; each absolute. */
function parseFolderRoots(value: unknown, where: string): readonly string[] {
  if (value === null) return [];
  const items = Array.isArray(value) ? value.map(String) : String(value).split(path.delimiter);
  const roots = items.map((r) => r.trim()).filter((r) => r !== '');
  const bad = roots.find((r) => !path.isAbsolute(r));
  if (bad !== undefined) throw new ConfigError(`${where} must list absolute folders, got ${JSON.stringify(bad)}`);
  return roots.map((r) => path.resolve(r));
}

function parseBoolean(value: unknown, where: string): boolean {
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  throw new ConfigError(`${where} must be true or false, got ${JSON.stringify(value)}`);
}

function validate(c: Config): Config {
  if (!Number.isInteger(c.port) || c.port < 0 || c.port > 65535) throw new ConfigError(`port must be 0..65535, got ${c.port}`);
  if (!(c.maxUploadMb > 0)) throw new ConfigError(`max upload must be positive, got ${c.maxUploadMb}`);
  if (!(c.maxJsonKb > 0)) throw new ConfigError(`max JSON body must be positive, got ${c.maxJsonKb}`);
  if (!(c.maxImportMb > 0)) throw new ConfigError(`max import size must be positive, got ${c.maxImportMb}`);
  if (!(c.maxLfsObjectMb > 0)) throw new ConfigError(`max LFS object size must be positive, got ${c.maxLfsObjectMb}`);
  if (!(c.pushAnalysisMaxMb >= 0)) throw new ConfigError(`push analysis size limit must not be negative, got ${c.pushAnalysisMaxMb}`);
  if (!Number.isInteger(c.pushAnalysisMaxFiles) || c.pushAnalysisMaxFiles < 0)
    throw new ConfigError(`push analysis file count must be a whole number, got ${c.pushAnalysisMaxFiles}`);
  if (!Number.isInteger(c.jobConcurrency) || c.jobConcurrency < 1)
    throw new ConfigError(`job concurrency must be a positive integer, got ${c.jobConcurrency}`);
  if (!['silent', 'error', 'info', 'debug'].includes(c.logLevel))
    throw new ConfigError(`log level must be silent, error, info or debug, got ${c.logLevel}`);
  if (c.publicUrl !== null && !/^https?:\/\/[^/]+/.test(c.publicUrl))
    throw new ConfigError(`public URL must be an http(s) URL, got ${c.publicUrl}`);
  if (!(c.maxSourceMb > 0)) throw new ConfigError(`max source size must be positive, got ${c.maxSourceMb}`);
  if (!(c.sourceTimeoutS > 0)) throw new ConfigError(`source timeout must be positive, got ${c.sourceTimeoutS}`);
  if (!(c.analysisBudgetS > 0)) throw new ConfigError(`analysis budget must be positive, got ${c.analysisBudgetS}`);
  if (!(c.analysisBudgetPerAudioS >= 0))
    throw new ConfigError(`analysis budget per second of audio must not be negative, got ${c.analysisBudgetPerAudioS}`);
  if (c.accelRedirect !== null && !/^\/[\w./-]*$/.test(c.accelRedirect))
    throw new ConfigError(`accel-redirect prefix must be an absolute path such as /_artifacts/, got ${c.accelRedirect}`);
  if (!Number.isInteger(c.authFailLimit) || c.authFailLimit < 0)
    throw new ConfigError(`failed-authentication limit must be a whole number (0: off), got ${c.authFailLimit}`);
  if (!Number.isInteger(c.authFailWindowS) || c.authFailWindowS < 1)
    throw new ConfigError(`failed-authentication window must be a positive number of seconds, got ${c.authFailWindowS}`);
  if (!Number.isInteger(c.authFailBlockS) || c.authFailBlockS < 1)
    throw new ConfigError(`failed-authentication block must be a positive number of seconds, got ${c.authFailBlockS}`);
  if (c.redisUrl !== null) checkRedisUrl(c.redisUrl);
  if (!Number.isInteger(c.analysisThreads) || c.analysisThreads < 0)
    throw new ConfigError(`CRATEHOUSE_ANALYSIS_THREADS must be a whole number (0: one per core), got ${c.analysisThreads}`);
  if (!(c.redisLockS >= 1)) throw new ConfigError(`CRATEHOUSE_REDIS_LOCK_S must be at least 1 second, got ${c.redisLockS}`);
  // The URL itself is not echoed: it may hold a password.
  if (c.databaseUrl !== null && !/^postgres(ql)?:\/\//.test(c.databaseUrl))
    throw new ConfigError('database URL must be a postgres:// or postgresql:// URL');
  checkWholeNumber(c.pgPollMs, 'pgPollMs', 1);
  checkWholeNumber(c.pgChangeLogKeep, 'pgChangeLogKeep', 1);
  checkWholeNumber(c.reconcileIntervalS, 'reconcileIntervalS', 0);
  checkWholeNumber(c.reconcileGraceS, 'reconcileGraceS', 1);
  const accelRedirect = c.accelRedirect === null ? null : c.accelRedirect.replace(/\/*$/, '/');
  return { ...c, publicUrl: c.publicUrl?.replace(/\/+$/, '') ?? null, accelRedirect };
}

/** A whole number of at least `min`, or a ConfigError naming the variable. */
function checkWholeNumber(value: number, key: keyof Config, min: number): void {
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${envKeys[key]} must be a ${min > 0 ? 'positive' : 'non-negative'} whole number, got ${value}`);
}

/** A Redis URL ioredis can use, or a ConfigError naming the variable (the start refuses). */
function checkRedisUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`CRATEHOUSE_REDIS_URL must be a URL such as redis://127.0.0.1:6379, got ${JSON.stringify(raw)}`);
  }
  const socket = url.protocol === 'unix:' && url.pathname.length > 1;
  const tcp = (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '' && /^\/?\d*$/.test(url.pathname);
  if (!socket && !tcp)
    throw new ConfigError(
      `CRATEHOUSE_REDIS_URL must be redis://host[:port][/db], rediss://… or unix:///path/to.sock, got ${JSON.stringify(raw)}`,
    );
}

/** Whether project hooks may target private addresses: their own setting, else the outbound one. */
export function hooksMayTargetPrivate(c: Pick<Config, 'hooksAllowPrivate' | 'fetchAllowPrivate'>): boolean {
  return c.hooksAllowPrivate ?? c.fetchAllowPrivate;
}

/** Parse `--port 0 --data-dir x --host h` style flags into overrides; unknown flags are an error. */
export function parseCliFlags(argv: readonly string[]): Overrides {
  const flags: Record<string, keyof Config> = {
    '--host': 'host',
    '--port': 'port',
    '--data-dir': 'dataDir',
    '--public-url': 'publicUrl',
    '--ffmpeg': 'ffmpegPath',
    '--log-level': 'logLevel',
  };
  const raw: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const key = flags[name];
    if (!key) throw new ConfigError(`unknown option ${name}; known: ${Object.keys(flags).join(', ')}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${name} needs a value`);
    raw[key] = value;
  }
  return parseSource(raw, 'command line');
}
