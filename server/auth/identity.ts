// Users, tokens, groups, members and namespaces: the identity service both APIs authenticate through.
// Over 400 lines because the group-membership rules (access levels through the hierarchy) are read by
// every other method here; the store access is in identity-repo.ts.
import { AppError, notFound, type ValidationIssue } from '../http/errors.js';
import type { GroupMemberRecord, GroupRecord, NamespaceRecord, TokenRecord, UserRecord, Visibility } from '../store/schema.js';
import { groupFullName, groupFullPath, type IdentityRepo } from './identity-repo.js';
import { digestToken, generateSecret, generateToken, hashPassword } from './tokens.js';

/** Who is calling: the user, their tenant, and the token they used. */
export interface Identity {
  readonly user: Readonly<UserRecord>;
  readonly tenant: string;
  readonly token: Readonly<TokenRecord>;
}

/** Why a presented token was refused. */
export type TokenRejection = 'unknown' | 'revoked' | 'expired' | 'blocked';

/** GitLab's access levels. */
export const accessLevels = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
const validAccessLevels = new Set<number>([5, 10, 15, 20, 30, 40, 50]);

/** Scopes a personal access token may carry (GitLab's names). */
export const tokenScopes = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode'] as const;

export interface NewUser {
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly admin?: boolean;
  readonly tenant?: string;
  readonly password?: string | null;
}

export interface NewGroup {
  readonly name: string;
  readonly path: string;
  readonly description?: string;
  readonly visibility?: Visibility;
  readonly parentId?: number | null;
}

export interface NewToken {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly expiresAt?: string | null;
}

const usernamePattern = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
const pathPattern = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;
const namePattern = /^[\p{L}\p{N}\p{Extended_Pictographic}_][\p{L}\p{N}\p{Extended_Pictographic}_.+\- ()]*$/u;
const emailPattern = /^[^\s@]+@[^\s@]+$/;
/** Tenant ids use the characters of usernames (lowercased), so every username is a valid default tenant. */
const tenantPattern = /^[a-z0-9_.][a-z0-9_.-]{0,254}$/;
const reservedNames = new Set([
  'api',
  'admin',
  'audio',
  'assets',
  'dashboard',
  'explore',
  'groups',
  'help',
  'projects',
  'users',
  'uploads',
  '-',
]);

/** GitLab's /users filters (search lower-cased). */
export interface UserFilters {
  readonly username?: string;
  readonly search?: string;
  readonly active?: boolean;
  readonly blocked?: boolean;
}

/** GitLab's /groups filters (search lower-cased). */
export interface GroupFilters {
  readonly search?: string;
  readonly owned?: boolean;
  readonly minAccessLevel?: number;
  readonly allAvailable?: boolean;
  readonly orderBy: 'name' | 'path' | 'id' | 'similarity';
  readonly sort: 'asc' | 'desc';
}

/** The rules of identity: users, tokens, groups and namespaces, over an IdentityRepo (which stays private to it). */
export type IdentityService = ReturnType<typeof createIdentityService>;

/** Build the identity service. `now` is injectable for tests. */
export function createIdentityService(repo: IdentityRepo, now: () => Date = () => new Date()) {
  const iso = () => now().toISOString();

  function checkPath(value: string, field: string, fields: Record<string, string[]>): void {
    if (!pathPattern.test(value) || /(\.git|\.atom|[.-])$/.test(value)) {
      fields[field] = ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."];
    } else if (reservedNames.has(value.toLowerCase())) fields[field] = [`${value} is a reserved name`];
  }

  const service = {
    /** Create a user with a personal namespace; the tenant defaults to the username. */
    async createUser(input: NewUser): Promise<Readonly<UserRecord>> {
      const fields: Record<string, string[]> = {};
      const username = input.username.trim();
      if (!usernamePattern.test(username) || /(\.git|\.atom|\.)$/.test(username) || username.length > 255) {
        fields.username = ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."];
      } else if (reservedNames.has(username.toLowerCase())) fields.username = [`${username} is a reserved name`];
      if (!emailPattern.test(input.email)) fields.email = ['is invalid'];
      if (input.name.trim() === '' || input.name.length > 255) fields.name = ['is too long (maximum is 255 characters)'];
      const tenant = (input.tenant ?? username).toLowerCase();
      // A tenant derived from a bad username would only repeat the username's problem.
      if ((input.tenant !== undefined || !fields.username) && !tenantPattern.test(tenant))
        fields.tenant = ["can contain only letters, digits, '_', '-' and '.'"];
      if (Object.keys(fields).length > 0) throw new AppError('invalid', 'user is invalid', { fields });
      if (repo.userByEmail(input.email)) throw new AppError('conflict', 'Email has already been taken');
      if (repo.userByUsername(username) || repo.namespaceByPath(username))
        throw new AppError('conflict', 'Username has already been taken');
      // Joining an existing tenant (and so seeing its jobs) must be asked for by name, never happen by default.
      if (input.tenant === undefined && repo.tenant(tenant))
        throw new AppError('conflict', `Tenant ${tenant} already exists; pass tenant explicitly to join it`);
      const passwordHash = input.password ? await hashPassword(input.password) : null;
      return repo.insertUser(
        {
          username,
          name: input.name.trim(),
          email: input.email.trim(),
          admin: input.admin ?? false,
          state: 'active',
          tenant,
          passwordHash,
          createdAt: iso(),
        },
        generateSecret(),
      );
    },

    /** Issue a personal access token; the token string is returned once and only its digest kept. */
    async createToken(
      userId: number,
      input: NewToken,
      presetToken?: string,
    ): Promise<{ readonly record: Readonly<TokenRecord>; readonly token: string }> {
      const issues: ValidationIssue[] = [];
      if (input.name.trim() === '') issues.push({ loc: ['name'], msg: 'is empty', type: 'missing' });
      if (input.scopes.length === 0) issues.push({ loc: ['scopes'], msg: 'is empty', type: 'missing' });
      const unknownScopes = input.scopes.filter((s) => !(tokenScopes as readonly string[]).includes(s));
      if (unknownScopes.length > 0)
        issues.push({ loc: ['scopes'], msg: 'does not have a valid value', type: 'value', input: unknownScopes });
      if (input.expiresAt && !/^\d{4}-\d{2}-\d{2}$/.test(input.expiresAt))
        issues.push({ loc: ['expires_at'], msg: 'is invalid', type: 'invalid', input: input.expiresAt });
      if (issues.length > 0) throw new AppError('invalid', issues.map((i) => `${i.loc.join('.')} ${i.msg}`).join(', '), { issues });
      if (!repo.userById(userId)) throw notFound('User');
      const token = presetToken ?? generateToken();
      const digest = digestToken(token);
      if (repo.tokenByDigest(digest)) throw new AppError('conflict', 'Token has already been taken');
      const record = await repo.insertToken({
        userId,
        name: input.name.trim(),
        digest,
        scopes: [...input.scopes],
        createdAt: iso(),
        expiresAt: input.expiresAt ?? null,
        revoked: false,
        lastUsedAt: null,
      });
      return { record, token };
    },

    /** Resolve a presented token to an identity, or say why it is refused. */
    authenticate(token: string): { readonly identity: Identity } | { readonly rejected: TokenRejection } {
      const record = repo.tokenByDigest(digestToken(token));
      if (!record) return { rejected: 'unknown' };
      if (record.revoked) return { rejected: 'revoked' };
      // Like GitLab (expires_at <= now), a token stops working at 00:00 UTC of its expiry date.
      if (record.expiresAt && record.expiresAt <= iso().slice(0, 10)) return { rejected: 'expired' };
      const user = repo.userById(record.userId);
      if (!user) return { rejected: 'unknown' };
      if (user.state !== 'active') return { rejected: 'blocked' };
      // Like GitLab, record last use at most every ten minutes so reads do not turn into writes.
      const at = now();
      if (!record.lastUsedAt || at.getTime() - Date.parse(record.lastUsedAt) > 10 * 60_000) repo.markTokenUsed(record.id, at.toISOString());
      return { identity: { user, tenant: user.tenant, token: record } };
    },

    /** Tokens the caller may see: their own, or (admins) anyone's, optionally for one user. */
    listTokens(caller: Readonly<UserRecord>, userId?: number): readonly Readonly<TokenRecord>[] {
      const filterUser = caller.admin ? userId : caller.id;
      return repo.tokens.filter((t) => filterUser === undefined || t.userId === filterUser);
    },

    /** Revoke a token the caller owns (admins: any). Unknown or foreign tokens are not found. */
    async revokeToken(caller: Readonly<UserRecord>, tokenId: number): Promise<void> {
      const token = repo.tokens.find((t) => t.id === tokenId);
      if (!token || (!caller.admin && token.userId !== caller.id)) throw notFound('Token');
      if (token.revoked) return;
      await repo.revokeToken(tokenId);
    },

    /** Create a group (with its namespace) owned by `creator`. */
    async createGroup(input: NewGroup, creator: Readonly<UserRecord> | null): Promise<Readonly<GroupRecord>> {
      const fields: Record<string, string[]> = {};
      if (!namePattern.test(input.name) || input.name.length > 255) {
        fields.name = [
          "can contain only letters, digits, emoji, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.",
        ];
      }
      checkPath(input.path, 'path', fields);
      const parentId = input.parentId ?? null;
      const parent = parentId === null ? undefined : repo.groupById(parentId);
      // GitLab's find_group!: an unknown parent and one the creator cannot read are both `404 Group Not Found`.
      if (parentId !== null && (!parent || (creator && !service.canReadGroup(creator, parent)))) throw notFound('Group');
      if (parent && creator && !creator.admin && service.accessLevel(creator, parent.id) < accessLevels.maintainer) {
        throw new AppError('forbidden', 'Forbidden');
      }
      if (Object.keys(fields).length > 0) throw new AppError('invalid', 'group is invalid', { fields });
      const fullPath = parent ? `${groupFullPath(repo.groups, parent)}/${input.path}` : input.path;
      if (repo.namespaceByPath(fullPath) || repo.groupByFullPath(fullPath)) {
        throw new AppError('invalid', 'group is invalid', { fields: { path: ['has already been taken'] } });
      }
      return repo.insertGroup(
        {
          name: input.name,
          path: input.path,
          description: input.description ?? '',
          visibility: input.visibility ?? 'private',
          parentId,
          createdAt: iso(),
        },
        creator?.id ?? null,
      );
    },

    /**
     * Add a user (id or username) to a group. GitLab's order: the access level is validated first, then
     * the caller must be an owner or maintainer (or an admin), and only then is the user looked up.
     */
    async addGroupMember(
      caller: Readonly<UserRecord>,
      groupId: number,
      user: number | string,
      accessLevel: number,
      expiresAt: string | null,
    ): Promise<Readonly<GroupMemberRecord>> {
      if (!validAccessLevels.has(accessLevel)) {
        throw new AppError('invalid', 'access_level does not have a valid value', {
          issues: [{ loc: ['access_level'], msg: 'does not have a valid value', type: 'value', input: accessLevel }],
        });
      }
      const group = service.readableGroup(caller, groupId);
      if (!caller.admin && service.accessLevel(caller, group.id) < accessLevels.maintainer) throw new AppError('forbidden', 'Forbidden');
      if (!caller.admin && accessLevel === accessLevels.owner && service.accessLevel(caller, group.id) < accessLevels.owner)
        throw new AppError('forbidden', 'Forbidden');
      const userId = service.getUser(user).id;
      if (repo.member(groupId, userId)) throw new AppError('conflict', 'Member already exists');
      return repo.upsertMember({ groupId, userId, accessLevel, expiresAt, createdAt: iso() });
    },

    /** The caller's effective access level in a group (inherited from ancestors), 0 if none. */
    accessLevel(user: Readonly<UserRecord> | null, groupId: number): number {
      if (!user) return 0;
      let level = 0;
      const today = iso().slice(0, 10);
      for (const id of service.ancestorIds(groupId)) {
        const m = repo.member(id, user.id);
        if (m && (!m.expiresAt || m.expiresAt >= today)) level = Math.max(level, m.accessLevel);
      }
      return level;
    },

    /** A group's id and its ancestors', nearest first up to the root (none for null or an unknown group). */
    ancestorIds(groupId: number | null): number[] {
      const ids: number[] = [];
      let group = groupId === null ? undefined : repo.groupById(groupId);
      // The seen check guards against a parent cycle in a damaged document.
      while (group && !ids.includes(group.id)) {
        ids.push(group.id);
        group = group.parentId === null ? undefined : repo.groupById(group.parentId);
      }
      return ids;
    },

    /** Is `user` a member of this group, of an ancestor (inherited) or of a descendant (GitLab's authorized hierarchy)? */
    inHierarchyOf(user: Readonly<UserRecord>, group: Readonly<GroupRecord>): boolean {
      return service.accessLevel(user, group.id) > 0 || repo.members.some((m) => m.userId === user.id && isDescendant(m.groupId, group.id));
    },

    /** Can `user` (null: anonymous) see this group? Public: anyone; internal: any user; private: its hierarchy's members. */
    canReadGroup(user: Readonly<UserRecord> | null, group: Readonly<GroupRecord>): boolean {
      if (group.visibility === 'public') return true;
      if (!user) return false;
      if (user.admin || group.visibility === 'internal') return true;
      return service.inHierarchyOf(user, group);
    },

    /** Find a group by numeric id or full path that the caller can read, else `404 Group Not Found`. */
    readableGroup(user: Readonly<UserRecord> | null, idOrPath: string | number): Readonly<GroupRecord> {
      const group = /^\d+$/.test(String(idOrPath)) ? repo.groupById(Number(idOrPath)) : repo.groupByFullPath(String(idOrPath));
      if (!group || !service.canReadGroup(user, group)) throw notFound('Group');
      return group;
    },

    /** The user with this numeric id or username; `404 User Not Found` when there is none. */
    getUser(idOrUsername: string | number): Readonly<UserRecord> {
      const s = String(idOrUsername);
      const user = /^\d+$/.test(s) ? repo.userById(Number(s)) : repo.userByUsername(s);
      if (!user) throw notFound('User');
      return user;
    },

    /** A user by numeric id, or undefined. */
    findUserById(id: number): Readonly<UserRecord> | undefined {
      return repo.userById(id);
    },

    /** True once any user exists (the admin is bootstrapped only before that). */
    hasUsers(): boolean {
      return repo.users.length > 0;
    },

    /** A group by numeric id, or undefined (no access check: for services that already checked). */
    findGroup(id: number): Readonly<GroupRecord> | undefined {
      return repo.groupById(id);
    },

    /** A namespace (user or group) by id, or undefined. */
    findNamespace(id: number): Readonly<NamespaceRecord> | undefined {
      return repo.namespaceById(id);
    },

    /** A namespace by its full path (case-insensitive), or undefined. */
    findNamespaceByPath(fullPath: string): Readonly<NamespaceRecord> | undefined {
      return repo.namespaceByPath(fullPath);
    },

    /** Every group, in id order (access computations walk the whole tree). */
    allGroups(): readonly Readonly<GroupRecord>[] {
      return repo.groups;
    },

    /** Every group membership (access computations walk them all). */
    allMemberships(): readonly Readonly<GroupMemberRecord>[] {
      return repo.members;
    },

    /** Users matching GitLab's /users filters, by id; an admin viewer's search also matches e-mail addresses. */
    listUsers(viewer: Readonly<UserRecord> | null, filters: UserFilters): readonly Readonly<UserRecord>[] {
      const { username, search, active, blocked } = filters;
      return repo.users
        .filter((u) => username === undefined || u.username.toLowerCase() === username.toLowerCase())
        .filter(
          (u) =>
            !search ||
            u.username.toLowerCase().includes(search) ||
            u.name.toLowerCase().includes(search) ||
            (viewer?.admin && u.email.toLowerCase().includes(search)),
        )
        .filter((u) => !active || u.state === 'active')
        .filter((u) => !blocked || u.state === 'blocked')
        .sort((a, b) => a.id - b.id);
    },

    /** The groups GitLab's /groups shows `viewer`, filtered and sorted. */
    listGroups(viewer: Readonly<UserRecord> | null, filters: GroupFilters): readonly Readonly<GroupRecord>[] {
      const { search, owned, minAccessLevel, allAvailable, orderBy, sort } = filters;
      const groups = repo.groups
        .filter((g) => service.canReadGroup(viewer, g))
        .filter((g) => {
          // Like GitLab: a signed-in non-admin sees the groups they belong to (with their ancestors and
          // descendants) unless all_available is set; anonymous callers see public groups.
          if (!viewer || viewer.admin || allAvailable) return true;
          return service.inHierarchyOf(viewer, g);
        })
        .filter((g) => !search || g.name.toLowerCase().includes(search) || g.path.toLowerCase().includes(search))
        .filter((g) => !owned || (viewer !== null && service.accessLevel(viewer, g.id) >= 50))
        .filter((g) => minAccessLevel === undefined || (viewer !== null && service.accessLevel(viewer, g.id) >= minAccessLevel));
      const key =
        orderBy === 'id'
          ? (g: (typeof groups)[number]) => g.id
          : (g: (typeof groups)[number]) => (orderBy === 'path' ? g.path : g.name).toLowerCase();
      groups.sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        const c = x < y ? -1 : x > y ? 1 : a.id - b.id;
        return sort === 'asc' ? c : -c;
      });
      return groups;
    },

    /** A group's direct members with their users (a member whose user is gone is left out). */
    groupMembers(
      group: Readonly<GroupRecord>,
    ): readonly { readonly member: Readonly<GroupMemberRecord>; readonly user: Readonly<UserRecord> }[] {
      return repo.members
        .filter((m) => m.groupId === group.id)
        .flatMap((m) => {
          const user = repo.userById(m.userId);
          return user ? [{ member: m, user }] : [];
        });
    },

    /** Namespaces a user can create projects in: their own and groups they develop in (admins: all). */
    namespacesFor(user: Readonly<UserRecord>): readonly {
      readonly id: number;
      readonly kind: 'user' | 'group';
      readonly name: string;
      readonly path: string;
      readonly fullPath: string;
      readonly parentId: number | null;
    }[] {
      return repo.namespaces
        .filter(
          (n) => user.admin || (n.kind === 'user' ? n.ownerId === user.id : service.accessLevel(user, n.id) >= accessLevels.developer),
        )
        .map((n) => ({
          id: n.id,
          kind: n.kind,
          name: n.kind === 'user' ? (repo.userById(n.ownerId)?.name ?? n.name) : (repo.groupById(n.id)?.name ?? n.name),
          path: n.path,
          fullPath: n.kind === 'group' ? groupFullPath(repo.groups, repo.groupById(n.id)) : n.path,
          parentId: n.parentId,
        }));
    },

    fullPath: (group: Readonly<GroupRecord>) => groupFullPath(repo.groups, group),
    /** GitLab's full_name of a group: its and its ancestors' names, top first, joined by ` / `. */
    fullName: (group: Readonly<GroupRecord>) => groupFullName(repo.groups, group),
    tenantSecret: (tenant: string) => repo.tenant(tenant)?.webhookSecret ?? null,
  };

  function isDescendant(groupId: number, ancestorId: number): boolean {
    return service.ancestorIds(groupId).includes(ancestorId);
  }

  return service;
}
