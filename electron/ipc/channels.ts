// The desktop bridge's IPC contract, shared by the preload (which can only `import type`: a sandboxed
// preload cannot load local modules) and the main process. The renderer's copy of the bridge's shape
// is renderer/src/lib/desktop-bridge.ts (the renderer imports nothing from electron/).

/** What local-api.json holds plus where it is. */
export interface LocalApiDetails {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
  readonly version: string;
  readonly file: string;
}

/** One renamed copy to write. */
export interface RenamedCopyRequest {
  readonly sourcePath: string;
  readonly newName: string;
}

/** Each channel's arguments and answer. */
export interface DesktopChannels {
  'desktop:connection': { readonly args: []; readonly result: { readonly url: string; readonly token: string } };
  'desktop:local-api': { readonly args: []; readonly result: LocalApiDetails | null };
  'desktop:pick-files': { readonly args: []; readonly result: readonly string[] };
  'desktop:pick-folder': { readonly args: []; readonly result: string | null };
  'desktop:write-renamed-copies': { readonly args: [folder: string, copies: readonly RenamedCopyRequest[], mode: 'copy' | 'move']; readonly result: readonly string[] };
  'desktop:reveal': { readonly args: [path: string]; readonly result: void };
}

export type DesktopChannel = keyof DesktopChannels;
