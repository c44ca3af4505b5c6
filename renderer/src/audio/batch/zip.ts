import { zipSync, type Zippable } from 'fflate';

/** One file to put in a zip. */
export interface ZipEntry {
  readonly name: string;
  readonly data: Uint8Array;
}

/**
 * A zip archive of the entries, stored without compression: audio hardly compresses, and storing
 * keeps building a large pack fast. Names must be unique (see uniqueNames); a repeat would overwrite.
 */
export function buildZip(entries: readonly ZipEntry[], modified: Date = new Date()): Uint8Array {
  const files: Zippable = {};
  for (const entry of entries) {
    if (Object.hasOwn(files, entry.name)) throw new Error(`Two files in the zip are called ${entry.name}.`);
    files[entry.name] = [entry.data, { level: 0, mtime: modified }];
  }
  return zipSync(files);
}
