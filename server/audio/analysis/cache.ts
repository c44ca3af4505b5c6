import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Everything that makes two analyses the same answer. */
export interface CacheKeyParts {
  readonly sha256: string;
  readonly route: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly engineVersion: string;
}

/** Content-addressed key: sha256 over audio hash, route, normalised (sorted) params and engine version. */
export function cacheKey(parts: CacheKeyParts): string {
  const params = Object.fromEntries(Object.entries(parts.params).sort(([a], [b]) => a.localeCompare(b)));
  return createHash('sha256')
    .update(JSON.stringify([parts.sha256, parts.route, params, parts.engineVersion]))
    .digest('hex');
}

/** Analysis results: JSON files under cache/ (they survive restarts) with an in-memory LRU in front. */
export class ResultCache {
  private readonly lru = new Map<string, { readonly body: unknown; readonly size: number }>();
  private bytes = 0;

  constructor(
    private readonly dir: string,
    private readonly maxMemoryBytes = 64 * 1024 * 1024,
  ) {}

  async get(key: string): Promise<unknown> {
    const hit = this.lru.get(key);
    if (hit) {
      this.lru.delete(key);
      this.lru.set(key, hit);
      return hit.body;
    }
    let text: string;
    try {
      text = await readFile(this.file(key), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const body: unknown = JSON.parse(text);
      this.remember(key, body, text.length);
      return body;
    } catch {
      return undefined; // a damaged entry is recomputed and overwritten
    }
  }

  /** Store atomically (temp + rename), so readers never see half a file. */
  async set(key: string, body: unknown): Promise<void> {
    const text = JSON.stringify(body);
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${randomUUID()}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, target);
    this.remember(key, body, text.length);
  }

  private remember(key: string, body: unknown, size: number): void {
    if (size > this.maxMemoryBytes / 4) return;
    const old = this.lru.get(key);
    if (old) this.bytes -= old.size;
    this.lru.delete(key);
    this.lru.set(key, { body, size });
    this.bytes += size;
    for (const [k, v] of this.lru) {
      if (this.bytes <= this.maxMemoryBytes) break;
      this.lru.delete(k);
      this.bytes -= v.size;
    }
  }

  /**
   * Remember that a tenant has been given this entry's answer: only then does a repeat count as
   * that tenant's cache hit (and may be answered by content hash alone). One empty file per tenant and
   * entry next to the entries, so it costs no memory and survives restarts with them.
   */
  async markSeen(tenant: string, key: string): Promise<void> {
    const file = this.seenFile(tenant, key);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '');
  }

  /** Has this tenant been given this entry's answer before? */
  async hasSeen(tenant: string, key: string): Promise<boolean> {
    try {
      await access(this.seenFile(tenant, key));
      return true;
    } catch {
      return false;
    }
  }

  private seenFile(tenant: string, key: string): string {
    const t = createHash('sha256').update(tenant).digest('hex').slice(0, 32);
    return path.join(this.dir, 'seen', t, key.slice(0, 2), key.slice(2));
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key.slice(2)}.json`);
  }
}
