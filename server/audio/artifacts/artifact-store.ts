import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { sha256File } from '../../shared/sha256-file.js';
import { syncDir } from '../../shared/sync-dir.js';

/** A stored artifact: `artifacts/<content_id>/<name>` under the data dir. */
export interface StoredArtifact {
  readonly contentId: string;
  readonly name: string;
  readonly bytes: number;
  /** Absolute path of the file. */
  readonly file: string;
}

/** content_id: the sha256 of the artifact's bytes, in hex. */
const contentIdPattern = /^[0-9a-f]{64}$/;
/** Names are one path segment of safe characters, never starting with a dot. */
const namePattern = /^[A-Za-z0-9_][A-Za-z0-9._()+-]{0,150}$/;

/** True for a well-formed content id. */
export function isContentId(value: string): boolean {
  return contentIdPattern.test(value);
}

/** True for a name that stays inside its artifact folder (no separators, no dot-files, no `..`). */
export function isSafeArtifactName(value: string): boolean {
  return namePattern.test(value) && !value.includes('..');
}

/** Turn any title or file name into a safe artifact name ending in `extension`. */
export function toArtifactName(raw: string, extension: string): string {
  const stem = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[^A-Za-z0-9._()+-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 120)
    .replace(/[-.]+$/, '');
  return `${stem || 'source'}.${extension}`;
}

/**
 * Content-addressed artifact storage. Files are written elsewhere (tmp/), hashed, fsynced and
 * renamed in, so a reader never sees a partial artifact and the same bytes are stored once.
 */
export class ArtifactStore {
  constructor(readonly root: string) {}

  /** The path for (content_id, name) if both are well formed; null otherwise (never escapes root). */
  pathFor(contentId: string, name: string): string | null {
    if (!isContentId(contentId) || !isSafeArtifactName(name)) return null;
    const file = path.join(this.root, contentId, name);
    return path.dirname(path.dirname(file)) === this.root ? file : null;
  }

  /** The artifact if it exists as a regular file. */
  async find(contentId: string, name: string): Promise<StoredArtifact | null> {
    const file = this.pathFor(contentId, name);
    if (!file) return null;
    try {
      const s = await stat(file);
      return s.isFile() ? { contentId, name, bytes: s.size, file } : null;
    } catch {
      return null;
    }
  }

  /** The artifact with these bytes under any name, or null. */
  async findByContent(contentId: string): Promise<StoredArtifact | null> {
    if (!isContentId(contentId)) return null;
    return this.existingIn(path.join(this.root, contentId), contentId);
  }

  /**
   * Move a finished temp file in under its content id. When the same bytes are already stored
   * (under any name), the temp file is dropped and the existing artifact returned.
   */
  async put(tempFile: string, name: string): Promise<StoredArtifact> {
    if (!isSafeArtifactName(name)) throw new Error(`unsafe artifact name ${name}`);
    const contentId = await sha256File(tempFile);
    const dir = path.join(this.root, contentId);
    const existing = await this.existingIn(dir, contentId);
    if (existing) {
      await rm(tempFile, { force: true });
      return existing;
    }
    await mkdir(dir, { recursive: true });
    const fh = await open(tempFile, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    const file = path.join(dir, name);
    await rename(tempFile, file);
    await syncDir(dir);
    const { size } = await stat(file);
    return { contentId, name, bytes: size, file };
  }

  private async existingIn(dir: string, contentId: string): Promise<StoredArtifact | null> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return null;
    }
    for (const name of names.sort()) {
      const found = await this.find(contentId, name);
      if (found) return found;
    }
    return null;
  }
}
