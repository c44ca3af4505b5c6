/** The Git LFS file-locking API (spec: docs/api/locking.md) over the store's lfsLocks. */
import type { IdentityService } from '../../auth/identity.js';
import { AppError } from '../../http/errors.js';
import type { LfsLockRecord, ProjectRecord, UserRecord } from '../../store/schema.js';
import type { Viewer } from '../projects/project-access.js';
import type { ProjectService } from '../projects/projects.js';
import type { LfsRepo } from './lfs-repo.js';

/** A lock as the locking API shows it. */
export interface LfsLockJson {
  readonly id: string;
  readonly path: string;
  readonly locked_at: string;
  readonly owner: { readonly name: string };
}

/** A page of locks and where the next one starts. */
export interface LfsLockPage<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | undefined;
}

/** Filters of `GET locks`. */
export interface LfsLockQuery {
  readonly path?: string;
  readonly id?: string;
  readonly cursor?: string;
  readonly limit?: string | number;
  readonly refspec?: string;
}

const maxLimit = 100;

/** Lock, list, verify and unlock files of a project. */
export class LfsLockService {
  constructor(
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    private readonly repo: LfsRepo,
  ) {}

  /** Lock a path; `conflict` carrying the existing lock when someone holds it already. */
  async create(project: Readonly<ProjectRecord>, user: Readonly<UserRecord>, body: unknown): Promise<LfsLockJson> {
    const b = objectOf(body);
    if (typeof b.path !== 'string' || b.path === '' || b.path.length > 4096) throw new AppError('unprocessable', 'path is missing');
    const refName = typeof objectOf(b.ref).name === 'string' ? String(objectOf(b.ref).name) : null;
    const { lock, created } = await this.repo.insertLock({
      projectId: project.id,
      path: b.path,
      ownerId: user.id,
      refName,
      lockedAt: new Date().toISOString(),
    });
    if (!created) throw new LockConflict(this.present(lock));
    return this.present(lock);
  }

  /** Locks of a project, oldest first, filtered and paged (the cursor is the id to start from). */
  list(project: Readonly<ProjectRecord>, query: LfsLockQuery): LfsLockPage<LfsLockJson> {
    const limit = limitOf(query.limit);
    let locks = this.repo.locksOf(project.id);
    if (query.path) locks = locks.filter((l) => l.path === query.path);
    if (query.id) locks = locks.filter((l) => String(l.id) === query.id);
    if (query.refspec) locks = locks.filter((l) => l.refName === null || l.refName === query.refspec);
    return this.page(locks, query.cursor, limit, (l) => this.present(l));
  }

  /** Locks split into the caller's and everyone else's (git-lfs asks before a push). */
  verify(
    project: Readonly<ProjectRecord>,
    user: Readonly<UserRecord>,
    body: unknown,
  ): { readonly ours: readonly LfsLockJson[]; readonly theirs: readonly LfsLockJson[]; readonly nextCursor: string | undefined } {
    const b = objectOf(body);
    const refName = typeof objectOf(b.ref).name === 'string' ? String(objectOf(b.ref).name) : null;
    let locks = this.repo.locksOf(project.id);
    if (refName) locks = locks.filter((l) => l.refName === null || l.refName === refName);
    const page = this.page(
      locks,
      typeof b.cursor === 'string' ? b.cursor : undefined,
      limitOf(b.limit as string | number | undefined),
      (l) => l,
    );
    const ours = page.items.filter((l) => l.ownerId === user.id).map((l) => this.present(l));
    const theirs = page.items.filter((l) => l.ownerId !== user.id).map((l) => this.present(l));
    return { ours, theirs, nextCursor: page.nextCursor };
  }

  /** Unlock: the owner, or with `force` a maintainer (GitLab: who may admin the project). */
  async unlock(project: Readonly<ProjectRecord>, viewer: Viewer, lockId: string, body: unknown): Promise<LfsLockJson> {
    const lock = this.repo.locksOf(project.id).find((l) => String(l.id) === lockId);
    if (!lock) throw new AppError('not-found', 'Lock not found');
    const force = objectOf(body).force === true;
    if (lock.ownerId !== viewer.user?.id) {
      if (!force)
        throw new AppError('forbidden', `${this.present(lock).owner.name} owns this lock; unlock it with force (maintainers only)`);
      if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'You must have maintainer access to force delete a lock');
    }
    await this.repo.removeLock(project.id, lock.id);
    return this.present(lock);
  }

  private page<T>(
    locks: readonly Readonly<LfsLockRecord>[],
    cursor: string | undefined,
    limit: number,
    map: (l: Readonly<LfsLockRecord>) => T,
  ): LfsLockPage<T> {
    const sorted = [...locks].sort((a, b) => a.id - b.id);
    const from = cursor && /^\d+$/.test(cursor) ? sorted.findIndex((l) => l.id >= Number(cursor)) : 0;
    const start = from < 0 ? sorted.length : from;
    const items = sorted.slice(start, start + limit);
    const next = sorted[start + limit];
    return { items: items.map(map), nextCursor: next ? String(next.id) : undefined };
  }

  private present(lock: Readonly<LfsLockRecord>): LfsLockJson {
    const owner = this.identity.findUserById(lock.ownerId);
    return { id: String(lock.id), path: lock.path, locked_at: lock.lockedAt, owner: { name: owner?.name ?? 'Ghost User' } };
  }
}

/** 409 of a create: the spec wants the existing lock in the body. */
export class LockConflict extends AppError {
  constructor(readonly lock: LfsLockJson) {
    super('conflict', 'already created lock', { code: 'lock_exists' });
  }
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function limitOf(value: string | number | undefined): number {
  const n = Number(value ?? maxLimit);
  return Number.isInteger(n) && n > 0 ? Math.min(n, maxLimit) : maxLimit;
}
