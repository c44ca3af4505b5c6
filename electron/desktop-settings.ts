import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeJsonFile } from './write-json-file.js';

/** What the desktop app remembers between launches (in userData, next to the data dir). */
export interface DesktopSettings {
  /** The port the embedded server had last time, reused when free so plugins keep the same URL. */
  readonly lastPort: number | null;
}

const fileName = 'desktop.json';

/** Read desktop.json; missing or unreadable gives the defaults. */
export async function readDesktopSettings(userData: string): Promise<DesktopSettings> {
  try {
    const parsed = JSON.parse(await readFile(path.join(userData, fileName), 'utf8')) as Record<string, unknown>;
    return { lastPort: typeof parsed.lastPort === 'number' ? parsed.lastPort : null };
  } catch {
    return { lastPort: null };
  }
}

/** Write desktop.json atomically. */
export async function writeDesktopSettings(userData: string, settings: DesktopSettings): Promise<void> {
  await writeJsonFile(path.join(userData, fileName), settings);
}
