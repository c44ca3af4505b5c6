import { nextId, type LfsLinkRecord, type LfsLockRecord } from '../../store/schema.js';
import type { Store } from '../../store/store.js';

/** Store access for Git LFS: which objects each project references, and file locks. */
export interface LfsRepo {
  findLink(projectId: number, oid: string): Readonly<LfsLinkRecord> | undefined;
  linksOf(projectId: number): readonly Readonly<LfsLinkRecord>[];
  /** Every oid some project references (housekeeping keeps these). */
  linkedOids(): ReadonlySet<string>;
  /** Reference objects from a project; links it already has are kept as they are. */
  link(projectId: number, objects: readonly { readonly oid: string; readonly size: number }[]): Promise<void>;
  /** Drop a project's links and locks (the project is gone). */
  forgetProject(projectId: number): Promise<void>;
  locksOf(projectId: number): readonly Readonly<LfsLockRecord>[];
  /** Lock a path, unless it is locked already: then the existing lock, with `created` false. */
  insertLock(lock: Omit<LfsLockRecord, 'id'>): Promise<{ readonly lock: Readonly<LfsLockRecord>; readonly created: boolean }>;
  removeLock(projectId: number, lockId: number): Promise<void>;
}

/** An LfsRepo over the store. */
export function createLfsRepo(store: Store): LfsRepo {
  return {
    findLink: (projectId, oid) => store.data.lfsLinks.find((l) => l.projectId === projectId && l.oid === oid),
    linksOf: (projectId) => store.data.lfsLinks.filter((l) => l.projectId === projectId),
    linkedOids: () => new Set(store.data.lfsLinks.map((l) => l.oid)),
    link: (projectId, objects) =>
      store.mutate(
        (d) => {
          const have = new Set(d.lfsLinks.filter((l) => l.projectId === projectId).map((l) => l.oid));
          const createdAt = new Date().toISOString();
          for (const { oid, size } of objects) {
            if (have.has(oid)) continue;
            have.add(oid);
            d.lfsLinks.push({ projectId, oid, size, createdAt });
          }
        },
        ['lfsLinks'],
      ),
    forgetProject: (projectId) =>
      store.mutate(
        (d) => {
          d.lfsLinks = d.lfsLinks.filter((l) => l.projectId !== projectId);
          d.lfsLocks = d.lfsLocks.filter((l) => l.projectId !== projectId);
        },
        ['lfsLinks', 'lfsLocks'],
      ),
    locksOf: (projectId) => store.data.lfsLocks.filter((l) => l.projectId === projectId),
    insertLock: (lock) =>
      store.mutate(
        (d) => {
          // Checked again inside the mutation: two creates of one path cannot both win.
          const taken = d.lfsLocks.find((l) => l.projectId === lock.projectId && l.path === lock.path);
          if (taken) return { lock: taken, created: false };
          const record: LfsLockRecord = { ...lock, id: nextId(d, 'lfsLocks') };
          d.lfsLocks.push(record);
          return { lock: record, created: true };
        },
        ['lfsLocks', 'sequences'],
      ),
    removeLock: (projectId, lockId) =>
      store.mutate(
        (d) => {
          d.lfsLocks = d.lfsLocks.filter((l) => !(l.projectId === projectId && l.id === lockId));
        },
        ['lfsLocks'],
      ),
  };
}
