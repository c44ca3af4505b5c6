import type { Store } from '../store/store.js';
import {
  nextId,
  patchRow,
  type GroupMemberRecord,
  type GroupRecord,
  type NamespaceRecord,
  type TenantRecord,
  type TokenRecord,
  type UserRecord,
} from '../store/schema.js';

/** Store access for users, tenants, namespaces, groups, memberships and tokens. */
export interface IdentityRepo {
  readonly users: readonly Readonly<UserRecord>[];
  readonly groups: readonly Readonly<GroupRecord>[];
  readonly namespaces: readonly Readonly<NamespaceRecord>[];
  readonly tokens: readonly Readonly<TokenRecord>[];
  readonly members: readonly Readonly<GroupMemberRecord>[];
  userById(id: number): Readonly<UserRecord> | undefined;
  userByUsername(username: string): Readonly<UserRecord> | undefined;
  userByEmail(email: string): Readonly<UserRecord> | undefined;
  groupById(id: number): Readonly<GroupRecord> | undefined;
  groupByFullPath(fullPath: string): Readonly<GroupRecord> | undefined;
  namespaceById(id: number): Readonly<NamespaceRecord> | undefined;
  namespaceByPath(path: string): Readonly<NamespaceRecord> | undefined;
  tenant(id: string): Readonly<TenantRecord> | undefined;
  tokenByDigest(digest: string): Readonly<TokenRecord> | undefined;
  member(groupId: number, userId: number): Readonly<GroupMemberRecord> | undefined;
  /** Insert a user with its personal namespace (and its tenant if new) in one write. */
  insertUser(user: Omit<UserRecord, 'id' | 'namespaceId'>, tenantSecret: string): Promise<Readonly<UserRecord>>;
  /** Insert a group with its namespace and the creator as owner, in one write. */
  insertGroup(group: Omit<GroupRecord, 'id'>, ownerId: number | null): Promise<Readonly<GroupRecord>>;
  upsertMember(member: GroupMemberRecord): Promise<Readonly<GroupMemberRecord>>;
  insertToken(token: Omit<TokenRecord, 'id'>): Promise<Readonly<TokenRecord>>;
  revokeToken(id: number): Promise<void>;
  /** Record a token's use without waiting for the disk (it is informational). */
  markTokenUsed(id: number, at: string): void;
}

/** An IdentityRepo over the store. */
export function createIdentityRepo(store: Store): IdentityRepo {
  const db = () => store.data;
  const lower = (s: string) => s.toLowerCase();
  return {
    get users() {
      return db().users;
    },
    get groups() {
      return db().groups;
    },
    get namespaces() {
      return db().namespaces;
    },
    get tokens() {
      return db().tokens;
    },
    get members() {
      return db().groupMembers;
    },
    userById: (id) => db().users.find((u) => u.id === id),
    userByUsername: (username) => db().users.find((u) => lower(u.username) === lower(username)),
    userByEmail: (email) => db().users.find((u) => lower(u.email) === lower(email)),
    groupById: (id) => db().groups.find((g) => g.id === id),
    groupByFullPath: (fullPath) => {
      const target = lower(fullPath);
      return db().groups.find((g) => lower(groupFullPath(db().groups, g)) === target);
    },
    namespaceById: (id) => db().namespaces.find((n) => n.id === id),
    namespaceByPath: (path) => {
      const target = lower(path);
      return db().namespaces.find(
        (n) =>
          lower(
            n.kind === 'group'
              ? groupFullPath(
                  db().groups,
                  db().groups.find((g) => g.id === n.id),
                )
              : n.path,
          ) === target,
      );
    },
    tenant: (id) => db().tenants.find((t) => t.id === id),
    tokenByDigest: (digest) => db().tokens.find((t) => t.digest === digest),
    member: (groupId, userId) => db().groupMembers.find((m) => m.groupId === groupId && m.userId === userId),
    insertUser: (input, tenantSecret) =>
      store.mutate((d) => {
        const id = nextId(d, 'users');
        const namespaceId = nextId(d, 'namespaces');
        const user: UserRecord = { ...input, id, namespaceId };
        d.users.push(user);
        d.namespaces.push({
          id: namespaceId,
          kind: 'user',
          name: user.name,
          path: user.username,
          ownerId: id,
          parentId: null,
          createdAt: user.createdAt,
        });
        if (!d.tenants.some((t) => t.id === user.tenant))
          d.tenants.push({ id: user.tenant, webhookSecret: tenantSecret, createdAt: user.createdAt });
        return user;
      }),
    insertGroup: (input, ownerId) =>
      store.mutate((d) => {
        const id = nextId(d, 'namespaces');
        const group: GroupRecord = { ...input, id };
        d.groups.push(group);
        d.namespaces.push({
          id,
          kind: 'group',
          name: group.name,
          path: group.path,
          ownerId: id,
          parentId: group.parentId,
          createdAt: group.createdAt,
        });
        if (ownerId !== null)
          d.groupMembers.push({ groupId: id, userId: ownerId, accessLevel: 50, expiresAt: null, createdAt: group.createdAt });
        return group;
      }),
    upsertMember: (member) =>
      store.mutate((d) => {
        const i = d.groupMembers.findIndex((m) => m.groupId === member.groupId && m.userId === member.userId);
        // A full record: it replaces the old one (a copy, so the caller's object is not frozen with the row).
        const record = { ...member };
        if (i >= 0) d.groupMembers[i] = record;
        else d.groupMembers.push(record);
        return record;
      }),
    insertToken: (input) =>
      store.mutate((d) => {
        const token: TokenRecord = { ...input, id: nextId(d, 'tokens') };
        d.tokens.push(token);
        return token;
      }),
    revokeToken: (id) =>
      store.mutate((d) => {
        patchRow(d.tokens, (t) => t.id === id, { revoked: true });
      }),
    markTokenUsed: (id, at) =>
      store.touch(
        (d) => {
          patchRow(d.tokens, (t) => t.id === id, { lastUsedAt: at });
        },
        ['tokens'],
      ),
  };
}

/** A group and its ancestors, top first, following parents (a cycle stops the walk). */
function groupChain(groups: readonly Readonly<GroupRecord>[], group: Readonly<GroupRecord> | undefined): Readonly<GroupRecord>[] {
  const chain: Readonly<GroupRecord>[] = [];
  const seen = new Set<number>();
  for (let current = group; current && !seen.has(current.id);) {
    seen.add(current.id);
    chain.unshift(current);
    const parentId = current.parentId;
    current = parentId === null ? undefined : groups.find((g) => g.id === parentId);
  }
  return chain;
}

/** A group's full path (`parent/child`), following parents. */
export function groupFullPath(groups: readonly Readonly<GroupRecord>[], group: Readonly<GroupRecord> | undefined): string {
  return groupChain(groups, group)
    .map((g) => g.path)
    .join('/');
}

/** A group's full name as GitLab shows it (`Parent / Child`), following parents. */
export function groupFullName(groups: readonly Readonly<GroupRecord>[], group: Readonly<GroupRecord> | undefined): string {
  return groupChain(groups, group)
    .map((g) => g.name)
    .join(' / ');
}
