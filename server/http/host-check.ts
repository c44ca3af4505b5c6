import type { NextFunction, Request, Response } from 'express';

/** Names `loopback` stands for in an allowed-hosts list. */
const loopbackNames = ['localhost', '127.0.0.1', '::1'] as const;

/** The host name of a Host header without its port and IPv6 brackets, lowercased; null when unusable. */
export function hostNameOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end > 1 ? value.slice(1, end) : null;
  }
  const colon = value.indexOf(':');
  // A second colon means a bare IPv6 address, which a Host header may not carry unbracketed.
  if (colon !== -1 && value.indexOf(':', colon + 1) !== -1) return null;
  const name = colon === -1 ? value : value.slice(0, colon);
  return name === '' ? null : name;
}

/** True when `host` (a name from hostNameOf) is allowed by the list; `loopback` covers localhost, *.localhost, 127.0.0.1 and ::1. */
export function isHostAllowed(host: string, allowed: readonly string[]): boolean {
  for (const entry of allowed) {
    const name = entry.replace(/^\[|\]$/g, '');
    if (name === 'loopback') {
      if ((loopbackNames as readonly string[]).includes(host) || host.endsWith('.localhost')) return true;
    } else if (name === host) return true;
  }
  return false;
}

/**
 * Refuse requests whose Host header names another server: a web page that rebinds its own DNS name
 * to 127.0.0.1 then reaches the local API under its own name, and this is what stops it.
 * `publicUrl`'s host is always allowed (a reverse proxy passes it on).
 */
export function createHostCheck(allowed: readonly string[], publicUrl: string | null) {
  const list = publicUrl ? [...allowed, new URL(publicUrl).hostname.toLowerCase()] : [...allowed];
  return (req: Request, res: Response, next: NextFunction): void => {
    const host = hostNameOf(req.headers.host);
    if (host !== null && isHostAllowed(host, list)) {
      next();
      return;
    }
    const message = `This server does not answer to the host name ${JSON.stringify(req.headers.host ?? '')}; use ${allowed.includes('loopback') ? 'localhost or 127.0.0.1' : 'its configured address'}.`;
    // Each API keeps its own error shape (audio: FastAPI's detail; the rest: GitLab's message).
    res.status(403).json(req.path.startsWith('/audio/') ? { detail: message } : { message: `403 Forbidden - ${message}` });
  };
}
