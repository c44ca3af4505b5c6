import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from './config/load-config.js';
import { startServer } from './start-server.js';
import { lockFileName } from './store/data-dir.js';

// A start that fails at the listen (the port is taken) stops what it had started: the analysis
// threads, the timers and the store, not only the data dir's lock; the host can then start again.

let dataDir: string;
let blocker: net.Server;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-start-'));
  blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  await rm(dataDir, { recursive: true, force: true });
});

const configOn = (port: number) =>
  loadConfig({}, { host: '127.0.0.1', port, dataDir, logLevel: 'silent', adminToken: 'start-server-test-admin-token' });
/** Worker threads (piscina's) show up as MessagePort resources of this thread. */
const messagePorts = () => process.getActiveResourcesInfo().filter((kind) => kind === 'MessagePort').length;

it('a start on a taken port releases the lock and the analysis threads, and a start on a free port then works', async () => {
  const taken = (blocker.address() as net.AddressInfo).port;
  const portsBefore = messagePorts();

  const failure = await startServer(configOn(taken), { rendererDir: null }).catch((error: unknown) => error);
  expect((failure as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
  expect(existsSync(path.join(dataDir, lockFileName))).toBe(false);
  expect(messagePorts()).toBe(portsBefore);

  const server = await startServer(configOn(0), { rendererDir: null });
  try {
    expect(server.port).not.toBe(taken);
    expect(existsSync(path.join(dataDir, lockFileName))).toBe(true);
    expect(messagePorts()).toBeGreaterThan(portsBefore);
    const me = await fetch(`${server.url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'start-server-test-admin-token' } });
    expect(me.status).toBe(200);
  } finally {
    await server.stop();
  }
  expect(existsSync(path.join(dataDir, lockFileName))).toBe(false);
  expect(messagePorts()).toBe(portsBefore);
});
