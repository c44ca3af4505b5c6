// "Apply names": the analysed files under their suggested names, as a zip download in a browser or
// as files written into a chosen folder by the desktop app.
import type { DesktopBridge, RenamedCopy } from '../../lib/desktop-bridge';
import { analysed, type AnalysedItem, type BatchItem } from './batch-model';
import { renamedFileName, uniqueNames } from './file-names';
import { buildZip } from './zip';

/** Each analysed file with the name it gets: the suggested name, its own extension, unique in the set. */
export function plannedNames(items: readonly BatchItem[]): { readonly item: AnalysedItem; readonly newName: string }[] {
  const done = analysed(items);
  const names = uniqueNames(done.map((item) => renamedFileName(item.result.suggestedName, item.file.name)));
  return done.map((item, i) => ({ item, newName: names[i] ?? item.file.name }));
}

/** A zip of renamed copies of the analysed files. */
export async function renamedZip(items: readonly BatchItem[]): Promise<{ readonly blob: Blob; readonly count: number }> {
  const planned = plannedNames(items);
  const entries = await Promise.all(
    planned.map(async ({ item, newName }) => ({ name: newName, data: new Uint8Array(await item.file.arrayBuffer()) })),
  );
  const zip = buildZip(entries);
  // A Blob takes an ArrayBuffer-backed view; fflate's output is one.
  return { blob: new Blob([zip as Uint8Array<ArrayBuffer>], { type: 'application/zip' }), count: entries.length };
}

/** What the desktop app wrote, and which files it could not take because they have no path on disk. */
export interface DesktopApplyResult {
  readonly folder: string;
  readonly written: readonly string[];
  readonly skipped: readonly string[];
}

/** The desktop bridge's part of applying names, when this window has it. */
export type DesktopRenamer = Required<Pick<DesktopBridge, 'pickFolder' | 'writeRenamedCopies'>>;

/** The renaming half of the bridge, or null in a browser or an older desktop app. */
export function desktopRenamer(bridge: DesktopBridge | null): DesktopRenamer | null {
  if (!bridge?.pickFolder || !bridge.writeRenamedCopies) return null;
  return { pickFolder: bridge.pickFolder, writeRenamedCopies: bridge.writeRenamedCopies };
}

/** Ask for a folder and copy or move the analysed files there under their new names; null when the person cancelled. */
export async function applyNamesOnDesktop(
  renamer: DesktopRenamer,
  items: readonly BatchItem[],
  mode: 'copy' | 'move',
): Promise<DesktopApplyResult | null> {
  const folder = await renamer.pickFolder();
  if (folder === null) return null;
  const planned = plannedNames(items);
  const copies: RenamedCopy[] = [];
  const skipped: string[] = [];
  for (const { item, newName } of planned) {
    if (item.path) copies.push({ sourcePath: item.path, newName });
    else skipped.push(item.name);
  }
  const written = copies.length > 0 ? await renamer.writeRenamedCopies(folder, copies, mode) : [];
  return { folder, written, skipped };
}
