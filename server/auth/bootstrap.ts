import { writeFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { IdentityService } from './identity.js';

/** Name of the 0600 file holding the first admin's token. */
export const adminCredentialsFile = 'admin-credentials.json';

/** What the first start created, if anything. */
export interface BootstrapResult {
  readonly created: boolean;
  readonly credentialsPath: string;
}

/**
 * On first start (no users yet) create the admin user `root` with a token, the given one if
 * CRATEHOUSE_ADMIN_TOKEN was set, and write both to a 0600 file in the data dir.
 */
export async function bootstrapAdmin(identity: IdentityService, dataDir: string, presetToken: string | null): Promise<BootstrapResult> {
  const credentialsPath = path.join(dataDir, adminCredentialsFile);
  if (identity.hasUsers()) return { created: false, credentialsPath };
  let user: Awaited<ReturnType<IdentityService['createUser']>>;
  try {
    user = await identity.createUser({ username: 'root', name: 'Administrator', email: 'admin@cratehouse.local', admin: true });
  } catch (error) {
    // Several nodes starting together on one database: another one created the admin first.
    if (identity.hasUsers()) return { created: false, credentialsPath };
    throw error;
  }
  const { token } = await identity.createToken(
    user.id,
    { name: 'admin (first start)', scopes: ['api', 'sudo', 'admin_mode'] },
    presetToken ?? undefined,
  );
  const body = JSON.stringify({ username: user.username, user_id: user.id, token, created_at: user.createdAt }, null, 2) + '\n';
  const tmp = `${credentialsPath}.tmp`;
  await writeFile(tmp, body, { mode: 0o600 });
  await rename(tmp, credentialsPath);
  return { created: true, credentialsPath };
}
