/**
 * The content-addressed LFS object files under `<data>/lfs/objects/ab/cd/<oid>`, shared by every
 * project (which project may read which object is the links' business, not this file's). Uploads
 * stream into `<data>/tmp`, are hashed and counted on the way, and are renamed into place only
 * when the bytes are the ones the oid names. Bytes the server already holds elsewhere (the
 * content store of the library, through the locators the composition hands in) are hard-linked
 * from there instead of stored again; an object already here is kept, not replaced, so links
 * other owners made to it stay the same inode.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, readdirSync, statSync, unlinkSync, type ReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../http/errors.js';
import { linkFromOwners, type ContentLocator } from '../../shared/content-store.js';

/** An LFS oid: sha256 in lowercase hex. */
export const oidPattern = /^[0-9a-f]{64}$/;

/** The object files of one data dir. */
export class LfsObjectStore {
  /** Oids an upload is writing (refcounted): housekeeping never removes these. */
  private readonly writing = new Map<string, number>();
  private readonly root: string;
  private readonly tmpDir: string;

  constructor(
    dataDir: string,
    private readonly locators: readonly ContentLocator[] = [],
  ) {
    this.root = path.join(dataDir, 'lfs', 'objects');
    this.tmpDir = path.join(dataDir, 'tmp');
  }

  /** Where an object lives (the oid must match oidPattern: it becomes a path). */
  pathOf(oid: string): string {
    if (!oidPattern.test(oid)) throw new Error(`not an LFS oid: ${oid}`);
    return path.join(this.root, oid.slice(0, 2), oid.slice(2, 4), oid);
  }

  /** The stored object's size, or undefined when there is none. */
  async findSize(oid: string): Promise<number | undefined> {
    try {
      return (await stat(this.pathOf(oid))).size;
    } catch {
      return undefined;
    }
  }

  /** A stream of a stored object (the caller checked it exists and may be read). */
  open(oid: string): ReadStream {
    return createReadStream(this.pathOf(oid), { highWaterMark: 256 * 1024 });
  }

  /**
   * Store `body` as object `oid` of `size` bytes. The body is streamed to a temporary file and
   * hashed on the way; more bytes than `size` stop it at once. Throws `unprocessable` when the
   * bytes are not `size` long or do not hash to `oid`; nothing is kept then.
   */
  async write(oid: string, size: number, body: Readable): Promise<void> {
    const final = this.pathOf(oid);
    this.writing.set(oid, (this.writing.get(oid) ?? 0) + 1);
    const tmp = path.join(this.tmpDir, `lfs-${randomBytes(12).toString('hex')}`);
    try {
      const hash = createHash('sha256');
      let received = 0;
      const check = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          if (received > size)
            return done(
              new AppError('unprocessable', `The upload is larger than the ${size} bytes the batch request announced`, {
                code: 'size_mismatch',
              }),
            );
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await mkdir(this.tmpDir, { recursive: true });
      // The body is piped, not pipelined: a refused upload leaves the request open for an answer.
      const early = () => {
        if (!body.readableEnded)
          check.destroy(new AppError('invalid', 'The upload ended before all its bytes arrived', { code: 'upload_incomplete' }));
      };
      const failed = (error: Error) => check.destroy(error);
      body.once('close', early);
      body.once('error', failed);
      body.pipe(check);
      try {
        await pipeline(check, createWriteStream(tmp, { mode: 0o600 }));
      } finally {
        body.unpipe(check);
        body.off('close', early);
        body.off('error', failed);
      }
      if (received !== size)
        throw new AppError('unprocessable', `The upload has ${received} bytes, not the ${size} the batch request announced`, {
          code: 'size_mismatch',
        });
      if (hash.digest('hex') !== oid)
        throw new AppError('unprocessable', 'The uploaded content does not match its oid (sha256)', { code: 'oid_mismatch' });
      // Same bytes whoever wrote them first: the copy here (maybe linked by another owner) stays.
      if ((await this.findSize(oid)) === size) return;
      if (await linkFromOwners(this.locators, oid, final, this.tmpDir)) return;
      await mkdir(path.dirname(final), { recursive: true });
      await rename(tmp, final);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** Forget an upload started with `write` once its link is stored (housekeeping may see it from then on). */
  release(oid: string): void {
    const n = (this.writing.get(oid) ?? 1) - 1;
    if (n <= 0) this.writing.delete(oid);
    else this.writing.set(oid, n);
  }

  /**
   * Remove every object `isReferenced` does not keep and no upload is writing. Each check and its
   * removal happen in one turn of the event loop, so an upload that starts meanwhile is never
   * caught between them.
   */
  sweep(isReferenced: (oid: string) => boolean): { readonly removed: number; readonly bytes: number } {
    let removed = 0;
    let bytes = 0;
    for (const file of this.listFiles()) {
      const oid = path.basename(file);
      if (!oidPattern.test(oid) || isReferenced(oid) || this.writing.has(oid)) continue;
      try {
        const size = statSync(file).size;
        unlinkSync(file);
        removed += 1;
        bytes += size;
      } catch {
        // Already gone.
      }
    }
    return { removed, bytes };
  }

  private listFiles(): string[] {
    const out: string[] = [];
    const list = (dir: string) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    };
    for (const a of list(this.root))
      for (const b of list(path.join(this.root, a)))
        for (const f of list(path.join(this.root, a, b))) out.push(path.join(this.root, a, b, f));
    return out;
  }
}
