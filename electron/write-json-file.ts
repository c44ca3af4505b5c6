import { randomBytes } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';

/** Write `value` as JSON through a temp file and a rename, so a reader never sees half a file. */
export async function writeJsonFile(file: string, value: unknown, mode = 0o644): Promise<void> {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode });
  await rename(tmp, file);
}
