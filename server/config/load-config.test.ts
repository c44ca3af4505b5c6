import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, hooksMayTargetPrivate, loadConfig, parseCliFlags } from './load-config.js';

describe('loadConfig', () => {
  it('starts from the defaults with ./data resolved against the working directory', () => {
    const c = loadConfig({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(8080);
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.maxUploadMb).toBe(1024);
    expect(c.maxImportMb).toBe(1024);
    expect(c.adminToken).toBeNull();
  });

  it('applies defaults < config file < environment < overrides', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-config-'));
    await writeFile(path.join(dir, 'config.json'), JSON.stringify({ port: 9000, host: '0.0.0.0', maxUploadMb: 10, logLevel: 'debug' }));
    const env = { CRATEHOUSE_DATA_DIR: dir, CRATEHOUSE_PORT: '9100', CRATEHOUSE_MAX_UPLOAD_MB: '20' };
    const c = loadConfig(env, { port: 0 });
    expect(c.dataDir).toBe(dir);
    expect(c.host).toBe('0.0.0.0'); // file
    expect(c.logLevel).toBe('debug'); // file
    expect(c.maxUploadMb).toBe(20); // env beats file
    expect(c.port).toBe(0); // override beats env
  });

  it('reads library folder roots separated by the path delimiter, and refuses relative ones', () => {
    expect(loadConfig({}).libraryFolders).toEqual([]);
    const roots = ['/home/mia/Samples', '/srv/audio'];
    expect(loadConfig({ CRATEHOUSE_LIBRARY_FOLDERS: roots.join(path.delimiter) }).libraryFolders).toEqual(roots);
    expect(() => loadConfig({ CRATEHOUSE_LIBRARY_FOLDERS: 'Samples' })).toThrow(ConfigError);
  });

  it('takes a Redis URL (TCP or Unix socket) and refuses a bad one naming CRATEHOUSE_REDIS_URL', () => {
    expect(loadConfig({}).redisUrl).toBeNull(); // the embedded default needs no Redis
    expect(loadConfig({ CRATEHOUSE_REDIS_URL: 'redis://127.0.0.1:6380/2' }).redisUrl).toBe('redis://127.0.0.1:6380/2');
    expect(loadConfig({ CRATEHOUSE_REDIS_URL: 'unix:///run/redis/redis.sock' }).redisUrl).toBe('unix:///run/redis/redis.sock');
    for (const bad of ['localhost:6379', 'http://127.0.0.1:6379', 'redis://', 'redis://h/not-a-db', 'unix://'])
      expect(() => loadConfig({ CRATEHOUSE_REDIS_URL: bad })).toThrow(/CRATEHOUSE_REDIS_URL/);
    expect(() => loadConfig({ CRATEHOUSE_REDIS_LOCK_S: '0' })).toThrow(/CRATEHOUSE_REDIS_LOCK_S/);
    expect(() => loadConfig({ CRATEHOUSE_ANALYSIS_IN_APP: 'maybe' })).toThrow(/CRATEHOUSE_ANALYSIS_IN_APP/);
    expect(loadConfig({ CRATEHOUSE_ANALYSIS_IN_APP: 'off' }).analysisInApp).toBe(false);
  });

  it('reads the analysis thread count and the Redis task lock, with one thread per core and a 30 s lock as the defaults', () => {
    expect(loadConfig({})).toMatchObject({ analysisThreads: 0, redisLockS: 30 }); // 0: one thread per core
    expect(loadConfig({ CRATEHOUSE_ANALYSIS_THREADS: '3', CRATEHOUSE_REDIS_LOCK_S: '5' })).toMatchObject({
      analysisThreads: 3,
      redisLockS: 5,
    });
    expect(loadConfig({ CRATEHOUSE_ANALYSIS_THREADS: '0', CRATEHOUSE_REDIS_LOCK_S: '1' })).toMatchObject({
      analysisThreads: 0,
      redisLockS: 1,
    });
    for (const bad of ['-1', '1.5'])
      expect(() => loadConfig({ CRATEHOUSE_ANALYSIS_THREADS: bad })).toThrow(
        new ConfigError(`CRATEHOUSE_ANALYSIS_THREADS must be a whole number (0: one per core), got ${bad}`),
      );
    expect(() => loadConfig({ CRATEHOUSE_ANALYSIS_THREADS: 'all' })).toThrow(
      new ConfigError('CRATEHOUSE_ANALYSIS_THREADS must be a number, got "all"'),
    );
    for (const bad of ['0', '0.5', '-30'])
      expect(() => loadConfig({ CRATEHOUSE_REDIS_LOCK_S: bad })).toThrow(
        new ConfigError(`CRATEHOUSE_REDIS_LOCK_S must be at least 1 second, got ${bad}`),
      );
    expect(() => loadConfig({ CRATEHOUSE_REDIS_LOCK_S: '30s' })).toThrow(
      new ConfigError('CRATEHOUSE_REDIS_LOCK_S must be a number, got "30s"'),
    );
  });

  it('reads the change feed and reconciliation settings, with a 1 s poll, 10,000 log entries, a 300 s pass and a 1 h grace as defaults', () => {
    expect(loadConfig({})).toMatchObject({ pgPollMs: 1000, pgChangeLogKeep: 10_000, reconcileIntervalS: 300, reconcileGraceS: 3600 });
    expect(
      loadConfig({
        CRATEHOUSE_PG_POLL_MS: '250',
        CRATEHOUSE_PG_CHANGE_LOG_KEEP: '50000',
        CRATEHOUSE_RECONCILE_INTERVAL_S: '0',
        CRATEHOUSE_RECONCILE_GRACE_S: '60',
      }),
    ).toMatchObject({ pgPollMs: 250, pgChangeLogKeep: 50_000, reconcileIntervalS: 0, reconcileGraceS: 60 });
    for (const name of ['CRATEHOUSE_PG_POLL_MS', 'CRATEHOUSE_PG_CHANGE_LOG_KEEP', 'CRATEHOUSE_RECONCILE_GRACE_S'])
      for (const bad of ['0', '-5', '1.5'])
        expect(() => loadConfig({ [name]: bad })).toThrow(new ConfigError(`${name} must be a positive whole number, got ${bad}`));
    for (const bad of ['-1', '0.5'])
      expect(() => loadConfig({ CRATEHOUSE_RECONCILE_INTERVAL_S: bad })).toThrow(
        new ConfigError(`CRATEHOUSE_RECONCILE_INTERVAL_S must be a non-negative whole number, got ${bad}`),
      );
    expect(() => loadConfig({ CRATEHOUSE_PG_POLL_MS: '1s' })).toThrow(new ConfigError('CRATEHOUSE_PG_POLL_MS must be a number, got "1s"'));
  });

  it('reads every CRATEHOUSE_* variable it documents', () => {
    const c = loadConfig({
      CRATEHOUSE_HOST: '::1',
      CRATEHOUSE_PORT: '0',
      CRATEHOUSE_ADMIN_TOKEN: 't0ken',
      CRATEHOUSE_FFMPEG: '/opt/ffmpeg',
      CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true',
      CRATEHOUSE_PUBLIC_URL: 'https://crates.example.com/',
      CRATEHOUSE_JOB_CONCURRENCY: '4',
      CRATEHOUSE_MAX_IMPORT_MB: '256',
    });
    expect(c).toMatchObject({
      host: '::1',
      port: 0,
      adminToken: 't0ken',
      ffmpegPath: '/opt/ffmpeg',
      fetchAllowPrivate: true,
      publicUrl: 'https://crates.example.com',
      jobConcurrency: 4,
      maxImportMb: 256,
    });
  });

  it('lets hooks target private addresses as the outbound setting does, unless CRATEHOUSE_HOOKS_ALLOW_PRIVATE says otherwise', () => {
    expect(hooksMayTargetPrivate(loadConfig({}))).toBe(false);
    expect(hooksMayTargetPrivate(loadConfig({ CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true' }))).toBe(true);
    expect(hooksMayTargetPrivate(loadConfig({ CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'true', CRATEHOUSE_HOOKS_ALLOW_PRIVATE: 'false' }))).toBe(
      false,
    );
    expect(hooksMayTargetPrivate(loadConfig({ CRATEHOUSE_HOOKS_ALLOW_PRIVATE: 'yes' }))).toBe(true);
    expect(() => loadConfig({ CRATEHOUSE_HOOKS_ALLOW_PRIVATE: 'perhaps' })).toThrow('CRATEHOUSE_HOOKS_ALLOW_PRIVATE must be true or false');
  });

  it('reads the analysis time budget, and refuses a budget that could never be met', () => {
    expect(loadConfig({})).toMatchObject({ analysisBudgetS: 30, analysisBudgetPerAudioS: 0.5 });
    expect(loadConfig({ CRATEHOUSE_ANALYSIS_BUDGET_S: '120', CRATEHOUSE_ANALYSIS_BUDGET_PER_AUDIO_S: '2' })).toMatchObject({
      analysisBudgetS: 120,
      analysisBudgetPerAudioS: 2,
    });
    expect(() => loadConfig({ CRATEHOUSE_ANALYSIS_BUDGET_S: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ CRATEHOUSE_ANALYSIS_BUDGET_PER_AUDIO_S: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ CRATEHOUSE_ANALYSIS_BUDGET_S: 'soon' })).toThrow(/CRATEHOUSE_ANALYSIS_BUDGET_S/);
  });

  it('reads the allowed host names as a list, with * meaning any', () => {
    expect(loadConfig({ CRATEHOUSE_ALLOWED_HOSTS: 'loopback, Studio.lan' }).allowedHosts).toEqual(['loopback', 'studio.lan']);
    expect(loadConfig({ CRATEHOUSE_ALLOWED_HOSTS: '*' }).allowedHosts).toBeNull();
    expect(loadConfig({}).allowedHosts).toBeNull();
    expect(() => loadConfig({ CRATEHOUSE_ALLOWED_HOSTS: 'loopback,evil/path' })).toThrow('CRATEHOUSE_ALLOWED_HOSTS must list host names');
  });

  it('warms up at start unless CRATEHOUSE_WARMUP says not to, and refuses a value that is not a yes or no', () => {
    expect(loadConfig({}).warmUp).toBe(true);
    expect(loadConfig({ CRATEHOUSE_WARMUP: 'off' }).warmUp).toBe(false);
    expect(loadConfig({ CRATEHOUSE_WARMUP: 'false' }).warmUp).toBe(false);
    expect(loadConfig({ CRATEHOUSE_WARMUP: 'on' }).warmUp).toBe(true);
    expect(() => loadConfig({ CRATEHOUSE_WARMUP: 'later' })).toThrow('CRATEHOUSE_WARMUP must be true or false');
  });

  it('reads the failed-authentication limit and the trusted proxy, with 10 failures a minute as the default', () => {
    expect(loadConfig({})).toMatchObject({
      authFailLimit: 10,
      authFailWindowS: 60,
      authFailBlockS: 300,
      authFailExemptLoopback: false,
      trustProxy: null,
    });
    const c = loadConfig({
      CRATEHOUSE_AUTH_FAIL_LIMIT: '0',
      CRATEHOUSE_AUTH_FAIL_WINDOW_S: '30',
      CRATEHOUSE_AUTH_FAIL_BLOCK_S: '900',
      CRATEHOUSE_AUTH_FAIL_EXEMPT_LOOPBACK: 'yes',
      CRATEHOUSE_TRUST_PROXY: 'loopback',
    });
    expect(c).toMatchObject({
      authFailLimit: 0,
      authFailWindowS: 30,
      authFailBlockS: 900,
      authFailExemptLoopback: true,
      trustProxy: 'loopback',
    });
    expect(() => loadConfig({ CRATEHOUSE_AUTH_FAIL_LIMIT: '-1' })).toThrow('failed-authentication limit');
    expect(() => loadConfig({ CRATEHOUSE_AUTH_FAIL_WINDOW_S: '0' })).toThrow('failed-authentication window');
  });

  it('ignores empty variables and names the culprit of a bad value', () => {
    expect(loadConfig({ CRATEHOUSE_PORT: '' }).port).toBe(defaultConfig.port);
    expect(() => loadConfig({ CRATEHOUSE_PORT: 'eighty' })).toThrow(new ConfigError('CRATEHOUSE_PORT must be a number, got "eighty"'));
    expect(() => loadConfig({ CRATEHOUSE_PORT: '70000' })).toThrow('port must be 0..65535');
    expect(() => loadConfig({ CRATEHOUSE_FETCH_ALLOW_PRIVATE: 'perhaps' })).toThrow('CRATEHOUSE_FETCH_ALLOW_PRIVATE must be true or false');
  });

  it('rejects a config file that is not a JSON object', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'cratehouse-config-'));
    await writeFile(path.join(dir, 'config.json'), '[1,2]');
    expect(() => loadConfig({ CRATEHOUSE_DATA_DIR: dir })).toThrow(ConfigError);
  });

  it('parses command-line flags in both --flag value and --flag=value forms', () => {
    expect(parseCliFlags(['--port', '0', '--host=0.0.0.0', '--data-dir', '/srv/crates'])).toEqual({
      port: 0,
      host: '0.0.0.0',
      dataDir: '/srv/crates',
    });
    expect(() => parseCliFlags(['--prot', '1'])).toThrow('unknown option --prot');
    expect(() => parseCliFlags(['--port'])).toThrow('--port needs a value');
  });
});
