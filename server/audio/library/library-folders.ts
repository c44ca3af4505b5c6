import { createHash } from 'node:crypto';
import { createReadStream, watch, type FSWatcher } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import type { FolderRecord, LibraryRepo } from './library-repo.js';
import type { LibraryService } from './library-service.js';

/** A folder as the API shows it. */
export interface FolderView {
  readonly id: number;
  readonly path: string;
  readonly itemCount: number;
  readonly watching: boolean;
}

/** The error of an item whose file went away (it comes back when the file does). */
const missingOnDisk = 'The file is missing on disk';
/** Extensions indexed; anything else in a folder is skipped. */
const audioExtensions = new Set(['.wav', '.wave', '.aif', '.aiff', '.flac', '.mp3', '.ogg', '.oga', '.opus', '.m4a']);
/** Files one folder may hold (a scan of a whole disk is refused past this). */
const maxFilesPerFolder = 100_000;
/** Events of a burst (a copy of many files) are handled once, this long after the last. */
const watchDebounceMs = 500;

/** The real paths of the configured roots that exist (an empty list: local folders are off). */
export async function resolveFolderRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) {
    try {
      out.push(await realpath(r));
    } catch {
      // A root that does not exist allows nothing.
    }
  }
  return out;
}

/** True when `real` (a real path) is a root or below one. */
export function isUnderRoots(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = path.relative(root, real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/**
 * Folders on disk indexed in place: files are hashed where they are (never copied), added as items
 * of origin `folder`, and watched (fs.watch, debounced) for new, changed and removed files. Allowed
 * only below the configured roots, after resolving symlinks.
 */
export class LibraryFolders {
  private readonly watchers = new Map<number, FSWatcher>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly scans = new Map<number, Promise<void>>();

  constructor(
    private readonly repo: LibraryRepo,
    private readonly library: LibraryService,
    private readonly roots: readonly string[],
    private readonly log: Logger,
  ) {}

  /** Rescan and watch the folders of earlier runs. */
  async start(): Promise<void> {
    for (const folder of this.repo.folders.values()) {
      this.watch(folder);
      void this.rescan(folder);
    }
  }

  list(tenant: string): FolderView[] {
    return [...this.repo.folders.values()].filter((f) => f.tenant === tenant).map((f) => this.view(f));
  }

  /** Index a folder for a tenant (the same folder again: the existing one) and watch it. */
  async add(tenant: string, requested: string): Promise<{ readonly folder: FolderView; readonly created: boolean }> {
    if (this.roots.length === 0)
      throw new AppError('forbidden', 'Local folders are not enabled on this server (CRATEHOUSE_LIBRARY_FOLDERS)');
    if (!path.isAbsolute(requested)) throw new AppError('forbidden', 'The folder must be an absolute path below an allowed root');
    let real: string;
    try {
      real = await realpath(requested);
    } catch {
      throw new AppError('not-found', 'No such folder');
    }
    if (!isUnderRoots(real, this.roots)) throw new AppError('forbidden', 'The folder is outside the allowed roots');
    if (!(await stat(real)).isDirectory()) throw new AppError('unprocessable', 'Not a folder');
    const known = [...this.repo.folders.values()].find((f) => f.tenant === tenant && f.path === real);
    if (known) return { folder: this.view(known), created: false };
    const folder: FolderRecord = { id: this.repo.nextId(), tenant, path: real };
    await this.repo.putFolder(folder);
    await this.rescan(folder);
    this.watch(folder);
    return { folder: this.view(folder), created: true };
  }

  /** Stop watching a folder and take its items out of the library (the files stay on disk). */
  async remove(tenant: string, id: number): Promise<void> {
    const folder = this.repo.folders.get(id);
    if (!folder || folder.tenant !== tenant) throw new AppError('not-found', 'Folder not found');
    this.unwatch(id);
    await this.scans.get(id);
    await this.library.remove(
      tenant,
      this.library.itemsOfFolder(id).map((i) => i.id),
    );
    await this.repo.deleteFolder(id);
  }

  /** Stop every watcher and wait for scans. */
  async stop(): Promise<void> {
    for (const id of [...this.watchers.keys()]) this.unwatch(id);
    await Promise.allSettled(this.scans.values());
  }

  /** Bring a folder's items in step with the disk; one scan per folder at a time. */
  rescan(folder: FolderRecord): Promise<void> {
    const previous = this.scans.get(folder.id) ?? Promise.resolve();
    const next = previous
      .then(() => this.scan(folder))
      .catch((e: unknown) => this.log.error(`scanning library folder ${folder.path} failed`, e));
    this.scans.set(folder.id, next);
    return next;
  }

  private view(f: FolderRecord): FolderView {
    return { id: f.id, path: f.path, itemCount: this.library.itemsOfFolder(f.id).length, watching: this.watchers.has(f.id) };
  }

  private async scan(folder: FolderRecord): Promise<void> {
    if (!this.repo.folders.has(folder.id)) return;
    const byPath = new Map(this.library.itemsOfFolder(folder.id).map((i) => [i.path!, i]));
    const seen = new Set<string>();
    for await (const file of this.walk(folder.path)) {
      seen.add(file);
      if (!this.repo.folders.has(folder.id)) return;
      let s;
      try {
        s = await stat(file);
      } catch {
        continue;
      }
      const known = byPath.get(file);
      if (known && known.size === s.size && known.mtimeMs === s.mtimeMs) {
        if (known.error === missingOnDisk)
          await this.library.markFolderFile(known.id, null, { sha256: known.sha256, size: s.size, mtimeMs: s.mtimeMs });
        continue;
      }
      const sha256 = await sha256Of(file);
      if (known) await this.library.markFolderFile(known.id, null, { sha256, size: s.size, mtimeMs: s.mtimeMs });
      else
        await this.library.addFolderFile(folder.tenant, folder.id, {
          sha256,
          size: s.size,
          name: path.basename(file),
          path: file,
          mtimeMs: s.mtimeMs,
        });
    }
    for (const [file, item] of byPath)
      if (!seen.has(file) && item.status !== 'failed') await this.library.markFolderFile(item.id, missingOnDisk);
  }

  /** Audio files below a folder: dot entries skipped, symlinks followed only when they stay below the roots. */
  private async *walk(dir: string): AsyncGenerator<string> {
    const stack = [dir];
    let count = 0;
    while (stack.length > 0) {
      const current = stack.pop()!;
      let entries;
      try {
        entries = await readdir(current, { withFileTypes: true });
      } catch {
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
            if (!isUnderRoots(full, this.roots)) continue;
            const s = await lstat(full);
            isDir = s.isDirectory();
            isFile = s.isFile();
            if (isDir) continue; // a linked folder could loop; only linked files are followed
          } catch {
            continue;
          }
        }
        if (isDir) stack.push(full);
        else if (isFile && audioExtensions.has(path.extname(e.name).toLowerCase())) {
          if (++count > maxFilesPerFolder) return;
          yield full;
        }
      }
    }
  }

  private watch(folder: FolderRecord): void {
    try {
      const w = watch(folder.path, { recursive: true, persistent: false }, () => this.schedule(folder));
      w.on('error', () => this.unwatch(folder.id));
      this.watchers.set(folder.id, w);
    } catch (e) {
      this.log.error(`cannot watch library folder ${folder.path}`, e);
    }
  }

  private schedule(folder: FolderRecord): void {
    clearTimeout(this.timers.get(folder.id));
    this.timers.set(
      folder.id,
      setTimeout(() => {
        this.timers.delete(folder.id);
        void this.rescan(folder);
      }, watchDebounceMs),
    );
  }

  private unwatch(id: number): void {
    this.watchers.get(id)?.close();
    this.watchers.delete(id);
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
