import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** The sha256 of a file in hex, streamed in 1 MiB chunks; `signal` stops the read (it rejects with an AbortError). */
export async function sha256File(file: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
