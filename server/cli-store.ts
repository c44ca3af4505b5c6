import { existsSync } from 'node:fs';
import type { Config } from './config/load-config.js';
import { acquireLock } from './store/data-dir.js';
import { copyDocumentToPostgres, readEmbeddedDocument, StoreCopyError } from './store/postgres/copy-embedded.js';

/** What `store migrate` takes from the command line. */
export interface StoreMigrateOptions {
  readonly to: string | undefined;
  /** --database-url; else the configured CRATEHOUSE_DATABASE_URL. */
  readonly databaseUrl: string | undefined;
  readonly json: boolean;
  readonly out: (s: string) => void;
}

/** What stays in the data dir whichever store holds the metadata. */
const staysInDataDir = ['Repositories', 'Git LFS objects', 'artifacts', 'uploads', 'exports', 'the library', 'the analysis cache'];

/** The URL with its password masked, for output. */
function redactDatabaseUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
}

/**
 * `cratehouse store migrate --to postgres`: copy the embedded store of the data dir (db.json,
 * migrated in memory, left unchanged) into an empty PostgreSQL database, holding the data dir's
 * lock so no server writes db.json meanwhile. Returns the exit code; failures throw StoreCopyError
 * or DataDirLockedError with the operator's sentence.
 */
export async function runStoreMigrate(config: Config, options: StoreMigrateOptions): Promise<number> {
  const { out } = options;
  if (options.to !== 'postgres') throw new StoreCopyError('store migrate needs --to postgres (the only target)');
  const url = options.databaseUrl ?? config.databaseUrl;
  if (!url) throw new StoreCopyError('no database: pass --database-url postgres://… or set CRATEHOUSE_DATABASE_URL');
  if (!/^postgres(ql)?:\/\//.test(url)) throw new StoreCopyError('the database URL must start with postgres:// or postgresql://');
  if (!existsSync(config.dataDir)) throw new StoreCopyError(`there is no data dir ${config.dataDir}`);
  // A server on the data dir (embedded or not) refuses the lock: its db.json could change during the copy.
  const lock = acquireLock(config.dataDir, 'cli');
  try {
    const source = await readEmbeddedDocument(config.dataDir);
    const report = await copyDocumentToPostgres(source.db, url);
    const database = redactDatabaseUrl(url);
    if (options.json) {
      out(
        JSON.stringify(
          { source: source.file, database, documentMigrations: source.applied, ...report, verified: true, staysInDataDir },
          null,
          2,
        ),
      );
      return 0;
    }
    out(`Copied ${source.file} into PostgreSQL at ${database}`);
    for (const step of source.applied) out(`  db.json migrated in memory (the file is unchanged): ${step}`);
    for (const step of report.schemaApplied) out(`  schema migration run: ${step.replace(/^postgres: /, '')}`);
    const width = Math.max(...report.tables.map((t) => t.table.length), 'total'.length) + 2;
    out(`  ${'table'.padEnd(width)}${'rows'.padStart(8)}`);
    for (const t of report.tables) out(`  ${t.table.padEnd(width)}${String(t.rows).padStart(8)}`);
    out(`  ${'total'.padEnd(width)}${String(report.rows).padStart(8)}`);
    out('Verified: read back inside the transaction and again after COMMIT, every table equals db.json.');
    out(
      `${staysInDataDir.slice(0, -1).join(', ')} and ${staysInDataDir.at(-1)!} stay in ${config.dataDir}: start the server on this same data dir with CRATEHOUSE_DATABASE_URL set.`,
    );
    out(
      `${source.file} is left as it was: a server started without CRATEHOUSE_DATABASE_URL would still use it, and not see what is written to PostgreSQL from now on.`,
    );
    return 0;
  } finally {
    lock.release();
  }
}
