// Dragging a library item out of the window as a real file (desktop:start-drag): the original file
// for an item from an indexed folder, else a copy of its audio downloaded from the embedded server
// under the item's name (kept per content hash, so a second drag starts at once).
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { BadIpcArguments } from './ipc/validate.js';

/** What the drag needs from the app: the server to ask, where copies go, and the drag itself. */
export interface NativeDragDeps<Icon> {
  readonly connection: () => { readonly url: string; readonly token: string };
  /** A folder of the app's own (copies are written only under it). */
  readonly cacheDir: string;
  /** The icon shown under the pointer (Electron's app.getFileIcon in the app). */
  readonly iconFor: (file: string) => Promise<Icon>;
}

/** The part of Electron's WebContents the drag uses. */
export interface DragSender<Icon> {
  startDrag(item: { readonly file: string; readonly icon: Icon }): void;
}

/** The fields of a library item the drag reads (the server's LibraryItemResponse). */
interface DragItem {
  readonly sha256: string;
  readonly name: string;
  readonly size: number;
  readonly origin: string;
  readonly path?: string;
}

/** A positive integer item id, or a BadIpcArguments. */
export function itemIdArg(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new BadIpcArguments('the item id must be a positive integer');
  return value;
}

/**
 * A file name safe to write in the cache: the last segment of `name`, without control characters
 * or the characters Windows forbids; "audio" when nothing is left.
 */
export function safeFileName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const cleaned = last.replace(/[\u0000-\u001f<>:"|?*]/g, '_').trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'audio' : cleaned.slice(0, 200);
}

async function isFileOfSize(file: string, size?: number): Promise<boolean> {
  try {
    const info = await stat(file);
    return info.isFile() && (size === undefined || info.size === size);
  } catch {
    return false;
  }
}

async function fetchOk(url: string, token: string): Promise<Response> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { detail?: unknown } | null;
    throw new Error(typeof body?.detail === 'string' ? body.detail : `The server answered ${response.status}.`);
  }
  return response;
}

/** The path to drag for library item `itemId`: its original on disk, or a downloaded copy. */
export async function fileForDrag(itemId: unknown, deps: Pick<NativeDragDeps<unknown>, 'connection' | 'cacheDir'>): Promise<string> {
  const id = itemIdArg(itemId);
  const { url, token } = deps.connection();
  const item = (await (await fetchOk(`${url}/audio/v1/library/items/${id}`, token)).json()) as DragItem;
  // The server's answer decides the path, never the renderer: it may only name an item.
  if (item.origin === 'folder' && typeof item.path === 'string' && path.isAbsolute(item.path) && (await isFileOfSize(item.path)))
    return item.path;
  if (!/^[0-9a-f]{64}$/.test(item.sha256)) throw new Error('The server sent an item without a valid sha256.');
  const folder = path.join(deps.cacheDir, item.sha256);
  const target = path.join(folder, safeFileName(item.name));
  if (await isFileOfSize(target, item.size)) return target;
  await mkdir(folder, { recursive: true });
  const partial = `${target}.${process.pid}.part`;
  const response = await fetchOk(`${url}/audio/v1/library/items/${id}/audio`, token);
  if (!response.body) throw new Error('The server sent no audio.');
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return target;
}

/** Start the native drag of a library item from `sender` (the window that asked). */
export async function startLibraryDrag<Icon>(sender: DragSender<Icon>, itemId: unknown, deps: NativeDragDeps<Icon>): Promise<void> {
  const file = await fileForDrag(itemId, deps);
  sender.startDrag({ file, icon: await deps.iconFor(file) });
}
