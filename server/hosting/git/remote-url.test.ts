import { describe, expect, it } from 'vitest';
import { pinnedCloneArgs, scrubSecrets, splitCredentials } from './remote-url.js';

describe('splitCredentials', () => {
  it('moves user info into a Basic header, decoding percent escapes', () => {
    const c = splitCredentials(new URL('https://oauth2:t%40k%3Aen@git.example.com/g/p.git'));
    expect(c.publicUrl).toBe('https://git.example.com/g/p.git');
    expect(c.authorization).toBe(`Basic ${Buffer.from('oauth2:t@k:en').toString('base64')}`);
    expect(scrubSecrets('fatal: t@k:en and t%40k%3Aen rejected', c.secrets)).toBe('fatal: ***** and ***** rejected');
  });

  it('leaves a URL without credentials alone', () => {
    expect(splitCredentials(new URL('http://h:8080/x.git'))).toEqual({
      publicUrl: 'http://h:8080/x.git',
      authorization: null,
      secrets: [],
    });
  });

  it('scrubs user info from any URL in a message', () => {
    expect(scrubSecrets("unable to access 'https://me:pw@host/x.git/'", [])).toBe("unable to access 'https://*****@host/x.git/'");
  });
});

describe('pinnedCloneArgs', () => {
  it('pins a name to the checked address, IPv6 in brackets, and skips IP literals', () => {
    const v4 = pinnedCloneArgs({
      url: new URL('https://git.example.com/x.git'),
      host: 'git.example.com',
      port: 443,
      address: '93.184.216.34',
      family: 4,
    });
    expect(v4).toContain('http.curloptResolve=git.example.com:443:93.184.216.34');
    expect(v4).toContain('protocol.allow=never');
    expect(v4).toContain('http.followRedirects=false');
    const v6 = pinnedCloneArgs({
      url: new URL('http://git.example.com:8080/x.git'),
      host: 'git.example.com',
      port: 8080,
      address: '2606:4700::1',
      family: 6,
    });
    expect(v6).toContain('http.curloptResolve=git.example.com:8080:[2606:4700::1]');
    const literal = pinnedCloneArgs({
      url: new URL('http://127.0.0.1/x.git'),
      host: '127.0.0.1',
      port: 80,
      address: '127.0.0.1',
      family: 4,
    });
    expect(literal.some((a) => a.startsWith('http.curloptResolve'))).toBe(false);
  });
});
