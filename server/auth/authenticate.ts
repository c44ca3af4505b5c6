import type { Request } from 'express';
import { AppError } from '../http/errors.js';
import type { Identity, IdentityService } from './identity.js';

/** Where a service accepts tokens from. The audio API takes Bearer only; hosting takes all three. */
export type TokenSource = 'bearer' | 'private-token-header' | 'private-token-param' | 'basic';

/** The token presented with a request, if any. */
export function presentedToken(req: Request, sources: readonly TokenSource[]): string | null {
  for (const source of sources) {
    if (source === 'bearer') {
      const header = req.get('authorization');
      const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (match?.[1]) return match[1];
    } else if (source === 'basic') {
      // git over HTTP: any user name, the token as the password (as GitLab takes personal access tokens).
      const header = req.get('authorization');
      const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
      if (match?.[1]) {
        const decoded = Buffer.from(match[1], 'base64').toString('utf8');
        const password = decoded.slice(decoded.indexOf(':') + 1);
        if (decoded.includes(':') && password !== '') return password;
      }
    } else if (source === 'private-token-header') {
      const token = req.get('private-token');
      if (token) return token.trim();
    } else {
      const q = (req.query as Record<string, unknown>).private_token;
      if (typeof q === 'string' && q !== '') return q;
    }
  }
  return null;
}

/**
 * Resolve the caller: null when no token was presented (anonymous), an Identity when it is valid,
 * and an `unauthorized` AppError (code says why) when a token was presented but refused.
 */
export function resolveIdentity(identity: IdentityService, req: Request, sources: readonly TokenSource[]): Identity | null {
  const token = presentedToken(req, sources);
  if (token === null) return null;
  const outcome = identity.authenticate(token);
  if ('identity' in outcome) return outcome.identity;
  const messages = {
    unknown: 'Invalid token',
    revoked: 'Token was revoked. You have to re-authorize from the user.',
    expired: 'Token is expired. You can either do re-authorization or token refresh.',
    blocked: 'Your account has been blocked.',
  } as const;
  if (outcome.rejected === 'blocked') throw new AppError('forbidden', messages.blocked, { code: 'blocked' });
  throw new AppError('unauthorized', messages[outcome.rejected], { code: outcome.rejected === 'unknown' ? 'unknown_token' : 'invalid_token' });
}
