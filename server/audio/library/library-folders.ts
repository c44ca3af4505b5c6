import { watch, type FSWatcher } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import type { Logger } from '../../http/logger.js';
import { sha256File } from '../../shared/sha256-file.js';
import { isUnderRoots, startScanRecord, walkAudioFiles, type ScanCounts } from './folder-scan.js';
import type { FolderRecord, FolderScanRecord, LibraryRepo } from './library-repo.js';
import type { LibraryService } from './library-service.js';

/** A folder as the API shows it. */
export interface FolderView {
  readonly id: number;
  readonly path: string;
  readonly itemCount: number;
  readonly watching: boolean;
  /** The last (or running) scan; undefined for a folder never scanned since scans were recorded. */
  readonly scan: FolderScanRecord | undefined;
}

/** The error of an item whose file went away (it comes back when the file does). */
const missingOnDisk = 'The file is missing on disk';
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

/** A running scan's counts are written down at most this often (and at its end), for a restart to see. */
const progressSaveMs = 1000;

/**
 * Folders on disk indexed in place: files are hashed where they are (never copied), added as items
 * of origin `folder`, and watched (fs.watch, debounced) for new, changed and removed files. Allowed
 * only below the configured roots, after resolving symlinks. Scans run in the background with their
 * counts kept on the folder record; a scan a crash interrupted is resumed at the next start (files
 * are matched by path, so none is added twice); removing the folder cancels its scan.
 */
export class LibraryFolders {
  private readonly watchers = new Map<number, FSWatcher>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly scans = new Map<number, Promise<void>>();
  /** Live counts of running scans (the record on disk lags by up to progressSaveMs). */
  private readonly running = new Map<number, ScanCounts>();
  /** Cancels a folder's scans when the folder is removed or the server stops. */
  private readonly aborts = new Map<number, AbortController>();

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
      void this.rescan(folder, folder.scan?.state === 'scanning');
    }
  }

  list(tenant: string): FolderView[] {
    return [...this.repo.folders.values()].filter((f) => f.tenant === tenant).map((f) => this.view(f));
  }

  /**
   * Index a folder for a tenant and watch it; answers at once, the scan running in the background
   * (the same folder again: the existing one).
   */
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
    const folder: FolderRecord = { id: this.repo.nextId(), tenant, path: real, scan: startScanRecord(false) };
    await this.repo.putFolder(folder);
    this.watch(folder);
    void this.rescan(folder);
    return { folder: this.view(folder), created: true };
  }

  /** Stop watching a folder and take its items out of the library (the files stay on disk). */
  async remove(tenant: string, id: number): Promise<void> {
    const folder = this.repo.folders.get(id);
    if (!folder || folder.tenant !== tenant) throw new AppError('not-found', 'Folder not found');
    this.unwatch(id);
    this.aborts.get(id)?.abort();
    await this.scans.get(id);
    this.aborts.delete(id);
    await this.library.remove(
      tenant,
      this.library.itemsOfFolder(id).map((i) => i.id),
    );
    await this.repo.deleteFolder(id);
  }

  /** Stop every watcher and wait for scans. */
  async stop(): Promise<void> {
    for (const id of [...this.watchers.keys()]) this.unwatch(id);
    for (const abort of this.aborts.values()) abort.abort();
    await Promise.allSettled(this.scans.values());
  }

  /** Bring a folder's items in step with the disk; one scan per folder at a time. */
  rescan(folder: FolderRecord, resumed = false): Promise<void> {
    const previous = this.scans.get(folder.id) ?? Promise.resolve();
    const next = previous
      .then(() => this.scan(folder.id, resumed))
      .catch((e: unknown) => this.log.error(`scanning library folder ${folder.path} failed`, e));
    this.scans.set(folder.id, next);
    return next;
  }

  private view(f: FolderRecord): FolderView {
    const live = this.running.get(f.id);
    return {
      id: f.id,
      path: f.path,
      itemCount: this.library.itemsOfFolder(f.id).length,
      watching: this.watchers.has(f.id),
      scan: live ? structuredClone(live) : f.scan,
    };
  }

  private async scan(id: number, resumed: boolean): Promise<void> {
    const folder = this.repo.folders.get(id);
    if (!folder) return;
    const abort = this.aborts.get(id) ?? new AbortController();
    this.aborts.set(id, abort);
    const counts: ScanCounts = startScanRecord(resumed);
    this.running.set(id, counts);
    let saved = Date.now();
    const save = async (record: FolderScanRecord) => {
      const current = this.repo.folders.get(id);
      if (current && !abort.signal.aborted) await this.repo.putFolder({ ...current, scan: structuredClone(record) });
      saved = Date.now();
    };
    try {
      await save(counts);
      await this.walkAndIndex(folder, counts, abort.signal, async () => {
        if (Date.now() - saved >= progressSaveMs) await save(counts);
      });
      counts.state = 'done';
    } catch (e) {
      if (abort.signal.aborted) return; // removed or stopping: the next start resumes what is left
      counts.state = 'failed';
      throw e;
    } finally {
      this.running.delete(id);
      if (!abort.signal.aborted) {
        this.aborts.delete(id);
        await save({ ...counts, finishedAt: new Date().toISOString() });
      }
    }
  }

  private async walkAndIndex(folder: FolderRecord, counts: ScanCounts, signal: AbortSignal, progress: () => Promise<void>): Promise<void> {
    const byPath = new Map(this.library.itemsOfFolder(folder.id).map((i) => [i.path!, i]));
    const seen = new Set<string>();
    for await (const file of walkAudioFiles(folder.path, this.roots, counts)) {
      if (signal.aborted) throw signal.reason;
      seen.add(file);
      counts.seen += 1;
      const known = byPath.get(file);
      try {
        const s = await stat(file);
        if (known && known.size === s.size && known.mtimeMs === s.mtimeMs) {
          if (known.error === missingOnDisk) {
            await this.library.markFolderFile(known.id, null, { sha256: known.sha256, size: s.size, mtimeMs: s.mtimeMs });
            counts.updated += 1;
          } else counts.unchanged += 1;
        } else {
          const sha256 = await sha256File(file, signal); // the signal stops it (a folder removed mid-scan)
          if (known) {
            await this.library.markFolderFile(known.id, null, { sha256, size: s.size, mtimeMs: s.mtimeMs });
            counts.updated += 1;
          } else {
            const entry = { sha256, size: s.size, name: path.basename(file), path: file, mtimeMs: s.mtimeMs };
            await this.library.addFolderFile(folder.tenant, folder.id, entry);
            counts.added += 1;
          }
        }
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        // Gone meanwhile, unreadable, or a name the file system will not give back: counted, not fatal.
        this.log.info(`library folder file skipped: ${file} (${(e as Error).message})`);
        counts.failed += 1;
      }
      await progress();
    }
    if (counts.skipped.overLimit > 0) return; // a partial walk says nothing about files it did not reach
    for (const [file, item] of byPath)
      if (!seen.has(file) && item.status !== 'failed') await this.library.markFolderFile(item.id, missingOnDisk);
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
