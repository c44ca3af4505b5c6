import { accessLevels, type IdentityService } from '../../auth/identity.js';
import { AppError } from '../../http/errors.js';
import type { GroupBadgeRecord, GroupRecord, ProjectRecord, UserRecord } from '../../store/schema.js';
import type { Badge, BadgeRender } from '../api-types.js';
import type { BadgePatch, BadgesRepo } from './badges-repo.js';
import type { Viewer } from '../projects/project-access.js';
import { httpUrlProblem } from '../projects/project-rules.js';
import type { ProjectService } from '../projects/projects.js';

/** The placeholders a badge URL may hold (GitLab's Badge::PLACEHOLDERS, without pages and tags, which do not exist here). */
export const badgePlaceholders = [
  'project_path',
  'project_title',
  'project_name',
  'project_id',
  'project_namespace',
  'group_name',
  'gitlab_server',
  'default_branch',
  'commit_sha',
] as const;

/** A value for each placeholder, taken from one project. */
export type PlaceholderValues = Readonly<Record<(typeof badgePlaceholders)[number], string>>;

/** Badge attributes from a request; undefined means "not sent". */
export interface BadgeInput {
  readonly name?: string | null;
  readonly linkUrl?: string;
  readonly imageUrl?: string;
}

const placeholderPattern = new RegExp(`%\\{(${badgePlaceholders.join('|')})\\}`, 'g');

/**
 * Replace the placeholders of a badge URL; without a project (`values` null) the URL stays as it is.
 * Values are percent-encoded except `/` and `:`, so a project path keeps its slashes and a server
 * its port, while a name with a space, `?`, `&` or `#` cannot change the URL's structure. Unknown
 * placeholders are left alone, as in GitLab.
 */
export function renderBadgeUrl(url: string, values: PlaceholderValues | null): string {
  if (!values) return url;
  return url.replace(placeholderPattern, (_, name: keyof PlaceholderValues) =>
    encodeURIComponent(values[name]).replace(/%2F/gi, '/').replace(/%3A/gi, ':'),
  );
}

/** GitLab's UrlValidator for badges (http and https only), or null when the URL is acceptable. */
export function badgeUrlProblem(url: string): string | null {
  if (url.trim() === '') return 'must be a valid URL';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return 'is blocked: Only allowed schemes are http, https';
  // Placeholders are not URL syntax (`%{` is not allowed in a host, say); GitLab's lenient parser
  // lets them through, so the rest of the URL is checked with a plain stand-in for each.
  return httpUrlProblem(url.replace(/%\{[^}]*\}/g, 'x')) === null ? null : 'is blocked: URI is invalid';
}

/** The stored attributes both kinds of badge share. */
type StoredBadge = Pick<GroupBadgeRecord, 'id' | 'name' | 'linkUrl' | 'imageUrl'>;

/** Check both URLs as GitLab's model does; every problem is reported at once (`400 badge is invalid`). */
export function validateBadgeUrls(linkUrl: string, imageUrl: string): void {
  const fields: Record<string, string[]> = {};
  const link = badgeUrlProblem(linkUrl);
  if (link) fields.link_url = [link];
  const image = badgeUrlProblem(imageUrl);
  if (image) fields.image_url = [image];
  if (Object.keys(fields).length > 0) throw new AppError('invalid', 'badge is invalid', { fields });
}

/** A new badge's attributes (group or project): a URL not sent is empty, and so invalid. */
export function newBadgeFields(input: BadgeInput): Pick<StoredBadge, 'name' | 'linkUrl' | 'imageUrl'> {
  const linkUrl = input.linkUrl ?? '';
  const imageUrl = input.imageUrl ?? '';
  validateBadgeUrls(linkUrl, imageUrl);
  return { name: input.name ?? null, linkUrl, imageUrl };
}

/** What an edit changes of `badge`: only what was sent (empty when nothing was); the URLs it ends with are checked. */
export function badgePatchOf(badge: Readonly<StoredBadge>, input: BadgeInput): BadgePatch {
  const patch: BadgePatch = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.linkUrl !== undefined ? { linkUrl: input.linkUrl } : {}),
    ...(input.imageUrl !== undefined ? { imageUrl: input.imageUrl } : {}),
  };
  validateBadgeUrls(patch.linkUrl ?? badge.linkUrl, patch.imageUrl ?? badge.imageUrl);
  return patch;
}

/** GitLab's Badge entity (kind "group" unless told), rendered with one project's values. */
export function presentBadge(b: Readonly<StoredBadge>, values: PlaceholderValues | null, kind: Badge['kind'] = 'group'): Badge {
  return {
    id: b.id,
    name: b.name,
    link_url: b.linkUrl,
    image_url: b.imageUrl,
    rendered_link_url: renderBadgeUrl(b.linkUrl, values),
    rendered_image_url: renderBadgeUrl(b.imageUrl, values),
    kind,
  };
}

/** GitLab's BasicBadgeDetails for a preview: the badge is not saved, so it has no name. */
export function presentBadgeRender(linkUrl: string, imageUrl: string, values: PlaceholderValues | null): BadgeRender {
  return {
    name: null,
    link_url: linkUrl,
    image_url: imageUrl,
    rendered_link_url: renderBadgeUrl(linkUrl, values),
    rendered_image_url: renderBadgeUrl(imageUrl, values),
  };
}

/** Group badges: who may see and change them, their validation, and the values their placeholders take. */
export class BadgeService {
  constructor(
    private readonly projects: ProjectService,
    private readonly identity: IdentityService,
    private readonly repo: BadgesRepo,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The group, if the caller can read it (else `404 Group Not Found`). */
  readableGroup(user: Readonly<UserRecord> | null, idOrPath: string): Readonly<GroupRecord> {
    return this.identity.readableGroup(user, idOrPath);
  }

  /** The group, if the caller owns it or is an admin: GitLab's `admin_group` ability (404, then 403). */
  ownedGroup(user: Readonly<UserRecord>, idOrPath: string): Readonly<GroupRecord> {
    const group = this.readableGroup(user, idOrPath);
    if (!user.admin && this.identity.accessLevel(user, group.id) < accessLevels.owner) throw new AppError('forbidden', 'Forbidden');
    return group;
  }

  /** A group's badges, oldest first, optionally only those with exactly this name. */
  list(group: Readonly<GroupRecord>, name?: string): readonly Readonly<GroupBadgeRecord>[] {
    return this.repo.ofGroup(group.id).filter((b) => name === undefined || b.name === name);
  }

  /** One badge of the group; an unknown id is ActiveRecord's `404 Not found`. */
  find(group: Readonly<GroupRecord>, badgeId: number): Readonly<GroupBadgeRecord> {
    const badge = this.repo.byId(group.id, badgeId);
    if (!badge) throw new AppError('not-found', 'Not found');
    return badge;
  }

  /** Add a badge to an owned group. */
  async create(group: Readonly<GroupRecord>, input: BadgeInput): Promise<Readonly<GroupBadgeRecord>> {
    return this.repo.insert({ groupId: group.id, ...newBadgeFields(input), createdAt: this.now().toISOString() });
  }

  /** Change what was sent of a badge of an owned group. */
  async update(group: Readonly<GroupRecord>, badgeId: number, input: BadgeInput): Promise<Readonly<GroupBadgeRecord>> {
    const badge = this.find(group, badgeId);
    const patch = badgePatchOf(badge, input);
    return Object.keys(patch).length === 0 ? badge : this.repo.update(badge.id, patch);
  }

  /** Remove a badge of an owned group. */
  async remove(group: Readonly<GroupRecord>, badgeId: number): Promise<void> {
    this.find(group, badgeId);
    await this.repo.remove(group.id, badgeId);
  }

  /**
   * The placeholder values for a group's badges: those of the group's first project by creation
   * date that the caller can see (GitLab takes it from GroupProjectsFinder for the current user, so
   * a public group's badges never reveal a private project). Null when there is none.
   */
  async placeholderValues(viewer: Viewer, group: Readonly<GroupRecord>, serverHost: string): Promise<PlaceholderValues | null> {
    const project = this.firstProject(viewer, group);
    return project ? this.projectValues(project, serverHost) : null;
  }

  /** The placeholder values one project gives (a project's own badges and its groups' badges shown in it). */
  async projectValues(project: Readonly<ProjectRecord>, serverHost: string): Promise<PlaceholderValues> {
    // One namespace lookup and one walk up the group path serve the three path placeholders.
    const namespace = this.projects.namespaceOf(project);
    const namespacePath = this.projects.namespaceFullPath(namespace);
    const inGroup = namespace.kind === 'group' && this.identity.findGroup(namespace.id) !== undefined;
    let sha: string | null = null;
    try {
      sha = await this.projects.headCommit(project);
    } catch {
      // A repository still being imported does not exist yet; GitLab renders no sha then (project.commit is nil).
    }
    return {
      project_path: `${namespacePath}/${project.path}`, // ProjectService.fullPath
      project_title: project.name,
      project_name: project.path,
      project_id: String(project.id),
      project_namespace: namespacePath,
      // GitLab's `project.group&.to_param` (the group's full path): empty for a personal project.
      group_name: inGroup ? namespacePath : '',
      gitlab_server: serverHost,
      default_branch: project.defaultBranch,
      commit_sha: sha ?? '',
    };
  }

  private firstProject(viewer: Viewer, group: Readonly<GroupRecord>): Readonly<ProjectRecord> | undefined {
    let first: Readonly<ProjectRecord> | undefined;
    for (const p of this.projects.inNamespace(group.id)) {
      if (!viewer.canRead(p)) continue;
      if (!first || p.createdAt < first.createdAt || (p.createdAt === first.createdAt && p.id < first.id)) first = p;
    }
    return first;
  }
}
