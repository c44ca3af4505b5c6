import type { ProjectRecord } from '../../store/schema.js';
import { maxPointerBytes, parseLfsPointer } from '../lfs/lfs-pointer.js';
import type { LfsService } from '../lfs/lfs.js';
import type { BlobHandle } from './repository-reader.js';

/** An LFS object a pointer blob names, as stored. */
export interface LfsObjectFile {
  readonly oid: string;
  readonly size: number;
  readonly path: string;
}

/** Resolves Git LFS pointer blobs to the objects their project links (only that project's). */
export class LfsContent {
  constructor(private readonly lfs: Pick<LfsService, 'findObjectFile'>) {}

  /** The object `blob` points to, when it is a pointer and `project` links the object; otherwise undefined. */
  async objectOf(project: Readonly<ProjectRecord>, blob: BlobHandle): Promise<LfsObjectFile | undefined> {
    if (blob.size >= maxPointerBytes) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.open()) chunks.push(chunk as Buffer);
    const pointer = parseLfsPointer(Buffer.concat(chunks));
    if (!pointer) return undefined;
    const stored = await this.lfs.findObjectFile(project, pointer.oid);
    return stored && stored.size === pointer.size ? { oid: pointer.oid, size: stored.size, path: stored.path } : undefined;
  }
}
