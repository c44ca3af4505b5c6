import { randomUUID } from 'node:crypto';
import { copyFile, link, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { syncDir } from './sync-dir.js';

/** Where another owner may already hold the bytes of a sha256 (an LFS object, a source artifact). */
export type ContentLocator = (sha256: string) => Promise<string | null>;

const sha256Pattern = /^[0-9a-f]{64}$/;

/**
 * Files named by the sha256 of their bytes, `<root>/ab/cd/<sha256>`, each stored once. When the same
 * bytes already exist elsewhere on the server (the locators: Git LFS objects, source artifacts) they
 * are hard-linked, not copied. Every owner holds its own directory entry of the same inode, so an
 * owner removing its entry never deletes bytes another owner still references: the link count is the
 * reference count across owners, kept by the file system. Within this store the caller counts its
 * own references (see `remove`).
 */
export class ContentStore {
  constructor(
    readonly root: string,
    private readonly tmpDir: string,
    private readonly locators: readonly ContentLocator[] = [],
  ) {}

  /** The path of a sha256's file (whether or not it is held); throws on a malformed hash. */
  pathOf(sha256: string): string {
    if (!sha256Pattern.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  /** True when the bytes are held here. */
  async has(sha256: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(sha256))).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Keep a finished temp file whose sha256 the caller computed: dropped when the bytes are already
   * held here; hard-linked from another owner's copy when one exists; else fsynced and renamed in.
   * With `keepTemp` the temp file is left where it is (for readers still using its path, who remove it
   * later) and the fsynced bytes are hard-linked in instead of renamed.
   */
  async putFile(tempFile: string, sha256: string, options: { readonly keepTemp?: boolean } = {}): Promise<string> {
    const target = this.pathOf(sha256);
    const drop = () => (options.keepTemp ? Promise.resolve() : rm(tempFile, { force: true }));
    if (await this.has(sha256)) {
      await drop();
      return target;
    }
    await mkdir(path.dirname(target), { recursive: true });
    if (await this.linkFromOwners(sha256, target)) {
      await drop();
      return target;
    }
    const fh = await open(tempFile, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (options.keepTemp) {
      await linkInto(tempFile, target, this.tmpDir);
      return target;
    }
    await rename(tempFile, target);
    await syncDir(path.dirname(target));
    return target;
  }

  /** Hold bytes another owner has (no upload needed); false when nobody holds them. */
  async adopt(sha256: string): Promise<boolean> {
    if (await this.has(sha256)) return true;
    return this.linkFromOwners(sha256, this.pathOf(sha256));
  }

  /** Drop this store's copy; call only when none of the store's own references remain. */
  async remove(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  private linkFromOwners(sha256: string, target: string): Promise<boolean> {
    return linkFromOwners(this.locators, sha256, target, this.tmpDir);
  }

  /**
   * Hold the bytes of a file someone else keeps (left in place), whose sha256 the caller computed: a
   * hard link (a copy across devices), nothing when already held. Returns the held path; throws the
   * link's error when the file cannot be linked.
   */
  async putLinked(source: string, sha256: string): Promise<string> {
    const target = this.pathOf(sha256);
    if (await this.has(sha256)) return target;
    await linkInto(source, target, this.tmpDir);
    return target;
  }
}

/**
 * Give `target` the bytes of `sha256` another owner holds: a hard link to the first locator's file
 * (the same inode, so each owner's entry keeps the bytes alive until the last one is removed), a
 * copy across file systems (EXDEV). A locator whose file cannot be linked is passed over. False when
 * no owner holds the bytes.
 */
export async function linkFromOwners(
  locators: readonly ContentLocator[],
  sha256: string,
  target: string,
  tmpDir: string,
): Promise<boolean> {
  for (const locate of locators) {
    const source = await locate(sha256);
    if (!source) continue;
    try {
      await linkInto(source, target, tmpDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).syscall === 'link') continue; // not linkable: try the next owner
      throw e;
    }
    return true;
  }
  return false;
}

/**
 * Give `target` the bytes of `source`: a hard link, a copy across file systems (EXDEV). Linked under a
 * temp name in `tmpDir`, then renamed: a concurrent reader never sees half a file. Throws the link's
 * error (syscall `link`) when the file cannot be linked, other than across devices.
 */
async function linkInto(source: string, target: string, tmpDir: string): Promise<void> {
  const temp = path.join(tmpDir, `content-${randomUUID()}`);
  try {
    await link(source, temp);
  } catch (e) {
    // Another device: a copy is the only way (still stored once on each side).
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(source, temp);
  }
  try {
    await mkdir(path.dirname(target), { recursive: true });
    await rename(temp, target);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
  await syncDir(path.dirname(target));
}
