import { BrowserWindow, dialog, ipcMain, shell, type IpcMainInvokeEvent } from 'electron';
import { writeRenamedCopies } from '../renamed-copies.js';
import type { DesktopChannel, DesktopChannels, LocalApiDetails } from './channels.js';
import { absolutePath, renamedCopiesArgs } from './validate.js';

/** What the handlers need from the running app. */
export interface DesktopIpcDeps {
  readonly connection: () => { readonly url: string; readonly token: string };
  readonly localApi: () => Promise<LocalApiDetails | null>;
  /** Only the app's own pages may call the bridge (a navigated-away frame may not). */
  readonly isAppUrl: (url: string) => boolean;
}

type Handler<C extends DesktopChannel> = (event: IpcMainInvokeEvent, ...args: unknown[]) => Promise<DesktopChannels[C]['result']> | DesktopChannels[C]['result'];

function handle<C extends DesktopChannel>(channel: C, deps: DesktopIpcDeps, handler: Handler<C>): void {
  ipcMain.handle(channel, (event, ...args: unknown[]) => {
    if (!deps.isAppUrl(event.senderFrame?.url ?? '')) throw new Error('The desktop bridge answers only the Cratehouse window.');
    return handler(event, ...args);
  });
}

/** Register the desktop bridge's main-process side (see ipc/channels.ts). */
export function registerDesktopIpc(deps: DesktopIpcDeps): void {
  handle('desktop:connection', deps, () => deps.connection());
  handle('desktop:local-api', deps, () => deps.localApi());
  handle('desktop:pick-files', deps, async (event) => {
    const owner = BrowserWindow.fromWebContents(event.sender);
    const options: Electron.OpenDialogOptions = {
      title: 'Choose audio files',
      properties: ['openFile', 'multiSelections'],
      filters: [{ name: 'Audio', extensions: ['wav', 'wave', 'aif', 'aiff', 'flac', 'mp3', 'ogg', 'opus', 'm4a', 'aac'] }],
    };
    const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
    return result.canceled ? [] : result.filePaths;
  });
  handle('desktop:pick-folder', deps, async (event) => {
    const owner = BrowserWindow.fromWebContents(event.sender);
    const options: Electron.OpenDialogOptions = { title: 'Choose a folder for the renamed files', properties: ['openDirectory', 'createDirectory'] };
    const result = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
    return result.canceled ? null : (result.filePaths[0] ?? null);
  });
  handle('desktop:write-renamed-copies', deps, (_event, folder, copies, mode) => {
    const args = renamedCopiesArgs(folder, copies, mode);
    return writeRenamedCopies(args.folder, args.copies, args.mode);
  });
  handle('desktop:reveal', deps, (_event, target) => {
    shell.showItemInFolder(absolutePath(target, 'the path'));
  });
}
