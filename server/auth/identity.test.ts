import { describe, expect, it } from 'vitest';
import { MemoryAdapter } from '../store/file-adapter.js';
import type { DbSchema } from '../store/schema.js';
import { openStore } from '../store/store.js';
import { createIdentityRepo } from './identity-repo.js';
import { createIdentityService } from './identity.js';
import { digestToken } from './tokens.js';

/** The service and, for the assertions on what is stored, the repo it was built over. */
const service = async () => {
  const repo = createIdentityRepo(await openStore(new MemoryAdapter<DbSchema>()));
  return Object.assign(createIdentityService(repo), { repo });
};

describe('identity tenants', () => {
  it('gives each user their own tenant by default, including usernames GitLab allows with a leading _ or .', async () => {
    const identity = await service();
    const a = await identity.createUser({ username: '_bob', name: 'Bob', email: 'b@x.io' });
    const b = await identity.createUser({ username: 'Mia.K', name: 'Mia', email: 'm@x.io' });
    expect([a.tenant, b.tenant]).toEqual(['_bob', 'mia.k']);
    expect(identity.repo.tenant('_bob')?.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never puts a user into an existing tenant unless the tenant is named explicitly', async () => {
    const identity = await service();
    await identity.createUser({ username: 'alice', name: 'A', email: 'a@x.io', tenant: 'bob' });
    await expect(identity.createUser({ username: 'bob', name: 'B', email: 'b@x.io' })).rejects.toMatchObject({ kind: 'conflict' });
    const joined = await identity.createUser({ username: 'bob', name: 'B', email: 'b@x.io', tenant: 'bob' });
    expect(joined.tenant).toBe('bob');
    expect(identity.repo.users.filter((u) => u.tenant === 'bob')).toHaveLength(2);
  });

  it('keeps only a sha256 digest of tokens and refuses revoked ones', async () => {
    const identity = await service();
    const user = await identity.createUser({ username: 'x', name: 'X', email: 'x@x.io' });
    const { record, token } = await identity.createToken(user.id, { name: 't', scopes: ['api'] });
    expect(record.digest).toBe(digestToken(token));
    expect(JSON.stringify(identity.repo.tokens)).not.toContain(token);
    expect(identity.authenticate(token)).toMatchObject({ identity: { tenant: 'x' } });
    await identity.revokeToken(user, record.id);
    expect(identity.authenticate(token)).toEqual({ rejected: 'revoked' });
    expect(identity.authenticate('chpat-unknown')).toEqual({ rejected: 'unknown' });
  });
});

describe('identity keeps its storage private', () => {
  it('exposes no repo: callers use its named reads (findNamespace, findGroup, …), never the records', async () => {
    const identity = createIdentityService(createIdentityRepo(await openStore(new MemoryAdapter<DbSchema>())));
    expect(Object.keys(identity)).not.toContain('repo');
    const user = await identity.createUser({ username: 'ns-owner', name: 'N', email: 'n@x.io' });
    expect(identity.findNamespace(user.namespaceId)).toMatchObject({ kind: 'user', path: 'ns-owner', ownerId: user.id });
    expect(identity.findNamespaceByPath('NS-Owner')?.id).toBe(user.namespaceId);
    expect(identity.hasUsers()).toBe(true);
  });
});
