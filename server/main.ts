import { ConfigError, loadConfig, parseCliFlags } from './config/load-config.js';
import { DataDirLockedError } from './store/data-dir.js';
import { startServer } from './start-server.js';
import { stopOnSignal } from './shared/stop-on-signal.js';

/** Headless entry: `node dist/server/main.js [--host h] [--port p] [--data-dir d]`. */
async function main(): Promise<void> {
  const config = loadConfig(process.env, parseCliFlags(process.argv.slice(2)));
  const server = await startServer(config);
  stopOnSignal(server);
  process.stdout.write(`Cratehouse listening on ${server.url}\n`);
  process.stdout.write(`  audio API   ${server.url}/audio/v1   hosting API ${server.url}/api/v4   GUI ${server.url}/\n`);
  process.stdout.write(`  data dir    ${server.dataDir}\n`);
  process.stdout.write(`  admin token ${server.admin.credentialsPath}${server.admin.created ? ' (created now; keep it secret)' : ''}\n`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) process.stderr.write(`cratehouse: ${error.message}\n`);
  else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
    process.stderr.write(`cratehouse: the port is already in use; set CRATEHOUSE_PORT (0 picks a free one)\n`);
  else process.stderr.write(`cratehouse: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
