import { randomBytes } from 'node:crypto';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { accessLevels, type IdentityService } from '../../auth/identity.js';
import { AppError, notFound } from '../../http/errors.js';
import type { JobRunner } from '../../queue/job-runner.js';
import type { NamespaceRecord, ProjectRecord, ProjectShareRecord, UploadRecord, UserRecord, Visibility } from '../../store/schema.js';
import type { Viewer } from './project-access.js';
import { checkNameAndPath, mostRestrictive } from './project-rules.js';
import type { ProjectsRepo } from './projects-repo.js';
import { projectJobTypes, type ProjectPaths, type ProjectService, type ProjectStores, type RepositoryOps } from './projects.js';

/** Group access levels a share may grant. */
const shareLevels = new Set([
  accessLevels.guest,
  accessLevels.reporter,
  accessLevels.developer,
  accessLevels.maintainer,
  accessLevels.owner,
]);

/** What a fork request names. */
export interface ForkInput {
  /** Target namespace by id or full path; defaults to the caller's own. */
  readonly namespace?: string;
  readonly name?: string;
  readonly path?: string;
  readonly description?: string;
  readonly visibility?: Visibility;
}

/** Stars, archive, shares, forks, housekeeping and uploads: the project actions beyond create/edit. */
export class ProjectActions {
  private readonly repo: ProjectsRepo;
  private readonly git: RepositoryOps;
  private readonly paths: ProjectPaths;

  constructor(
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    stores: ProjectStores,
    private readonly jobs: JobRunner,
    private readonly now: () => Date = () => new Date(),
    /** Runs after a project's housekeeping (LFS removes the objects no project links). */
    private readonly afterHousekeeping: () => Promise<void> | void = () => undefined,
  ) {
    this.repo = stores.repo;
    this.git = stores.git;
    this.paths = stores.paths;
  }

  /** Star or unstar; false when nothing changed (the route answers 304). */
  async setStar(viewer: Viewer, project: Readonly<ProjectRecord>, starred: boolean): Promise<boolean> {
    const user = requireUser(viewer);
    return this.repo.setStar(project.id, user.id, starred);
  }

  /** Archive or unarchive (owner or admin); idempotent. */
  async setArchived(viewer: Viewer, project: Readonly<ProjectRecord>, archived: boolean): Promise<Readonly<ProjectRecord>> {
    if (!viewer.isOwner(project)) throw new AppError('forbidden', 'Forbidden');
    if (project.archived === archived) return project;
    return this.repo.update(project.id, { archived, updatedAt: this.now().toISOString() });
  }

  /** Set one of GitLab's admin custom attributes (the route checks the caller is an admin). */
  async setCustomAttribute(project: Readonly<ProjectRecord>, key: string, value: string): Promise<void> {
    await this.repo.update(project.id, { customAttributes: { ...project.customAttributes, [key]: value } });
  }

  /** Remove a custom attribute; `404 Custom Attribute Not Found` when it is not set. */
  async removeCustomAttribute(project: Readonly<ProjectRecord>, key: string): Promise<void> {
    if (!(key in project.customAttributes)) throw notFound('Custom Attribute');
    const rest = Object.fromEntries(Object.entries(project.customAttributes).filter(([k]) => k !== key));
    await this.repo.update(project.id, { customAttributes: rest });
  }

  /** Share with a group (maintainers): GitLab's validation order and conflicts. */
  async share(
    viewer: Viewer,
    project: Readonly<ProjectRecord>,
    groupId: number,
    groupAccess: number,
    expiresAt: string | null,
  ): Promise<Readonly<ProjectShareRecord>> {
    if (!shareLevels.has(groupAccess as 10)) {
      throw new AppError('invalid', 'group_access does not have a valid value', {
        issues: [{ loc: ['group_access'], msg: 'does not have a valid value', type: 'value', input: groupAccess }],
      });
    }
    if (expiresAt !== null && (!/^\d{4}-\d{2}-\d{2}$/.test(expiresAt) || Number.isNaN(Date.parse(expiresAt)))) {
      throw new AppError('invalid', 'expires_at is invalid', {
        issues: [{ loc: ['expires_at'], msg: 'is invalid', type: 'invalid', input: expiresAt }],
      });
    }
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
    const group = this.identity.findGroup(groupId);
    if (!group || !this.identity.canReadGroup(viewer.user, group)) throw new AppError('not-found', 'Not Found');
    const ns = this.projects.namespaceOf(project);
    if (ns.kind === 'group' && isSelfOrAncestor(this.identity, groupId, ns.id)) {
      throw new AppError('conflict', 'Project cannot be shared with the group it is in or one of its ancestors.');
    }
    if (this.repo.sharesOf(project.id).some((s) => s.groupId === groupId))
      throw new AppError('conflict', 'Project already shared with this group');
    return this.repo.insertShare({ projectId: project.id, groupId, groupAccess, expiresAt, createdAt: this.now().toISOString() });
  }

  /** Remove a share; `404 Group Link Not Found` when there is none. */
  async unshare(viewer: Viewer, project: Readonly<ProjectRecord>, groupId: number): Promise<void> {
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
    if (!(await this.repo.removeShare(project.id, groupId))) throw notFound('Group Link');
  }

  /**
   * Fork into a namespace the caller may create projects in. The new project is recorded at once
   * with `import_status: scheduled`; a job copies the repository and moves it to finished.
   */
  async fork(viewer: Viewer, source: Readonly<ProjectRecord>, input: ForkInput): Promise<Readonly<ProjectRecord>> {
    const user = requireUser(viewer);
    const identity = this.identity;
    let ns: Readonly<NamespaceRecord> | undefined;
    if (input.namespace === undefined) ns = identity.findNamespace(user.namespaceId);
    else
      ns = /^\d+$/.test(input.namespace) ? identity.findNamespace(Number(input.namespace)) : identity.findNamespaceByPath(input.namespace);
    if (!ns) throw notFound('Namespace');
    const allowed = user.admin || (ns.kind === 'user' ? ns.ownerId === user.id : viewer.namespaceLevel(ns.id) >= accessLevels.developer);
    if (!allowed) throw notFound('Target Namespace');
    const name = input.name ?? source.name;
    const projectPath = input.path ?? source.path;
    const fields = checkNameAndPath(name, projectPath);
    if (!fields.name && this.repo.byName(ns.id, name)) fields.name = ['has already been taken'];
    if (!fields.path && this.repo.byPath(ns.id, projectPath)) fields.path = ['has already been taken'];
    if (Object.keys(fields).length > 0) throw new AppError('conflict', 'project is invalid', { fields });
    // Never more open than the source, the request, or the target group.
    const caps = [input.visibility ?? source.visibility];
    if (ns.kind === 'group') caps.push(identity.findGroup(ns.id)?.visibility ?? 'private');
    const visibility = mostRestrictive(source.visibility, ...caps);
    const at = this.now().toISOString();
    const fork = await this.repo.insert({
      ...source,
      name,
      path: projectPath,
      namespaceId: ns.id,
      description: input.description ?? source.description,
      visibility,
      creatorId: user.id,
      archived: false,
      importUrl: null,
      importStatus: 'scheduled',
      importError: null,
      forkedFromId: source.id,
      emptyRepo: true,
      runnersToken: randomBytes(20).toString('hex'),
      customAttributes: {},
      settings: { ...source.settings },
      tagList: [...source.tagList],
      createdAt: at,
      updatedAt: at,
      lastActivityAt: at,
    });
    await this.jobs.submit({ type: projectJobTypes.fork, tenant: user.tenant, params: { projectId: fork.id } });
    return fork;
  }

  /** Admin: mark an existing project as a fork of another (GitLab's conflicts and checks). */
  async linkFork(viewer: Viewer, project: Readonly<ProjectRecord>, forkedFromId: number): Promise<Readonly<ProjectRecord>> {
    if (!viewer.admin) throw new AppError('forbidden', 'Forbidden');
    const source = this.repo.byId(forkedFromId);
    if (!source || !viewer.canRead(source)) throw notFound('Project');
    if (source.id === project.id) throw new AppError('invalid', 'Target project cannot be equal to source project');
    if (project.forkedFromId !== null) throw new AppError('conflict', 'Project already forked');
    return this.repo.update(project.id, { forkedFromId: source.id });
  }

  /** Admin (or owner): forget where a fork came from; false when it was not a fork (304). */
  async unlinkFork(viewer: Viewer, project: Readonly<ProjectRecord>): Promise<boolean> {
    if (!viewer.admin && !viewer.isOwner(project)) throw new AppError('forbidden', 'Forbidden');
    if (project.forkedFromId === null) return false;
    await this.repo.update(project.id, { forkedFromId: null });
    return true;
  }

  /** `git gc` on the repository (maintainers). */
  async housekeeping(viewer: Viewer, project: Readonly<ProjectRecord>): Promise<void> {
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
    await this.git.housekeeping(this.paths.repository(project));
    await this.afterHousekeeping();
  }

  /** Users who are members of the project: the owner of a personal project, its group's members and shared groups' members. */
  members(project: Readonly<ProjectRecord>, search: string | undefined): Readonly<UserRecord>[] {
    const identity = this.identity;
    const ids = new Set<number>();
    const ns = this.projects.namespaceOf(project);
    if (ns.kind === 'user') ids.add(ns.ownerId);
    const groupIds = [...identity.ancestorIds(ns.kind === 'group' ? ns.id : null), ...this.repo.sharesOf(project.id).map((s) => s.groupId)];
    for (const m of identity.allMemberships()) if (groupIds.includes(m.groupId)) ids.add(m.userId);
    const q = search?.toLowerCase();
    return [...ids]
      .map((id) => identity.findUserById(id))
      .filter((u): u is Readonly<UserRecord> => !!u)
      .filter((u) => !q || u.username.toLowerCase().includes(q) || u.name.toLowerCase().includes(q))
      .sort((a, b) => a.id - b.id);
  }

  /** Keep an uploaded file under uploads/<project_id>/<secret>/<name> (any member who can read may upload). */
  async saveUpload(
    viewer: Viewer,
    project: Readonly<ProjectRecord>,
    tempFile: string,
    filename: string,
    size: number,
  ): Promise<Readonly<UploadRecord>> {
    const user = requireUser(viewer);
    const secret = randomBytes(16).toString('hex');
    const name = safeFileName(filename);
    const dir = path.join(this.paths.uploads(project.id), secret);
    await mkdir(dir, { recursive: true });
    await rename(tempFile, path.join(dir, name));
    return this.repo.insertUpload({
      projectId: project.id,
      secret,
      filename: name,
      size,
      uploaderId: user.id,
      createdAt: this.now().toISOString(),
    });
  }
}

function requireUser(viewer: Viewer): Readonly<UserRecord> {
  if (!viewer.user) throw new AppError('unauthorized', 'Unauthorized');
  return viewer.user;
}

/** GitLab's file name sanitising: keep letters, digits, `.`, `_`, `-`; everything else becomes `_`. */
export function safeFileName(name: string): string {
  const base = path
    .basename(name.replace(/\\/g, '/'))
    .replace(/[^\w.-]/g, '_')
    .replace(/^\.+/, '_');
  return base.slice(0, 200) || 'file';
}

function isSelfOrAncestor(identity: IdentityService, groupId: number, projectGroupId: number): boolean {
  return identity.ancestorIds(projectGroupId).includes(groupId);
}
