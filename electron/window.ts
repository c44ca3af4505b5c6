import { BrowserWindow, shell } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAppUrl, isExternalSafe } from './navigation.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Open the main window on the embedded server: isolated, sandboxed, no Node in the page. */
export function createMainWindow(appUrl: string): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 960,
    minHeight: 600,
    backgroundColor: '#111318',
    title: 'Cratehouse',
    show: false,
    webPreferences: {
      preload: path.join(here, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  // Links off the app's origin go to the system browser; new windows are never opened in-app.
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalSafe(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event, url) => {
    if (isAppUrl(url, appUrl)) return;
    event.preventDefault();
    if (isExternalSafe(url)) void shell.openExternal(url);
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(appUrl);
  return window;
}
