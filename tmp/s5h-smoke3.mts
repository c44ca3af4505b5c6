import { startPrivatePostgres } from '../server/test-support/private-postgres.ts';
import { openPostgresStore } from '../server/store/postgres/pg-store.ts';
const pgs = await startPrivatePostgres();
const url = await pgs.createDatabase();
const store = await openPostgresStore(url);
setTimeout(async () => { console.log('timeout'); await pgs.stop(); process.exit(1); }, 8000);
try {
  console.log('a');
  const r = store.mutate((d) => { d.usage['t'] = { requests: { a: 1 }, bytesUploaded: 5, audioSeconds: 1.5, updatedAt: new Date().toISOString() }; });
  console.log('b');
  await r;
  console.log('c');
} catch (e) { console.log('err', e); }
await pgs.stop();
process.exit(0);
