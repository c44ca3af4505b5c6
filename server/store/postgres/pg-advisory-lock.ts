import pg from 'pg';

/** The first key of the advisory locks taken here (the second is the work's name): apart from other users of the database. */
const lockClass = 'cratehouse.run-alone';

/**
 * Run `work` holding PostgreSQL's session advisory lock for `name`, on a connection of its own (the
 * store's pool serves commits and reloads); resolves to false, without running it, while another
 * node holds the lock. A node that dies mid-work loses its connection, and with it the lock.
 */
export async function runHoldingAdvisoryLock(url: string, name: string, work: () => Promise<void>): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, application_name: 'cratehouse-run-alone' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const key = [lockClass, name];
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok', key);
    if (!rows[0]?.ok) return false;
    try {
      await work();
      return true;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', key).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
