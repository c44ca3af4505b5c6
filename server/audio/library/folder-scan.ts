import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { FolderScanRecord, FolderScanSkips } from './library-repo.js';

/** Extensions indexed; anything else in a folder is skipped. */
const audioExtensions = new Set(['.wav', '.wave', '.aif', '.aiff', '.flac', '.mp3', '.ogg', '.oga', '.opus', '.m4a']);
/** Files one folder may hold (a scan of a whole disk stops past this). */
const maxFilesPerFolder = 100_000;
/** A name longer than an item's name may be (PATCH allows 255) is skipped. */
const maxNameChars = 255;
/** A path longer than this is skipped: it is stored with the item and sent on every listing. */
const maxPathBytes = 1024;

/** True when `real` (a real path) is a root or below one. */
export function isUnderRoots(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = path.relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/** A fresh scan's record: nothing seen yet. */
export function startScanRecord(resumed: boolean): FolderScanRecord {
  return {
    state: 'scanning',
    startedAt: new Date().toISOString(),
    resumed,
    seen: 0,
    added: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    skipped: { notAudio: 0, outsideRoots: 0, nameTooLong: 0, overLimit: 0 },
  };
}

/** The counts a scan keeps while it runs (a mutable twin of the record). */
export type ScanCounts = { -readonly [K in keyof Omit<FolderScanRecord, 'skipped'>]: FolderScanRecord[K] } & {
  skipped: { -readonly [K in keyof FolderScanSkips]: number };
};

/**
 * Audio files below a folder, counting what it passes over in `counts.skipped`: dot entries are
 * ignored (not counted: they are the system's), symlinks followed only to files that stay below the
 * roots, names and paths past the limits skipped, the walk stopped past `maxFilesPerFolder`.
 */
export async function* walkAudioFiles(dir: string, roots: readonly string[], counts: ScanCounts): AsyncGenerator<string> {
  const stack = [dir];
  let found = 0;
  while (stack.length > 0) {
    const current = stack.pop()!;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      counts.failed += 1;
      continue;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      let full = path.join(current, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          full = await realpath(full);
          const s = await lstat(full);
          // A linked folder could loop; only linked files below the roots are followed.
          if (!isUnderRoots(full, roots) || s.isDirectory()) {
            counts.skipped.outsideRoots += 1;
            continue;
          }
          isDir = false;
          isFile = s.isFile();
        } catch {
          counts.failed += 1; // a dangling link
          continue;
        }
      }
      if (isDir) {
        stack.push(full);
        continue;
      }
      if (!isFile) continue; // sockets, devices, fifos: not files at all
      if (!audioExtensions.has(path.extname(e.name).toLowerCase())) {
        counts.skipped.notAudio += 1;
        continue;
      }
      if (e.name.length > maxNameChars || Buffer.byteLength(full) > maxPathBytes) {
        counts.skipped.nameTooLong += 1;
        continue;
      }
      if (++found > maxFilesPerFolder) {
        counts.skipped.overLimit += 1;
        return;
      }
      yield full;
    }
  }
}
