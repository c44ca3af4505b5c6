// What the desktop app's preload exposes as `window.cratehouse` (absent in a browser), derived from the
// bridge's one contract in electron/ipc/channels.ts (types only). Every member past `isDesktop` and
// `platform` is optional here so an older preload and the browser degrade to the web behaviour.
import type { DesktopBridge as DesktopBridgeContract, RenamedCopyRequest } from '../../../electron/ipc/channels';

/** One renamed copy to write: the original file's path (desktop files carry one) and the new name. */
export type RenamedCopy = RenamedCopyRequest;

/** The bridge as the renderer may find it. */
export type DesktopBridge = Pick<DesktopBridgeContract, 'isDesktop' | 'platform'> &
  Partial<Omit<DesktopBridgeContract, 'isDesktop' | 'platform'>>;

declare global {
  interface Window {
    readonly cratehouse?: DesktopBridge;
  }
}

/** The desktop bridge, or null in a browser. */
export function desktopBridge(): DesktopBridge | null {
  return typeof window !== 'undefined' && window.cratehouse?.isDesktop ? window.cratehouse : null;
}
