// What the desktop app's preload exposes as `window.cratehouse` (absent in a browser). Every member
// past `isDesktop` is optional so an older preload and the browser degrade to the web behaviour.

/** One renamed copy to write: the original file's path (desktop files carry one) and the new name. */
export interface RenamedCopy {
  readonly sourcePath: string;
  readonly newName: string;
}

export interface DesktopBridge {
  readonly isDesktop: true;
  readonly platform: string;
  /** The embedded server's URL and token, filled in by the desktop app. */
  readonly connection?: () => Promise<{ readonly url: string; readonly token: string }>;
  /** The local API details plugins use (the contents of local-api.json, and its path). */
  readonly localApi?: () => Promise<{ readonly url: string; readonly token: string; readonly pid: number; readonly version: string; readonly file: string } | null>;
  /** The path of a File the person dropped or picked, or null when it has none. */
  readonly pathOf?: (file: File) => string | null;
  /** Ask for audio files; their paths (empty when the person cancelled). */
  readonly pickFiles?: () => Promise<readonly string[]>;
  /** Ask for a folder; null when the person cancelled. */
  readonly pickFolder?: () => Promise<string | null>;
  /** Copy (or move) files into a folder under new names; answers the paths written. */
  readonly writeRenamedCopies?: (folder: string, copies: readonly RenamedCopy[], mode: 'copy' | 'move') => Promise<readonly string[]>;
  /** Show a file or folder in the system's file manager. */
  readonly reveal?: (path: string) => Promise<void>;
}

declare global {
  interface Window {
    readonly cratehouse?: DesktopBridge;
  }
}

/** The desktop bridge, or null in a browser. */
export function desktopBridge(): DesktopBridge | null {
  return typeof window !== 'undefined' && window.cratehouse?.isDesktop ? window.cratehouse : null;
}
