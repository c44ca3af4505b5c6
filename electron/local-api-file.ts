import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeJsonFile } from './write-json-file.js';

/** The discovery file plugins read to find the desktop app's local API. */
export const localApiFileName = 'local-api.json';

/** What local-api.json holds. */
export interface LocalApiInfo {
  /** The embedded server, e.g. http://127.0.0.1:43123 (no trailing slash). */
  readonly url: string;
  /** A personal access token for both APIs (Bearer for /audio/v1, PRIVATE-TOKEN for /api/v4). */
  readonly token: string;
  /** The desktop app's process id, so a plugin can tell a stale file from a running app. */
  readonly pid: number;
  readonly version: string;
}

/** Where local-api.json lives in a data dir. */
export function localApiFilePath(dataDir: string): string {
  return path.join(dataDir, localApiFileName);
}

/** Write local-api.json atomically (temp file + rename), readable only by the user (0600). */
export async function writeLocalApiFile(dataDir: string, info: LocalApiInfo): Promise<string> {
  const file = localApiFilePath(dataDir);
  await writeJsonFile(file, info, 0o600);
  return file;
}

/** Read local-api.json, or null when it is missing or not a LocalApiInfo. */
export async function readLocalApiFile(dataDir: string): Promise<LocalApiInfo | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(localApiFilePath(dataDir), 'utf8'));
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const { url, token, pid, version } = parsed as Record<string, unknown>;
  if (typeof url !== 'string' || typeof token !== 'string' || typeof pid !== 'number' || typeof version !== 'string') return null;
  return { url, token, pid, version };
}

/**
 * Remove local-api.json if this process wrote it (its pid matches): a second app instance that lost
 * the single-instance race, or an older crash's file already replaced, must not delete the live one.
 */
export async function removeLocalApiFile(dataDir: string, pid: number): Promise<boolean> {
  const current = await readLocalApiFile(dataDir);
  if (!current || current.pid !== pid) return false;
  await rm(localApiFilePath(dataDir), { force: true });
  return true;
}

/** True when local-api.json names a process that no longer runs (the app crashed). */
export function isStale(info: LocalApiInfo, isAlive: (pid: number) => boolean = processIsAlive): boolean {
  return !isAlive(info.pid);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
