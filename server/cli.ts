import { readFileSync } from 'node:fs';
import path from 'node:path';
import { adminCredentialsFile } from './auth/bootstrap.js';
import { createIdentityRepo } from './auth/identity-repo.js';
import { createIdentityService } from './auth/identity.js';
import { ConfigError, loadConfig, type Config } from './config/load-config.js';
import { AppError } from './http/errors.js';
import { presentGroup, presentToken, presentUser } from './hosting/present.js';
import { stopOnSignal } from './shared/stop-on-signal.js';
import { acquireLock, DataDirLockedError, prepareDataDir, readLiveLock } from './store/data-dir.js';
import { SchemaTooNewError } from './store/migrations.js';
import { StoreCopyError } from './store/postgres/copy-embedded.js';
import { openDataStore } from './store/open-data-store.js';
import type { UserRecord, Visibility } from './store/schema.js';

/** The admin operations the CLI offers, the same whether it talks to a server or to the files. */
interface AdminOps {
  readonly mode: string;
  createUser(input: {
    username: string;
    name: string;
    email: string;
    admin: boolean;
    tenant?: string;
    password?: string;
  }): Promise<Record<string, unknown>>;
  createToken(user: string, input: { name: string; scopes: string[]; expiresAt: string | null }): Promise<Record<string, unknown>>;
  listTokens(user?: string): Promise<Record<string, unknown>[]>;
  revokeToken(id: number): Promise<void>;
  createGroup(input: {
    name: string;
    path: string;
    visibility?: Visibility;
    description?: string;
    parentId?: number;
  }): Promise<Record<string, unknown>>;
}

const usage = `Usage: cratehouse <command> [options]

Commands:
  serve [--host H] [--port P] [--data-dir D]       start the headless server (same as npm start)
  worker [--data-dir D]                            run analysis tasks from Redis (CRATEHOUSE_REDIS_URL) for the
                                                   app nodes sharing the data dir D (see docs/deploy/scale-out.md)
  user create --username U --name N --email E [--admin] [--tenant T] [--password P]
  token create --user U --name N [--scopes api,read_api] [--expires YYYY-MM-DD]
  token list [--user U]
  token revoke <token-id>
  group create --name N --path P [--visibility private|internal|public] [--parent ID] [--description D]
  store migrate --to postgres [--database-url URL]
                                                   copy the embedded store (db.json) of the data dir into an
                                                   empty PostgreSQL database (default CRATEHOUSE_DATABASE_URL);
                                                   no server may hold the data dir (docs/deploy/postgres.md)
  analyze <files or folders…> [--json | --csv] [--rename-to DIR]
                                                   analyse locally (no server): role, tier, LUFS, true peak,
                                                   tempo, key and a suggested name per file; --rename-to
                                                   copies the files under their suggested names

Global options: --data-dir D (default CRATEHOUSE_DATA_DIR or ./data), --json (machine-readable output)
When a server holds the data dir, commands go through its API with the admin token in
<data dir>/${adminCredentialsFile} (or CRATEHOUSE_TOKEN); otherwise they edit the files directly.`;

/** Split argv into positionals and --flags (a flag without a value is boolean). */
function parseArgs(argv: readonly string[]): { positional: string[]; flags: Map<string, string | true> } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--') && !['admin', 'json', 'csv'].includes(arg.slice(2)))
      flags.set(arg.slice(2), argv[++i]!);
    else flags.set(arg.slice(2), true);
  }
  return { positional, flags };
}

class UsageError extends Error {}

function need(flags: Map<string, string | true>, name: string): string {
  const v = flags.get(name);
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** Operations over the running server's API. */
function httpOps(url: string, token: string): AdminOps {
  const call = async (method: string, route: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${url}/api/v4${route}`, {
      method,
      headers: { 'PRIVATE-TOKEN': token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const o = json as { message?: unknown; error?: unknown } | null;
      throw new AppError('invalid', `server answered ${res.status}: ${JSON.stringify(o?.error ?? o?.message ?? text)}`);
    }
    return json;
  };
  const userId = async (user: string) => {
    if (/^\d+$/.test(user)) return Number(user);
    const found = (await call('GET', `/users?username=${encodeURIComponent(user)}`)) as { id: number }[];
    if (!found[0]) throw new AppError('not-found', `no user ${user}`);
    return found[0].id;
  };
  return {
    mode: `through the server at ${url}`,
    createUser: async (i) =>
      (await call('POST', '/users', {
        username: i.username,
        name: i.name,
        email: i.email,
        admin: i.admin,
        tenant: i.tenant,
        ...(i.password ? { password: i.password } : { force_random_password: true }),
      })) as Record<string, unknown>,
    createToken: async (user, i) =>
      (await call('POST', `/users/${await userId(user)}/personal_access_tokens`, {
        name: i.name,
        scopes: i.scopes,
        expires_at: i.expiresAt,
      })) as Record<string, unknown>,
    listTokens: async (user) =>
      (await call('GET', `/personal_access_tokens?per_page=100${user ? `&user_id=${await userId(user)}` : ''}`)) as Record<
        string,
        unknown
      >[],
    revokeToken: async (id) => void (await call('DELETE', `/personal_access_tokens/${id}`)),
    createGroup: async (i) =>
      (await call('POST', '/groups', {
        name: i.name,
        path: i.path,
        visibility: i.visibility,
        description: i.description,
        parent_id: i.parentId,
      })) as Record<string, unknown>,
  };
}

/** Operations directly on the data dir's files (no server running; the CLI holds the lock). */
async function fileOps(config: Config): Promise<AdminOps & { close(): Promise<void> }> {
  // With the metadata in PostgreSQL several nodes share the data dir; db.json has one owner.
  const dirMode = config.databaseUrl ? 'shared' : 'exclusive';
  prepareDataDir(config.dataDir, dirMode);
  const lock = acquireLock(config.dataDir, 'cli', dirMode);
  const store = await openDataStore(config);
  const identity = createIdentityService(createIdentityRepo(store));
  const base = config.publicUrl ?? `http://${config.host}:${config.port}`;
  // Whoever can edit the files is an administrator; this stand-in is used only for permission checks.
  const operator: UserRecord = {
    id: 0,
    username: 'operator',
    name: 'Operator',
    email: 'operator@localhost',
    admin: true,
    state: 'active',
    tenant: 'operator',
    namespaceId: 0,
    passwordHash: null,
    createdAt: '',
  };
  const today = () => new Date().toISOString().slice(0, 10);
  return {
    mode: `on the files in ${config.dataDir}`,
    createUser: async (i) => {
      // The operator at the files is an administrator: show the private fields too.
      const user = await identity.createUser({ ...i, password: i.password ?? null });
      return presentUser(user, base, user) as unknown as Record<string, unknown>;
    },
    createToken: async (user, i) => {
      const { record, token } = await identity.createToken(identity.getUser(user).id, i);
      return presentToken(record, today(), token) as unknown as Record<string, unknown>;
    },
    listTokens: async (user) => {
      return identity
        .listTokens(operator, user ? identity.getUser(user).id : undefined)
        .map((t) => presentToken(t, today()) as unknown as Record<string, unknown>);
    },
    revokeToken: (id) => identity.revokeToken(operator, id),
    createGroup: async (i) => {
      const group = await identity.createGroup(i, null);
      return presentGroup(group, identity.fullPath(group), group.name, base) as unknown as Record<string, unknown>;
    },
    close: async () => {
      await store.close();
      lock.release();
    },
  };
}

/** Pick the mode: the server's API when one is running on the data dir, else the files. */
async function openOps(config: Config, env: Readonly<Record<string, string | undefined>>): Promise<AdminOps & { close(): Promise<void> }> {
  const lock = readLiveLock(config.dataDir);
  if (lock?.holder === 'server') {
    if (!lock.url) throw new DataDirLockedError(lock);
    let token = env.CRATEHOUSE_TOKEN;
    if (!token) {
      try {
        token = (JSON.parse(readFileSync(path.join(config.dataDir, adminCredentialsFile), 'utf8')) as { token: string }).token;
      } catch {
        throw new UsageError(
          `a server is running at ${lock.url}; set CRATEHOUSE_TOKEN to an admin token (no ${adminCredentialsFile} readable)`,
        );
      }
    }
    return { ...httpOps(lock.url, token), close: async () => undefined };
  }
  return fileOps(config);
}

/** Run the CLI; returns the exit code. */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  out: (s: string) => void,
): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const [command, sub, arg] = positional;
  if (!command || flags.has('help') || command === 'help') {
    out(usage);
    return command ? 0 : 2;
  }
  const dataDir = flags.get('data-dir');
  const config = loadConfig(env, typeof dataDir === 'string' ? { dataDir } : {});
  if (command === 'serve') {
    const { startServer } = await import('./start-server.js');
    const { parseCliFlags } = await import('./config/load-config.js');
    const server = await startServer(loadConfig(env, parseCliFlags(argv.slice(1))));
    stopOnSignal(server);
    out(`Cratehouse listening on ${server.url}`);
    return -1;
  }
  if (command === 'worker') {
    const { startWorker } = await import('./start-worker.js');
    const worker = await startWorker(config);
    stopOnSignal(worker);
    out(`Cratehouse worker taking analysis tasks (${worker.threads} threads, data dir ${config.dataDir})`);
    return -1;
  }
  if (command === 'analyze') {
    const renameTo = flags.get('rename-to');
    const inputs = positional.slice(1);
    if (inputs.length === 0) throw new UsageError('analyze needs at least one file or folder');
    const { runAnalyze } = await import('./cli-analyze.js');
    return runAnalyze(inputs, config, {
      format: flags.has('json') ? 'json' : flags.has('csv') ? 'csv' : 'table',
      renameTo: typeof renameTo === 'string' ? renameTo : null,
      out,
      progress: process.stderr.isTTY ? process.stderr : null,
    });
  }
  if (command === 'store') {
    if (sub !== 'migrate') throw new UsageError(`unknown command: store ${sub ?? ''}`.trim());
    const { runStoreMigrate } = await import('./cli-store.js');
    const to = flags.get('to');
    const databaseUrl = flags.get('database-url');
    return runStoreMigrate(config, {
      to: typeof to === 'string' ? to : undefined,
      databaseUrl: typeof databaseUrl === 'string' ? databaseUrl : undefined,
      json: flags.has('json'),
      out,
    });
  }
  const json = flags.has('json');
  const show = (label: string, value: unknown) =>
    out(json ? JSON.stringify(value, null, 2) : `${label}\n${JSON.stringify(value, null, 2)}`);
  const ops = await openOps(config, env);
  try {
    const key = `${command} ${sub ?? ''}`.trim();
    switch (key) {
      case 'user create': {
        const tenant = flags.get('tenant');
        const password = flags.get('password');
        const user = await ops.createUser({
          username: need(flags, 'username'),
          name: need(flags, 'name'),
          email: need(flags, 'email'),
          admin: flags.get('admin') === true,
          ...(typeof tenant === 'string' ? { tenant } : {}),
          ...(typeof password === 'string' ? { password } : {}),
        });
        show(`Created user ${String(user.username)} (id ${String(user.id)}) ${ops.mode}`, user);
        return 0;
      }
      case 'token create': {
        const scopes = flags.get('scopes');
        const expires = flags.get('expires');
        const token = await ops.createToken(need(flags, 'user'), {
          name: need(flags, 'name'),
          scopes: typeof scopes === 'string' ? scopes.split(',').map((s) => s.trim()) : ['api'],
          expiresAt: typeof expires === 'string' ? expires : null,
        });
        show(`Created token ${String(token.id)}; this is the only time it is shown:\n  ${String(token.token)}`, token);
        return 0;
      }
      case 'token list': {
        const user = flags.get('user');
        const tokens = await ops.listTokens(typeof user === 'string' ? user : undefined);
        if (json) out(JSON.stringify(tokens, null, 2));
        else
          for (const t of tokens)
            out(
              `${String(t.id).padStart(4)}  user ${String(t.user_id).padEnd(4)} ${t.active ? 'active ' : 'revoked'}  ${String(t.name)}  [${(t.scopes as string[]).join(',')}]`,
            );
        return 0;
      }
      case 'token revoke': {
        if (!arg || !/^\d+$/.test(arg)) throw new UsageError('token revoke needs a numeric token id');
        await ops.revokeToken(Number(arg));
        out(`Revoked token ${arg}`);
        return 0;
      }
      case 'group create': {
        const visibility = flags.get('visibility');
        const parent = flags.get('parent');
        const description = flags.get('description');
        const group = await ops.createGroup({
          name: need(flags, 'name'),
          path: need(flags, 'path'),
          ...(typeof visibility === 'string' ? { visibility: visibility as Visibility } : {}),
          ...(typeof parent === 'string' ? { parentId: Number(parent) } : {}),
          ...(typeof description === 'string' ? { description } : {}),
        });
        show(`Created group ${String(group.full_path)} (id ${String(group.id)}) ${ops.mode}`, group);
        return 0;
      }
      default:
        throw new UsageError(`unknown command: ${key}`);
    }
  } finally {
    await ops.close();
  }
}

/** Human-readable text for an error the CLI reports. */
function describeError(error: unknown): string {
  if (error instanceof UsageError) return `${error.message}\n\n${usage}`;
  if (error instanceof AppError) {
    const fields = error.options.fields
      ? ` (${Object.entries(error.options.fields)
          .map(([k, v]) => `${k} ${v.join(', ')}`)
          .join('; ')})`
      : '';
    return `${error.message}${fields}`;
  }
  for (const kind of [ConfigError, DataDirLockedError, StoreCopyError, SchemaTooNewError]) if (error instanceof kind) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

if (process.argv[1] && /cli\.(ts|js)$|cratehouse(\.mjs)?$/.test(process.argv[1])) {
  runCli(process.argv.slice(2), process.env, (s) => process.stdout.write(s + '\n')).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`cratehouse: ${describeError(error)}\n`);
      process.exitCode = 1;
    },
  );
}
