import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { NotReadyError, waitForReady } from './readiness.js';

function listen(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = http.createServer(handler).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

describe('waitForReady', () => {
  it('waits through failing health checks until the server answers', async () => {
    let calls = 0;
    const server = await listen((req, res) => {
      calls++;
      expect(req.url).toBe('/audio/v1/healthz');
      if (calls < 3) res.writeHead(503).end();
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"version":"9.9.9"}');
    });
    try {
      const ready = await waitForReady(server.url, { timeoutMs: 5000, intervalMs: 20 });
      expect(ready.version).toBe('9.9.9');
      expect(calls).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('gives up after the timeout and says what it last saw', async () => {
    const server = await listen((_req, res) => res.writeHead(500).end());
    try {
      const started = Date.now();
      // 3 s: a process's first fetch loads undici, which took over 300 ms under the full suite's load.
      const error = await waitForReady(server.url, { timeoutMs: 3000, intervalMs: 50 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotReadyError);
      expect((error as Error).message).toContain('health check answered 500');
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      await server.close();
    }
  });

  it('keeps the last answer when the deadline aborts a slow attempt (it says nothing new)', async () => {
    let calls = 0;
    // The first attempt answers 500; every later one hangs until its signal aborts it.
    const fetchImpl = ((_url: string, init?: RequestInit) => {
      calls++;
      if (calls === 1) return Promise.resolve(new Response(null, { status: 500 }));
      return new Promise<Response>((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    }) as typeof fetch;
    const error = await waitForReady('http://127.0.0.1:9', { timeoutMs: 300, intervalMs: 20, fetchImpl }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotReadyError);
    expect((error as Error).message).toContain('health check answered 500');
    expect(calls).toBeGreaterThanOrEqual(2);
  });

  it('says the attempt timed out when nothing ever answered', async () => {
    const fetchImpl = ((_url: string, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)),
      )) as typeof fetch;
    const error = await waitForReady('http://127.0.0.1:9', { timeoutMs: 200, intervalMs: 20, fetchImpl }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/did not become ready within 200 ms \(.*timeout/i);
  });

  it('reports a refused connection', async () => {
    const server = await listen((_req, res) => res.end());
    const url = server.url;
    await server.close();
    const error = await waitForReady(url, { timeoutMs: 200, intervalMs: 50 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/did not become ready within 200 ms \(.*fetch failed|ECONNREFUSED/);
  });
});
