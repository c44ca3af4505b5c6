import type { ProjectRecord } from '../store/schema.js';
import type { Store } from '../store/store.js';

/** The timestamp fixture rows carry. */
export const fixtureAt = '2026-01-01T00:00:00.000Z';

/** Tenant `t`, its user 1 (`u`) and the user's namespace 1: an owner to create projects under, written directly to the store. */
export function seedOwner(store: Store): Promise<void> {
  return store.mutate((d) => {
    d.tenants.push({ id: 't', webhookSecret: '', createdAt: fixtureAt });
    d.namespaces.push({ id: 1, kind: 'user', name: 'u', path: 'u', ownerId: 1, parentId: null, createdAt: fixtureAt });
    d.users.push({
      id: 1,
      username: 'u',
      name: 'u',
      email: 'u@x',
      admin: false,
      state: 'active',
      tenant: 't',
      namespaceId: 1,
      passwordHash: null,
      createdAt: fixtureAt,
    });
  });
}

/** A project record without its id, every field plain (empty repository, no settings): for store-level tests and benchmarks. */
export function projectFixture(path: string, namespaceId = 1, creatorId = namespaceId): Omit<ProjectRecord, 'id'> {
  return {
    name: path,
    path,
    namespaceId,
    description: null,
    visibility: 'private',
    defaultBranch: 'main',
    creatorId,
    settings: {} as ProjectRecord['settings'],
    mergeMethod: 'merge',
    tagList: [],
    ciConfigPath: null,
    archived: false,
    importUrl: null,
    importStatus: 'none',
    importError: null,
    forkedFromId: null,
    emptyRepo: true,
    readmePath: null,
    runnersToken: 'x',
    customAttributes: {},
    createdAt: fixtureAt,
    updatedAt: fixtureAt,
    lastActivityAt: fixtureAt,
  };
}
