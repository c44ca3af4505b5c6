import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { isPrivateAddress, outboundRequest, resolvePublicAddress, type OutboundPolicy } from './outbound.js';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['93.184.216.34', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['fd00:ec2::254', true],
    ['ff02::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::a00:1', true],
    ['2606:4700:4700::1111', false],
    ['localhost', true],
    ['not-an-ip', true],
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
const listen = (server: http.Server, host: string) =>
  new Promise<string>((r) => server.listen(0, host, () => r(`http://${host}:${(server.address() as AddressInfo).port}`)));

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
    else if (req.url === '/hang')
      return; // never answers
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
    const resolve = async (host: string) =>
      host === 'mixed.test'
        ? [
            { address: '127.0.0.1', family: 4 },
            { address: '127.0.0.2', family: 4 },
          ]
        : [{ address: '127.0.0.1', family: 4 }];
    const e = await refusal(outboundRequest(`http://mixed.test:${port}/`, {}, { ...testPolicy, resolve }));
    expect(e.options.code).toBe('private_address');
    const r = await outboundRequest(`http://public.test:${port}/host`, {}, { ...testPolicy, resolve });
    expect(await text(r)).toBe(`public.test:${port}`);
  });

  it('limits redirects, schemes and credentials, and times out', async () => {
    expect((await refusal(outboundRequest(`${pub}/loop`, {}, { allowPrivate: true, maxRedirects: 3 }))).options.code).toBe(
      'too_many_redirects',
    );
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
    expect((await refusal(resolvePublicAddress('https://user:token@git.example.test/x.git', { ...testPolicy, resolve }))).kind).toBe(
      'invalid',
    );
    const d = await resolvePublicAddress('https://user:token@git.example.test/x.git', { ...testPolicy, resolve, allowCredentials: true });
    expect(d.url.password).toBe('token');
    const bad = await refusal(resolvePublicAddress('https://user:token@', { ...testPolicy, allowCredentials: true }));
    expect(bad.message).not.toContain('token');
    for (const url of ['ext::sh -c id', 'file:///etc/passwd', 'ssh://host/x.git']) {
      expect((await refusal(resolvePublicAddress(url, { allowPrivate: true, allowCredentials: true }))).kind).toBe('invalid');
    }
  });
});

describe('IPv6 forms and IPv4 embedded in them (issue 18 item 8)', () => {
  // Expected fates from the IANA special-purpose registries and RFC 4291/6052/3056/4380, not from the code.
  it.each([
    // IPv4-compatible ::/96: what http://[::127.0.0.1]/ parses to, and the metadata service.
    '::7f00:1',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '::169.254.169.254',
    '::a00:1',
    '::c0a8:101',
    // IPv4-mapped and IPv4-translated (RFC 6145).
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:0:7f00:1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:a00:1',
    // NAT64 well-known prefix with private IPv4, and the local-use NAT64 prefix (RFC 8215) whatever it holds.
    '64:ff9b::7f00:1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::c0a8:1',
    '64:ff9b:1::7f00:1',
    '64:ff9b:1::808:808',
    '64:ff9b:1:abcd::1',
    // 6to4 embedding private IPv4 (bits 16–47).
    '2002:7f00:1::',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::1',
    '2002:c0a8:101::1',
    '2002:a00:1:1::1',
    '2002:ac10:1::1',
    // Teredo: server 127.0.0.1, or client 10.0.0.1 (inverted: f5ff:fffe).
    '2001:0:7f00:1::1',
    '2001:0:808:808::f5ff:fffe',
    '2001:0:808:808:0:0:80ff:fffe',
    // Site-local, unique-local, link-local, multicast, loopback, unspecified.
    'fec0::1',
    'feff::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'febf::1',
    'ff02::1',
    'ff0e::1',
    '::1',
    '::',
    // Documentation, discard-only, benchmarking, ORCHID(v2), IETF protocol assignments, 3fff::/20, segment routing.
    '2001:db8::1',
    '2001:db8:ffff::1',
    '100::1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '2001:1::1',
    '3fff::1',
    '5f00::1',
    // Outside 2000::/3 (not allocated for global unicast).
    '4000::1',
    'e000::1',
  ])('%s is refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '::ffff:0:808:808',
    '64:ff9b::808:808',
    '64:ff9b::1.1.1.1',
    '2002:808:808::1',
    // Teredo with public server 8.8.8.8 and public client 1.2.3.4 (inverted: fefd:fcfb).
    '2001:0:808:808::fefd:fcfb',
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
  ])('%s is allowed', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each([
    ['http://[::127.0.0.1]/', '::7f00:1'],
    ['http://[::169.254.169.254]/latest/meta-data/', '::a9fe:a9fe'],
    ['http://[::ffff:0:127.0.0.1]/', '::ffff:0:7f00:1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1'],
    ['http://[64:ff9b:1::a00:1]/', '64:ff9b:1::a00:1'],
    ['http://[2002:7f00:1::1]/', '2002:7f00:1::1'],
    ['http://[2002:a9fe:a9fe::]/', '2002:a9fe:a9fe::'],
    ['http://[fec0::1]/', 'fec0::1'],
    ['http://[2001:0:7f00:1::1]/', '2001:0:7f00:1::1'],
    ['http://[::]/', '::'],
    ['http://[::1]:8080/', '::1'],
    ['http://[fe80::1]/', 'fe80::1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://2852039166/', '169.254.169.254'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
    ['http://0251.0376.0251.0376/', '169.254.169.254'],
    ['https://012.1/', '10.0.0.1'],
  ])('%s (through the URL parser) is refused as %s', async (url, address) => {
    // No resolver is asked: a literal that is refused never reaches DNS or a socket.
    const resolve = async () => {
      throw new Error('no lookup expected');
    };
    for (const call of [
      resolvePublicAddress(url, { allowPrivate: false, resolve }),
      outboundRequest(url, { signal: AbortSignal.timeout(2000) }, { allowPrivate: false, resolve }),
    ]) {
      const e = await refusal(call);
      expect(e.options.code).toBe('private_address');
      expect(e.message).toContain(`(${address})`);
    }
  });

  it.each([
    ['http://[2606:4700:4700::1111]/', '2606:4700:4700::1111'],
    ['http://[::ffff:8.8.8.8]/', '::ffff:808:808'],
    ['http://134744072/', '8.8.8.8'],
    ['http://0x8.0x8.0x8.0x8/', '8.8.8.8'],
  ])('%s (a public literal) is allowed as %s', async (url, address) => {
    const d = await resolvePublicAddress(url, { allowPrivate: false });
    expect(d.address).toBe(address);
  });

  it('a resolver answer in any refused IPv6 form is refused too', async () => {
    for (const address of ['::7f00:1', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::1', 'fec0::1']) {
      const resolve = async () => [{ address, family: 6 }];
      const e = await refusal(resolvePublicAddress('https://rebind.example.test/', { allowPrivate: false, resolve }));
      expect(e.options.code).toBe('private_address');
    }
  });
});
