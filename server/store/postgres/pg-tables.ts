import type { TableName } from '../row-diff.js';

/** How a record field is kept in a column (and turned back: timestamps as ISO strings, JSON parsed). */
export type ColumnType = 'int' | 'bigint' | 'float' | 'text' | 'bool' | 'json' | 'text[]' | 'timestamptz';

/** One record field and its column. */
export interface ColumnSpec {
  readonly field: string;
  readonly column: string;
  readonly type: ColumnType;
}

/** A document table's SQL table: its columns (in record field order) and its primary key. */
export interface TableSpec {
  readonly table: TableName;
  readonly sql: string;
  readonly columns: readonly ColumnSpec[];
  /** Primary-key columns and how each is read from a record. */
  readonly key: readonly { readonly column: string; readonly value: (row: Readonly<Record<string, unknown>>) => unknown }[];
}

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Columns from `field:type` pairs; column names are the fields in snake_case. */
function columns(spec: string): readonly ColumnSpec[] {
  return spec
    .trim()
    .split(/\s+/)
    .map((pair) => {
      const [field, type] = pair.split(':') as [string, ColumnType];
      return { field, column: snake(field), type };
    });
}

const field = (name: string) => (row: Readonly<Record<string, unknown>>) => row[name];

function spec(table: TableName, cols: string, keyFields: readonly string[]): TableSpec {
  return { table, sql: snake(table), columns: columns(cols), key: keyFields.map((f) => ({ column: snake(f), value: field(f) })) };
}

/** Every document table's SQL table. The DDL (types, keys, indexes) is the migration in ./migrations. */
export const tableSpecs: { readonly [T in TableName]: TableSpec } = {
  // Map tables: the map's key is `name` / `tenant`, the value the other columns.
  sequences: spec('sequences', 'name:text value:bigint', ['name']),
  usage: spec('usage', 'tenant:text requests:json bytesUploaded:bigint audioSeconds:float updatedAt:timestamptz', ['tenant']),
  tenants: spec('tenants', 'id:text webhookSecret:text createdAt:timestamptz', ['id']),
  users: spec(
    'users',
    'id:int username:text name:text email:text admin:bool state:text tenant:text namespaceId:int passwordHash:text createdAt:timestamptz',
    ['id'],
  ),
  namespaces: spec('namespaces', 'id:int kind:text name:text path:text ownerId:int parentId:int createdAt:timestamptz', ['id']),
  groups: spec('groups', 'id:int name:text path:text description:text visibility:text parentId:int createdAt:timestamptz', ['id']),
  groupMembers: spec('groupMembers', 'groupId:int userId:int accessLevel:int expiresAt:text createdAt:timestamptz', ['groupId', 'userId']),
  tokens: spec(
    'tokens',
    'id:int userId:int name:text digest:text scopes:text[] createdAt:timestamptz expiresAt:text revoked:bool lastUsedAt:timestamptz',
    ['id'],
  ),
  jobs: spec(
    'jobs',
    'jobId:text type:text tenant:text status:text progress:float priority:int params:json result:json resultRef:text error:text ' +
      'created:float started:float finished:float cancelRequested:bool webhookUrl:text webhook:json',
    ['jobId'],
  ),
  sources: spec('sources', 'url:text contentId:text name:text descriptor:json fetchedAt:timestamptz', ['url']),
  projects: spec(
    'projects',
    'id:int name:text path:text namespaceId:int description:text visibility:text defaultBranch:text creatorId:int settings:json ' +
      'mergeMethod:text tagList:text[] ciConfigPath:text archived:bool importUrl:text importStatus:text importError:text ' +
      'forkedFromId:int emptyRepo:bool readmePath:text runnersToken:text customAttributes:json createdAt:timestamptz ' +
      'updatedAt:timestamptz lastActivityAt:timestamptz',
    ['id'],
  ),
  stars: spec('stars', 'projectId:int userId:int createdAt:timestamptz', ['projectId', 'userId']),
  projectShares: spec('projectShares', 'id:int projectId:int groupId:int groupAccess:int expiresAt:text createdAt:timestamptz', ['id']),
  uploads: spec('uploads', 'id:int projectId:int secret:text filename:text size:bigint uploaderId:int createdAt:timestamptz', ['id']),
  hooks: spec(
    'hooks',
    'id:int projectId:int url:text token:text events:json pushEventsBranchFilter:text enableSslVerification:bool createdAt:timestamptz',
    ['id'],
  ),
  groupBadges: spec('groupBadges', 'id:int groupId:int name:text linkUrl:text imageUrl:text createdAt:timestamptz', ['id']),
  projectBadges: spec('projectBadges', 'id:int projectId:int name:text linkUrl:text imageUrl:text createdAt:timestamptz', ['id']),
  notificationSettings: {
    ...spec('notificationSettings', 'userId:int source:text sourceId:int level:text notificationEmail:text events:json', []),
    // A global setting has no source id; the key column source_key holds 0 for it (a primary key cannot be null).
    key: [
      { column: 'user_id', value: field('userId') },
      { column: 'source', value: field('source') },
      { column: 'source_key', value: (row) => row.sourceId ?? 0 },
    ],
  },
  projectExports: spec(
    'projectExports',
    'projectId:int status:text file:text fileName:text upload:json description:text error:text requestedBy:int ' +
      'startedAt:timestamptz finishedAt:timestamptz',
    ['projectId'],
  ),
  lfsLinks: spec('lfsLinks', 'projectId:int oid:text size:bigint createdAt:timestamptz', ['projectId', 'oid']),
  lfsLocks: spec('lfsLocks', 'id:int projectId:int path:text ownerId:int refName:text lockedAt:timestamptz', ['id']),
};

/** A record field's value as a query parameter. */
export function encodeValue(type: ColumnType, value: unknown): unknown {
  if (value === undefined) return null;
  // JSON columns get text: pg would send a JS array as a PostgreSQL array.
  if (type === 'json') return JSON.stringify(value);
  return value;
}

/** A column's value (as pg parsed it) as the record field it came from. */
export function decodeValue(type: ColumnType, value: unknown): unknown {
  if (value === null) return null;
  if (type === 'timestamptz') return (value as Date).toISOString();
  return value;
}

/** A row read from PostgreSQL as the record the document holds (fields in the record's order). */
export function decodeRow(spec: TableSpec, row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const c of spec.columns) record[c.field] = decodeValue(c.type, row[c.column]);
  return record;
}

/** A map table's entry (`[name, value]`) as the row its SQL table holds. */
export function entryRow(spec: TableSpec, entry: unknown): Readonly<Record<string, unknown>> {
  const [name, value] = entry as [string, unknown];
  if (spec.table === 'sequences') return { name, value };
  return { tenant: name, ...(value as object) };
}

/** A change's rows (map tables: entries) as the rows of the SQL table. */
export function rowsOf(spec: TableSpec, items: readonly unknown[]): readonly Readonly<Record<string, unknown>>[] {
  const isMap = spec.table === 'sequences' || spec.table === 'usage';
  return isMap ? items.map((e) => entryRow(spec, e)) : (items as readonly Readonly<Record<string, unknown>>[]);
}
