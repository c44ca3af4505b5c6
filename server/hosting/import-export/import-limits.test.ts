import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load-config.js';
import { startServer, type RunningServer } from '../../start-server.js';
import type { Namespace, ProjectImportStatus } from '../api-types.js';
import { writeTarGz, type TarInput } from '../../shared/tar-archive.js';

/**
 * Issue 18 item 9, through the real server and its configuration: CRATEHOUSE_MAX_IMPORT_MB caps an
 * import (the upload and what it expands to), and the namespace reports what its projects store.
 */
const token = 'import-limits-admin-token';
let dataDir: string;
let server: RunningServer;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-import-limits-'));
  const config = loadConfig(
    { CRATEHOUSE_MAX_IMPORT_MB: '1' },
    { host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent', adminToken: token },
  );
  server = await startServer(config, { rendererDir: null });
});
afterAll(async () => {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const api = (route: string, init: RequestInit = {}) =>
  fetch(`${server.url}/api/v4${route}`, { ...init, headers: { 'PRIVATE-TOKEN': token, ...init.headers } });
let counter = 0;
async function archiveOf(entries: readonly TarInput[]): Promise<Buffer> {
  const file = path.join(dataDir, `archive-${++counter}.tar.gz`);
  await writeTarGz(file, entries);
  const bytes = await readFile(file);
  await rm(file);
  return bytes;
}
async function importAndWait(archive: Buffer, projectPath: string): Promise<ProjectImportStatus> {
  const form = new FormData();
  form.append('path', projectPath);
  form.append('file', new Blob([new Uint8Array(archive)]), 'file.tar.gz');
  const res = await api('/projects/import', { method: 'POST', body: form });
  const created = (await res.json()) as ProjectImportStatus;
  expect(res.status, JSON.stringify(created)).toBe(201);
  for (let i = 0; i < 200; i++) {
    const status = (await (await api(`/projects/${created.id}/import`)).json()) as ProjectImportStatus;
    if (status.import_status === 'finished' || status.import_status === 'failed') return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the import did not end');
}
async function ownNamespace(): Promise<Namespace> {
  const me = (await (await api('/user')).json()) as { namespace_id: number };
  const res = await api(`/namespaces/${me.namespace_id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Namespace;
}
const secret = () => randomBytes(16).toString('hex');

describe('import size cap (CRATEHOUSE_MAX_IMPORT_MB)', () => {
  it('fails an archive of a few KB that expands past the cap, says why, and leaves nothing on disk', async () => {
    const bomb = await archiveOf([
      { path: 'tree/project.json', data: '{}' },
      { path: `uploads/${secret()}/zeros.bin`, data: Buffer.alloc(3 * 1024 * 1024) },
    ]);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const status = await importAndWait(bomb, 'bomb');
    expect(status).toMatchObject({ import_status: 'failed', import_error: 'The archive is larger than 1 MiB uncompressed' });
    expect(await readdir(path.join(dataDir, 'tmp')), 'tmp/').toEqual([]);
    const uploadsDir = path.join(dataDir, 'uploads', String(status.id));
    expect(existsSync(uploadsDir) ? await readdir(uploadsDir) : []).toEqual([]);
    expect((await ownNamespace()).root_storage_statistics?.uploads_size).toBe(0);
  });

  it('refuses an import upload whose Content-Length is over the cap before reading it', async () => {
    const { port } = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      let out = '';
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /api/v4/projects/import HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${token}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${2 * 1024 ** 3}\r\n\r\n`,
        );
        socket.write(Buffer.alloc(8192, 1));
      });
      socket.on('data', (d) => (out += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(out));
      setTimeout(() => socket.destroy(), 2000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nConnection: close/i);
    expect(await readdir(path.join(dataDir, 'tmp')), 'tmp/').toEqual([]);
  });
});

describe('storage per namespace (GET /namespaces/:id)', () => {
  it("reports what the user's projects store: repositories and uploads, imported ones included", async () => {
    const before = (await ownNamespace()).root_storage_statistics!;
    const imported = Buffer.from(randomBytes(300 * 1024));
    const status = await importAndWait(
      await archiveOf([
        { path: 'tree/project.json', data: '{}' },
        { path: `uploads/${secret()}/take.bin`, data: imported },
      ]),
      'with-upload',
    );
    expect(status.import_status).toBe('finished');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(1000).fill(9)]), 'notes.txt');
    expect((await api(`/projects/${status.id}/uploads`, { method: 'POST', body: form })).status).toBe(201);

    const ns = await ownNamespace();
    const stats = ns.root_storage_statistics!;
    expect(stats.uploads_size - before.uploads_size).toBe(300 * 1024 + 1000);
    expect(stats.repository_size).toBeGreaterThan(before.repository_size);
    expect(stats.storage_size).toBe(stats.repository_size + stats.uploads_size);
    expect(ns.root_repository_size).toBe(stats.repository_size);
  });
});
