import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Journal, removeCompactionLeftover } from '../../store/journal.js';

/** What the background analysis found about an item (null fields: not measurable for this file). */
export interface LibrarySummary {
  readonly duration_s: number | null;
  readonly sample_rate: number | null;
  readonly channels: number | null;
  readonly format: string | null;
  readonly role: string | null;
  readonly role_confidence: number | null;
  readonly tempo_bpm: number | null;
  readonly key: string | null;
  readonly camelot: string | null;
  readonly loudness_lufs: number | null;
  readonly true_peak_dbtp: number | null;
  readonly grade_tier: string | null;
  readonly suggested_name: string | null;
  readonly thumbnail: readonly number[];
}

/** One library item of one tenant. */
export interface LibraryItemRecord {
  readonly id: number;
  readonly tenant: string;
  readonly sha256: string;
  readonly name: string;
  readonly size: number;
  readonly addedAt: string;
  readonly status: 'analysing' | 'ready' | 'failed';
  readonly error?: string;
  readonly origin: 'upload' | 'folder' | 'source';
  /** Folder items: the file on disk, its folder, and its modification time when indexed. */
  readonly path?: string;
  readonly folderId?: number;
  readonly mtimeMs?: number;
  readonly summary: LibrarySummary | null;
  readonly vector: readonly number[] | null;
  readonly vectorVersion?: number;
  readonly tags: readonly string[];
  readonly favourite: boolean;
  readonly rating: number;
  readonly tempoMultiplier: 0.5 | 1 | 2;
  readonly collectionIds: readonly number[];
}

/** A named set of a tenant's items (membership is kept on the items). */
export interface CollectionRecord {
  readonly id: number;
  readonly tenant: string;
  readonly name: string;
}

/** Entries a folder scan passed over, by reason. */
export interface FolderScanSkips {
  /** Not an audio file name (extension). */
  readonly notAudio: number;
  /** Symlinks leading out of the roots, or to folders (which could loop). */
  readonly outsideRoots: number;
  /** File names or paths past the limits an item may carry. */
  readonly nameTooLong: number;
  /** 1 when the walk stopped at the per-folder file limit, else 0. */
  readonly overLimit: number;
}

/** The last scan of a folder (counts are this run's; a resumed run sees again what the last one added). */
export interface FolderScanRecord {
  readonly state: 'scanning' | 'done' | 'failed';
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** True when this run took over a scan a stop or crash interrupted. */
  readonly resumed: boolean;
  /** Audio files found. */
  readonly seen: number;
  readonly added: number;
  /** Files whose bytes changed since they were indexed, or that came back. */
  readonly updated: number;
  /** Files indexed already, with the same size and modification time. */
  readonly unchanged: number;
  /** Files that could not be read (gone meanwhile, no permission, unreadable name). */
  readonly failed: number;
  readonly skipped: FolderScanSkips;
}

/** A folder on disk indexed in place for a tenant. */
export interface FolderRecord {
  readonly id: number;
  readonly tenant: string;
  readonly path: string;
  /** Absent for folders indexed before scans ran in the background. */
  readonly scan?: FolderScanRecord;
}

/**
 * The library's storage: everything in memory for reads, every write durable before it resolves.
 * Small on purpose so another store (PostgreSQL) can stand behind it.
 */
export interface LibraryRepo {
  readonly items: ReadonlyMap<number, LibraryItemRecord>;
  readonly collections: ReadonlyMap<number, CollectionRecord>;
  readonly folders: ReadonlyMap<number, FolderRecord>;
  /** A new id, unique across items, collections and folders of the data dir. */
  nextId(): number;
  putItems(items: readonly LibraryItemRecord[]): Promise<void>;
  deleteItems(ids: readonly number[]): Promise<void>;
  putCollection(collection: CollectionRecord): Promise<void>;
  deleteCollection(id: number): Promise<void>;
  putFolder(folder: FolderRecord): Promise<void>;
  deleteFolder(id: number): Promise<void>;
  close(): Promise<void>;
}

type Entry =
  | { readonly t: 'item'; readonly v: LibraryItemRecord }
  | { readonly t: '-item'; readonly id: number }
  | { readonly t: 'col'; readonly v: CollectionRecord }
  | { readonly t: '-col'; readonly id: number }
  | { readonly t: 'folder'; readonly v: FolderRecord }
  | { readonly t: '-folder'; readonly id: number }
  | { readonly t: 'seq'; readonly v: number };

/** Compact when the journal is this much larger than its last compacted size. */
const compactGrowth = 2;
const compactFloorBytes = 16 * 1024 * 1024;

/**
 * The library in a JSON-lines journal (`<data>/library/journal.jsonl`, store/journal.ts): a write
 * appends its records (group-committed with concurrent writes), never rewrites the rest, so 100 000
 * items cost what 100 do per write. Compacted at open and whenever it doubles past 16 MiB.
 */
export async function openJournalLibraryRepo(dir: string): Promise<LibraryRepo> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'journal.jsonl');
  await removeCompactionLeftover(file);
  const items = new Map<number, LibraryItemRecord>();
  const collections = new Map<number, CollectionRecord>();
  const folders = new Map<number, FolderRecord>();
  let seq = 0;
  let replayed = 0;
  const apply = (e: Entry) => {
    replayed++;
    switch (e.t) {
      case 'item':
        items.set(e.v.id, e.v);
        seq = Math.max(seq, e.v.id);
        break;
      case '-item':
        items.delete(e.id);
        break;
      case 'col':
        collections.set(e.v.id, e.v);
        seq = Math.max(seq, e.v.id);
        break;
      case '-col':
        collections.delete(e.id);
        break;
      case 'folder':
        folders.set(e.v.id, e.v);
        seq = Math.max(seq, e.v.id);
        break;
      case '-folder':
        folders.delete(e.id);
        break;
      case 'seq':
        seq = Math.max(seq, e.v);
        break;
    }
  };
  const journal = await Journal.open<Entry>(file, apply);
  function* live(): Iterable<Entry> {
    yield { t: 'seq', v: seq };
    for (const v of collections.values()) yield { t: 'col', v };
    for (const v of folders.values()) yield { t: 'folder', v };
    for (const v of items.values()) yield { t: 'item', v };
  }
  const liveCount = () => 1 + collections.size + folders.size + items.size;
  // Superseded entries past a quarter of the live ones: rewrite at boot.
  if (replayed > liveCount() * 1.25 + 100) await journal.compact(live());
  let compactedAt = journal.size;
  let compacting: Promise<void> | null = null;

  const write = async (...entries: Entry[]) => {
    for (const e of entries) apply(e);
    await journal.append(...entries);
    if (!compacting && journal.size > Math.max(compactFloorBytes, compactedAt * compactGrowth)) {
      compacting = journal.compact(live()).finally(() => {
        compactedAt = journal.size;
        compacting = null;
      });
    }
  };

  return {
    items,
    collections,
    folders,
    nextId: () => ++seq,
    putItems: (list) => write(...list.map((v): Entry => ({ t: 'item', v }))),
    // A removal records the sequence, so a deleted highest id is not handed out again after a restart.
    deleteItems: (ids) => write(...ids.map((id): Entry => ({ t: '-item', id })), { t: 'seq', v: seq }),
    putCollection: (v) => write({ t: 'col', v }),
    deleteCollection: (id) => write({ t: '-col', id }, { t: 'seq', v: seq }),
    putFolder: (v) => write({ t: 'folder', v }),
    deleteFolder: (id) => write({ t: '-folder', id }, { t: 'seq', v: seq }),
    async close() {
      await compacting;
      await journal.close();
    },
  };
}
