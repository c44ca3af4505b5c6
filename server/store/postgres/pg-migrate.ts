import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

/** The migrations folder next to this file (TypeScript in development, compiled JavaScript in dist/). */
const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Bring the database's schema up to date with node-pg-migrate; resolves to the migrations it ran.
 * Nodes starting together wait for each other on the tool's advisory lock instead of failing.
 */
export async function runPgMigrations(url: string): Promise<readonly string[]> {
  const ran = await runner({
    databaseUrl: url,
    dir: migrationsDir,
    // Only migration sources: not source maps (dist/) or dotfiles.
    ignorePattern: '(\\..*)|(.*\\.map)|(.*\\.d\\.ts)',
    migrationsTable: 'pgmigrations',
    direction: 'up',
    count: Infinity,
    advisoryLockMode: 'wait',
    checkOrder: true,
    log: () => undefined,
  });
  return ran.map((m) => `postgres: ${m.name}`);
}
