import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './address-ranges.js';
import { AppError } from './errors.js';

/** Re-exported: the address rules live in address-ranges.ts (webhook URL checks use them too). */
export { isPrivateAddress } from './address-ranges.js';

/** Rules for one outbound call. */
export interface OutboundPolicy {
  /** Allow private and loopback destinations (the desktop app: a producer's NAS; tests). */
  readonly allowPrivate: boolean;
  readonly maxRedirects?: number;
  readonly timeoutMs?: number;
  /** Decide an address's fate; defaults to !isPrivateAddress. Injected by tests. */
  readonly isAllowedAddress?: (address: string) => boolean;
  /** Resolve a host name; defaults to the system resolver. Injected by tests. */
  readonly resolve?: (host: string) => Promise<readonly { address: string; family: number }[]>;
}

export interface OutboundRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'HEAD';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  readonly signal?: AbortSignal;
  /** Skip TLS certificate verification (a project hook with enable_ssl_verification off). */
  readonly insecureTls?: boolean;
}

/** A response whose body has not been read yet; `url` is the final URL after redirects. */
export interface OutboundResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly url: string;
  readonly redirects: readonly string[];
  readonly body: http.IncomingMessage;
}

/**
 * An HTTP(S) request that may not reach private addresses: only http and https; the host is
 * resolved here, every address it resolves to is checked, and the connection is pinned to the
 * checked address (no second lookup, so DNS rebinding cannot swap it). Redirects are followed by
 * hand, each hop checked the same way, up to `maxRedirects`. Refusals are `forbidden` AppErrors
 * whose messages say what was refused and why.
 */
export async function outboundRequest(url: string, request: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> {
  const maxRedirects = policy.maxRedirects ?? 5;
  const redirects: string[] = [];
  let current = url;
  let method = request.method ?? 'GET';
  let body = request.body;
  for (;;) {
    const target = parseTarget(current);
    const address = await checkedAddress(target.hostname, policy);
    const res = await send(
      target,
      address,
      method,
      request.headers ?? {},
      body,
      request.signal,
      policy.timeoutMs ?? 30_000,
      request.insecureTls ?? false,
    );
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.resume();
      if (redirects.length >= maxRedirects)
        throw new AppError('forbidden', `Too many redirects (more than ${maxRedirects}) starting at ${url}`, {
          code: 'too_many_redirects',
        });
      current = new URL(location, current).toString();
      redirects.push(current);
      // 303 (and, as browsers do, 301/302 after a POST) turn into a GET without a body.
      if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { status: res.statusCode ?? 0, headers: res.headers, url: current, redirects, body: res };
  }
}

/** A URL's destination after the outbound checks: where to connect, without connecting. */
export interface CheckedDestination {
  /** The parsed URL, credentials included when they were allowed. */
  readonly url: URL;
  /** The host name as the URL carries it (brackets removed from IPv6 literals). */
  readonly host: string;
  /** The port to connect to (the scheme's default when the URL names none). */
  readonly port: number;
  /** The checked address every connection must be pinned to. */
  readonly address: string;
  readonly family: number;
}

/**
 * Check a URL under the outbound rules and return the one address to connect to, for callers whose
 * connection is made by another program (git's curl) that they pin to this address themselves.
 * Unlike outboundRequest, credentials in the URL may be allowed: git imports accept
 * https://user:token@host/… as GitLab does. Messages never echo a URL that may carry credentials.
 */
export async function resolvePublicAddress(
  url: string,
  policy: OutboundPolicy & { readonly allowCredentials?: boolean },
): Promise<CheckedDestination> {
  const target = parseTarget(url, policy.allowCredentials ?? false);
  const address = await checkedAddress(target.hostname, policy);
  const port = target.port ? Number(target.port) : target.protocol === 'https:' ? 443 : 80;
  return { url: target, host: target.hostname.replace(/^\[|\]$/g, ''), port, address: address.address, family: address.family };
}

function parseTarget(raw: string, allowCredentials = false): URL {
  let target: URL;
  try {
    target = new URL(raw);
  } catch {
    // A string that may carry credentials is not repeated back.
    throw new AppError('invalid', allowCredentials ? 'Not a valid URL' : `Not a valid URL: ${raw}`, { code: 'invalid_url' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new AppError('invalid', `Only http and https URLs are allowed, not ${target.protocol.replace(':', '')}`, { code: 'invalid_url' });
  if (!allowCredentials && (target.username || target.password))
    throw new AppError('invalid', 'URLs with credentials are not allowed', { code: 'invalid_url' });
  return target;
}

async function checkedAddress(hostname: string, policy: OutboundPolicy): Promise<{ address: string; family: number }> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const resolve = policy.resolve ?? ((h: string) => dnsLookup(h, { all: true, verbatim: true }));
  let addresses: readonly { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new AppError('invalid', `The host ${host} could not be resolved`, { code: 'unresolvable' });
    }
  }
  if (addresses.length === 0) throw new AppError('invalid', `The host ${host} could not be resolved`, { code: 'unresolvable' });
  const allowed = policy.isAllowedAddress ?? ((a: string) => !isPrivateAddress(a));
  if (!policy.allowPrivate) {
    // Every address must pass: a host that also resolves privately could be steered there.
    const bad = addresses.find((a) => !allowed(a.address));
    if (bad)
      throw new AppError(
        'forbidden',
        `Refusing to connect to ${host} (${bad.address}): private, loopback, link-local and metadata addresses are not allowed`,
        { code: 'private_address' },
      );
  }
  return addresses[0]!;
}

function send(
  target: URL,
  address: { address: string; family: number },
  method: string,
  headers: Readonly<Record<string, string>>,
  body: string | Buffer | undefined,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  insecureTls: boolean,
): Promise<http.IncomingMessage> {
  // Pin the connection to the checked address; TLS still verifies the certificate for the host name.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const tls = target.protocol === 'https:' && insecureTls ? { rejectUnauthorized: false } : {};
    const req = client.request(
      target,
      { method, headers: { 'User-Agent': 'Cratehouse', ...headers }, lookup: pinned, signal, timeout: timeoutMs, ...tls },
      resolve,
    );
    req.on('timeout', () =>
      req.destroy(
        new AppError('unavailable', `No answer from ${target.host} within ${Math.round(timeoutMs / 1000)} s`, { code: 'timeout' }),
      ),
    );
    req.on('error', (e) =>
      reject(
        e instanceof AppError
          ? e
          : new AppError('unavailable', `Could not reach ${target.host}: ${e.message}`, { code: 'unreachable', cause: e }),
      ),
    );
    if (body !== undefined) req.end(body);
    else req.end();
  });
}
