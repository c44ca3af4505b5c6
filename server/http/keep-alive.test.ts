import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test-support/test-app.js';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

/** GET `path` through `agent`; the status and whether the agent sent it on a connection it had used before. */
function get(agent: http.Agent, path: string): Promise<{ readonly status: number; readonly reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${app.url}${path}`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

describe('keep-alive', () => {
  it('keeps an idle connection open past Node’s 5 s default, so a client reusing it after 6 s is answered on it', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(agent, '/audio/v1/healthz')).toEqual({ status: 200, reused: false });
      await new Promise((r) => setTimeout(r, 6_000));
      // With Node's default the server has closed the socket by now: the agent would open a new one.
      expect(await get(agent, '/audio/v1/healthz')).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }, 30_000);
});
