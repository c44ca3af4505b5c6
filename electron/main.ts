import { app, BrowserWindow, dialog, Menu } from 'electron';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../server/config/load-config.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { readDesktopSettings, writeDesktopSettings } from './desktop-settings.js';
import { registerDesktopIpc } from './ipc/desktop-ipc.js';
import { localApiFilePath, readLocalApiFile, removeLocalApiFile, writeLocalApiFile } from './local-api-file.js';
import { buildAppMenu } from './menu.js';
import { isAppUrl } from './navigation.js';
import { choosePort } from './port-choice.js';
import { waitForReady } from './readiness.js';
import { createMainWindow } from './window.js';

/**
 * Desktop entry: one instance; the same server as the headless entry on a loopback port with the
 * data dir in userData, answering only to loopback host names (the local API for plugins); a window
 * on it; local-api.json for plugins while it runs. Private addresses are allowed (a producer's NAS).
 */
let server: RunningServer | null = null;
let window: BrowserWindow | null = null;
let connection: { url: string; token: string } | null = null;

const readyTimeoutMs = 30_000;
const host = '127.0.0.1';

function dataDir(): string {
  return path.join(app.getPath('userData'), 'data');
}

/** ffmpeg shipped as an extra resource by electron-builder (packaged app), if present. */
function bundledFfmpeg(): string | null {
  if (!app.isPackaged) return null;
  const candidate = path.join(process.resourcesPath, 'ffmpeg', process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg');
  return existsSync(candidate) ? candidate : null;
}

async function adminToken(credentialsPath: string): Promise<string> {
  try {
    const parsed = JSON.parse(await readFile(credentialsPath, 'utf8')) as { token?: unknown };
    if (typeof parsed.token === 'string' && parsed.token !== '') return parsed.token;
  } catch {
    // Reported below.
  }
  throw new Error(
    `The administrator's token could not be read from ${credentialsPath}. Restore that file (or start with an empty data folder).`,
  );
}

async function startEmbeddedServer(): Promise<RunningServer> {
  const userData = app.getPath('userData');
  const settings = await readDesktopSettings(userData);
  const ffmpeg = bundledFfmpeg();
  const configFor = (port: number) =>
    loadConfig(process.env, {
      host,
      port,
      dataDir: dataDir(),
      fetchAllowPrivate: true,
      allowedHosts: ['loopback'],
      authFailExemptLoopback: true,
      libraryFolders: [app.getPath('home')],
      ...(ffmpeg ? { ffmpegPath: ffmpeg } : {}),
    });
  const port = await choosePort(host, settings.lastPort);
  let started: RunningServer;
  try {
    started = await startServer(configFor(port));
  } catch (error) {
    // The remembered port was taken between the check and the listen: any free one will do.
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw error;
    started = await startServer(configFor(0));
  }
  await writeDesktopSettings(userData, { lastPort: started.port }).catch(() => undefined);
  return started;
}

async function start(): Promise<void> {
  server = await startEmbeddedServer();
  await waitForReady(server.url, { timeoutMs: readyTimeoutMs });
  connection = { url: server.url, token: await adminToken(server.admin.credentialsPath) };
  await writeLocalApiFile(dataDir(), { url: server.url, token: connection.token, pid: process.pid, version: app.getVersion() });

  const appUrl = server.url;
  registerDesktopIpc({
    connection: () => {
      if (!connection) throw new Error('The embedded server is not running.');
      return connection;
    },
    localApi: async () => {
      const info = await readLocalApiFile(dataDir());
      return info ? { ...info, file: localApiFilePath(dataDir()) } : null;
    },
    isAppUrl: (url) => isAppUrl(url, appUrl),
  });
  Menu.setApplicationMenu(buildAppMenu(`${appUrl}/audio/v1/openapi.json`));
  window = createMainWindow(appUrl);
}

function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  dialog.showErrorBox('Cratehouse could not start', `${message}\n\nData folder: ${dataDir()}`);
  void shutdown().finally(() => app.exit(1));
}

let stopping: Promise<void> | null = null;
/** Remove local-api.json (if ours) and stop the server: in-flight requests and writes finish first. */
function shutdown(): Promise<void> {
  return (stopping ??= (async () => {
    await removeLocalApiFile(dataDir(), process.pid).catch(() => false);
    await server?.stop();
  })());
}

// Tests and portable setups may put the app's whole state elsewhere (before anything reads userData).
if (process.env.CRATEHOUSE_DESKTOP_USER_DATA) app.setPath('userData', path.resolve(process.env.CRATEHOUSE_DESKTOP_USER_DATA));

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app
    .whenReady()
    .then(() => withTimeout(start(), readyTimeoutMs + 5_000, 'the embedded server did not start in time'), fail)
    .catch(fail);
  app.on('window-all-closed', () => app.quit());
  app.on('activate', () => {
    if (server && BrowserWindow.getAllWindows().length === 0) window = createMainWindow(server.url);
  });
  let stopped = false;
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    stopped = true;
    void shutdown().finally(() => app.quit());
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
