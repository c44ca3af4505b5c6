import { app, BrowserWindow, dialog } from 'electron';
import path from 'node:path';
import { loadConfig } from '../server/config/load-config.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { createMainWindow } from './window.js';

/**
 * Desktop entry: one instance, the same server as the headless entry on a free loopback port with
 * the data dir in userData, and a window on it. Private addresses are allowed (a producer's NAS).
 */
let server: RunningServer | null = null;
let window: BrowserWindow | null = null;

const readyTimeoutMs = 30_000;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.whenReady().then(start, fail);
  app.on('window-all-closed', () => app.quit());
  app.on('activate', () => {
    if (server && BrowserWindow.getAllWindows().length === 0) window = createMainWindow(server.url);
  });
  let stopped = false;
  app.on('before-quit', (event) => {
    if (stopped || !server) return;
    event.preventDefault();
    stopped = true;
    void server.stop().finally(() => app.quit());
  });
}

async function start(): Promise<void> {
  const config = loadConfig(process.env, {
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(app.getPath('userData'), 'data'),
    fetchAllowPrivate: true,
  });
  server = await withTimeout(startServer(config), readyTimeoutMs, 'the embedded server did not start in time');
  window = createMainWindow(server.url);
}

function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  dialog.showErrorBox('Cratehouse could not start', `${message}\n\nData folder: ${path.join(app.getPath('userData'), 'data')}`);
  app.exit(1);
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
