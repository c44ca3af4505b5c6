// Preload (CommonJS: sandboxed preloads cannot be ES modules or load local modules). It exposes a
// small, typed bridge; the renderer never gets Node or Electron objects. The shape is mirrored by
// renderer/src/lib/desktop-bridge.ts; the channels and their types are in ipc/channels.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload is CommonJS
import electron = require('electron');
import type { DesktopChannel, DesktopChannels, RenamedCopyRequest } from './ipc/channels.js';

function invoke<C extends DesktopChannel>(channel: C, ...args: DesktopChannels[C]['args']): Promise<DesktopChannels[C]['result']> {
  return electron.ipcRenderer.invoke(channel, ...args) as Promise<DesktopChannels[C]['result']>;
}

const bridge = {
  /** True inside the desktop app (the renderer uses it to fill in the server URL and token). */
  isDesktop: true,
  platform: process.platform,
  connection: () => invoke('desktop:connection'),
  localApi: () => invoke('desktop:local-api'),
  /** The path of a File that was dropped or picked (files from the system have one). */
  pathOf: (file: File): string | null => electron.webUtils.getPathForFile(file) || null,
  pickFiles: () => invoke('desktop:pick-files'),
  pickFolder: () => invoke('desktop:pick-folder'),
  writeRenamedCopies: (folder: string, copies: readonly RenamedCopyRequest[], mode: 'copy' | 'move') => invoke('desktop:write-renamed-copies', folder, copies, mode),
  reveal: (target: string) => invoke('desktop:reveal', target),
} as const;

electron.contextBridge.exposeInMainWorld('cratehouse', bridge);
