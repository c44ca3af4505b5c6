// Preload (CommonJS: sandboxed preloads cannot be ES modules or load local modules). It exposes a
// small bridge; the renderer never gets Node or Electron objects. Its shape is ipc/channels.ts's
// DesktopBridge, checked with `satisfies`.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload is CommonJS
import electron = require('electron');
import type { DesktopBridge, DesktopChannel, DesktopChannels } from './ipc/channels.js';

function invoke<C extends DesktopChannel>(channel: C, ...args: DesktopChannels[C]['args']): Promise<DesktopChannels[C]['result']> {
  return electron.ipcRenderer.invoke(channel, ...args) as Promise<DesktopChannels[C]['result']>;
}

const bridge = {
  isDesktop: true,
  platform: process.platform,
  connection: () => invoke('desktop:connection'),
  localApi: () => invoke('desktop:local-api'),
  // Files from the system have a path; Electron answers '' for the others.
  pathOf: (file) => electron.webUtils.getPathForFile(file) || null,
  pickFiles: () => invoke('desktop:pick-files'),
  pickFolder: () => invoke('desktop:pick-folder'),
  writeRenamedCopies: (folder, copies, mode) => invoke('desktop:write-renamed-copies', folder, copies, mode),
  reveal: (target) => invoke('desktop:reveal', target),
  startDrag: (itemId) => invoke('desktop:start-drag', itemId),
} as const satisfies DesktopBridge;

electron.contextBridge.exposeInMainWorld('cratehouse', bridge);
