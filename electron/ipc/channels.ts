// The desktop bridge's one typed contract: each IPC channel's arguments and answer, and the bridge the
// preload exposes as `window.cratehouse`. The preload's object and the main process's handlers are
// checked against it with `satisfies` (preload.cts, desktop-ipc.ts), and the renderer derives its view
// of the bridge from it (renderer/src/lib/desktop-bridge.ts, types only). It imports nothing, so a
// sandboxed preload (`import type` only) and the renderer's bundle can both read it.

/** What local-api.json holds plus where it is. */
export interface LocalApiDetails {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
  readonly version: string;
  readonly file: string;
}

/** One renamed copy to write: the original file's path (desktop files carry one) and the new name. */
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
  'desktop:write-renamed-copies': {
    readonly args: [folder: string, copies: readonly RenamedCopyRequest[], mode: 'copy' | 'move'];
    readonly result: readonly string[];
  };
  'desktop:reveal': { readonly args: [path: string]; readonly result: void };
  'desktop:start-drag': { readonly args: [itemId: number]; readonly result: void };
}

export type DesktopChannel = keyof DesktopChannels;

/** The renderer's call of a channel: its arguments in, its answer out (through ipcRenderer.invoke). */
export type Invoke<C extends DesktopChannel> = (...args: DesktopChannels[C]['args']) => Promise<DesktopChannels[C]['result']>;

/**
 * The main process's answer to a channel. The arguments arrive as `unknown`: the renderer is untrusted
 * input, so each handler checks them (ipc/validate.ts) before using them.
 */
export type Handle<C extends DesktopChannel, Event> = (
  event: Event,
  ...args: unknown[]
) => DesktopChannels[C]['result'] | Promise<DesktopChannels[C]['result']>;

/** One handler per channel, none missing, none extra. */
export type DesktopHandlers<Event> = { readonly [C in DesktopChannel]: Handle<C, Event> };

/** What the preload exposes as `window.cratehouse`. */
export interface DesktopBridge {
  /** True inside the desktop app (the renderer uses it to fill in the server URL and token). */
  readonly isDesktop: true;
  readonly platform: string;
  /** The embedded server's URL and token, filled in by the desktop app. */
  readonly connection: Invoke<'desktop:connection'>;
  /** The local API details plugins use (the contents of local-api.json, and its path). */
  readonly localApi: Invoke<'desktop:local-api'>;
  /** The path of a File the person dropped or picked, or null when it has none (not IPC: the preload asks Electron). */
  readonly pathOf: (file: File) => string | null;
  /** Ask for audio files; their paths (empty when the person cancelled). */
  readonly pickFiles: Invoke<'desktop:pick-files'>;
  /** Ask for a folder; null when the person cancelled. */
  readonly pickFolder: Invoke<'desktop:pick-folder'>;
  /** Copy (or move) files into a folder under new names; answers the paths written. */
  readonly writeRenamedCopies: Invoke<'desktop:write-renamed-copies'>;
  /** Show a file or folder in the system's file manager. */
  readonly reveal: Invoke<'desktop:reveal'>;
  /**
   * Drag a library item out of the window as a file (Electron's native drag): the original for an
   * item from an indexed folder, else a copy downloaded under the item's name.
   */
  readonly startDrag: Invoke<'desktop:start-drag'>;
}
