/**
 * Git LFS for projects: who may read or write a project's objects, the batch API, the basic
 * transfer (upload, download, verify) with short-lived signed transfer tokens, the per-project links
 * to the shared object files, and housekeeping. The locking API lives in lfs-locks.ts.
 */
import type { IdentityService } from '../../auth/identity.js';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { AppError } from '../../http/errors.js';
import type { ProjectRecord, UserRecord } from '../../store/schema.js';
import type { Viewer } from '../projects/project-access.js';
import type { ProjectService } from '../projects/projects.js';
import { oidPattern, type LfsObjectStore } from './lfs-objects.js';
import type { LfsRepo } from './lfs-repo.js';
import type { LfsBatchObject, LfsBatchResponse } from '../api-types.js';

export type { LfsBatchObject, LfsBatchResponse };

/** The two operations of the batch API. */
export type LfsOperation = 'download' | 'upload';

/** What a valid transfer token allows. */
export interface LfsTransferGrant {
  readonly projectId: number;
  readonly operation: LfsOperation;
  readonly oid: string;
  readonly size: number;
  /** The user the batch answered (0: anonymous, for a public project's download). */
  readonly userId: number;
}

/** The authorization scheme of transfer tokens (sent back by git-lfs as the batch answer's header says). */
export const transferScheme = 'Cratehouse-LFS';

/** Limits of the LFS service. */
export interface LfsOptions {
  /** The largest object a batch accepts for upload. */
  readonly maxObjectBytes: number;
  /** How long a transfer token in a batch answer stays valid (the transfer must start by then). */
  readonly tokenTtlS?: number;
  /** Objects per batch request. */
  readonly maxBatchObjects?: number;
}

const messages = {
  notFound: 'Not found.',
  forbidden: 'Access forbidden. Check your access level.',
} as const;

/** Git LFS objects of projects. */
export class LfsService {
  /** Signs transfer tokens; a restart invalidates the ones in flight (clients ask the batch API again). */
  private readonly secret = randomBytes(32);
  private readonly ttl: number;

  constructor(
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    private readonly repo: LfsRepo,
    private readonly objects: LfsObjectStore,
    readonly options: LfsOptions,
  ) {
    this.ttl = options.tokenTtlS ?? 3600;
  }
  /** The user a transfer grant names, if it still exists. */
  findUser(id: number): Readonly<UserRecord> | undefined {
    return this.identity.findUserById(id);
  }

  /**
   * The project at `fullPath` if `user` may use its LFS for `need`, as GitLab decides: anonymous
   * callers who could not do it are asked for credentials (401); unknown, unreadable and
   * LFS-disabled projects are 404; readers who may not write get 403.
   */
  resolve(
    fullPath: string,
    user: Readonly<UserRecord> | null,
    need: 'read' | 'write',
  ): { readonly project: Readonly<ProjectRecord>; readonly viewer: Viewer } {
    const policy = this.projects.policy;
    const project = policy.find(fullPath);
    const viewer = policy.viewer(user);
    const readable = !!project && viewer.canRead(project);
    if (!user && (!readable || need === 'write')) throw new AppError('unauthorized', 'Credentials needed');
    if (!project || !readable || !project.settings.lfs_enabled) throw new AppError('not-found', messages.notFound);
    if (need === 'write' && !viewer.canPush(project)) throw new AppError('forbidden', messages.forbidden);
    return { project, viewer };
  }

  /** The batch API: per object, where to send or fetch it, or why not (spec: docs/api/batch.md). */
  async batch(
    project: Readonly<ProjectRecord>,
    user: Readonly<UserRecord> | null,
    body: unknown,
    repoUrl: string,
  ): Promise<LfsBatchResponse> {
    const request = parseBatch(body, this.options.maxBatchObjects ?? 10_000);
    const objects: LfsBatchObject[] = [];
    for (const { oid, size } of request.objects) {
      if (!oidPattern.test(oid) || !Number.isSafeInteger(size) || size < 0) {
        objects.push({
          oid,
          size,
          error: {
            code: 422,
            message: 'Invalid object: the oid must be 64 lowercase hex digits (sha256) and the size a whole number of bytes',
          },
        });
        continue;
      }
      const link = this.repo.findLink(project.id, oid);
      const stored = link ? await this.objects.findSize(oid) : undefined;
      const href = `${repoUrl}/info/lfs/objects/${oid}`;
      const action = (operation: LfsOperation) => ({
        href,
        header: { Authorization: `${transferScheme} ${this.sign({ projectId: project.id, operation, oid, size, userId: user?.id ?? 0 })}` },
        expires_in: this.ttl,
      });
      if (request.operation === 'download') {
        if (link && stored === link.size)
          objects.push({ oid, size: link.size, authenticated: true, actions: { download: action('download') } });
        else
          objects.push({
            oid,
            size,
            error: { code: 404, message: "Object does not exist on the server or you don't have permissions to access it" },
          });
      } else if (link && stored === link.size) {
        objects.push({ oid, size: link.size }); // already here: nothing to send
      } else if (size > this.options.maxObjectBytes) {
        objects.push({
          oid,
          size,
          error: { code: 422, message: `Object is larger than the server's limit of ${this.options.maxObjectBytes} bytes` },
        });
      } else {
        objects.push({
          oid,
          size,
          authenticated: true,
          actions: { upload: action('upload'), verify: { ...action('upload'), href: `${repoUrl}/info/lfs/objects/verify` } },
        });
      }
    }
    return { transfer: 'basic', objects, hash_algo: 'sha256' };
  }

  /** A transfer token's grant, or `unauthorized` when it is forged, expired or for another object. */
  checkToken(token: string, oid: string | null): LfsTransferGrant {
    const dot = token.lastIndexOf('.');
    const payload = dot > 0 ? token.slice(0, dot) : '';
    const given = Buffer.from(dot > 0 ? token.slice(dot + 1) : '', 'base64url');
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new AppError('unauthorized', 'Invalid LFS transfer token');
    const [projectId, operation, tokenOid, size, userId, expires] = Buffer.from(payload, 'base64url').toString('utf8').split(':');
    if (Number(expires) < Date.now() / 1000)
      throw new AppError('unauthorized', 'The LFS transfer token has expired; ask the batch API again');
    if (oid !== null && tokenOid !== oid) throw new AppError('unauthorized', 'The LFS transfer token is for another object');
    return {
      projectId: Number(projectId),
      operation: operation === 'upload' ? 'upload' : 'download',
      oid: String(tokenOid),
      size: Number(size),
      userId: Number(userId),
    };
  }

  /** Store an upload for a project and link it; `unprocessable` when the bytes are not `oid` of `size`. */
  async upload(project: Readonly<ProjectRecord>, oid: string, size: number, body: Readable): Promise<void> {
    if (!oidPattern.test(oid)) throw new AppError('unprocessable', 'Invalid oid');
    if (size > this.options.maxObjectBytes)
      throw new AppError('too-large', `Object is larger than the server's limit of ${this.options.maxObjectBytes} bytes`);
    try {
      await this.objects.write(oid, size, body);
      await this.repo.link(project.id, [{ oid, size }]);
    } finally {
      this.objects.release(oid);
    }
  }

  /** An object from an imported archive: checked against its oid like an upload, then linked. */
  async importObject(projectId: number, object: { readonly oid: string; readonly file: string; readonly size: number }): Promise<void> {
    const project = this.projects.policy.find(String(projectId));
    if (!project) throw new Error('The project was deleted during its import');
    await this.upload(project, object.oid, object.size, createReadStream(object.file));
  }

  /** The object files a project links that are on disk (for exports). */
  async filesOf(projectId: number): Promise<readonly { readonly oid: string; readonly file: string }[]> {
    const out: { oid: string; file: string }[] = [];
    for (const l of this.repo.linksOf(projectId))
      if ((await this.objects.findSize(l.oid)) === l.size) out.push({ oid: l.oid, file: this.objects.pathOf(l.oid) });
    return out;
  }

  /** A stream of an object the project links, with its size; `not-found` otherwise. */
  async download(project: Readonly<ProjectRecord>, oid: string): Promise<{ readonly size: number; readonly stream: ReadStream }> {
    const link = oidPattern.test(oid) ? this.repo.findLink(project.id, oid) : undefined;
    if (!link || (await this.objects.findSize(oid)) !== link.size) throw new AppError('not-found', messages.notFound);
    return { size: link.size, stream: this.objects.open(oid) };
  }

  /** The file of an object the project links, with its size, or undefined when it has none (the server reads it in place). */
  async findObjectFile(
    project: Readonly<ProjectRecord>,
    oid: string,
  ): Promise<{ readonly path: string; readonly size: number } | undefined> {
    const link = oidPattern.test(oid) ? this.repo.findLink(project.id, oid) : undefined;
    if (!link || (await this.objects.findSize(oid)) !== link.size) return undefined;
    return { path: this.objects.pathOf(oid), size: link.size };
  }

  /** Store bytes the server was handed (an API commit) as the project's object, as an upload would; returns its oid and size. */
  async storeContent(project: Readonly<ProjectRecord>, content: Buffer): Promise<{ readonly oid: string; readonly size: number }> {
    const oid = createHash('sha256').update(content).digest('hex');
    await this.upload(project, oid, content.length, Readable.from([content]));
    return { oid, size: content.length };
  }

  /** The verify action: the project links `oid` with this size and the file is there. */
  async verify(project: Readonly<ProjectRecord>, body: unknown): Promise<void> {
    const { oid, size } = (typeof body === 'object' && body !== null ? body : {}) as { oid?: unknown; size?: unknown };
    if (typeof oid !== 'string' || !oidPattern.test(oid) || typeof size !== 'number') throw new AppError('unprocessable', 'Invalid object');
    const link = this.repo.findLink(project.id, oid);
    if (!link || link.size !== size || (await this.objects.findSize(oid)) !== size) throw new AppError('not-found', messages.notFound);
  }

  /** The oids a project links (what a push's pointers may name). */
  linkedOids(projectId: number): readonly string[] {
    return this.repo.linksOf(projectId).map((l) => l.oid);
  }

  /** GitLab's `lfs_objects_size`: the bytes of the objects a project links. */
  sizeOf(projectId: number): number {
    return this.repo.linksOf(projectId).reduce((sum, l) => sum + l.size, 0);
  }

  /** A fork references its parent's objects (no copy: the files are shared). */
  async linkFork(sourceId: number, forkId: number): Promise<void> {
    await this.repo.link(forkId, this.repo.linksOf(sourceId));
  }

  /** A deleted project's links and locks go; its objects stay until housekeeping finds them unreferenced. */
  async forgetProject(projectId: number): Promise<void> {
    await this.repo.forgetProject(projectId);
  }

  /** Remove the object files no project links (never one an upload is writing). */
  removeUnreferenced(): { readonly removed: number; readonly bytes: number } {
    const linked = this.repo.linkedOids();
    return this.objects.sweep((oid) => linked.has(oid));
  }

  private sign(grant: LfsTransferGrant): string {
    const expires = Math.floor(Date.now() / 1000) + this.ttl;
    const payload = Buffer.from([grant.projectId, grant.operation, grant.oid, grant.size, grant.userId, expires].join(':')).toString(
      'base64url',
    );
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest();
  }
}

/** A batch request checked for shape (objects are checked one by one: the spec answers those per object). */
function parseBatch(
  body: unknown,
  maxObjects: number,
): { readonly operation: LfsOperation; readonly objects: readonly { oid: string; size: number }[] } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (b.operation !== 'download' && b.operation !== 'upload')
    throw new AppError('unprocessable', 'operation must be "download" or "upload"');
  if (!Array.isArray(b.objects)) throw new AppError('unprocessable', 'objects must be a list');
  if (b.objects.length > maxObjects) throw new AppError('unprocessable', `At most ${maxObjects} objects per batch request`);
  if (Array.isArray(b.transfers) && b.transfers.length > 0 && !b.transfers.includes('basic'))
    throw new AppError('unprocessable', 'Only the basic transfer adapter is served');
  if (b.hash_algo !== undefined && b.hash_algo !== 'sha256')
    throw new AppError('conflict', 'Only the sha256 hash algorithm is served', { code: 'hash_algo' });
  const objects = (b.objects as unknown[]).map((o) => {
    const x = (typeof o === 'object' && o !== null ? o : {}) as Record<string, unknown>;
    return { oid: typeof x.oid === 'string' ? x.oid : '', size: typeof x.size === 'number' ? x.size : -1 };
  });
  return { operation: b.operation, objects };
}
