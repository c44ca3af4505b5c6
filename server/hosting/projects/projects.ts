// The project service: create, edit, delete, pushes and the records' rules. Over 400 lines because
// create/edit/remove share the claiming of repository folders and the per-project queue that orders
// edits and pushes; the reads, actions, storage and jobs are in their own files beside it.
import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { accessLevels, type IdentityService } from '../../auth/identity.js';
import { AppError } from '../../http/errors.js';
import { createLogger, type Logger } from '../../http/logger.js';
import type { JobRunner } from '../../queue/job-runner.js';
import type {
  MergeMethod,
  NamespaceRecord,
  ProjectRecord,
  ProjectSettings,
  UploadRecord,
  UserRecord,
  Visibility,
} from '../../store/schema.js';
import { ProjectPolicy, type Viewer } from './project-access.js';
import { isValidBranchName } from '../git/git-names.js';
import type { RepositoryStats } from '../git/repositories.js';
import { checkNameAndPath, defaultSettings, httpUrlProblem, pathFromName, settingKeys, visibilityOrder } from './project-rules.js';
import type { ProjectsRepo } from './projects-repo.js';

/** The repository operations projects need (implemented over system git in git/repositories.ts). */
export interface RepositoryOps {
  init(dir: string, defaultBranch: string): Promise<void>;
  remove(dir: string): Promise<void>;
  move(from: string, to: string): Promise<void>;
  stats(dir: string, defaultBranch: string): Promise<RepositoryStats>;
  setHead(dir: string, branch: string): Promise<void>;
  /** Write the first commit of `branch`: one file at the top of the tree (GitLab's `initialize_with_readme`). */
  commitInitialFile(
    dir: string,
    branch: string,
    file: { readonly path: string; readonly content: string },
    message: string,
    by: { readonly name: string; readonly email: string },
  ): Promise<string>;
  /** The path of `branch`'s README as GitLab picks it (readme_url), or null. */
  readme(dir: string, branch: string): Promise<string | null>;
  /** The last commit of `branch`, or null when it has none (badges' `%{commit_sha}`). */
  headCommit(dir: string, branch: string): Promise<string | null>;
  housekeeping(dir: string): Promise<void>;
  /** Every repository directory under a root. */
  list(root: string): Promise<string[]>;
  /** True when something is at `dir`. */
  exists(dir: string): Promise<boolean>;
  /** Move an unowned repository under `into` (keeping its path below `root`); returns where it went. */
  moveAside(dir: string, root: string, into: string, stamp: string): Promise<string>;
  snapshot(dir: string): Promise<Readable>;
  fork(sourceDir: string, targetDir: string, signal: AbortSignal): Promise<void>;
  importFrom(url: string, targetDir: string, signal: AbortSignal): Promise<void>;
}

/** Attributes of `P` as parsed from a request; undefined means "not sent". */
export interface ProjectInput {
  readonly name?: string;
  readonly path?: string;
  readonly namespaceId?: number;
  readonly description?: string | null;
  readonly visibility?: Visibility;
  readonly defaultBranch?: string;
  readonly settings?: Partial<ProjectSettings>;
  readonly mergeMethod?: MergeMethod;
  readonly tagList?: readonly string[];
  readonly ciConfigPath?: string | null;
  readonly importUrl?: string;
  /** Create only: commit a README.md to the default branch (GitLab's `initialize_with_readme`). */
  readonly initializeWithReadme?: boolean;
}

/** Job types the project service runs. */
export const projectJobTypes = { fork: 'project-fork', import: 'project-import' } as const;

/**
 * What the project services are built over: the records, the repositories and the folders they live
 * in. set-up-hosting hands it to each service that needs it; no service exposes it, so every reach
 * into storage shows in that service's imports.
 */
export interface ProjectStores {
  readonly repo: ProjectsRepo;
  readonly git: RepositoryOps;
  readonly paths: ProjectPaths;
}

/** Where a project's files live. */
export interface ProjectPaths {
  /** The bare repository. */
  repository(project: Readonly<ProjectRecord>): string;
  /** The folder all repositories live under. */
  readonly repositoryRoot: string;
  /** Where repositories no project owns are moved (never deleted). */
  readonly lostAndFound: string;
  /** A fresh folder to build a new repository in before it gets its project (tmp/, emptied at boot). */
  staging(): string;
  /** The project's uploads folder. */
  uploads(projectId: number): string;
}

/** Projects: create, edit, delete, and the lookups every project route starts with. */
export class ProjectService {
  readonly policy: ProjectPolicy;
  /** Repository folders a create or rename of this process is filling (never orphans). */
  private readonly claims = new Set<string>();
  /** Per project, the tail of the HEAD changes (edits of `default_branch`, a push's default) running in turn. */
  private readonly headChanges = new Map<number, Promise<unknown>>();

  private readonly repo: ProjectsRepo;
  private readonly git: RepositoryOps;
  private readonly paths: ProjectPaths;

  constructor(
    private readonly identity: IdentityService,
    stores: ProjectStores,
    private readonly jobs: JobRunner,
    private readonly now: () => Date = () => new Date(),
    private readonly log: Logger = createLogger('silent'),
  ) {
    this.repo = stores.repo;
    this.git = stores.git;
    this.paths = stores.paths;
    this.policy = new ProjectPolicy(identity, this.repo, () => this.now().toISOString().slice(0, 10));
  }

  /** The namespace a project lives in. */
  namespaceOf(project: Readonly<ProjectRecord>): Readonly<NamespaceRecord> {
    const ns = this.identity.findNamespace(project.namespaceId);
    if (!ns) throw new Error(`project ${project.id} has no namespace ${project.namespaceId}`);
    return ns;
  }

  /** `group/sub` or `username`. */
  namespaceFullPath(ns: Readonly<NamespaceRecord>): string {
    if (ns.kind === 'user') return ns.path;
    const group = this.identity.findGroup(ns.id);
    return group ? this.identity.fullPath(group) : ns.path;
  }

  /** The namespace's name as GitLab's `name_with_namespace` starts: the owner's name, or the group's full name. */
  namespaceName(ns: Readonly<NamespaceRecord>): string {
    if (ns.kind === 'user') return this.identity.findUserById(ns.ownerId)?.name ?? ns.name;
    const group = this.identity.findGroup(ns.id);
    return group ? this.identity.fullName(group) : '';
  }

  /** `namespace/path`. */
  fullPath(project: Readonly<ProjectRecord>): string {
    return `${this.namespaceFullPath(this.namespaceOf(project))}/${project.path}`;
  }

  /**
   * Create a project owned by `owner` (the caller, or for admins any user): GitLab's name and path
   * rules, uniqueness per namespace, visibility capped by the group's, a bare repository, and an
   * import job when `import_url` is given.
   */
  async create(viewer: Viewer, input: ProjectInput, owner: Readonly<UserRecord>): Promise<Readonly<ProjectRecord>> {
    const caller = viewer.user;
    if (!caller) throw new AppError('unauthorized', 'Unauthorized');
    const name = (input.name ?? input.path ?? '').trim();
    const projectPath = input.path ?? pathFromName(name);
    const fields = checkNameAndPath(name, projectPath);
    const namespaceId = input.namespaceId ?? owner.namespaceId;
    const ns = this.identity.findNamespace(namespaceId);
    const mayCreate =
      ns &&
      (caller.admin ||
        (ns.kind === 'user'
          ? ns.ownerId === owner.id && (owner.id === caller.id || caller.admin)
          : viewer.namespaceLevel(ns.id) >= accessLevels.developer));
    if (!ns || !mayCreate) throw new AppError('invalid', 'namespace is not valid', { fields: { namespace: ['is not valid'] } });
    const visibility = input.visibility ?? 'private';
    this.checkVisibilityInGroup(ns, visibility, fields);
    if (input.description && input.description.length > 2000) fields.description = ['is too long (maximum is 2000 characters)'];
    // GitLab takes `default_branch.presence`: a blank value (glab always sends one) means the default.
    const defaultBranch = input.defaultBranch?.trim() ? input.defaultBranch : 'main';
    if (!isValidBranchName(defaultBranch)) fields.default_branch = ['is invalid'];
    if (input.importUrl !== undefined) checkImportUrl(input.importUrl, fields);
    if (!fields.name && this.repo.byName(ns.id, name)) fields.name = ['has already been taken'];
    if (!fields.path && this.repo.byPath(ns.id, projectPath)) fields.path = ['has already been taken'];
    if (Object.keys(fields).length > 0) throw new AppError('invalid', 'project is invalid', { fields });

    // An import brings its own history; GitLab commits the README only to a new, empty repository.
    const withReadme = input.initializeWithReadme === true && input.importUrl === undefined;
    const at = this.now().toISOString();
    const record: Omit<ProjectRecord, 'id'> = {
      name,
      path: projectPath,
      namespaceId: ns.id,
      description: input.description ?? null,
      visibility,
      defaultBranch,
      creatorId: caller.id,
      settings: { ...defaultSettings, ...input.settings },
      mergeMethod: input.mergeMethod ?? 'merge',
      tagList: [...(input.tagList ?? [])],
      ciConfigPath: input.ciConfigPath ?? null,
      archived: false,
      importUrl: input.importUrl ?? null,
      importStatus: input.importUrl ? 'scheduled' : 'none',
      importError: null,
      forkedFromId: null,
      emptyRepo: !withReadme,
      readmePath: withReadme ? 'README.md' : null,
      runnersToken: randomBytes(20).toString('hex'),
      customAttributes: {},
      createdAt: at,
      updatedAt: at,
      lastActivityAt: at,
    };
    // The repository is built in tmp/ (emptied at boot), the record written, then the repository
    // renamed into place: a crash at any point leaves no repository that no project owns. (One
    // between the record and the rename leaves a project without its empty repository, which the
    // boot's reconciliation creates again.)
    const dir = this.repositoryDir(ns, projectPath);
    const project = await this.claiming(dir, async () => {
      const staged = input.importUrl ? null : this.paths.staging();
      if (staged) await this.git.init(staged, defaultBranch);
      try {
        if (staged && withReadme)
          await this.git.commitInitialFile(
            staged,
            defaultBranch,
            { path: 'README.md', content: readmeContent(name, record.description) },
            'Initial commit',
            owner,
          );
      } catch (error) {
        if (staged) await this.git.remove(staged);
        throw error;
      }
      let inserted: Readonly<ProjectRecord>;
      try {
        inserted = await this.repo.insert(record);
      } catch (error) {
        if (staged) await this.git.remove(staged);
        throw error;
      }
      try {
        await this.setAsideOrphan(dir, inserted.id);
        if (staged) await this.git.move(staged, dir);
      } catch (error) {
        await this.repo.remove(inserted.id);
        if (staged) await this.git.remove(staged);
        throw error;
      }
      return inserted;
    });
    if (input.importUrl) await this.jobs.submit({ type: projectJobTypes.import, tenant: caller.tenant, params: { projectId: project.id } });
    return project;
  }

  /**
   * A repository at `dir` that no project record owns and no operation of this process is making
   * (a create or delete killed part-way by an older build, a failed removal) is moved to lost+found
   * and logged, so it never blocks the name. The caller holds the claim on `dir`; `forProject` is
   * the project the caller is placing there (whose record may already name it).
   */
  async setAsideOrphan(dir: string, forProject?: number): Promise<void> {
    if (!(await this.git.exists(dir))) return;
    // Another node may have just committed the record and renamed its repository into place.
    await this.repo.sync();
    if (this.repo.projects.some((p) => p.id !== forProject && this.ownsDirectory(p, dir))) return;
    const to = await this.git.moveAside(dir, this.paths.repositoryRoot, this.paths.lostAndFound, lostAndFoundStamp(this.now()));
    this.log.info(`repositories: ${path.relative(this.paths.repositoryRoot, dir)} belonged to no project; moved to ${to}`);
  }

  /** Whether `dir` is the repository of `project`. */
  ownsDirectory(project: Readonly<ProjectRecord>, dir: string): boolean {
    try {
      return path.resolve(this.paths.repository(project)) === path.resolve(dir);
    } catch {
      return false; // a project whose namespace is gone owns no folder
    }
  }

  /** True while a create or rename of this process is putting a repository at `dir`. */
  isClaimed(dir: string): boolean {
    return this.claims.has(path.resolve(dir));
  }

  /** Run `work` after the HEAD changes of the project queued before it: an edit and a push never interleave. */
  private async changingHead<T>(projectId: number, work: () => Promise<T>): Promise<T> {
    const before = this.headChanges.get(projectId) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.catch(() => undefined);
    this.headChanges.set(projectId, tail);
    try {
      return await mine;
    } finally {
      if (this.headChanges.get(projectId) === tail) this.headChanges.delete(projectId);
    }
  }

  /** Run `work` holding `dir`: two creates or renames never race for one folder. */
  private async claiming<T>(dir: string, work: () => Promise<T>): Promise<T> {
    const key = path.resolve(dir);
    if (this.claims.has(key)) throw new AppError('invalid', 'project is invalid', { fields: { path: ['has already been taken'] } });
    this.claims.add(key);
    try {
      return await work();
    } finally {
      this.claims.delete(key);
    }
  }

  /** Edit a project (maintainers; visibility and path changes included). Unknown-to-us attributes are ignored. */
  async update(viewer: Viewer, project: Readonly<ProjectRecord>, input: ProjectInput): Promise<Readonly<ProjectRecord>> {
    if (!viewer.canAdmin(project)) throw new AppError('forbidden', 'Forbidden');
    const ns = this.namespaceOf(project);
    const name = input.name?.trim() ?? project.name;
    const projectPath = input.path ?? project.path;
    const fields = checkNameAndPath(name, projectPath);
    const visibility = input.visibility ?? project.visibility;
    if (input.visibility !== undefined) this.checkVisibilityInGroup(ns, visibility, fields);
    if (input.description && input.description.length > 2000) fields.description = ['is too long (maximum is 2000 characters)'];
    if (input.defaultBranch !== undefined && !isValidBranchName(input.defaultBranch)) fields.default_branch = ['is invalid'];
    if (!fields.name && name.toLowerCase() !== project.name.toLowerCase() && this.repo.byName(ns.id, name))
      fields.name = ['has already been taken'];
    if (!fields.path && projectPath.toLowerCase() !== project.path.toLowerCase() && this.repo.byPath(ns.id, projectPath))
      fields.path = ['has already been taken'];
    if (Object.keys(fields).length > 0) throw new AppError('invalid', 'project is invalid', { fields });

    if (projectPath.toLowerCase() !== project.path.toLowerCase()) {
      const target = this.repositoryDir(ns, projectPath);
      return this.claiming(target, async () => {
        await this.setAsideOrphan(target);
        return this.applyUpdate(project, ns, name, projectPath, visibility, input);
      });
    }
    return this.applyUpdate(project, ns, name, projectPath, visibility, input);
  }

  private async applyUpdate(
    project: Readonly<ProjectRecord>,
    ns: Readonly<NamespaceRecord>,
    name: string,
    projectPath: string,
    visibility: Visibility,
    input: ProjectInput,
  ): Promise<Readonly<ProjectRecord>> {
    if (input.defaultBranch === undefined) return this.writeUpdate(project, ns, name, projectPath, visibility, input);
    // In turn with a push's default-branch choice, reading the record as it is once our turn comes.
    return this.changingHead(project.id, () =>
      this.writeUpdate(this.repo.byId(project.id) ?? project, ns, name, projectPath, visibility, input),
    );
  }

  private async writeUpdate(
    project: Readonly<ProjectRecord>,
    ns: Readonly<NamespaceRecord>,
    name: string,
    projectPath: string,
    visibility: Visibility,
    input: ProjectInput,
  ): Promise<Readonly<ProjectRecord>> {
    const newHead = input.defaultBranch !== undefined && input.defaultBranch !== project.defaultBranch ? input.defaultBranch : undefined;
    // GitLab's Project#change_head: HEAD only ever names a branch that exists.
    if (newHead !== undefined && (await this.git.headCommit(this.repositoryDir(ns, project.path), newHead)) === null) {
      throw new AppError('invalid', `Could not change HEAD: branch '${newHead}' does not exist`, {
        fields: { base: [`Could not change HEAD: branch '${newHead}' does not exist`] },
      });
    }
    if (projectPath !== project.path) await this.git.move(this.repositoryDir(ns, project.path), this.repositoryDir(ns, projectPath));
    const at = this.now().toISOString();
    try {
      if (newHead !== undefined) await this.git.setHead(this.repositoryDir(ns, projectPath), newHead);
      return await this.repo.update(project.id, {
        name,
        path: projectPath,
        visibility,
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.defaultBranch !== undefined
          ? {
              defaultBranch: input.defaultBranch,
              readmePath: await this.git.readme(this.repositoryDir(ns, projectPath), input.defaultBranch),
            }
          : {}),
        ...(input.settings ? { settings: { ...project.settings, ...input.settings } } : {}),
        ...(input.mergeMethod !== undefined ? { mergeMethod: input.mergeMethod } : {}),
        ...(input.tagList !== undefined ? { tagList: [...input.tagList] } : {}),
        ...(input.ciConfigPath !== undefined ? { ciConfigPath: input.ciConfigPath } : {}),
        updatedAt: at,
        lastActivityAt: at,
      });
    } catch (error) {
      if (projectPath !== project.path) await this.git.move(this.repositoryDir(ns, projectPath), this.repositoryDir(ns, project.path));
      throw error;
    }
  }

  /** Delete a project with its repository, uploads, stars, shares and fork links (owners and admins). */
  async remove(
    viewer: Viewer,
    project: Readonly<ProjectRecord>,
    extraCleanup: (projectId: number) => Promise<void> = async () => undefined,
  ): Promise<void> {
    if (!viewer.isOwner(project)) throw new AppError('forbidden', 'Forbidden');
    const dir = this.paths.repository(project);
    await this.repo.remove(project.id);
    await extraCleanup(project.id);
    await this.git.remove(dir);
    await rm(this.paths.uploads(project.id), { recursive: true, force: true });
  }

  /** A push changed the repository: record activity and emptiness, and give a first push's branch the default. */
  async recordPush(pushed: Readonly<ProjectRecord>): Promise<Readonly<ProjectRecord>> {
    return this.changingHead(pushed.id, () => this.applyPush(this.repo.byId(pushed.id) ?? pushed));
  }

  private async applyPush(project: Readonly<ProjectRecord>): Promise<Readonly<ProjectRecord>> {
    const dir = this.paths.repository(project);
    const stats = await this.git.stats(dir, project.defaultBranch);
    let defaultBranch = project.defaultBranch;
    // GitLab makes the first pushed branch the default when the configured one does not exist.
    if (!stats.empty && !stats.branches.includes(defaultBranch) && stats.branches.length > 0) {
      defaultBranch = stats.branches.includes('main') ? 'main' : stats.branches.includes('master') ? 'master' : stats.branches[0]!;
      await this.git.setHead(dir, defaultBranch);
    }
    const at = new Date().toISOString();
    const readmePath = await this.git.readme(dir, defaultBranch);
    return this.repo.update(project.id, { emptyRepo: stats.empty, defaultBranch, readmePath, lastActivityAt: at });
  }

  /** An upload of the project and its file, or undefined when the secret and name match none. */
  findUpload(
    project: Readonly<ProjectRecord>,
    secret: string,
    filename: string,
  ): { readonly upload: Readonly<UploadRecord>; readonly file: string } | undefined {
    const upload = this.repo.upload(project.id, secret, filename);
    return upload && { upload, file: path.join(this.paths.uploads(project.id), upload.secret, upload.filename) };
  }

  /** Record activity (a push, a change) so `last_activity_at` and its ordering follow it. */
  async touchActivity(projectId: number): Promise<void> {
    const at = this.now().toISOString();
    await this.repo.update(projectId, { lastActivityAt: at });
  }

  /** The bare repository of a project at `projectPath` in `ns`. */
  repositoryDir(ns: Readonly<NamespaceRecord>, projectPath: string): string {
    return this.paths.repository({ namespaceId: ns.id, path: projectPath } as ProjectRecord);
  }

  /** The bare repository of a project (git over HTTP serves it; hooks read commits from it). */
  repositoryOf(project: Readonly<ProjectRecord>): string {
    return this.paths.repository(project);
  }

  /** The folder of a project's uploads. */
  uploadsDirOf(projectId: number): string {
    return this.paths.uploads(projectId);
  }

  /** The last commit of the project's default branch, or null when it has none (badges' `%{commit_sha}`). */
  headCommit(project: Readonly<ProjectRecord>): Promise<string | null> {
    return this.git.headCommit(this.paths.repository(project), project.defaultBranch);
  }

  /** The projects of a namespace, in id order (readable or not: the caller filters). */
  inNamespace(namespaceId: number): readonly Readonly<ProjectRecord>[] {
    return this.repo.projects.filter((p) => p.namespaceId === namespaceId);
  }

  /** GitLab: a project may not be more open than its group ("public is not allowed in a private group."). */
  private checkVisibilityInGroup(ns: Readonly<NamespaceRecord>, visibility: Visibility, fields: Record<string, string[]>): void {
    if (ns.kind !== 'group') return;
    const group = this.identity.findGroup(ns.id);
    if (group && visibilityOrder.indexOf(visibility) > visibilityOrder.indexOf(group.visibility)) {
      fields.visibility_level = [`${visibility} is not allowed in a ${group.visibility} group.`];
    }
  }

  /** A user by id or username, as `POST /projects/user/:user_id` and `/users/:id/projects` take it. */
  getUser(idOrUsername: string): Readonly<UserRecord> {
    return this.identity.getUser(idOrUsername);
  }
}

/** Where repositories and uploads live under the data dir (ARCHITECTURE: repositories/<namespace>/<path>.git). */
export function projectPaths(dataDir: string, identity: IdentityService): ProjectPaths {
  const nsPath = (namespaceId: number) => {
    const ns = identity.findNamespace(namespaceId);
    if (!ns) throw new Error(`namespace ${namespaceId} not found`);
    if (ns.kind === 'user') return ns.path;
    const group = identity.findGroup(ns.id);
    return group ? identity.fullPath(group) : ns.path;
  };
  return {
    repositoryRoot: path.join(dataDir, 'repositories'),
    lostAndFound: path.join(dataDir, 'lost+found', 'repositories'),
    staging: () => path.join(dataDir, 'tmp', `repository-${randomUUID()}.git`),
    // Lower-cased: paths are unique per namespace ignoring case, and so are the folders.
    repository: (project) =>
      path.join(dataDir, 'repositories', ...nsPath(project.namespaceId).toLowerCase().split('/'), `${project.path.toLowerCase()}.git`),
    uploads: (projectId) => path.join(dataDir, 'uploads', String(projectId)),
  };
}

/** A lost+found folder name from a time: sortable and safe in paths (2026-01-31T12-00-00-000Z). */
export function lostAndFoundStamp(at: Date): string {
  return at.toISOString().replace(/[:.]/g, '-');
}

/** The README GitLab commits for `initialize_with_readme` when no template is chosen: the name, then the description. */
function readmeContent(name: string, description: string | null): string {
  return description ? `# ${name}\n\n${description}\n` : `# ${name}\n`;
}

function checkImportUrl(url: string, fields: Record<string, string[]>): void {
  const problem = httpUrlProblem(url);
  if (problem === 'scheme') fields.import_url = ['is blocked: Only allowed schemes are http, https'];
  else if (problem === 'invalid') fields.import_url = ['is blocked: URI is invalid'];
}

/** The boolean attributes of `P` that were sent. */
export function pickSettings(read: (key: string) => boolean | undefined): Partial<ProjectSettings> {
  const out: Partial<ProjectSettings> = {};
  for (const key of settingKeys) {
    const value = read(key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}
