import path from 'node:path';
import type { RenamedCopyRequest } from './channels.js';

/** Thrown for IPC arguments the renderer should never send; the message goes back to it. */
export class BadIpcArguments extends Error {
  override readonly name = 'BadIpcArguments';
}

/** An absolute path string, or a BadIpcArguments. */
export function absolutePath(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '' || value.includes('\0') || !path.isAbsolute(value))
    throw new BadIpcArguments(`${what} must be an absolute path`);
  return value;
}

/**
 * Check the arguments of desktop:write-renamed-copies: the renderer is untrusted input to the main
 * process, so every path and name is checked here before any file is touched.
 */
export function renamedCopiesArgs(
  folder: unknown,
  copies: unknown,
  mode: unknown,
): { folder: string; copies: RenamedCopyRequest[]; mode: 'copy' | 'move' } {
  const target = absolutePath(folder, 'the folder');
  if (!Array.isArray(copies) || copies.length === 0 || copies.length > 10_000) throw new BadIpcArguments('copies must be a non-empty list');
  const checked = copies.map((item: unknown, i) => {
    if (!item || typeof item !== 'object') throw new BadIpcArguments(`copy ${i + 1} is not an object`);
    const { sourcePath, newName } = item as Record<string, unknown>;
    if (typeof newName !== 'string') throw new BadIpcArguments(`copy ${i + 1} has no new name`);
    return { sourcePath: absolutePath(sourcePath, `copy ${i + 1}'s source`), newName };
  });
  if (mode !== 'copy' && mode !== 'move') throw new BadIpcArguments('mode must be copy or move');
  return { folder: target, copies: checked, mode };
}
