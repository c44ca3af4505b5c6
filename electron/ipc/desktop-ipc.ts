import { app, BrowserWindow, dialog, ipcMain, shell, type IpcMainInvokeEvent } from 'electron';
import path from 'node:path';
import { startLibraryDrag } from '../native-drag.js';
import { writeRenamedCopies } from '../renamed-copies.js';
import type { DesktopChannel, DesktopHandlers, Handle, LocalApiDetails } from './channels.js';
import { absolutePath, renamedCopiesArgs } from './validate.js';

/** What the handlers need from the running app. */
export interface DesktopIpcDeps {
  readonly connection: () => { readonly url: string; readonly token: string };
  readonly localApi: () => Promise<LocalApiDetails | null>;
  /** Only the app's own pages may call the bridge (a navigated-away frame may not). */
  readonly isAppUrl: (url: string) => boolean;
}

/** Register the desktop bridge's main-process side: one handler per channel of ipc/channels.ts. */
export function registerDesktopIpc(deps: DesktopIpcDeps): void {
  const handlers = desktopHandlers(deps);
  for (const channel of Object.keys(handlers) as DesktopChannel[]) {
    const handler: Handle<DesktopChannel, IpcMainInvokeEvent> = handlers[channel];
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      if (!deps.isAppUrl(event.senderFrame?.url ?? '')) throw new Error('The desktop bridge answers only the Cratehouse window.');
      return handler(event, ...args);
    });
  }
}

/** The handlers, checked against the contract: a channel without one, or an answer of the wrong type, does not compile. */
export function desktopHandlers(deps: DesktopIpcDeps) {
  return {
    'desktop:connection': () => deps.connection(),
    'desktop:local-api': () => deps.localApi(),
    'desktop:pick-files': async (event) => {
      const owner = BrowserWindow.fromWebContents(event.sender);
      const options: Electron.OpenDialogOptions = {
        title: 'Choose audio files',
        properties: ['openFile', 'multiSelections'],
        filters: [{ name: 'Audio', extensions: ['wav', 'wave', 'aif', 'aiff', 'flac', 'mp3', 'ogg', 'opus', 'm4a', 'aac'] }],
      };
      const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
      return result.canceled ? [] : result.filePaths;
    },
    'desktop:pick-folder': async (event) => {
      const owner = BrowserWindow.fromWebContents(event.sender);
      const options: Electron.OpenDialogOptions = {
        title: 'Choose a folder for the renamed files',
        properties: ['openDirectory', 'createDirectory'],
      };
      const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
      return result.canceled ? null : (result.filePaths[0] ?? null);
    },
    'desktop:write-renamed-copies': (_event, folder, copies, mode) => {
      const args = renamedCopiesArgs(folder, copies, mode);
      return writeRenamedCopies(args.folder, args.copies, args.mode);
    },
    'desktop:reveal': (_event, target) => {
      shell.showItemInFolder(absolutePath(target, 'the path'));
    },
    'desktop:start-drag': (event, itemId) =>
      startLibraryDrag(event.sender, itemId, {
        connection: deps.connection,
        cacheDir: path.join(app.getPath('temp'), 'cratehouse-drag'),
        iconFor: (file) => app.getFileIcon(file, { size: 'normal' }),
      }),
  } satisfies DesktopHandlers<IpcMainInvokeEvent>;
}
