import { constants } from 'node:fs';
import { copyFile, link, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** One file to write under a new name. */
export interface RenamedCopy {
  readonly sourcePath: string;
  readonly newName: string;
}

const windowsReserved = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** Why `name` cannot be a file name on any desktop platform, or null when it can. */
export function fileNameProblem(name: string): string | null {
  if (name.trim() === '' || name !== name.trim()) return 'is empty or starts or ends with a space';
  if (name === '.' || name === '..') return 'is not a file name';
  // Control characters are refused on purpose: Windows forbids them and they break shells elsewhere.
  // eslint-disable-next-line no-control-regex
  if (/[/\\:*?"<>|\x00-\x1f]/.test(name)) return 'contains a character that file names cannot hold (/ \\ : * ? " < > |)';
  if (windowsReserved.test(name)) return 'is reserved on Windows';
  if (name.endsWith('.')) return 'ends with a dot';
  if (Buffer.byteLength(name) > 255) return 'is longer than 255 bytes';
  return null;
}

/** `name (2).ext`, `name (3).ext`, … for the n-th clash. */
export function numbered(name: string, n: number): string {
  const ext = path.extname(name);
  return `${name.slice(0, name.length - ext.length)} (${n})${ext}`;
}

/**
 * Put `source` at `target` without ever overwriting (EEXIST when something is there). A move is a
 * hard link plus unlink on the same device, and a copy plus delete across devices.
 */
async function placeFile(source: string, target: string, mode: 'copy' | 'move'): Promise<void> {
  if (mode === 'copy') {
    await copyFile(source, target, constants.COPYFILE_EXCL);
    return;
  }
  try {
    await link(source, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw error;
    // EXDEV (another device) or a file system without hard links: copy, then delete.
    await copyFile(source, target, constants.COPYFILE_EXCL);
  }
  await rm(source);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copy (or move) each file into `folder` under its new name. Names are checked first (nothing is
 * written if one is unusable); an existing file is never overwritten: the copy gets " (2)" etc.
 * Answers the paths written, in order.
 */
export async function writeRenamedCopies(folder: string, copies: readonly RenamedCopy[], mode: 'copy' | 'move'): Promise<string[]> {
  for (const copy of copies) {
    const problem = fileNameProblem(copy.newName);
    if (problem) throw new Error(`The name ${JSON.stringify(copy.newName)} ${problem}.`);
    if (!path.isAbsolute(copy.sourcePath)) throw new Error(`${copy.sourcePath} is not an absolute path.`);
  }
  await mkdir(folder, { recursive: true });
  const written: string[] = [];
  for (const copy of copies) {
    let n = 1;
    let target = path.join(folder, copy.newName);
    for (;;) {
      if (path.resolve(target) === path.resolve(copy.sourcePath)) break; // already has that name there
      if (!(await exists(target))) {
        try {
          await placeFile(copy.sourcePath, target, mode);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      target = path.join(folder, numbered(copy.newName, ++n));
    }
    written.push(target);
  }
  return written;
}
