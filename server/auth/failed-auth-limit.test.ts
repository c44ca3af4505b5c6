import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, startTestApp, type TestApp } from '../test-support/test-app.js';

/** One request from a chosen loopback address (127.0.0.0/8 all reach the server), so tests can be several clients. */
function from(
  app: TestApp,
  address: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(app.url + path, { method, headers, localAddress: address }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const bad = (n: number) => ({ 'PRIVATE-TOKEN': `chpat-not-a-token-${n}` });
const limits = { failures: 3, windowS: 60, blockS: 120, exemptLoopback: false };

describe('failed authentication is rate limited', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ jsDecoder: true, failedAuth: limits });
  });
  afterAll(() => app.close());

  it('per address: the failure after the limit and everything after it answer 429 with Retry-After; other addresses are not affected', async () => {
    for (let i = 0; i < 3; i++) expect((await from(app, '127.0.0.2', '/api/v4/user', bad(i))).status).toBe(401);
    const over = await from(app, '127.0.0.2', '/api/v4/user', bad(3));
    expect(over.status).toBe(429);
    expect(JSON.parse(over.text)).toEqual({ message: { error: 'Too many failed authentication attempts. Try again later.' } });
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(120);

    // While blocked, even a valid token is refused from there: otherwise the answer would reveal a right guess.
    expect((await from(app, '127.0.0.2', '/api/v4/user', { 'PRIVATE-TOKEN': adminToken })).status).toBe(429);
    // The audio API and git over HTTP refuse that address too, each in its own shape.
    const audio = await from(app, '127.0.0.2', '/audio/v1/me', { Authorization: `Bearer ${adminToken}` });
    expect(audio.status).toBe(429);
    expect(JSON.parse(audio.text)).toEqual({
      detail: 'Too many failed authentication attempts. Try again later.',
      code: 'too_many_failed_authentications',
    });
    expect(Number(audio.headers['retry-after'])).toBeGreaterThan(60);
    const git = await from(app, '127.0.0.2', '/root/none.git/info/refs?service=git-upload-pack', {
      Authorization: `Basic ${Buffer.from(`oauth2:${adminToken}`).toString('base64')}`,
    });
    expect(git.status).toBe(429);
    expect(git.headers['content-type']).toMatch(/^text\/plain/);
    expect(git.text).toBe('Too many failed authentication attempts. Try again later.\n');
    expect(Number(git.headers['retry-after'])).toBeGreaterThan(60);

    // Another client with a good token is served, and requests without a token are not counted or blocked.
    const other = await from(app, '127.0.0.3', '/api/v4/user', { 'PRIVATE-TOKEN': adminToken });
    expect(other.status).toBe(200);
    expect(JSON.parse(other.text)).toMatchObject({ username: 'root' });
    expect((await from(app, '127.0.0.2', '/audio/v1/healthz', {})).status).toBe(200);
  });

  it('bad git credentials count like bad tokens', async () => {
    const basic = (n: number) => ({ Authorization: `Basic ${Buffer.from(`someone:wrong-${n}`).toString('base64')}` });
    for (let i = 0; i < 3; i++)
      expect((await from(app, '127.0.0.4', '/root/none.git/info/refs?service=git-upload-pack', basic(i))).status).toBe(401);
    const over = await from(app, '127.0.0.4', '/root/none.git/info/refs?service=git-upload-pack', basic(3));
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('per token: a revoked token replayed from many addresses is blocked too', async () => {
    const user = await app.addUser('replayed');
    const admin = app.identity.getUser(1);
    const tokenId = app.identity.listTokens(admin, user.id)[0]!.id;
    await app.identity.revokeToken({ ...admin }, tokenId);
    const headers = { 'PRIVATE-TOKEN': user.token };
    const addresses = ['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4'];
    for (const address of addresses.slice(0, 3)) expect((await from(app, address, '/api/v4/user', headers)).status).toBe(401);
    expect((await from(app, addresses[3]!, '/api/v4/user', headers)).status).toBe(429);
    // That fourth address is not blocked for other tokens: it had one failure only.
    expect((await from(app, addresses[3]!, '/api/v4/user', { 'PRIVATE-TOKEN': adminToken })).status).toBe(200);
  });
});

describe('the loopback exemption (the desktop app)', () => {
  it('never limits loopback clients when configured', async () => {
    const app = await startTestApp({ jsDecoder: true, failedAuth: { ...limits, exemptLoopback: true } });
    try {
      for (let i = 0; i < 8; i++) expect((await from(app, '127.0.0.5', '/api/v4/user', bad(i))).status).toBe(401);
      expect((await from(app, '127.0.0.5', '/api/v4/user', { 'PRIVATE-TOKEN': adminToken })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('takes the client address from X-Forwarded-For only when the proxy is trusted', async () => {
    const app = await startTestApp({ jsDecoder: true, failedAuth: limits, trustProxy: 'loopback' });
    try {
      // Behind a trusted local proxy, two clients with one proxy address are two clients.
      for (let i = 0; i < 4; i++) await from(app, '127.0.0.6', '/api/v4/user', { ...bad(i), 'X-Forwarded-For': '203.0.113.7' });
      expect((await from(app, '127.0.0.6', '/api/v4/user', { 'PRIVATE-TOKEN': adminToken, 'X-Forwarded-For': '203.0.113.7' })).status).toBe(
        429,
      );
      expect((await from(app, '127.0.0.6', '/api/v4/user', { 'PRIVATE-TOKEN': adminToken, 'X-Forwarded-For': '203.0.113.8' })).status).toBe(
        200,
      );
    } finally {
      await app.close();
    }
  });
});
