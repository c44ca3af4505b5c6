import { currentSchemaVersion, emptyDb, type DbSchema } from './schema.js';

/** One step from version `from` to `from + 1`; it edits the raw document in place. */
interface Migration {
  readonly from: number;
  readonly describe: string;
  readonly up: (doc: Record<string, unknown>) => void;
}

/**
 * The migration chain. Version 0 is a document written before schema versions existed (or a
 * partial one): it gets every missing table. Add a step here whenever DbSchema changes shape.
 */
const migrations: readonly Migration[] = [
  {
    from: 0,
    describe: 'add missing tables and the schema version',
    up: (doc) => {
      const empty = emptyDb() as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(empty)) if (!(key in doc)) doc[key] = value;
    },
  },
  {
    from: 1,
    describe: 'add the sources table (fetched source URLs)',
    up: (doc) => {
      if (!Array.isArray(doc.sources)) doc.sources = [];
    },
  },
  {
    from: 2,
    describe: 'add the project tables (projects, stars, shares, uploads)',
    up: (doc) => {
      for (const table of ['projects', 'stars', 'projectShares', 'uploads']) if (!Array.isArray(doc[table])) doc[table] = [];
    },
  },
  {
    from: 3,
    describe: 'add hooks, group badges, notification settings and project exports',
    up: (doc) => {
      for (const table of ['hooks', 'groupBadges', 'notificationSettings', 'projectExports'])
        if (!Array.isArray(doc[table])) doc[table] = [];
    },
  },
  {
    from: 4,
    describe: 'add the Git LFS tables (object links per project, file locks)',
    up: (doc) => {
      for (const table of ['lfsLinks', 'lfsLocks']) if (!Array.isArray(doc[table])) doc[table] = [];
    },
  },
  {
    from: 5,
    describe: 'add project badges',
    up: (doc) => {
      if (!Array.isArray(doc.projectBadges)) doc.projectBadges = [];
    },
  },
];

/** Thrown when db.json was written by a newer Cratehouse than this one. */
export class SchemaTooNewError extends Error {}

/** Bring a raw document up to the current schema version; returns the steps it ran. */
export function migrate(doc: Record<string, unknown>): { readonly db: DbSchema; readonly applied: readonly string[] } {
  let version = typeof doc.schemaVersion === 'number' ? doc.schemaVersion : 0;
  if (version > currentSchemaVersion) {
    throw new SchemaTooNewError(
      `db.json has schema version ${version}; this build reads up to ${currentSchemaVersion}. Upgrade Cratehouse.`,
    );
  }
  const applied: string[] = [];
  while (version < currentSchemaVersion) {
    const step = migrations.find((m) => m.from === version);
    if (!step) throw new Error(`no migration from schema version ${version}`);
    step.up(doc);
    version += 1;
    doc.schemaVersion = version;
    applied.push(`${step.from}→${version}: ${step.describe}`);
  }
  return { db: doc as unknown as DbSchema, applied };
}
