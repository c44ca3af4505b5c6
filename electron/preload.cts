// Preload (CommonJS: sandboxed preloads cannot be ES modules). It exposes a small, typed bridge;
// the renderer never gets Node or Electron objects. Desktop-only actions arrive with the desktop issue.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload is CommonJS
import electron = require('electron');

const bridge = {
  /** True inside the desktop app (the renderer uses it to fill in the server URL and token). */
  isDesktop: true,
  platform: process.platform,
} as const;

electron.contextBridge.exposeInMainWorld('cratehouse', bridge);
