import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { isPrivateAddress, outboundRequest, resolvePublicAddress, type OutboundPolicy } from './outbound.js';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true], ['127.8.9.10', true], ['10.1.2.3', true], ['172.16.0.1', true], ['172.31.255.255', true], ['172.32.0.1', false],
    ['192.168.1.1', true], ['169.254.169.254', true], ['100.64.0.1', true], ['0.0.0.0', true], ['224.0.0.1', true], ['255.255.255.255', true],
    ['8.8.8.8', false], ['1.1.1.1', false], ['93.184.216.34', false],
    ['::1', true], ['::', true], ['fe80::1', true], ['fd00::1', true], ['fd00:ec2::254', true], ['ff02::1', true],
    ['::ffff:127.0.0.1', true], ['::ffff:7f00:1', true], ['::ffff:8.8.8.8', false], ['64:ff9b::a00:1', true], ['2606:4700:4700::1111', false],
    ['localhost', true], ['not-an-ip', true],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

/** Loopback servers that count their requests; 127.0.0.2 plays the "private" network. */
let publicServer: http.Server;
let privateServer: http.Server;
let publicHits = 0;
let privateHits = 0;
let pub = '';
let priv = '';
const listen = (server: http.Server, host: string) => new Promise<string>((r) => server.listen(0, host, () => r(`http://${host}:${(server.address() as AddressInfo).port}`)));

beforeAll(async () => {
  privateServer = http.createServer((_req, res) => {
    privateHits++;
    res.end('secret');
  });
  priv = await listen(privateServer, '127.0.0.2');
  publicServer = http.createServer((req, res) => {
    publicHits++;
    if (req.url === '/to-private') res.writeHead(302, { Location: `${priv}/` }).end();
    else if (req.url === '/loop') res.writeHead(301, { Location: '/loop' }).end();
    else if (req.url === '/hang') return; // never answers
    else if (req.url === '/host') res.end(req.headers.host);
    else res.end('hello');
  });
  pub = await listen(publicServer, '127.0.0.1');
});
afterAll(() => {
  publicServer.closeAllConnections();
  privateServer.closeAllConnections();
  publicServer.close();
  privateServer.close();
});

/** A policy under which only 127.0.0.1 counts as public. */
const testPolicy: OutboundPolicy = { allowPrivate: false, isAllowedAddress: (a) => a === '127.0.0.1' };
const text = async (r: { body: http.IncomingMessage }) => {
  let s = '';
  for await (const c of r.body) s += String(c);
  return s;
};
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected a refusal');
};

describe('outboundRequest', () => {
  it('refuses loopback by default, before any connection is made', async () => {
    const before = publicHits;
    const e = await refusal(outboundRequest(`${pub}/`, {}, { allowPrivate: false }));
    expect(e.kind).toBe('forbidden');
    expect(e.options.code).toBe('private_address');
    expect(e.message).toContain('127.0.0.1');
    expect(publicHits).toBe(before);
  });

  it('allows private addresses when configured (desktop app, tests)', async () => {
    const r = await outboundRequest(`${pub}/`, {}, { allowPrivate: true });
    expect(r.status).toBe(200);
    expect(await text(r)).toBe('hello');
  });

  it('checks every redirect hop: a public URL redirecting to a private one is refused', async () => {
    const before = privateHits;
    const e = await refusal(outboundRequest(`${pub}/to-private`, {}, testPolicy));
    expect(e.options.code).toBe('private_address');
    expect(e.message).toContain('127.0.0.2');
    expect(privateHits).toBe(before);
  });

  it('checks every address a name resolves to, and connects to the checked one', async () => {
    const port = new URL(pub).port;
    const resolve = async (host: string) => (host === 'mixed.test' ? [{ address: '127.0.0.1', family: 4 }, { address: '127.0.0.2', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const e = await refusal(outboundRequest(`http://mixed.test:${port}/`, {}, { ...testPolicy, resolve }));
    expect(e.options.code).toBe('private_address');
    const r = await outboundRequest(`http://public.test:${port}/host`, {}, { ...testPolicy, resolve });
    expect(await text(r)).toBe(`public.test:${port}`);
  });

  it('limits redirects, schemes and credentials, and times out', async () => {
    expect((await refusal(outboundRequest(`${pub}/loop`, {}, { allowPrivate: true, maxRedirects: 3 }))).options.code).toBe('too_many_redirects');
    for (const bad of ['ftp://example.com/x', 'file:///etc/passwd', 'http://user:pw@example.com/', 'not a url']) {
      expect((await refusal(outboundRequest(bad, {}, { allowPrivate: true }))).kind).toBe('invalid');
    }
    const e = await refusal(outboundRequest(`${pub}/hang`, {}, { allowPrivate: true, timeoutMs: 200 }));
    expect(e.options.code).toBe('timeout');
  });
});

describe('resolvePublicAddress', () => {
  it('returns the checked address and port without connecting, under the same rules', async () => {
    const before = publicHits;
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const d = await resolvePublicAddress('https://git.example.test/group/project.git', { ...testPolicy, resolve });
    expect(d).toMatchObject({ host: 'git.example.test', port: 443, address: '127.0.0.1', family: 4 });
    expect((await resolvePublicAddress('http://[::1]:8080/x.git', { allowPrivate: true })).host).toBe('::1');
    expect((await refusal(resolvePublicAddress(`${pub}/`, { allowPrivate: false }))).options.code).toBe('private_address');
    expect(publicHits).toBe(before);
  });

  it('allows credentials only when asked, and never repeats a URL that may carry them', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    expect((await refusal(resolvePublicAddress('https://user:token@git.example.test/x.git', { ...testPolicy, resolve }))).kind).toBe('invalid');
    const d = await resolvePublicAddress('https://user:token@git.example.test/x.git', { ...testPolicy, resolve, allowCredentials: true });
    expect(d.url.password).toBe('token');
    const bad = await refusal(resolvePublicAddress('https://user:token@', { ...testPolicy, allowCredentials: true }));
    expect(bad.message).not.toContain('token');
    for (const url of ['ext::sh -c id', 'file:///etc/passwd', 'ssh://host/x.git']) {
      expect((await refusal(resolvePublicAddress(url, { allowPrivate: true, allowCredentials: true }))).kind).toBe('invalid');
    }
  });
});
