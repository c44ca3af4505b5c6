import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A PostgreSQL server of its own for one test file: a temp cluster on a private socket, no TCP. */
export interface PrivatePostgres {
  /** A new, empty database; resolves to its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

/** The folder with initdb and postgres: CRATEHOUSE_PG_BIN, else Debian's newest, else PATH. */
function findBinDir(): string | null {
  const fromEnv = process.env.CRATEHOUSE_PG_BIN;
  if (fromEnv) return existsSync(path.join(fromEnv, 'initdb')) ? fromEnv : null;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(path.join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? path.dirname(which.stdout.trim()) : null;
}

const binDir = findBinDir();
const required = process.env.CRATEHOUSE_REQUIRE_POSTGRES === '1';
if (!binDir && required) throw new Error('CRATEHOUSE_REQUIRE_POSTGRES=1 but PostgreSQL (initdb, postgres) was not found');

/** Why PostgreSQL tests are skipped, or null when they run. */
export const postgresSkipReason: string | null = binDir
  ? null
  : 'PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on PATH; set CRATEHOUSE_PG_BIN): the PostgreSQL store tests are skipped';

if (postgresSkipReason) console.warn(postgresSkipReason);

/** PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user. */
function clusterUser(): { uid: number; gid: number; name: string } | null {
  if (userInfo().uid !== 0) return null;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0) throw new Error('running as root, but there is no postgres user to run PostgreSQL as');
  return { uid: Number(uid.stdout), gid: Number(gid.stdout), name: 'postgres' };
}

/** initdb into a temp dir and start postgres on a socket in it (no TCP); throws when PostgreSQL is missing or does not start. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  if (!binDir) throw new Error(postgresSkipReason!);
  const owner = clusterUser();
  const dir = mkdtempSync(path.join(tmpdir(), 'cratehouse-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const dataDir = path.join(dir, 'data');
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const superuser = owner?.name ?? userInfo().username;
  const init = spawnSync(path.join(binDir, 'initdb'), ['-D', dataDir, '-A', 'trust', '-U', superuser, '--no-sync', '-E', 'UTF8'], {
    ...as,
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  // fsync stays on: the durability tests need a commit to mean "on disk".
  const child: ChildProcess = spawn(
    path.join(binDir, 'postgres'),
    ['-D', dataDir, '-k', dir, '-p', String(port), '-c', 'listen_addresses=', '-c', 'max_connections=50'],
    { ...as, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const urlOf = (db: string) => `postgresql://${superuser}@/${db}?host=${encodeURIComponent(dir)}&port=${port}`;
  const admin = new pg.Client({ connectionString: urlOf('postgres') });
  for (let attempt = 0; ; attempt++) {
    try {
      const probe = new pg.Client({ connectionString: urlOf('postgres') });
      await probe.connect();
      await probe.end();
      break;
    } catch (error) {
      if (attempt > 100 || child.exitCode !== null) throw new Error(`postgres did not start: ${String(error)}\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await admin.connect();
  let databases = 0;
  return {
    async createDatabase() {
      const name = `cratehouse_${++databases}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return urlOf(name);
    },
    async stop() {
      await admin.end().catch(() => undefined);
      child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
