import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { startPrivatePostgres } from '../server/test-support/private-postgres.ts';
const pgs = await startPrivatePostgres();
const url = await pgs.createDatabase();
const dataDir = mkdtempSync('/tmp/s5h-data-');
const t0 = Date.now();
const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env: { ...process.env, CRATEHOUSE_PORT: '0', CRATEHOUSE_DATA_DIR: dataDir, CRATEHOUSE_ADMIN_TOKEN: 'tok', CRATEHOUSE_LOG_LEVEL: 'info', CRATEHOUSE_DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] });
child.stdout!.on('data', async (b: Buffer) => {
  const line = b.toString(); process.stdout.write(line);
  const m = /listening on (http:\/\/\S+)/.exec(line);
  if (m) {
    console.log('listening after', Date.now() - t0);
    const r = await fetch(`${m[1]}/api/v4/groups`, { method: 'POST', headers: { 'PRIVATE-TOKEN': 'tok', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'g1', path: 'g1' }) });
    console.log(r.status, await r.text());
    const p = await fetch(`${m[1]}/api/v4/projects`, { method: 'POST', headers: { 'PRIVATE-TOKEN': 'tok', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'p1', path: 'p1' }) });
    console.log(p.status, (await p.text()).slice(0, 200));
    child.kill('SIGTERM');
  }
});
child.on('exit', async (c) => { console.log('exit', c); await pgs.stop(); process.exit(0); });
