import { isIP } from 'node:net';
import type { Request, RequestHandler } from 'express';
import type { ErrorPresenter } from './error-middleware.js';
import { AppError } from './errors.js';

/** A Host header that passed validation: the name (IPv6 in brackets) and the port it named, if any. */
export interface ValidHost {
  /** Lower-cased `name[:port]`, safe to put after `http://`. */
  readonly host: string;
  readonly hostname: string;
  readonly port: number | null;
}

/** 253 characters of name plus a trailing dot (RFC 1035), a colon and five digits of port. */
const maxHostLength = 254 + 6;
/** One DNS label: letters, digits, `_` (container names) and inner `-`, at most 63 characters (RFC 1035). */
const labelPattern = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * Parse a Host header as RFC 7230 §5.4 and RFC 3986 §3.2.2 define it, more strictly than
 * reg-name: an IPv4 address, a bracketed IPv6 address (no zone), or a DNS name, with an optional
 * port of 1–5 digits up to 65535. Anything else (empty, spaces, `user@`, a path, a second colon,
 * control or non-ASCII characters, a bracket left open, overlong) is null.
 */
export function parseHostHeader(value: string): ValidHost | null {
  if (value.length === 0 || value.length > maxHostLength) return null;
  const lower = value.toLowerCase();
  let hostname: string;
  let portText: string | null;
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    const inner = lower.slice(1, end);
    // isIP also takes a zone (`%eth0`), which a URL cannot carry.
    if (end < 0 || !/^[0-9a-f:.]+$/.test(inner) || isIP(inner) !== 6) return null;
    hostname = lower.slice(0, end + 1);
    const rest = lower.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return null;
    portText = rest === '' ? null : rest.slice(1);
  } else {
    const colon = lower.indexOf(':');
    if (colon !== -1 && lower.indexOf(':', colon + 1) !== -1) return null; // bare IPv6 or junk
    hostname = colon === -1 ? lower : lower.slice(0, colon);
    portText = colon === -1 ? null : lower.slice(colon + 1);
    if (!isHostName(hostname)) return null;
  }
  if (portText !== null && !(/^\d{1,5}$/.test(portText) && Number(portText) <= 65535)) return null;
  return { host: portText === null ? hostname : `${hostname}:${portText}`, hostname, port: portText === null ? null : Number(portText) };
}

function isHostName(name: string): boolean {
  if (isIP(name) === 4) return true;
  const labels = (name.endsWith('.') ? name.slice(0, -1) : name).split('.');
  if (!labels.every((label) => labelPattern.test(label))) return false;
  // A URL parser reads a name whose last label is numeric as an IPv4 address (0x7f.1, 1.2.3,
  // 010.0.0.1): only the dotted quads isIP accepted above may look like one.
  return !/^(?:\d+|0x[0-9a-f]*)$/.test(labels[labels.length - 1]!);
}

/** The error a request with an unusable Host header gets: a 400 in each API's shape. */
export function invalidHostError(header: string | undefined): AppError {
  return new AppError(
    'invalid',
    `Invalid Host header ${JSON.stringify(header ?? '')}: expected a host name or IP address with an optional port`,
    { code: 'invalid_host' },
  );
}

/**
 * Answer requests whose Host header is not a valid host with 400, before any route runs, in the
 * shape of the API the path belongs to (RFC 7230: a server MUST answer 400 to an invalid Host).
 * A request without Host (HTTP/1.0; Node refuses it for 1.1) passes: links then name the socket.
 */
export function rejectInvalidHost(presenterFor: (req: Request) => ErrorPresenter): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.host;
    if (header === undefined || parseHostHeader(header)) {
      next();
      return;
    }
    const { status, body, headers } = presenterFor(req)(invalidHostError(header), req);
    if (headers) res.set(headers);
    res.status(status).json(body);
  };
}

/**
 * The base URL links are built from: the configured public URL when set, whatever the Host says;
 * else the request's scheme and validated Host (or, without a Host, the address the socket was
 * accepted on). Never a string from an unvalidated Host: an invalid one throws the 400.
 */
export function requestBaseUrl(req: Request, publicUrl: string | null): string {
  if (publicUrl) return publicUrl;
  const header = req.headers.host;
  const host = header === undefined ? socketHost(req) : parseHostHeader(header)?.host;
  if (!host) throw invalidHostError(header);
  return `${req.protocol}://${host}`;
}

function socketHost(req: Request): string | null {
  const address = req.socket.localAddress;
  if (!address) return null;
  const name = isIP(address) === 6 ? `[${address}]` : address;
  return req.socket.localPort ? `${name}:${req.socket.localPort}` : name;
}
