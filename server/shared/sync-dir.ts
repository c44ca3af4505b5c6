import { open } from 'node:fs/promises';

/**
 * fsync a directory, so a rename into it survives a crash. Some filesystems refuse fsync on a
 * directory; the rename is still atomic there, so that refusal is not an error.
 */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } catch {
    // See above: nothing more can be done on such a filesystem.
  } finally {
    await fh.close();
  }
}
