import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { startServer, type RunningServer } from '../start-server.js';
import { hostNameOf, isHostAllowed } from './host-check.js';

describe('hostNameOf', () => {
  it('drops the port and IPv6 brackets and lowercases', () => {
    expect(hostNameOf('LocalHost:8080')).toBe('localhost');
    expect(hostNameOf('127.0.0.1')).toBe('127.0.0.1');
    expect(hostNameOf('[::1]:49152')).toBe('::1');
    expect(hostNameOf('evil.example:80')).toBe('evil.example');
  });

  it('gives null for a missing or malformed header', () => {
    expect(hostNameOf(undefined)).toBeNull();
    expect(hostNameOf('')).toBeNull();
    expect(hostNameOf('::1')).toBeNull();
    expect(hostNameOf('[]')).toBeNull();
    expect(hostNameOf(':8080')).toBeNull();
  });
});

describe('isHostAllowed', () => {
  it('lets loopback stand for localhost, *.localhost, 127.0.0.1 and ::1 only', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '::1']) expect(isHostAllowed(host, ['loopback'])).toBe(true);
    for (const host of ['127.0.0.2', 'localhost.evil.example', 'evil.example', '0.0.0.0', '192.168.1.10'])
      expect(isHostAllowed(host, ['loopback'])).toBe(false);
  });

  it('matches other names exactly', () => {
    expect(isHostAllowed('studio.lan', ['studio.lan'])).toBe(true);
    expect(isHostAllowed('x.studio.lan', ['studio.lan'])).toBe(false);
    expect(isHostAllowed('::1', ['[::1]'])).toBe(true);
  });
});

/** One raw request with a chosen Host header (fetch does not let a caller set Host). */
function requestWithHost(
  url: string,
  host: string | null,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    if (host !== null) headers.Host = host;
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: init.method ?? 'GET',
        headers,
        setHost: host !== null,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('a server that answers only to loopback names (the desktop app’s local API)', () => {
  let server: RunningServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'cratehouse-host-'));
    server = await startServer(
      loadConfig({}, { port: 0, dataDir, logLevel: 'silent', allowedHosts: ['loopback'], adminToken: 'host-check-admin-token' }),
      { rendererDir: null },
    );
  });
  afterAll(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers under 127.0.0.1, localhost and [::1]', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`]) {
      const res = await requestWithHost(`${server.url}/audio/v1/healthz`, host);
      expect(res.status, host).toBe(200);
    }
  });

  it('refuses a rebinding page’s host name with 403 in each API’s error shape', async () => {
    const audio = await requestWithHost(`${server.url}/audio/v1/me`, `attacker.example:${server.port}`, {
      headers: { Authorization: 'Bearer host-check-admin-token' },
    });
    expect(audio.status).toBe(403);
    expect(JSON.parse(audio.body)).toEqual({ detail: expect.stringContaining('attacker.example') });
    const hosting = await requestWithHost(`${server.url}/api/v4/user`, 'attacker.example', {
      headers: { 'PRIVATE-TOKEN': 'host-check-admin-token' },
    });
    expect(hosting.status).toBe(403);
    expect(JSON.parse(hosting.body)).toEqual({ message: expect.stringMatching(/^403 Forbidden/) });
  });

  it('refuses a request without a Host header', async () => {
    // Node's HTTP server already answers an HTTP/1.1 request without Host with 400.
    const res = await requestWithHost(`${server.url}/audio/v1/healthz`, null);
    expect(res.status).toBe(400);
  });

  it('sends no CORS headers, to a simple request or a preflight from another origin', async () => {
    const origin = { Origin: 'http://attacker.example' };
    const simple = await requestWithHost(`${server.url}/audio/v1/healthz`, `127.0.0.1:${server.port}`, { headers: origin });
    expect(simple.status).toBe(200);
    const preflight = await requestWithHost(`${server.url}/audio/v1/analyze`, `127.0.0.1:${server.port}`, {
      method: 'OPTIONS',
      headers: { ...origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' },
    });
    for (const res of [simple, preflight]) {
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });
});
